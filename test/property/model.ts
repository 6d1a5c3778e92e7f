// The value oracle's model: what the nodes must output for the values a service sent, written from the contract
// (docs/captioning-api.md), RFC 6749, RFC 8288 and RFC 9110, and ASSUMPTIONS.md's readings of what the contract
// leaves open, never from the readers: nothing here imports the package. Each rule takes the values as generated
// (generate.ts), with their meaning, not the answer the service built from them.
import { type IdValue, idText } from './generate';

/** What one output field is, and whether the item must say why (a `warnings` entry, a note, a count). */
export interface Expected<T> {
	value: T;
	/** The fields the item must explain, each by a sentence that names it. */
	said: string[];
}

// ---- tokens (contract 2.1, 4.1, 4.2; RFC 6749 5.1 and 6) --------------------------------------------------------

/** A member as generated: a value of its own type, or something else (absent, null, another type). */
export type Member<T> = { ok: true; value: T } | { ok: false; wire: 'absent' | 'null' | 'other' };

export interface TokenValues {
	grant: 'assertion' | 'refresh_token';
	/** The token; ok only when it has more than white space in it. */
	accessToken: Member<string>;
	/** Lifetime in seconds when it is a positive count (a number, or a string that spells one). */
	expiresIn: Member<number>;
	refreshToken: Member<string>;
}

/** The lifetime the credential assumes when the answer gives none it can use (contract 2.1: the example's 7200). */
export const DEFAULT_LIFETIME_S = 7200;

/** What the credential saves of a token answer, or that it has none. */
export function savedTokens(v: TokenValues, held: string, now: number) {
	if (!v.accessToken.ok) return { error: 'access_token' as const };
	const lifetime = v.expiresIn.ok ? v.expiresIn.value : DEFAULT_LIFETIME_S;
	// RFC 6749 6: a refresh answered without a refresh token keeps the one just used; the assertion grant has none
	const refreshToken = v.refreshToken.ok
		? v.refreshToken.value
		: v.grant === 'refresh_token'
			? held
			: '';
	return { accessToken: v.accessToken.value, refreshToken, expiresAt: now + lifetime * 1000 };
}

/**
 * Whether a call renews a token `leftMs` before its expiry: n8n's own OAuth2 renews 60 s ahead, and each process
 * picks its point in that minute between 30 and 60 s (docs/design.md, "A token's way"); in between, either.
 */
export function renews(leftMs: number): boolean | 'either' {
	if (leftMs <= 30_000) return true;
	if (leftMs > 60_000) return false;
	return 'either';
}

// ---- webhook endpoints (contract 2.2, 4.3; A7, A9; issue 39 item 3) ---------------------------------------------

/**
 * An endpoint's id as the nodes output it: exactly as the service wrote it. A string is the id; an integer is
 * the id its digits spell. One beyond 2^53 is rounded before any node code sees it (n8n parses the answer):
 * the id is unknown, and the item says so.
 */
export function endpointId(id: IdValue | undefined): Expected<string | null> {
	if (id === undefined) return { value: null, said: ['id'] };
	if (id.kind === 'big') return { value: null, said: ['id'] };
	return { value: idText(id), said: [] };
}

/** The callback URI without the trigger's token: the value of its `token` query parameter replaced. */
export const redactedUri = (uri: { base: string; query: Array<[string, string]> }) =>
	uri.query.length === 0
		? uri.base
		: `${uri.base}?${uri.query
				.map(([name, value]) => `${name}=${name === 'token' ? '[redacted]' : value}`)
				.join('&')}`;

/** How a stored callback URI relates to the one sent, by meaning (docs/design.md, "Where the token travels"). */
export type Stored = 'kept' | 'token-dropped' | 'changed';

// ---- the list (A9; RFC 8288) ------------------------------------------------------------------------------------

export interface LinkMeaning {
	target: string;
	rels: string[];
}

/** The next page: `links.next` (a URL, or an object with `href`) first, else the first Link whose rels name next. */
export function nextPage(linksNext: string | undefined, links: LinkMeaning[]): string | undefined {
	return linksNext ?? links.find((link) => link.rels.includes('next'))?.target;
}

// ---- rate limits (contract 8; A18; RFC 9110 10.2.3) -------------------------------------------------------------

export type RetryAfter =
	| { kind: 'seconds'; seconds: number }
	| { kind: 'date'; atMs: number }
	| { kind: 'none' };

