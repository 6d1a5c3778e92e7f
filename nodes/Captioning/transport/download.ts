// Fetching a caption file from its signed, time-limited URL (contract 2.4). Signed URLs carry their own
// authorisation: no credential is sent with them (object stores refuse a second auth mechanism).
import type { IHttpRequestOptions } from 'n8n-workflow';

import { captionFileSuffix, captionMimeType, isServiceFormat } from '../captions/formats';
import { networkCode, networkProblem } from '../shared/network';
import { stripQueryStrings } from '../shared/redact';
import { headerValue } from '../shared/schemas';
import { withServiceWords } from '../shared/words';

export interface DownloadedFile {
	format: string;
	data: Buffer;
	fileName: string;
	mimeType: string;
}

type DownloadOutcome =
	| { ok: true; file: DownloadedFile }
	| { ok: false; status?: number; message: string };

type Http = (options: IHttpRequestOptions) => Promise<unknown>;

/** The bytes of a percent-encoded text; undefined when a "%" does not start an escape. */
function percentBytes(text: string): Buffer | undefined {
	const parts: Buffer[] = [];
	for (const part of text.split(/(%[0-9a-f]{2})/i)) {
		if (/^%[0-9a-f]{2}$/i.test(part)) parts.push(Buffer.from([parseInt(part.slice(1), 16)]));
		else if (part.includes('%')) return undefined;
		else parts.push(Buffer.from(part, 'utf8'));
	}
	return Buffer.concat(parts);
}

function decoder(charset: string, fatal: boolean) {
	try {
		return new TextDecoder(charset || 'utf-8', { fatal });
	} catch {
		// a charset this Node does not know: UTF-8 is what nearly every server means
		return new TextDecoder('utf-8', { fatal });
	}
}

/** RFC 5987 `charset'language'value`; a "%" that starts no escape stays, bytes the charset lacks become U+FFFD. */
function extendedValue(value: string): string {
	const match = /^([^']*)'[^']*'(.*)$/s.exec(value);
	const [charset, encoded] = match ? [match[1].trim(), match[2]] : ['utf-8', value];
	const bytes = percentBytes(encoded.replace(/%(?![0-9a-f]{2})/gi, '%25'));
	return decoder(charset, false).decode(bytes ?? Buffer.from(encoded, 'utf8'));
}

/**
 * A plain `filename`: some servers percent-encode it, others send raw UTF-8 bytes (which Node reads as
 * Latin-1); either is decoded only when it decodes cleanly, else the value stays as it came.
 */
function plainValue(value: string): string {
	// eslint-disable-next-line no-control-regex
	const latin1 = /^[\u0000-\u00ff]*$/.test(value) && /[\u0080-\u00ff]/.test(value);
	const bytes = latin1 ? Buffer.from(value, 'latin1') : percentBytes(value);
	if (!bytes) return value;
	try {
		return decoder('utf-8', true).decode(bytes);
	} catch {
		return value;
	}
}

const PARAMETER = /;\s*([!#$%&'*+.^_`|~0-9a-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"?|[^;]*)/gi;

/**
 * The file name a Content-Disposition header gives (RFC 6266: `filename*` before `filename`), made safe to
 * use as one: no path separators or control characters. Undefined when there is none; never throws.
 */
export function fileNameFromContentDisposition(header: unknown): string | undefined {
	if (typeof header !== 'string') return undefined;
	const parameters = new Map<string, string>();
	for (const [, name, raw] of `;${header}`.matchAll(PARAMETER)) {
		const value = raw.startsWith('"')
			? raw.replace(/^"|"$/g, '').replace(/\\(.)/gs, '$1')
			: raw.trim();
		if (!parameters.has(name.toLowerCase())) parameters.set(name.toLowerCase(), value);
	}
	const extended = parameters.get('filename*');
	const plain = parameters.get('filename');
	for (const candidate of [
		extended === undefined ? undefined : extendedValue(extended),
		plain === undefined ? undefined : plainValue(plain),
	]) {
		const name = candidate
			?.replace(/[/\\]/g, '_')
			// eslint-disable-next-line no-control-regex
			.replace(/[\u0000-\u001f\u007f]/g, '')
			.trim()
			.slice(0, 255);
		if (name && name !== '.' && name !== '..') return name;
	}
	return undefined;
}

/** A file name from the server, else from the title and the format: "Board meeting" + vtt → "board-meeting.vtt". */
export function fileNameFor(format: string, title: unknown, contentDisposition?: string): string {
	const given = fileNameFromContentDisposition(contentDisposition);
	if (given) return given;
	const text = typeof title === 'string' || typeof title === 'number' ? String(title) : '';
	const base =
		text
			.normalize('NFKD')
			.replace(/[\u0300-\u036f]/g, '')
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-+|-+$/g, '')
			.slice(0, 80) || 'captions';
	return `${base}${captionFileSuffix(format)}`;
}

/** What to tell the user when a signed URL does not give the file. */
export function describeDownloadFailure(
	status: number | undefined,
	url: string,
	detail?: string,
): string {
	const where = stripQueryStrings(url);
	if (status === 403) {
		return /expired/i.test(detail ?? '')
			? `The signed URL of ${where} has expired. Signed URLs are valid only for a limited time after the event: turn on "Download Caption Files" in the Captioning Trigger to fetch files when the event arrives.`
			: `The signed URL of ${where} was refused (HTTP 403): it was altered or has expired. Use the URL exactly as the event delivered it, soon after the event, or turn on "Download Caption Files" in the Captioning Trigger.`;
	}
	if (status === 404) return `There is no file at ${where} (HTTP 404).`;
	if (status === undefined)
		return withServiceWords(`Could not download ${where}`, detail ?? 'network error');
	return withServiceWords(`Downloading ${where} failed with HTTP ${status}`, detail);
}

function errorDetail(body: unknown): string | undefined {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
	try {
		const parsed = JSON.parse(text) as { errors?: Array<{ detail?: string }>; message?: string };
		return parsed.errors?.[0]?.detail ?? parsed.message;
	} catch {
		return text.slice(0, 200) || undefined;
	}
}

export async function fetchSignedFile(
	http: Http,
	url: string,
	format: string,
	title?: unknown,
): Promise<DownloadOutcome> {
	let response: { statusCode: number; headers: Record<string, string | undefined>; body: unknown };
	try {
		response = (await http({
			method: 'GET',
			url,
			encoding: 'arraybuffer',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: 30_000,
		})) as typeof response;
	} catch (error) {
		return {
			ok: false,
			message: describeDownloadFailure(undefined, url, networkProblem(networkCode(error))),
		};
	}
	const body = Buffer.isBuffer(response.body)
		? response.body
		: Buffer.from(response.body as ArrayBuffer);
	if (response.statusCode < 200 || response.statusCode >= 300) {
		return {
			ok: false,
			status: response.statusCode,
			message: describeDownloadFailure(response.statusCode, url, errorDetail(body)),
		};
	}
	// the service's own formats have a known type, whatever the file server calls them
	const mimeType = isServiceFormat(format)
		? captionMimeType(format)
		: (headerValue(response.headers, 'content-type') ?? captionMimeType(format)).split(';')[0];
	return {
		ok: true,
		file: {
			format,
			data: body,
			mimeType,
			fileName: fileNameFor(format, title, headerValue(response.headers, 'content-disposition')),
		},
	};
}
