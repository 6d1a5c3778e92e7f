// Download Caption Files: what the trigger does after it has answered the delivery 200. The service will not
// deliver the event again, so nothing here may throw: every failure (the download, the file's name, storing
// the binary, reading the transcript) is written on the item under `downloadErrors`, and the execution runs.
import type {
	IBinaryData,
	IDataObject,
	IHttpRequestOptions,
	INodeExecutionData,
} from 'n8n-workflow';

import { transcriptFromCaptions } from '../captions';
import { TRANSCRIPT_SOURCES } from '../captions/formats';
import { fetchSignedFile } from '../transport/download';
import { stripQueryStrings } from '../shared/redact';
import type { Download } from './event';

export interface DownloadHelpers {
	http: (options: IHttpRequestOptions) => Promise<unknown>;
	prepareBinaryData: (data: Buffer, fileName: string, mimeType: string) => Promise<IBinaryData>;
}

const problem = (error: unknown) =>
	(error instanceof Error ? error.message : String(error)).slice(0, 300) || 'unknown error';

/** Fetches each file into the item's binary data and adds the transcript text; never throws. */
export async function attachDownloads(
	item: INodeExecutionData,
	downloads: readonly Download[],
	helpers: DownloadHelpers,
): Promise<void> {
	const errors = Array.isArray(item.json.downloadErrors)
		? (item.json.downloadErrors as IDataObject[])
		: [];
	// signed URLs carry their signature in the query: no message shows it
	const fail = (format: string, message: string) =>
		errors.push({ format, message: stripQueryStrings(message) });
	const texts: Record<string, string> = {};
	for (const { format, url } of downloads) {
		try {
			const outcome = await fetchSignedFile(helpers.http, url, format, item.json.title);
			if (!outcome.ok) {
				fail(format, outcome.message);
				continue;
			}
			const { data, fileName, mimeType } = outcome.file;
			const binary = await helpers.prepareBinaryData(data, fileName, mimeType);
			item.binary = { ...item.binary, [format]: binary };
			texts[format] = data.toString('utf8');
		} catch (error) {
			fail(format, `The ${format} file could not be stored on the item: ${problem(error)}`);
		}
	}
	// the best transcript the files give; a file that cannot be read leaves it to the next
	let unreadable: [string, string] | undefined;
	for (const source of TRANSCRIPT_SOURCES.filter((format) => texts[format] !== undefined)) {
		try {
			const transcript = transcriptFromCaptions(source, texts[source]);
			if (transcript === undefined) continue;
			item.json.transcript = transcript;
			unreadable = undefined;
			break;
		} catch (error) {
			unreadable ??= [
				source,
				`No transcript: the ${source} file could not be read (${problem(error)}).`,
			];
		}
	}
	if (unreadable) fail(...unreadable);
	if (errors.length) item.json.downloadErrors = errors;
}
