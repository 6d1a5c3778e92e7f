// The event stage, keyed by event type: whether the event is wanted (selection), the one member it cannot do
// without (its id, for de-duplication), and the item it becomes. EVENT_KINDS holds what differs per type.
import type { IDataObject } from 'n8n-workflow';

import type { EVENT_TYPES } from '../shared/constants';
import { describeIssues, eventIdSchema, readEventType } from '../shared/schemas';
import type { Rejection } from './rejection';

export interface EventHead {
	/** `data.id`: what de-duplication needs, the one part of the event that is validated. */
	id: string;
	/** `data.attributes.event_type` when it is a string. */
	eventType: string | undefined;
}

export type EventResult = { ok: true; event: EventHead } | { ok: false; rejection: Rejection };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
	typeof value === 'object' && value !== null && !Array.isArray(value);
const objectAt = (value: unknown): Json => (isObject(value) ? value : {});

/** Reads the event's id and type, and nothing else: the id is required, the type decides what happens. */
export function validateEvent(body: unknown, eventType = readEventType(body)): EventResult {
	const parsed = eventIdSchema.safeParse(body);
	if (!parsed.success) {
		return {
			ok: false,
			rejection: {
				status: 400,
				message: `Not a webhook event: ${describeIssues(parsed.error)} (an event needs its id, data.id).`,
			},
		};
	}
	return { ok: true, event: { id: parsed.data.data.id, eventType } };
}

/** De-duplication needs the id exactly: bytes that were not UTF-8 leave it unknown (two ids would be one). */
export function checkIdBytes(id: string, lossy: boolean): Rejection | undefined {
	return lossy && id.includes('\uFFFD')
		? {
				status: 400,
				message: 'Not a webhook event: its id (data.id) is not valid UTF-8.',
			}
		: undefined;
}

export function isSelectedEvent(
	eventType: string | undefined,
	selected: readonly string[],
): boolean {
	return eventType !== undefined && selected.includes(eventType);
}

/** Why an event is acknowledged without starting anything. */
export function ignoredBecause(eventType: string | undefined): string {
	return eventType === undefined
		? 'event type (none: data.attributes.event_type is missing) is not selected'
		: `event type ${JSON.stringify(eventType.slice(0, 100))} is not selected`;
}

export type EventStage =
	| { kind: 'ignore'; message: string }
	| { kind: 'reject'; rejection: Rejection }
	| { kind: 'wanted'; event: EventHead };

/**
 * The stage's one question, asked in its order: an unselected type is acknowledged before anything else of the
 * event is checked (refused, it would be sent again only to be ignored); then the id, whole.
 */
export function readEvent(body: unknown, lossy: boolean, selected: readonly string[]): EventStage {
	const eventType = readEventType(body);
	if (!isSelectedEvent(eventType, selected)) {
		return { kind: 'ignore', message: ignoredBecause(eventType) };
	}
	const head = validateEvent(body, eventType);
	if (!head.ok) return { kind: 'reject', rejection: head.rejection };
	const garbled = checkIdBytes(head.event.id, lossy);
	return garbled ? { kind: 'reject', rejection: garbled } : { kind: 'wanted', event: head.event };
}

// deeper values are passed by Raw Body only: n8n copies and serialises items recursively
const MAX_ITEM_DEPTH = 32;

/** The value as it came; null when missing, or when nested too deep for an item. */
function asItIs(value: unknown): unknown {
	if (value === undefined) return null;
	if (typeof value !== 'object' || value === null) return value;
	const stack: Array<[unknown, number]> = [[value, 1]];
	while (stack.length) {
		const [next, depth] = stack.pop()!;
		if (typeof next !== 'object' || next === null) continue;
		if (depth > MAX_ITEM_DEPTH) return null;
		for (const child of Object.values(next)) stack.push([child, depth + 1]);
	}
	return value;
}

const DECIMAL = /^\s*-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;

// JSON:API servers often send decimals as strings ("12.5"): they become numbers, so that $json.duration is a
// number either way (Raw Body keeps the original); any other value passes as it came
function asNumber(value: unknown): unknown {
	if (typeof value === 'string' && DECIMAL.test(value)) {
		const number = Number(value);
		if (Number.isFinite(number)) return number;
	}
	return asItIs(value);
}

const sameId = (a: unknown, b: unknown) =>
	(typeof a === 'string' || typeof a === 'number') && String(a) === String(b);

