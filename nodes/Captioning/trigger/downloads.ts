// Download Caption Files: what the trigger fetches before it hands the item to n8n, which answers the delivery
// once the execution exists. Nothing here may throw (a thrown error would lose the files' event for a 500 and a
// redelivery whose URLs may have expired): every failure, the time budget's end included, is written on the item
// under `downloadErrors`, and the execution runs. docs/design.md, "Downloads" and "Outbound fetches", has the why.
import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import {
	CaptionFormatError,
	decodeCaptionBytes,
	type DecodedCaptions,
	transcriptFromCaptions,
} from '../captions';
import { captionFormat, TRANSCRIPT_SOURCES } from '../captions/formats';
import { whyUnreadable } from '../captions/found';
import {
	ALLOWED_HOSTS_NAME,
	type AddressPolicy,
	parseAllowedHosts,
} from '../transport/addressPolicy';
import { downloadToBinary, formatBytes, type Readable } from '../transport/download';
import type { OutboundHelpers } from '../transport/outbound';
import { CREDENTIAL_TYPE } from '../shared/constants';
import { stripQueryStrings } from '../shared/redact';
import { settle } from '../shared/settle';
import { normaliseBaseUrl } from '../tokens/values';
import type { Download } from './event';

export interface DownloadHelpers extends OutboundHelpers {
	prepareBinaryData: (data: Readable, fileName: string, mimeType: string) => Promise<IBinaryData>;
}

export interface DownloadSettings {
	/** The largest file accepted, in bytes (Max File Size). */
	maxBytes: number;
	/** The time all files of one delivery may take together, before n8n answers the delivery. */
	budgetMs: number;
	/** Where files may come from: public addresses, the service's origin, Allowed File Hosts. */
	policy: AddressPolicy;
	/** What is wrong with Allowed File Hosts, said on the item (a delivery is never refused over it). */
	policyProblems?: string[];
}

/** What the webhook context offers for the policy. */
interface PolicySource {
	getNodeParameter(
		name: string,
		fallback: unknown,
		options?: { rawExpressions?: boolean },
	): unknown;
	getCredentials(type: string): Promise<Record<string, unknown>>;
}

const TRIGGER_SETTING = `${ALLOWED_HOSTS_NAME} under the trigger's Options`;

/**
 * Where the trigger's files may come from: public addresses, the origin of the Base URL it registered with (the
 * service's own files), and Allowed File Hosts (its raw value: an expression is refused, not evaluated).
 */
export async function downloadPolicy(
	ctx: PolicySource,
): Promise<{ policy: AddressPolicy; problems: string[] }> {
	const { hosts, problems } = parseAllowedHosts(
		ctx.getNodeParameter('options.allowedHosts', '', { rawExpressions: true }),
	);
	const credential =
		ctx.getNodeParameter('registration', 'api') === 'api'
			? await settle(ctx.getCredentials(CREDENTIAL_TYPE))
			: undefined;
	const baseUrl = credential?.ok ? normaliseBaseUrl(credential.value.baseUrl) : '';
	return {
		policy: { allowed: hosts, setting: TRIGGER_SETTING, ...(baseUrl ? { baseUrl } : {}) },
		problems,
	};
}

/**
 * All files of a delivery in 5 s: the service waits for the answer, and services commonly give up after 10 s
 * (the sandbox plays 10 s, A12); n8n still has to create the execution within what is left.
 */
export const DOWNLOAD_BUDGET_MS = 5_000;

/**
 * The largest file of each format the transcript is read from before the answer: its parse holds n8n's main event
 * loop, so it must fit well within the budget (docs/design.md, "Outbound fetches": about half an hour of Google
 * STT with word timings, a day of WebVTT, each read in about 100 ms).
 */
export const TRANSCRIPT_SOURCE_MAX_BYTES: Readonly<Record<string, number>> = {
	google_stt: 512 * 1024,
	vtt: 2 * 1024 * 1024,
};
const DEFAULT_SOURCE_MAX_BYTES = 512 * 1024;
const sourceMaxBytes = (format: string) =>
	TRANSCRIPT_SOURCE_MAX_BYTES[format] ?? DEFAULT_SOURCE_MAX_BYTES;

const problem = (error: unknown) =>
	(error instanceof Error ? error.message : String(error)).slice(0, 300) || 'unknown error';

/** What the item says of a file the budget left no time for. */
export function outOfTime(format: string, budgetMs: number): string {
	return `The ${format} file was not downloaded within ${budgetMs / 1000} s, the time the trigger gives its downloads so that the service gets its answer in time. Its signed URL is under files.${format}: download it in the workflow with Captioning › Caption File › Download before it expires.`;
}

type Fetched =
	| {
			format: string;
			binary: IBinaryData;
			/** The text, as Convert decodes a file; its warnings are said on the item if the transcript comes from it. */
			decoded?: DecodedCaptions;
			tooLargeForText?: boolean;
	  }
	| { format: string; error: string };

