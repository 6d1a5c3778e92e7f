// The body stage: the delivery's bytes as n8n read them (or read now), parsed as JSON whatever the content type
// says, or n8n's own parse of them taken where it is the same value. Only what cannot be read is refused: too
// large (413), unreadable (415), empty or not JSON (400).
import { mayHoldLongInteger, parseJsonText } from '../shared/schemas';
import type { Rejection } from './rejection';

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

/**
 * Reads the delivery's JSON from the raw bytes, whatever the content type says. `n8nParsed` is n8n's parse of
 * the same bytes (parsedByN8n): taken as it is when the text holds nothing that parseJsonText reads otherwise
 * than JSON.parse, so that the body is not parsed twice (docs/design.md, "A delivery's way").
 */
export function readDeliveryBody(
	contentType: string | undefined,
	raw: RawBody,
	n8nParsed?: object,
): BodyResult {
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
	if (n8nParsed !== undefined && !lossy && sameAsJsonParse(text)) {
		return { ok: true, body: n8nParsed, lossy };
	}
	try {
		return { ok: true, body: parseJsonText(text.replace(/^\uFEFF/, '')), lossy };
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

// n8n's parse is JSON.parse of the text after one byte order mark (2.x; 1.x refuses the mark with 422): the same
// value as parseJsonText's unless a long integer would be rounded. With a mark, this stage parses itself.
const sameAsJsonParse = (text: string) =>
	text.charCodeAt(0) !== 0xfeff && !mayHoldLongInteger(text);

/** What n8n's request carries of the body (n8n-core's augmented IncomingMessage). */
export interface WebhookRequest {
	rawBody?: unknown;
	readRawBody?: () => Promise<void>;
	headers: Record<string, string | string[] | undefined>;
	/** The Content-Type's media type, lowercased, and its charset (utf-8 unless given): n8n's parseIncomingMessage. */
	contentType?: string;
	encoding?: string;
	body?: unknown;
}

/**
 * The body as n8n parsed it, where n8n parsed the bytes as JSON text in UTF-8: both lines' webhook handling
 * (webhook-helpers' parseRequestBody, body-parser's parseBody) sets `body` to JSON.parse of rawBody decoded in
 * the request's charset for the media type application/json before any node runs, and answers 422 itself when
 * it is not JSON. Undefined for anything else (another type or charset, a JSON text that is not an object or an
 * array): this stage parses the bytes.
 */
export function parsedByN8n(req: WebhookRequest): object | undefined {
	if (req.contentType !== 'application/json') return undefined;
	if (req.encoding !== 'utf-8' && req.encoding !== 'utf8') return undefined;
	const { body } = req;
	return typeof body === 'object' && body !== null ? body : undefined;
}

/**
 * The body's bytes: as n8n read them, or read now (n8n reads only the types it parses); `too-large` beyond
 * n8n's limit; undefined when they cannot be read at all.
 */
export async function readRawBody(req: WebhookRequest): Promise<RawBody> {
	if (Buffer.isBuffer(req.rawBody)) return req.rawBody;
	const type = String(req.headers['content-type'] ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
	// n8n has already streamed a multipart/form-data body into its form parser: the bytes are gone
	if (type === 'multipart/form-data' || !req.readRawBody) return undefined;
	try {
		await req.readRawBody();
	} catch (error) {
		// an exception here would make n8n answer 500 and record a failed execution
		return isTooLarge(error) ? 'too-large' : undefined;
	}
	return Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
}

/**
 * Whether reading failed on n8n's size limit: raw-body's http-errors 413 (`type` entity.too.large), which
 * n8n 2.41.1's readRawBody passes on as thrown. n8n reads the types it parses before any node runs and answers
 * 500 itself when they are too large; it leaves other types (application/vnd.api+json at typeVersion 2) to us.
 */
export function isTooLarge(error: unknown): boolean {
	if (typeof error !== 'object' || error === null) return false;
	const { status, statusCode, type } = error as Record<string, unknown>;
	return type === 'entity.too.large' || status === 413 || statusCode === 413;
}
