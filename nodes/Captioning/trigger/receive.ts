// What the receiving side reads from a delivery, as pure functions: the token check, the body, the event's id
// and type, and the output item. Only what is hostile is refused (no token, a body that is not JSON or cannot
// be read, no event id): the service retries a refused delivery five times and then drops the event for good,
// so everything else passes through as it came. trigger/pipeline.ts puts these together.
import type { IDataObject } from 'n8n-workflow';

import { describeIssues, eventIdSchema, readEventType } from '../shared/schemas';
import { hashToken, sameHash } from './registration';

export type Rejection = { status: 400 | 401 | 409 | 413 | 415; message: string };

/**
 * The hash of the token a request must carry: the registration's, the manual one's, or none (`undefined`).
 */
export function requiredToken(
	registration: unknown,
	manualToken: unknown,
	registeredTokenHash: string | undefined,
): { expectedHash: string | undefined } | undefined {
	if (registration !== 'manual') return { expectedHash: registeredTokenHash };
	return typeof manualToken === 'string' && manualToken !== ''
		? { expectedHash: hashToken(manualToken) }
		: undefined;
}

/** The request's token once verified (it is then the registered one), or why the request is refused. */
export type TokenCheck = { ok: true; token: string } | { ok: false; rejection: Rejection };

/** Compares the hash of the request's token with the registered hash in constant time. */
export function checkToken(expectedHash: string | undefined, given: unknown): TokenCheck {
	if (!expectedHash) {
		return {
			ok: false,
			rejection: {
				status: 401,
				message:
					'This trigger has no registration with the service: deactivate and activate the workflow to register it again.',
			},
		};
	}
	const value = Array.isArray(given) ? given[0] : given;
	if (typeof value !== 'string' || value.length === 0) {
		return {
			ok: false,
			rejection: {
				status: 401,
				message: 'The request has no token: it was not sent by the registered endpoint.',
			},
		};
	}
	if (!sameHash(hashToken(value), expectedHash)) {
		return {
			ok: false,
			rejection: { status: 401, message: 'The token does not match this trigger’s registration.' },
		};
	}
	return { ok: true, token: value };
}

// bytes that are not UTF-8 become U+FFFD, as in n8n's own parser: a stray Latin-1 byte in a title must not
// cost the event. ignoreBOM keeps a BOM in the text, so that exactly one is stripped below.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type BodyResult =
	| {
			ok: true;
			body: unknown;
			/** Some bytes were not UTF-8 and became U+FFFD: values with U+FFFD may have been others. */
			lossy: boolean;
	  }
	| { ok: false; rejection: Rejection };

/**
 * The body's bytes, or why there are none: `too-large` beyond n8n's limit (N8N_PAYLOAD_SIZE_MAX), undefined
 * when the body could not be read at all (an aborted stream, or n8n has already parsed multipart/form-data).
 */
export type RawBody = Buffer | 'too-large' | undefined;

/** Reads the delivery's JSON from the raw bytes, whatever the content type says. */
export function readDeliveryBody(contentType: string | undefined, raw: RawBody): BodyResult {
	if (raw === 'too-large') {
		return {
			ok: false,
			rejection: {
				status: 413,
				message:
					"The body is larger than n8n accepts (N8N_PAYLOAD_SIZE_MAX, 16 MiB unless set): raise N8N_PAYLOAD_SIZE_MAX in n8n's environment to receive events this large.",
			},
		};
	}
	if (raw === undefined) {
		return {
			ok: false,
			rejection: {
				status: 415,
				message: `The request body could not be read (Content-Type "${(contentType ?? 'none').slice(0, 100)}"): the service must send the event as JSON.`,
			},
		};
	}
	if (raw.length === 0) {
		return {
			ok: false,
			rejection: { status: 400, message: 'The body is empty; expected a webhook event (JSON).' },
		};
	}
	let text: string;
	let lossy = false;
	try {
		text = strictUtf8.decode(raw);
	} catch {
		text = utf8.decode(raw);
		lossy = true;
	}
	try {
		return { ok: true, body: JSON.parse(text.replace(/^\uFEFF/, '')), lossy };
	} catch (error) {
		return {
			ok: false,
			rejection: {
				status: 400,
				message: `The body is not valid JSON (${String((error as Error).message).slice(0, 120)}).`,
			},
		};
	}
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
export function validateEvent(body: unknown): EventResult {
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
	return { ok: true, event: { id: parsed.data.data.id, eventType: readEventType(body) } };
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

/**
 * One item per event, flattened for people and for expressions such as {{ $json.files.vtt }}. Every field is
 * what the event held there, or null; `files` maps each caption format to its URL as it came.
 */
export function flattenEvent(body: unknown, head: EventHead): IDataObject {
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

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text without the secret: a query parameter carrying it goes entirely, any other occurrence is masked. */
export function withoutSecret(text: string, secret: string): string {
	let out = text;
	for (const form of new Set([secret, encodeURIComponent(secret)])) {
		if (!out.includes(form)) continue;
		const parameter = new RegExp(`([?&])[^=&#?\\s]*=${escapeRegExp(form)}(?=[&#\\s"']|$)(&?)`, 'g');
		// "?token=T&a=1" → "?a=1", "?token=T" → "", "a=1&token=T&b=2" → "a=1&b=2", "a=1&token=T" → "a=1"
		out = out.replace(parameter, (_match, separator: string, next: string) =>
			next ? separator : '',
		);
		out = out.split(form).join('[redacted]');
	}
	return out;
}

/** Member names carry text from the body too (e.g. `files` is keyed by format): the token leaves them as well. */
function renameSecretKeys(container: Record<string, unknown>, secret: string): void {
	for (const key of Object.keys(container)) {
		if (!key.includes(secret) && !key.includes(encodeURIComponent(secret))) continue;
		let renamed = withoutSecret(key, secret);
		// never overwrite a member the body already has under the cleaned name
		while (Object.prototype.hasOwnProperty.call(container, renamed)) renamed += '_';
		container[renamed] = container[key];
		delete container[key];
	}
}

/**
 * Removes the callback token from every string and member name of an output value, in place, iteratively (a body may be
 * nested deeper than the stack allows). `data.attributes.uri` carries it in every delivery.
 */
export function removeSecret<T>(value: T, secret: string | undefined): T {
	if (!secret) return value;
	if (typeof value === 'string') return withoutSecret(value, secret) as T;
	const stack: unknown[] = [value];
	while (stack.length) {
		const next = stack.pop();
		if (typeof next !== 'object' || next === null) continue;
		const container = next as Record<string, unknown>;
		if (!Array.isArray(container)) renameSecretKeys(container, secret);
		for (const key of Object.keys(container)) {
			const child = container[key];
			if (typeof child === 'string') {
				if (child.includes(secret) || child.includes(encodeURIComponent(secret))) {
					container[key] = withoutSecret(child, secret);
				}
			} else if (typeof child === 'object' && child !== null) {
				stack.push(child);
			}
		}
	}
	return value;
}