async function fetchOne(
	{ format, url, title }: Download,
	helpers: DownloadHelpers,
	settings: DownloadSettings,
	signal: AbortSignal,
): Promise<Fetched> {
	try {
		const keep = TRANSCRIPT_SOURCES.includes(format) ? sourceMaxBytes(format) : 0;
		const outcome = await downloadToBinary(
			{ helpers, policy: settings.policy },
			helpers.prepareBinaryData,
			url,
			format,
			title,
			{ maxBytes: settings.maxBytes, signal },
			keep,
		);
		if (!outcome.ok) {
			const { kind, message } = outcome;
			if (kind === 'stopped') return { format, error: outOfTime(format, settings.budgetMs) };
			if (kind === 'store')
				return { format, error: `The ${format} file could not be stored on the item. ${message}` };
			return { format, error: message };
		}
		const { binary, kept } = outcome.file;
		// decoded as Convert decodes a file (byte order mark, UTF-8, else Windows-1252), never U+FFFD silently
		return {
			format,
			binary,
			decoded: kept ? decodeCaptionBytes(kept) : undefined,
			tooLargeForText: keep > 0 && !kept,
		};
	} catch (error) {
		return {
			format,
			error: `The ${format} file could not be stored on the item: ${problem(error)}`,
		};
	}
}

/** Why a fetched file gives no transcript, quoting none of it: the readers' own messages quote its lines. */
function unreadableSource(source: string, text: string, error: unknown): string {
	if (!(error instanceof CaptionFormatError))
		return `the ${source} file could not be read (${problem(error)}).`;
	return `the ${source} file ${whyUnreadable(captionFormat(source)?.label ?? source, text, error.line)}.`;
}

/**
 * Adds the best transcript the files give to the item; a file that cannot be read leaves it to the next. Without
 * one, returns the format and the reason of the first file that could not give it.
 */
function attachTranscript(
	item: INodeExecutionData,
	texts: Record<string, DecodedCaptions>,
	tooLarge: ReadonlySet<string>,
): [string, string] | undefined {
	let unreadable: [string, string] | undefined;
	for (const source of TRANSCRIPT_SOURCES) {
		if (tooLarge.has(source)) {
			unreadable ??= [
				source,
				`No transcript: the ${source} file is larger than ${formatBytes(sourceMaxBytes(source))}, the most the trigger reads a transcript from before it answers the service (reading holds n8n for as long as it takes). The file is on the item: read it in the workflow with Caption File › Convert (Input: Binary Field "${source}", To: Plain Text).`,
			];
			continue;
		}
		if (texts[source] === undefined) continue;
		try {
			const { text, warnings } = texts[source];
			const transcript = transcriptFromCaptions(source, text);
			if (transcript === undefined) continue;
			item.json.transcript = transcript;
			if (warnings.length) {
				item.json.warnings = [
					...(Array.isArray(item.json.warnings) ? (item.json.warnings as string[]) : []),
					...warnings.map((w) => `The transcript's ${source} file: ${w.message}`),
				];
			}
			return undefined;
		} catch (error) {
			unreadable ??= [
				source,
				`No transcript: ${unreadableSource(source, texts[source].text, error)}`,
			];
		}
	}
	return unreadable;
}

/** Fetches each file into the item's binary data, all within the budget, and adds the transcript text; never throws. */
export async function attachDownloads(
	item: INodeExecutionData,
	downloads: readonly Download[],
	helpers: DownloadHelpers,
	settings: DownloadSettings,
): Promise<void> {
	const errors = Array.isArray(item.json.downloadErrors)
		? (item.json.downloadErrors as IDataObject[])
		: [];
	// signed URLs carry their signature in the query: no message shows it
	const fail = (format: string, message: string) =>
		errors.push({ format, message: stripQueryStrings(message) });
	if (settings.policyProblems?.length) {
		item.json.warnings = [
			...(Array.isArray(item.json.warnings) ? (item.json.warnings as string[]) : []),
			`${TRIGGER_SETTING} is not used: ${settings.policyProblems.join('; ')}.`,
		];
	}
	// side by side: the budget is for all of them
	const budget = AbortSignal.timeout(settings.budgetMs);
	const fetched = await Promise.all(
		downloads.map((download) => fetchOne(download, helpers, settings, budget)),
	);
	const texts: Record<string, DecodedCaptions> = {};
	const tooLarge = new Set<string>();
	for (const file of fetched) {
		if ('error' in file) {
			fail(file.format, file.error);
			continue;
		}
		item.binary = { ...item.binary, [file.format]: file.binary };
		if (file.decoded) texts[file.format] = file.decoded;
		if (file.tooLargeForText) tooLarge.add(file.format);
	}
	const unreadable = attachTranscript(item, texts, tooLarge);
	if (unreadable) fail(...unreadable);
	if (errors.length) item.json.downloadErrors = errors;
}
