// The event stage, keyed by event type: whether the event is wanted (selection), the one member it cannot do
// without (its id, for de-duplication), and the item it becomes. EVENT_KINDS holds what differs per type.
import type { IDataObject } from 'n8n-workflow';

import type { EVENT_TYPES } from '../shared/constants';
import {
	describeIssues,
	eventIdSchema,
	isObject,
	memberOf,
	readEventType,
	readId,
	readText,
	sameResourceType,
} from '../shared/schemas';
import type { Rejection } from './rejection';

export interface EventHead {
	/** `data.id`: what de-duplication needs, the one part of the event that is validated. */
	id: string;
	/** `data.attributes.event_type` when it is a string. */
	eventType: string | undefined;
}

export type EventResult = { ok: true; event: EventHead } | { ok: false; rejection: Rejection };

type Json = Record<string, unknown>;

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
// number either way (Raw Body keeps the original); undefined for anything else
function readNumber(value: unknown): number | undefined {
	if (typeof value === 'number') return value;
	if (typeof value !== 'string' || !DECIMAL.test(value)) return undefined;
	const number = Number(value);
	return Number.isFinite(number) ? number : undefined;
}

/** What a member held, in the words of a warning. */
function described(value: unknown): string {
	if (value === undefined) return 'missing';
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return value.trim() === '' ? 'empty' : 'text';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const quoted = (text: string) => JSON.stringify(text.slice(0, 100));

/** The resource type of the transcription an event is about, when its subject does not name one. */
const TRANSCRIPTION_TYPE = 'transcription';
const EMPTY = 'title, duration and files are empty';

export interface Subject {
	/** The subject's resource in `included`, and where it is (`included[2]`), when found. */
	resource?: Json;
	at?: string;
	/** The subject's id: the event's reference, else the id of the resource read for it. */
	id?: string;
	warnings: string[];
}

type Included = Array<{ resource: Json; at: string }>;

/** Without a subject id: the only resource of the subject's type, when there is exactly one. */
function onlyOfType(resources: Included, type: string, idValue: unknown): Subject {
	const only = resources.filter(({ resource }) => sameResourceType(resource.type, type));
	const said = `The event names no subject (data.relationships.subject.data.id is ${described(idValue)})`;
	if (only.length !== 1) {
		return {
			warnings: [
				`${said} and included holds ${only.length} resources of type ${quoted(type)}: ${EMPTY}.`,
			],
		};
	}
	const id = readId(only[0].resource.id);
	return {
		...only[0],
		id,
		warnings: [`${said}: the only transcription in included (${only[0].at}) was read.`],
	};
}

/** The resource with the subject's id: of its type, else of none; one of another type is not it. */
function byIdAndType(resources: Included, refId: string, type: string): Subject {
	const byId = resources.filter(({ resource }) => readId(resource.id) === refId);
	const id = quoted(refId);
	const sameType = byId.filter(({ resource }) => sameResourceType(resource.type, type));
	const untyped = byId.filter(({ resource }) => readText(resource.type) === undefined);
	const first = (list: Included, said: string) => ({
		...list[0],
		id: refId,
		warnings: list.length > 1 ? [`${said}: the first (${list[0].at}) was read.`] : [],
	});
	if (sameType.length) {
		return first(sameType, `included holds ${sameType.length} transcriptions with the id ${id}`);
	}
	if (untyped.length) {
		return first(
			untyped,
			`included holds ${untyped.length} resources with the transcription's id ${id} and no type`,
		);
	}
	// ids are unique per type only (JSON:API): a media resource under the transcription's id is not it
	const others = byId.map(
		({ at, resource }) => `${at} is of type ${quoted(String(resource.type))}`,
	);
	const why = others.length ? ` (${others.join(', ')})` : '';
	return {
		id: refId,
		warnings: [
			`The event's transcription (id ${id}) is not among its included resources${why}: ${EMPTY}. Raw Body shows the event as it came.`,
		],
	};
}

/**
 * The transcription the event is about: the `included` resource with the subject's id and type, or with that id
 * and no type; without a subject id, the only one of its type. Anything less is said in `warnings` (docs/design.md,
 * "A delivery's subject").
 */
export function findSubject(body: unknown): Subject {
	const ref = memberOf(
		memberOf(memberOf(memberOf(body, 'data'), 'relationships'), 'subject'),
		'data',
	);
	const refId = readId(memberOf(ref, 'id'));
	const type = readText(memberOf(ref, 'type')) ?? TRANSCRIPTION_TYPE;
	const included = memberOf(body, 'included');
	if (!Array.isArray(included)) {
		return {
			id: refId,
			warnings: [
				`The event has no included resources (included is ${described(included)}): ${EMPTY}.`,
			],
		};
	}
	const resources = included
		.map((resource: unknown, index) => ({ resource, at: `included[${index}]` }))
		.filter((entry): entry is { resource: Json; at: string } => isObject(entry.resource));
	return refId === undefined
		? onlyOfType(resources, type, memberOf(ref, 'id'))
		: byIdAndType(resources, refId, type);
}

/** The members of the subject the item promises, each with a warning when it is not what it should be. */
function readTranscription(subject: Subject) {
	const warnings = [...subject.warnings];
	const attributes = memberOf(subject.resource, 'attributes');
	if (subject.resource && !isObject(attributes)) {
		warnings.push(
			`The transcription (${subject.at}) has no attributes (${described(attributes)}): ${EMPTY}.`,
		);
	}
	const read = isObject(attributes) ? attributes : {};
	const at = (member: string) => `${subject.at}.attributes.${member}`;
	const check = (member: string, value: unknown, usable: boolean, optional = false) => {
		if (!isObject(attributes) || usable || (optional && (value === undefined || value === null)))
			return;
		const outcome =
			value === undefined || value === null ? 'it is null' : 'it is passed as it came';
		warnings.push(
			`The transcription's ${member} (${at(member)}) is ${described(value)}: ${outcome}.`,
		);
	};
	const title = read.title;
	check('title', title, typeof title === 'string');
	const duration = readNumber(read.duration);
	check('duration', read.duration, duration !== undefined);
	const confidence = readNumber(read.average_confidence);
	check('average_confidence', read.average_confidence, confidence !== undefined, true);
	return {
		title: asItIs(title),
		duration: duration ?? asItIs(read.duration),
		averageConfidence: confidence ?? asItIs(read.average_confidence),
		mediaUrl: asItIs(memberOf(read.media, 'url')),
		files: isObject(attributes)
			? readFiles(read.transcriptions, at('transcriptions'), warnings)
			: {},
		warnings,
	};
}

/** `files`: each caption format to its first URL as it came; entries that cannot be keyed are left out, and said. */
function readFiles(list: unknown, at: string, warnings: string[]): IDataObject {
	if (!Array.isArray(list)) {
		warnings.push(`The transcription's files (${at}) are ${described(list)}: files is empty.`);
		return {};
	}
	const files: IDataObject = {};
	list.forEach((file: unknown, index) => {
		const format = readText(memberOf(file, 'format'));
		if (format === undefined) {
			warnings.push(
				`File ${index + 1} of the transcription (${at}[${index}]) has no format: it is left out of files.`,
			);
			return;
		}
		const url = memberOf(file, 'url');
		if (Object.hasOwn(files, format)) {
			// files holds one URL per format: a second file of it is said unless it is the same file
			if (JSON.stringify(asItIs(url)) !== JSON.stringify(files[format])) {
				warnings.push(
					`File ${index + 1} of the transcription (${at}[${index}]) is another ${format} file: files.${format} is the first one's URL.`,
				);
			}
			return;
		}
		if (typeof url !== 'string') {
			const outcome = url === undefined || url === null ? 'null' : 'passed as it came';
			warnings.push(
				`The ${format} file's url (${at}[${index}].url) is ${described(url)}: files.${format} is ${outcome}.`,
			);
		}
		// defineProperty: a format named "__proto__" is an ordinary key
		Object.defineProperty(files, format, {
			value: asItIs(url),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	});
	return files;
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
 * {{ $json.files.vtt }}. `files` maps each caption format to its URL as it came; `warnings`, present only when
 * there is something to say, names each promised member the event did not give as it should (A14).
 */
function transcriptionItem(body: unknown, head: EventHead): IDataObject {
	const data = memberOf(body, 'data');
	const subject = findSubject(body);
	const { warnings, ...transcription } = readTranscription(subject);
	return {
		eventId: head.id,
		eventType: head.eventType ?? null,
		createdAt: asItIs(memberOf(memberOf(data, 'attributes'), 'created_at')),
		transcriptionId: subject.id ?? null,
		...transcription,
		formats: Object.keys(transcription.files),
		...(warnings.length ? { warnings } : {}),
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
	/** The transcription's title, which the file is named after (the item may be the raw body). */
	title?: unknown;
}

export interface DownloadPlan {
	downloads: Download[];
	/** Selected files that are there but cannot be downloaded, with the reason. */
	errors: Array<{ format: string; message: string }>;
}

/** The selected formats the event has files for; a file whose address is not an http(s) URL is not fetched. */
export function planDownloads(
	files: IDataObject,
	formats: readonly string[],
	title?: unknown,
): DownloadPlan {
	const plan: DownloadPlan = { downloads: [], errors: [] };
	for (const format of formats) {
		if (!Object.hasOwn(files, format)) continue;
		const url = files[format];
		if (typeof url === 'string' && isHttpUrl(url)) {
			plan.downloads.push({ format, url, ...(title === undefined ? {} : { title }) });
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
