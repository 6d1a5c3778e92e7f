// The action's downloads of signed caption-file URLs (Download, and Convert, Check and Fix with Input set to URL):
// the URL checked, the cap and the cancel signal, and each failure as the error it calls for.
import type {
	IBinaryData,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	DEFAULT_MAX_FILE_MB,
	type DownloadedFile,
	type DownloadFailure,
	downloadFile,
	type DownloadLimits,
	downloadToBinary,
	maxBytesFrom,
	type Readable,
	type StoredFile,
} from '../../transport/download';

/**
 * What every download of the action shares: the URL checked, n8n's helper, the cap (from `maxFileSizeParameter`)
 * and the execution's cancel signal, which n8n's httpRequest does not take by itself.
 */
function prepareDownload(
	ctx: IExecuteFunctions,
	url: string,
	itemIndex: number,
	maxFileSizeParameter: string,
) {
	if (!/^https?:\/\//i.test(url)) {
		throw new NodeOperationError(ctx.getNode(), 'The URL must start with http:// or https://', {
			itemIndex,
		});
	}
	const maxFileSize = ctx.getNodeParameter(maxFileSizeParameter, itemIndex, DEFAULT_MAX_FILE_MB);
	const signal = ctx.getExecutionCancelSignal?.();
	const limits: DownloadLimits = {
		maxBytes: maxBytesFrom(maxFileSize),
		...(signal ? { signal } : {}),
	};
	return { http: (o: IHttpRequestOptions) => ctx.helpers.httpRequest(o), limits };
}

/** The downloaded file, or the error its failure calls for: the file server's answer, or the user's limit. */
async function fileOrThrow<File>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	download: Promise<{ ok: true; file: File } | DownloadFailure>,
): Promise<File> {
	const outcome = await download;
	if (outcome.ok) return outcome.file;
	if (outcome.kind === 'too-large' || outcome.kind === 'store' || outcome.kind === 'blocked') {
		throw new NodeOperationError(ctx.getNode(), outcome.message, { itemIndex });
	}
	if (outcome.kind === 'stopped') {
		throw new NodeOperationError(
			ctx.getNode(),
			`The execution was cancelled: ${outcome.message.charAt(0).toLowerCase()}${outcome.message.slice(1)}`,
			{ itemIndex },
		);
	}
	throw new NodeApiError(
		ctx.getNode(),
		{ status: outcome.status ?? null },
		{
			message: outcome.message,
			httpCode: outcome.status ? String(outcome.status) : undefined,
			itemIndex,
		},
	);
}

/** Downloads a signed caption file into memory (Convert, Check and Fix read it), or throws what went wrong. */
export async function downloadOrThrow(
	ctx: IExecuteFunctions,
	url: string,
	format: string,
	title: unknown,
	itemIndex: number,
): Promise<DownloadedFile> {
	const { http, limits } = prepareDownload(ctx, url, itemIndex, 'maxFileSize');
	return await fileOrThrow(ctx, itemIndex, downloadFile(http, url, format, title, limits));
}

/** Streams a signed caption file into n8n's binary data (Download), or throws what went wrong. */
export async function downloadBinaryOrThrow(
	ctx: IExecuteFunctions,
	url: string,
	format: string,
	title: unknown,
	itemIndex: number,
): Promise<StoredFile<IBinaryData>> {
	const { http, limits } = prepareDownload(ctx, url, itemIndex, 'options.maxFileSize');
	const store = (data: Readable, fileName: string, mimeType: string) =>
		ctx.helpers.prepareBinaryData(data, fileName, mimeType);
	return await fileOrThrow(
		ctx,
		itemIndex,
		downloadToBinary(http, store, url, format, title, limits),
	);
}

/** The cap of a download, as an option of the operation that downloads (Download) or a field beside the URL. */
export const maxFileSizeProperty: INodeProperties = {
	displayName: 'Max File Size (MB)',
	name: 'maxFileSize',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: DEFAULT_MAX_FILE_MB,
	description: 'The largest file to download; a larger one ends in an error that names its size',
};