/** Retry-After as milliseconds from now: delta-seconds, or an HTTP date (a past one is now). */
export function retryAfterMs(value: RetryAfter, now: number): number | undefined {
	if (value.kind === 'seconds') return value.seconds * 1000;
	if (value.kind === 'date') return Math.max(0, value.atMs - now);
	return undefined;
}

/** The wait before a retry after a 429: Retry-After when it asks for more than nothing, at least 1 s; else 1 s. */
export const retryDelayAfter429 = (asked: number | undefined) =>
	asked !== undefined && asked > 0 ? Math.max(asked, 1000) : 1000;

// ---- JSON:API errors (A5) -----------------------------------------------------------------------------------------

export interface ErrorValues {
	detail?: string;
	title?: string;
	code?: string;
}

/**
 * The service's words: each error's detail, else its title, in order (never its code: issue 38), on one line, the
 * token never. The generated words stay under the bound of about 300 characters.
 */
export function serviceWords(errors: ErrorValues[], token: string): string | undefined {
	const words = errors.map((e) => e.detail ?? e.title).filter((w): w is string => w !== undefined);
	if (!words.length) return undefined;
	// control characters and runs of white space are one space: the words are put on one line
	// eslint-disable-next-line no-control-regex
	const oneLine = /[\u0000-\u001f\u007f\s]+/g;
	const line = words.join('; ').split(token).join('[redacted]').replace(oneLine, ' ');
	return line.trim() || undefined;
}

// ---- deliveries (contract 2.3, 2.4, 6; A14, A15, A21; docs/design.md, "A delivery's subject") -------------------

/** A resource in `included`, as generated: its id, whether its type is the subject's, its attributes. */
export interface IncludedValue {
	/** The id's meaning (its text); undefined: no usable id. */
	id: string | undefined;
	/** 'subject': the subject's type in some spelling; 'none': no type; 'other': another resource type. */
	type: 'subject' | 'none' | 'other';
	attributes: AttributesValue | 'not-an-object';
}

export interface AttributesValue {
	/** Each promised member, with the value it came as (for one of another kind, passed as it came). */
	title: Member<string> & { came: unknown };
	duration: Member<number> & { came: unknown };
	confidence: Member<number> & { came: unknown };
	/** media.url as it came (undefined: none). */
	mediaUrl: unknown;
	/** transcriptions: a list of files, or something else (then files are empty, and said). */
	files: FileValue[] | { not: 'a-list' };
}

export interface FileValue {
	format: string | undefined;
	url: unknown;
}

export interface EventValues {
	id: IdValue;
	eventType: string;
	createdAt: unknown;
	/** The subject's id, when the event names one; its type names the subject's type, or none is given. */
	subjectId: string | undefined;
	/** included, or something else than a list. */
	included: IncludedValue[] | { not: 'a-list' };
}

export interface EventItem {
	eventId: string;
	eventType: string;
	createdAt: unknown;
	transcriptionId: string | null;
	title: unknown;
	duration: unknown;
	averageConfidence: unknown;
	mediaUrl: unknown;
	files: Record<string, unknown>;
	formats: string[];
}

const EMPTY = {
	title: null,
	duration: null,
	averageConfidence: null,
	mediaUrl: null,
	files: {},
	formats: [],
};

/** The transcription the event is about, and whether that is clear: design.md's rule, stated on the values. */
function subjectOf(v: EventValues): { resource?: IncludedValue; id: string | null; said: boolean } {
	if (!Array.isArray(v.included)) return { id: v.subjectId ?? null, said: true };
	if (v.subjectId === undefined) {
		const ofType = v.included.filter((r) => r.type === 'subject');
		return ofType.length === 1
			? { resource: ofType[0], id: ofType[0].id ?? null, said: true }
			: { id: null, said: true };
	}
	const byId = v.included.filter((r) => r.id === v.subjectId);
	const sameType = byId.filter((r) => r.type === 'subject');
	const untyped = byId.filter((r) => r.type === 'none');
	const found = sameType.length ? sameType : untyped;
	// JSON:API ids are unique per type: a media resource under the transcription's id is not it
	if (!found.length) return { id: v.subjectId, said: true };
	return { resource: found[0], id: v.subjectId, said: found.length > 1 };
}

/** A member the item promises: its value, or null when missing, or as it came; anything but its own kind is said. */
function promised<T>(m: Member<T> & { came: unknown }, optional = false): Expected<unknown> {
	if (m.ok) return { value: m.value, said: [] };
	if (m.wire === 'absent' || m.wire === 'null') return { value: null, said: optional ? [] : ['x'] };
	return { value: m.came, said: ['x'] };
}

