// Every answer of the service, read by need: one small parser per answer shape takes the members the code uses
// and nothing else, from the readers below (docs/design.md, "Answers are read by need"). The webhook-endpoint
// shapes are read the same way in transport/webhookEndpoints.ts, the token answer in tokens/answer.ts.
import { z } from 'zod';

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** A member's value when it is the object's own (never one of Object's prototype); else undefined. */
export function memberOf(value: unknown, name: string): unknown {
	return isObject(value) && Object.hasOwn(value, name) ? value[name] : undefined;
}

/** Text: a string with more than white space in it. */
export function readText(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

const DECIMAL = /^\s*(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;

/** A count (seconds, requests): a finite number from 0, or a string that spells one (`"7200"`, `" 12.5 "`). */
export function readCount(value: unknown): number | undefined {
	const number =
		typeof value === 'number'
			? value
			: typeof value === 'string' && DECIMAL.test(value)
				? Number(value)
				: Number.NaN;
	return Number.isFinite(number) && number >= 0 ? number : undefined;
}

/**
 * An id, exactly as the service wrote it: JSON:API's string as it is (never re-parsed: "007" stays "007"), or
 * the integer of a service that numbers its records, in its digits. An integer beyond 2^53 has been rounded by
 * JSON.parse before anyone reads it: it is no id (isInexactInteger says why).
 */
export function readId(value: unknown): string | undefined {
	if (typeof value === 'string') return value.length > 0 ? value : undefined;
	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
		? String(value)
		: undefined;
}

/** A JSON integer beyond 2^53: the number JSON.parse gave is a rounding of the one the service wrote. */
export function isInexactInteger(value: unknown): boolean {
	return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
}

// A JSON:API resource type, as servers spell it: `webhook_event`, `webhook-events`, `webhookEvents`,
// `Transcription`, `TRANSCRIPTIONS` (Rails' jsonapi-resources pluralises and dasherises; others capitalise)
function typeWords(type: string): string[] {
	return type
		.trim()
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.split(/[\s_.-]+/)
		.filter(Boolean)
		.map((word) => word.toLowerCase());
}

/** One word, or its English plural (-s, -es, -y to -ies). */
function sameNoun(a: string, b: string): boolean {
	const [one, other] = a.length <= b.length ? [a, b] : [b, a];
	return (
		other === one ||
		other === `${one}s` ||
		other === `${one}es` ||
		(one.endsWith('y') && other === `${one.slice(0, -1)}ies`)
	);
}

/**
 * Whether `value` names the resource type `type`: case, word separators (snake, kebab, camel) and a plural
 * ending set aside. The one rule wherever the nodes compare a JSON:API type or a member named after one.
 */
export function sameResourceType(value: unknown, type: string): boolean {
	if (typeof value !== 'string') return false;
	const words = typeWords(value);
	const wanted = typeWords(type);
	const last = words.length - 1;
	return (
		words.length > 0 &&
		words.length === wanted.length &&
		words.every((word, i) => (i < last ? word === wanted[i] : sameNoun(word, wanted[i])))
	);
}

/**
 * The record an answer holds: its `data` member (JSON:API), else a member named after the resource (a Rails
 * serializer's root key: `{"webhook_endpoint": {…}}`), else the answer itself; unwrapped at most three times.
 */
export function recordIn(body: unknown, type: string): unknown {
	let value = body;
	for (let depth = 0; depth < 3 && isObject(value); depth++) {
		const record = value;
		const key = isObject(memberOf(record, 'data'))
			? 'data'
			: Object.keys(record).find((name) => sameResourceType(name, type) && isObject(record[name]));
		if (key === undefined) break;
		value = record[key];
	}
	return value;
}

// a JSON string (its digits are text) or number token, as JSON.parse reads them
const JSON_TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const LONG_INTEGER = /^\d{16,}$/;

/**
 * Whether JSON text may hold an integer beyond 2^53: 16 digits in a row that do not follow a digit or a point (a
 * number token starts after `[`, `,`, `:` or a space; a fraction's digits, as in a confidence of
 * 0.9016920214690353, follow its point). Strings may match too; JSON.parse alone reads any other text as
 * parseJsonText does.
 */
export const mayHoldLongInteger = (text: string): boolean => /(?<![\d.])\d{16}/.test(text);

/**
 * JSON text, parsed, with every non-negative integer beyond 2^53 kept as its digits (a string): a JavaScript
 * number would round it, and an id (a Rails bigint, a snowflake) would become another id. Throws as JSON.parse.
 */
export function parseJsonText(text: string): unknown {
	const value: unknown = JSON.parse(text);
	if (!mayHoldLongInteger(text)) return value;
	// the text is JSON: every number token is a value, never a name, so quoting one keeps the text JSON
	return JSON.parse(
		text.replace(JSON_TOKEN, (token) =>
			LONG_INTEGER.test(token) && BigInt(token) > BigInt(Number.MAX_SAFE_INTEGER)
				? `"${token}"`
				: token,
		),
	);
}

/** A body n8n left as text (a JSON answer sent under another content type) is parsed; empty means none. */
export function parseBody(body: unknown): unknown {
	if (typeof body !== 'string') return body ?? undefined;
	if (body.trim() === '') return undefined;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

// ---- API errors (A5) -------------------------------------------------------------------------------------------

/**
 * The service's own words in an error body (a JSON value, or its text): each JSON:API error's `detail`, else its
 * `title`; without `errors`, an RFC 9457 problem's. Nothing else of the body: it may echo the request.
 */
export function readErrorWords(body: unknown): string | undefined {
	const document = typeof body === 'string' ? parseBody(body) : body;
	if (!isObject(document)) return undefined;
	const errors = memberOf(document, 'errors');
	const list = Array.isArray(errors) ? errors : isObject(errors) ? [errors] : [document];
	const words = list
		.map((e) => readText(memberOf(e, 'detail')) ?? readText(memberOf(e, 'title')))
		.filter((text): text is string => text !== undefined);
	return words.length ? words.join('; ') : undefined;
}

// ---- rate-limit headers (A18) ------------------------------------------------------------------------------------

export type Headers = Record<string, string | string[] | undefined>;

/** Every value of a header, whatever the case of its name: a list for one given on several lines. */
export function headerValues(headers: Headers | undefined, name: string): string[] {
	if (!headers) return [];
	const wanted = name.toLowerCase();
	const values = Object.keys(headers)
		.filter((k) => k.toLowerCase() === wanted)
		.flatMap((k) => headers[k] ?? []);
	return values.map(String);
}

/** A header's first value, whatever the case of its name. */
export function headerValue(headers: Headers | undefined, name: string): string | undefined {
	return headerValues(headers, name)[0];
}

const DELTA_SECONDS = /^\s*\d+\s*$/;
// asctime-date names no zone: HTTP dates are all GMT (RFC 9110 5.6.7), whatever zone n8n runs in
const ASCTIME = /^\s*[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}\s*$/;

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date (RFC 9110 10.2.3); else none. */
export function readRetryAfter(value: string | undefined, now: number): number | undefined {
	if (value === undefined || value.trim() === '') return undefined;
	if (DELTA_SECONDS.test(value)) return Number(value) * 1000;
	const date = Date.parse(ASCTIME.test(value) ? `${value.trim()} GMT` : value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

// X-RateLimit-Reset is written three ways in the wild: epoch seconds (GitHub), epoch milliseconds, and seconds
// from now (the IETF draft's RateLimit-Reset); magnitudes tell them apart for any date after 2001
const EPOCH_MS_FROM = 1e12;
const EPOCH_S_FROM = 1e9;

/** When the window reopens (epoch milliseconds), from X-RateLimit-Reset in any of its three spellings. */
export function readResetAt(value: string | undefined, now: number): number | undefined {
	const reset = readCount(value);
	if (reset === undefined) return undefined;
	if (reset >= EPOCH_MS_FROM) return reset;
	if (reset >= EPOCH_S_FROM) return reset * 1000;
	return now + reset * 1000;
}

/** The window the service announced: X-RateLimit-Remaining and X-RateLimit-Reset, both needed. */
export function readAnnouncement(
	headers: Headers,
	now: number,
): { remaining: number; resetAtMs: number } | undefined {
	const remaining = readCount(headerValue(headers, 'x-ratelimit-remaining'));
	const resetAtMs = readResetAt(headerValue(headers, 'x-ratelimit-reset'), now);
	return remaining === undefined || resetAtMs === undefined ? undefined : { remaining, resetAtMs };
}

// ---- deliveries (contract 2.3) -----------------------------------------------------------------------------------

/** Longer ids are not the service's: the per-process memory of started events keeps 10,000 of them. */
const MAX_EVENT_ID_LENGTH = 200;

/** `data.attributes.event_type` when it is a string: it decides whether the event is wanted at all. */
export function readEventType(body: unknown): string | undefined {
	const type = memberOf(memberOf(memberOf(body, 'data'), 'attributes'), 'event_type');
	return typeof type === 'string' ? type : undefined;
}

/**
 * `data.id`, the one member a wanted delivery cannot do without (de-duplication): a string, or an exact integer
 * (a service that numbers its events), both the same string id.
 */
export const eventIdSchema = z.object({
	data: z.object({
		id: z.preprocess(
			(id) => (typeof id === 'number' && readId(id) !== undefined ? String(id) : id),
			z.string().min(1).max(MAX_EVENT_ID_LENGTH),
		),
	}),
});

/** Turns zod issues into one line that names the paths, never the values (which may be secrets). */
export function describeIssues(error: z.ZodError, limit = 5): string {
	const parts = error.issues.slice(0, limit).map((issue) => {
		const path = issue.path.length ? issue.path.join('.') : '(root)';
		return `${path}: ${issue.message}`;
	});
	const more = error.issues.length > limit ? ` (+${error.issues.length - limit} more)` : '';
	return parts.join('; ') + more;
}
