// Everything the receiving side decides, as pure functions: the token check, reading and validating the body,
// the event filter, de-duplication and the output item. CaptioningTrigger.webhook() only wires them together.
import { timingSafeEqual } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import {
	describeIssues,
	transcriptionResourceSchema,
	webhookEventSchema,
	type WebhookEvent,
} from '../shared/schemas';

export type Rejection = { status: 400 | 401 | 415; message: string };

/** Compares the callback URI's token with the registered one in constant time. */
export function checkToken(expected: string | undefined, given: unknown): Rejection | undefined {
	if (!expected) {
		return {
			status: 401,
			message:
				'This trigger has no registration with the service: deactivate and activate the workflow to register it again.',
		};
	}
	const value = Array.isArray(given) ? given[0] : given;
	if (typeof value !== 'string' || value.length === 0) {
		return {
			status: 401,
			message: 'The request has no token: it was not sent by the registered endpoint.',
		};
	}
	const a = Buffer.from(value);
	const b = Buffer.from(expected);
	if (a.length !== b.length || !timingSafeEqual(a, b)) {
		return { status: 401, message: 'The token does not match this trigger’s registration.' };
	}
	return undefined;
}

/** `application/json` and JSON:API's `application/vnd.api+json`, or any other `+json` type. */
export function isJsonContentType(contentType: string | undefined): boolean {
	const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
	return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

// ignoreBOM keeps a leading BOM in the text: the decoder would otherwise drop one silently, and with the
// replace below a body with two BOMs would pass, which neither JSON nor n8n's own parser accept
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type BodyResult = { ok: true; body: unknown } | { ok: false; rejection: Rejection };

/** Reads the delivery's JSON from the raw bytes (n8n parses only application/json itself). */
export function readDeliveryBody(
	contentType: string | undefined,
	raw: Buffer | undefined,
): BodyResult {
	if (!isJsonContentType(contentType)) {
		return {
			ok: false,
			rejection: {
				status: 415,
				message: `Expected a JSON body (application/json or application/vnd.api+json), got "${(contentType ?? 'none').slice(0, 100)}".`,
			},
		};
	}
	if (!raw || raw.length === 0) {
		return {
			ok: false,
			rejection: { status: 400, message: 'The body is empty; expected a webhook event.' },
		};
	}
	let text: string;
	try {
		text = utf8.decode(raw);
	} catch {
		return { ok: false, rejection: { status: 400, message: 'The body is not valid UTF-8.' } };
	}
	try {
		return { ok: true, body: JSON.parse(text.replace(/^\uFEFF/, '')) };
	} catch (error) {
		return {
			ok: false,
			rejection: {
				status: 400,
				message: `The body is not valid JSON (${(error as Error).message.slice(0, 120)}).`,
			},
		};
	}
}

export type EventResult = { ok: true; event: WebhookEvent } | { ok: false; rejection: Rejection };

/** Contract 2.3/2.4; transcriptions in `included` are checked too, other resources pass as they are. */
export function validateEvent(body: unknown): EventResult {
	const parsed = webhookEventSchema.safeParse(body);
	if (!parsed.success) {
		return {
			ok: false,
			rejection: { status: 400, message: `Not a webhook event: ${describeIssues(parsed.error)}.` },
		};
	}
	for (const [index, resource] of parsed.data.included.entries()) {
		if (resource.type !== 'transcription') continue;
		const transcription = transcriptionResourceSchema.safeParse(resource);
		if (!transcription.success) {
			const issues = describeIssues(transcription.error).replace(/^/, `included.${index}.`);
			return { ok: false, rejection: { status: 400, message: `Not a webhook event: ${issues}.` } };
		}
	}
	return { ok: true, event: parsed.data };
}

export function isSelectedEvent(eventType: string, selected: readonly string[]): boolean {
	return selected.includes(eventType);
}

/** Recent event ids with the time first seen (epoch s), oldest first; kept in the node's static data. */
export type SeenEvents = Array<[id: string, seenAt: number]>;

export const DEDUPE_LIMIT = 1000;
// the service redelivers at most 5 times; a day is far beyond any retry schedule
export const DEDUPE_TTL_SECONDS = 24 * 60 * 60;

/**
 * Records an event id. Returns whether it was seen before, and the new bounded list (expired ids dropped,
 * at most DEDUPE_LIMIT kept).
 */
export function rememberEvent(
	seen: unknown,
	id: string,
	nowSeconds: number,
	limit = DEDUPE_LIMIT,
): { duplicate: boolean; seen: SeenEvents } {
	const list = (Array.isArray(seen) ? seen : []).filter(
		(entry): entry is [string, number] =>
			Array.isArray(entry) &&
			typeof entry[0] === 'string' &&
			typeof entry[1] === 'number' &&
			nowSeconds - entry[1] < DEDUPE_TTL_SECONDS,
	);
	if (list.some(([known]) => known === id)) return { duplicate: true, seen: list };
	list.push([id, nowSeconds]);
	return { duplicate: false, seen: list.slice(-limit) };
}

/** The transcription the event is about, from `included`. */
export function subjectTranscription(event: WebhookEvent) {
	const subject = event.data.relationships.subject.data;
	const resource = event.included.find((r) => r.id === subject.id && r.type === 'transcription');
	const parsed = resource ? transcriptionResourceSchema.safeParse(resource) : undefined;
	return parsed?.success ? parsed.data : undefined;
}

/** One item per event, flattened for people and for expressions such as {{ $json.files.vtt }}. */
export function flattenEvent(event: WebhookEvent): IDataObject {
	const transcription = subjectTranscription(event);
	const attributes = transcription?.attributes;
	const files: IDataObject = {};
	for (const file of attributes?.transcriptions ?? []) files[file.format] = file.url;
	return {
		eventId: event.data.id,
		eventType: event.data.attributes.event_type,
		createdAt: event.data.attributes.created_at,
		transcriptionId: event.data.relationships.subject.data.id,
		title: attributes?.title ?? null,
		duration: attributes?.duration ?? null,
		averageConfidence: attributes?.average_confidence ?? null,
		mediaUrl: attributes?.media?.url ?? null,
		files,
		formats: Object.keys(files),
	};
}