/** The files: each format to its URL as it came; a file without a format, another file of a format, said. */
function filesOf(files: AttributesValue['files']): Expected<Record<string, unknown>> {
	if (!Array.isArray(files)) return { value: {}, said: ['files'] };
	const value: Record<string, unknown> = {};
	let said = false;
	for (const file of files) {
		if (file.format === undefined) {
			said = true;
			continue;
		}
		// one URL per format: the first; a second file of the format is said, unless it is the same file
		if (Object.hasOwn(value, file.format)) {
			if (JSON.stringify(file.url ?? null) !== JSON.stringify(value[file.format])) said = true;
			continue;
		}
		if (typeof file.url !== 'string') said = true;
		value[file.format] = file.url === undefined ? null : file.url;
	}
	return { value, said: said ? ['files'] : [] };
}

/** The execution's item for an event (A14: members pass as they came; what is not as promised is said). */
export function eventItem(v: EventValues): Expected<EventItem> {
	const head = {
		eventId: idText(v.id),
		eventType: v.eventType,
		createdAt: v.createdAt === undefined ? null : v.createdAt,
	};
	const subject = subjectOf(v);
	const said = subject.said ? ['subject'] : [];
	const base = { ...head, transcriptionId: subject.id };
	if (!subject.resource) return { value: { ...base, ...EMPTY }, said };
	const a = subject.resource.attributes;
	if (a === 'not-an-object') return { value: { ...base, ...EMPTY }, said: [...said, 'attributes'] };
	const title = promised(a.title);
	const duration = promised(a.duration);
	const confidence = promised(a.confidence, true);
	const files = filesOf(a.files);
	return {
		value: {
			...base,
			title: title.value,
			duration: duration.value,
			averageConfidence: confidence.value,
			mediaUrl: a.mediaUrl === undefined ? null : a.mediaUrl,
			files: files.value,
			formats: Object.keys(files.value),
		},
		said: [
			...said,
			...(title.said.length ? ['title'] : []),
			...(duration.said.length ? ['duration'] : []),
			...(confidence.said.length ? ['averageConfidence'] : []),
			...files.said,
		],
	};
}

/** A file of the selected formats is fetched when its URL is an http(s) URL; otherwise the item says why. */
export function downloadPlan(files: Record<string, unknown>, selected: string[]) {
	const fetched: string[] = [];
	const refused: string[] = [];
	for (const format of selected) {
		if (!Object.hasOwn(files, format)) continue;
		const url = files[format];
		if (typeof url === 'string' && /^https?:\/\/[^/]/i.test(url)) fetched.push(format);
		else refused.push(format);
	}
	return { fetched, refused };
}

/** The registered media types of the caption formats (IANA; SubRip's customary one), and any other: bytes. */
export const MEDIA_TYPES: Record<string, string> = {
	vtt: 'text/vtt',
	srt: 'application/x-subrip',
	google_stt: 'application/json',
	ttml: 'application/ttml+xml',
};
export const mediaType = (format: string) => MEDIA_TYPES[format] ?? 'application/octet-stream';

/** A downloaded file's name: the title in lower-case ASCII words joined by hyphens, and the format's suffix. */
export function fileName(title: unknown, format: string): string {
	const words = (typeof title === 'string' || typeof title === 'number' ? String(title) : '')
		.normalize('NFKD')
		.replace(/\p{M}/gu, '')
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter(Boolean)
		.join('-')
		.slice(0, 80);
	const suffix = format === 'google_stt' ? '.google_stt.json' : `.${format}`;
	return `${words || 'captions'}${suffix}`;
}

// ---- caption files (WebVTT, W3C 4.4; SubRip's timing line) ------------------------------------------------------

/** A time as WebVTT and SubRip write it: hours (two digits at least), minutes, seconds and three decimals. */
export function clock(ms: number, separator: '.' | ','): string {
	const hours = Math.floor(ms / 3_600_000);
	const minutes = Math.floor(ms / 60_000) % 60;
	const seconds = Math.floor(ms / 1000) % 60;
	const pad = (n: number, width: number) => String(n).padStart(width, '0');
	return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}${separator}${pad(ms % 1000, 3)}`;
}

/**
 * An SRT fraction written with 1 to 3 digits, as players and the other libraries read it: a count of milliseconds
 * (",5" is 5 ms, ",50" 50 ms, ",500" 500 ms).
 */
export const fractionMs = (digits: string) => Number(digits);