/** The transcription the event is about: the subject's resource in `included`, else the only one. */
function subjectTranscription(body: Json, subjectId: unknown): Json {
	const included = Array.isArray(body.included) ? body.included : [];
	const transcriptions = included.filter(
		(resource): resource is Json => isObject(resource) && resource.type === 'transcription',
	);
	const match =
		subjectId === undefined || subjectId === null
			? transcriptions.length === 1
				? transcriptions[0]
				: undefined
			: transcriptions.find((resource) => sameId(resource.id, subjectId));
	return objectAt(match?.attributes);
}

/** The event types the node offers (shared with the action's Create): each has an entry in EVENT_KINDS. */
export type EventType = (typeof EVENT_TYPES)[number];

/** What differs per event type: how its item is read. Validation (the id) and selection hold for every type. */
export interface EventKind {
	/** The execution's item: every field is what the event held there, or null. */
	item(body: unknown, head: EventHead): IDataObject;
}

/**
 * One item per event about a transcription, flattened for people and for expressions such as
 * {{ $json.files.vtt }}. `files` maps each caption format to its URL as it came.
 */
function transcriptionItem(body: unknown, head: EventHead): IDataObject {
	const root = objectAt(body);
	const data = objectAt(root.data);
	const subjectId = objectAt(objectAt(objectAt(data.relationships).subject).data).id;
	const attributes = subjectTranscription(root, subjectId);
	const fileList = Array.isArray(attributes.transcriptions) ? attributes.transcriptions : [];
	// fromEntries defines each format as an own property, "__proto__" included
	const files = Object.fromEntries(
		fileList
			.filter((file): file is Json => isObject(file) && typeof file.format === 'string')
			.filter((file) => file.format !== '')
			.map((file) => [file.format as string, asItIs(file.url)]),
	) as IDataObject;
	return {
		eventId: head.id,
		eventType: head.eventType ?? null,
		createdAt: asItIs(objectAt(data.attributes).created_at),
		transcriptionId: asItIs(subjectId),
		title: asItIs(attributes.title),
		duration: asNumber(attributes.duration),
		averageConfidence: asNumber(attributes.average_confidence),
		mediaUrl: asItIs(objectAt(attributes.media).url),
		files,
		formats: Object.keys(files),
	} as IDataObject;
}

const TRANSCRIPTION_EVENT: EventKind = { item: transcriptionItem };

/** A new event type is one entry here (and its name and option in shared/constants.ts, which tsc holds to this). */
export const EVENT_KINDS: Readonly<Record<EventType, EventKind>> = {
	'transcription.created': TRANSCRIPTION_EVENT,
	'transcription.transcribed': TRANSCRIPTION_EVENT,
};

/** The event's kind; a type the node does not offer (selected only by hand in the workflow's JSON) reads as a transcription event. */
function kindOf(eventType: string | undefined): EventKind {
	return eventType !== undefined && Object.hasOwn(EVENT_KINDS, eventType)
		? EVENT_KINDS[eventType as EventType]
		: TRANSCRIPTION_EVENT;
}

/** One item per event, read as its type's entry in EVENT_KINDS says. */
export function flattenEvent(body: unknown, head: EventHead): IDataObject {
	return kindOf(head.eventType).item(body, head);
}

export interface Download {
	format: string;
	url: string;
}

export interface DownloadPlan {
	downloads: Download[];
	/** Selected files that are there but cannot be downloaded, with the reason. */
	errors: Array<{ format: string; message: string }>;
}

/** The selected formats the event has files for; a file whose address is not an http(s) URL is not fetched. */
export function planDownloads(files: IDataObject, formats: readonly string[]): DownloadPlan {
	const plan: DownloadPlan = { downloads: [], errors: [] };
	for (const format of formats) {
		if (!Object.hasOwn(files, format)) continue;
		const url = files[format];
		if (typeof url === 'string' && isHttpUrl(url)) {
			plan.downloads.push({ format, url });
		} else {
			plan.errors.push({
				format,
				message: `The ${format} file was not downloaded: its address in the event is not an http(s) URL.`,
			});
		}
	}
	return plan;
}

function isHttpUrl(text: string): boolean {
	try {
		const { protocol } = new URL(text);
		return protocol === 'http:' || protocol === 'https:';
	} catch {
		return false;
	}
}
