// Fetching a caption file from its signed, time-limited URL (contract 2.4). Signed URLs carry their own
// authorisation: no credential is sent with them (object stores refuse a second auth mechanism). Every file is
// fetched within the address policy (transport/outbound.ts), streamed through a byte cap (Content-Length first,
// then a count) and can be stopped by a signal: a cancelled execution, the action's deadline, or the trigger's time
// budget. Nothing of a body is quoted. docs/design.md, "Downloads" and "Outbound fetches", has the why.

import { captionFileSuffix, captionMimeType, isServiceFormat } from '../captions/formats';
import type { AddressPolicy } from './addressPolicy';
import { openOutbound, type OpenedAnswer, type OutboundHelpers, type Readable } from './outbound';
import { networkCode, networkProblem } from '../shared/network';
import { stripQueryStrings } from '../shared/redact';
import { headerValue } from '../shared/schemas';
import { sentence } from '../shared/words';

/** The default cap of a download, in MB: caption files weigh kilobytes to a few MB; ten hours of Google STT ~10 MB. */
export const DEFAULT_MAX_FILE_MB = 100;
const MB = 1024 * 1024;

export interface DownloadedFile {
	format: string;
	data: Buffer;
	fileName: string;
	mimeType: string;
}

export interface DownloadLimits {
	/** The largest file accepted, in bytes. */
	maxBytes: number;
	/** Stops the download at once: a cancelled execution, the action's deadline, or the trigger's time budget. */
	signal?: AbortSignal;
}

/** How a file is fetched: n8n's helpers (and its resolver, where n8n has one), within the address policy. */
export interface Fetcher {
	helpers: OutboundHelpers;
	policy: AddressPolicy;
}

/** The longest silence between two packets of a download. */
export const IDLE_TIMEOUT_MS = 30_000;

export type { Readable } from './outbound';

/** Why a download gave no file: the server's answer, the network, the file's size, the signal, or the store. */
export interface DownloadFailure {
	ok: false;
	kind: 'http' | 'network' | 'refused' | 'blocked' | 'too-large' | 'stopped' | 'store';
	status?: number;
	message: string;
}

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

/**
 * What to tell the user when a signed URL does not give the file. `expired` is what the answer said of itself (a
 * 403 that says "expired"); nothing of the answer is quoted: it may be anything the address answers.
 */
export function describeDownloadFailure(
	status: number | undefined,
	url: string,
	problem?: string,
	expired = false,
): string {
	const where = stripQueryStrings(url);
	if (status === 403) {
		return expired
			? `The signed URL of ${where} has expired. Signed URLs are valid only for a limited time after the event: turn on "Download Caption Files" in the Captioning Trigger to fetch files when the event arrives.`
			: `The signed URL of ${where} was refused (HTTP 403): it was altered or has expired. Use the URL exactly as the event delivered it, soon after the event, or turn on "Download Caption Files" in the Captioning Trigger.`;
	}
	if (status === 404) return `There is no file at ${where} (HTTP 404).`;
	if (status === undefined)
		return sentence(`Could not download ${where}: ${problem ?? 'network error'}`);
	return `Downloading ${where} failed with HTTP ${status}.`;
}

/** "1.5 MB", "100 MB", "250 KB": sizes as a user sets and reads them (1 MB = 1,048,576 bytes). */
export function formatBytes(bytes: number): string {
	if (bytes < MB) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
	const mb = bytes / MB;
	return `${mb < 10 && !Number.isInteger(mb) ? mb.toFixed(1) : Math.round(mb)} MB`;
}

/** A file over the cap, by its Content-Length (`size`) or by the bytes counted past the cap. */
export function describeTooLarge(url: string, maxBytes: number, size?: number): string {
	const what = size === undefined ? `larger than ${formatBytes(maxBytes)}` : formatBytes(size);
	return `The file at ${stripQueryStrings(url)} is ${what}, over the Max File Size of ${formatBytes(maxBytes)}. Raise Max File Size under Options if files this large are expected.`;
}

/** The byte cap from the Max File Size parameter (MB); a value that is not a positive number is the default. */
export function maxBytesFrom(megabytes: unknown): number {
	const mb = Number(megabytes);
	return (Number.isFinite(mb) && mb > 0 ? mb : DEFAULT_MAX_FILE_MB) * MB;
}

/** The error a capped stream ends with once more than `maxBytes` passed. */
export class FileTooLargeError extends Error {
	constructor(readonly maxBytes: number) {
		super(`more than ${maxBytes} bytes`);
		this.name = 'FileTooLargeError';
	}
}

