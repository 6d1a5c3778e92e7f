// Fetching a caption file from its signed, time-limited URL (contract 2.4). Signed URLs carry their own
// authorisation: no credential is sent with them (object stores refuse a second auth mechanism).
import type { IHttpRequestOptions } from 'n8n-workflow';

import { networkProblem } from './auth';
import { captionFileExtension, captionMimeType } from './captions';
import { networkCode } from './tokens';
import { stripQueryStrings } from './redact';

export interface DownloadedFile {
	format: string;
	data: Buffer;
	fileName: string;
	mimeType: string;
}

export type DownloadOutcome =
	| { ok: true; file: DownloadedFile }
	| { ok: false; status?: number; message: string };

type Http = (options: IHttpRequestOptions) => Promise<unknown>;

/** A file name from the title and the format: "Board meeting" + vtt → "board-meeting.vtt". */
export function fileNameFor(format: string, title: unknown, contentDisposition?: string): string {
	const quoted = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(contentDisposition ?? '');
	if (quoted) {
		const name = decodeURIComponent(quoted[1]).replace(/[/\\]/g, '_').trim();
		if (name) return name;
	}
	const base =
		String(title ?? '')
			.normalize('NFKD')
			.replace(/[\u0300-\u036f]/g, '')
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-+|-+$/g, '')
			.slice(0, 80) || 'captions';
	const extension = captionFileExtension(format);
	return format === 'google_stt' ? `${base}.google_stt.${extension}` : `${base}.${extension}`;
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
	if (status === undefined) return `Could not download ${where}: ${detail ?? 'network error'}.`;
	return `Downloading ${where} failed with HTTP ${status}${detail ? `: ${detail}` : ''}.`;
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
	const mimeType =
		format === 'vtt' || format === 'google_stt'
			? captionMimeType(format)
			: (response.headers['content-type'] ?? captionMimeType(format)).split(';')[0];
	return {
		ok: true,
		file: {
			format,
			data: body,
			mimeType,
			fileName: fileNameFor(format, title, response.headers['content-disposition']),
		},
	};
}