/** What the cap counted of a body: the bytes, whether they passed the cap, and the first ones kept aside. */
interface Count {
	bytes: number;
	over: boolean;
	kept: Buffer[] | undefined;
}

/** The class of a Node stream, as far as it is used here: its `from`, inherited from Readable by every stream. */
interface StreamClass {
	from(iterable: AsyncIterable<Buffer>, options: { objectMode: boolean }): Readable;
}

/**
 * The body as a stream that counts its bytes as its reader takes them and fails once more than `maxBytes` came;
 * the first `keepBytes` are kept aside. Readable.from is reached through the body's own class (node:stream may
 * not be imported by a community node); it builds a plain Readable whatever class it is called on.
 */
function capBody(
	body: Readable,
	maxBytes: number,
	keepBytes: number,
	onOver: () => void,
): { stream: Readable; count: Count } {
	const count: Count = { bytes: 0, over: false, kept: keepBytes > 0 ? [] : undefined };
	async function* counted() {
		for await (const chunk of body as AsyncIterable<Buffer>) {
			count.bytes += chunk.length;
			if (count.bytes > maxBytes) {
				count.over = true;
				count.kept = undefined;
				onOver();
				throw new FileTooLargeError(maxBytes);
			}
			// a file larger than the caller keeps is not kept at all: no part-copy that looks whole
			if (count.kept && count.bytes <= keepBytes) count.kept.push(chunk);
			else count.kept = undefined;
			yield chunk;
		}
	}
	const Stream = body.constructor as unknown as StreamClass;
	return { stream: Stream.from(counted(), { objectMode: false }), count };
}

/** Up to `limit` bytes of a body that is not the file (an error answer), then the rest is dropped. */
async function readSome(body: Readable, limit = 4 * 1024): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let length = 0;
	try {
		for await (const chunk of body) {
			chunks.push(chunk as Buffer);
			length += (chunk as Buffer).length;
			if (length >= limit) break;
		}
	} catch {
		// the answer's status says enough
	} finally {
		body.destroy();
	}
	return Buffer.concat(chunks).subarray(0, limit);
}

/** Whether an error answer says the signed URL expired: read to choose a message, never quoted. */
const saysExpired = (body: Buffer) => /expired/i.test(body.toString('utf8'));

/** n8n 2.x's SSRF protection refused the address (SsrfBlockedIpError, SsrfBlockedHostnameError). */
function isSsrfBlock(error: unknown): boolean {
	for (let e = error as { name?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; i++) {
		if (typeof e.name === 'string' && /^SsrfBlocked/.test(e.name)) return true;
		e = e.cause as typeof e;
	}
	return false;
}

/** What a download that n8n's SSRF protection refused tells the user. */
export function describeBlocked(url: string): string {
	return `n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) blocked the download of ${stripQueryStrings(url)}: its address is in a blocked range. If this file server is trusted, allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES on n8n's process.`;
}

const stopped = (url: string): DownloadFailure => ({
	ok: false,
	kind: 'stopped',
	message: `Downloading ${stripQueryStrings(url)} was stopped.`,
});

/** A failure while the body streamed: the cap (its error, or the closing it caused), the signal, or the network. */
export function streamFailure(
	error: unknown,
	url: string,
	limits: DownloadLimits,
	over = false,
): DownloadFailure {
	if (over || error instanceof FileTooLargeError) {
		return { ok: false, kind: 'too-large', message: describeTooLarge(url, limits.maxBytes) };
	}
	if (limits.signal?.aborted) return stopped(url);
	return {
		ok: false,
		kind: 'network',
		message: describeDownloadFailure(undefined, url, networkProblem(networkCode(error))),
	};
}

interface OpenedFile {
	fileName: string;
	mimeType: string;
	/** The body, counted: it fails with FileTooLargeError past the cap. */
	body: Readable;
	count: Count;
	/** Closes the connection: the file is not wanted any more. */
	close(): void;
}

/** What a fetch that threw tells the user: stopped by its signal, refused by n8n's SSRF protection, or the network. */
function thrownFailure(error: unknown, url: string, limits: DownloadLimits): DownloadFailure {
	if (limits.signal?.aborted) return stopped(url);
	if (isSsrfBlock(error)) return { ok: false, kind: 'blocked', message: describeBlocked(url) };
	return {
		ok: false,
		kind: 'network',
		message: describeDownloadFailure(undefined, url, networkProblem(networkCode(error))),
	};
}

/** The file's answer, checked: a 2xx within the cap by its Content-Length, its body streaming through the cap. */
async function openSignedFile(
	fetcher: Fetcher,
	url: string,
	format: string,
	title: unknown,
	limits: DownloadLimits,
	keepBytes = 0,
): Promise<{ ok: true; file: OpenedFile } | DownloadFailure> {
	if (limits.signal?.aborted) return stopped(url);
	let answer: OpenedAnswer;
	try {
		const request = {
			signal: limits.signal ?? new AbortController().signal,
			idleTimeoutMs: IDLE_TIMEOUT_MS,
		};
		const outcome = await openOutbound(fetcher.helpers, url, fetcher.policy, request);
		if (!outcome.ok) return { ok: false, kind: 'refused', message: outcome.refused.message };
		answer = outcome.answer;
	} catch (error) {
		return thrownFailure(error, url, limits);
	}
	const { statusCode, headers, body, close } = answer;
	if (statusCode < 200 || statusCode >= 300) {
		const expired = statusCode === 403 && saysExpired(await readSome(body));
		close();
		return {
			ok: false,
			kind: 'http',
			status: statusCode,
			message: describeDownloadFailure(statusCode, url, undefined, expired),
		};
	}
	const declared = Number(headerValue(headers, 'content-length'));
	if (Number.isFinite(declared) && declared > limits.maxBytes) {
		close();
		return {
			ok: false,
			kind: 'too-large',
			message: describeTooLarge(url, limits.maxBytes, declared),
		};
	}
	const { stream, count } = capBody(body, limits.maxBytes, keepBytes, close);
	// the service's own formats have a known type, whatever the file server calls them
	const mimeType = isServiceFormat(format)
		? captionMimeType(format)
		: (headerValue(headers, 'content-type') ?? captionMimeType(format)).split(';')[0];
	const fileName = fileNameFor(format, title, headerValue(headers, 'content-disposition'));
	return { ok: true, file: { fileName, mimeType, body: stream, count, close } };
}

/** Downloads a file whole into memory (for the caption readers), within the cap. */
export async function downloadFile(
	fetcher: Fetcher,
	url: string,
	format: string,
	title: unknown,
	limits: DownloadLimits,
): Promise<{ ok: true; file: DownloadedFile } | DownloadFailure> {
	const opened = await openSignedFile(fetcher, url, format, title, limits);
	if (!opened.ok) return opened;
	const { body, fileName, mimeType, count } = opened.file;
	const chunks: Buffer[] = [];
	try {
		for await (const chunk of body) chunks.push(chunk as Buffer);
	} catch (error) {
		return streamFailure(error, url, limits, count.over);
	}
	return { ok: true, file: { format, data: Buffer.concat(chunks), fileName, mimeType } };
}

export interface StoredFile<Binary> {
	format: string;
	binary: Binary;
	fileName: string;
	mimeType: string;
	/** The file's bytes when it is at most the `keepBytes` asked for; undefined when larger. */
	kept?: Buffer;
}

/**
 * Streams a file into n8n's binary data (`store`: the context's prepareBinaryData), within the cap; the first
 * `keepBytes` are kept aside for the caller (the trigger's transcript).
 */
export async function downloadToBinary<Binary>(
	fetcher: Fetcher,
	store: (data: Readable, fileName: string, mimeType: string) => Promise<Binary>,
	url: string,
	format: string,
	title: unknown,
	limits: DownloadLimits,
	keepBytes = 0,
): Promise<{ ok: true; file: StoredFile<Binary> } | DownloadFailure> {
	const opened = await openSignedFile(fetcher, url, format, title, limits, keepBytes);
	if (!opened.ok) return opened;
	const { body, fileName, mimeType, count, close } = opened.file;
	let failed: unknown;
	body.on('error', (error) => (failed ??= error));
	let binary: Binary;
	try {
		binary = await store(body, fileName, mimeType);
	} catch (error) {
		if (failed !== undefined) return streamFailure(failed, url, limits, count.over);
		close();
		body.destroy();
		const reason = stripQueryStrings(error instanceof Error ? error.message : String(error));
		return {
			ok: false,
			kind: 'store',
			message: `The file from ${stripQueryStrings(url)} could not be stored: ${reason.slice(0, 300) || 'unknown error'}`,
		};
	}
	// a store that ended early without failing (a stream error it swallowed) did not store the file
	if (failed !== undefined) return streamFailure(failed, url, limits, count.over);
	const kept = count.kept ? Buffer.concat(count.kept) : undefined;
	return { ok: true, file: { format, binary, fileName, mimeType, kept } };
}
