// The action's downloads of signed caption-file URLs (Download, and Convert, Check and Fix with Input set to URL):
// the URL checked against the address policy, the cap, the deadline and the cancel signal, and each failure as
// the error it calls for.
import type {
	IBinaryData,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	ALLOWED_HOSTS_NAME,
	type AllowedHost,
	parseAllowedHosts,
} from '../../transport/addressPolicy';
import {
	DEFAULT_MAX_FILE_MB,
	type DownloadedFile,
	type DownloadFailure,
	downloadFile,
	type DownloadLimits,
	downloadToBinary,
	type Fetcher,
	maxBytesFrom,
	type Readable,
	type StoredFile,
} from '../../transport/download';
import { n8nResolver } from '../../transport/outbound';

/** The total a download may take by default, redirects included: a 100 MB file at a slow 2 MB/s. */
export const DEFAULT_DOWNLOAD_TIMEOUT_S = 60;

/** Where an operation keeps its download parameters: Download in its Options, the readers beside the URL. */
interface DownloadParameters {
	maxFileSize: string;
	allowedHosts: string;
	timeout: string;
	/** Where a refusal tells the user to allow a host. */
	setting: string;
}

const OPTIONS_PARAMETERS: DownloadParameters = {
	maxFileSize: 'options.maxFileSize',
	allowedHosts: 'options.allowedHosts',
	timeout: 'options.downloadTimeout',
	setting: `${ALLOWED_HOSTS_NAME} under Options`,
};

const URL_PARAMETERS: DownloadParameters = {
	maxFileSize: 'maxFileSize',
	allowedHosts: 'allowedHosts',
	timeout: 'downloadTimeout',
	setting: `${ALLOWED_HOSTS_NAME} (below the URL)`,
};

/** Allowed File Hosts as the user wrote it, or the error that names what is wrong with it. */
export function readAllowedHosts(
	ctx: Pick<IExecuteFunctions, 'getNode' | 'getNodeParameter'>,
	parameter: string,
	itemIndex: number,
): AllowedHost[] {
	// the raw value: an expression is refused, not evaluated
	const raw = ctx.getNodeParameter(parameter, itemIndex, '', { rawExpressions: true });
	const { hosts, problems } = parseAllowedHosts(raw);
	if (problems.length > 0) {
		throw new NodeOperationError(ctx.getNode(), `${ALLOWED_HOSTS_NAME}: ${problems.join('; ')}`, {
			itemIndex,
			description:
				'Write the hosts themselves, e.g. files.example.internal, 10.0.0.0/8, 127.0.0.1:9000.',
		});
	}
	return hosts;
}

/** The deadline in seconds from its parameter; a value that is not a positive number is the default. */
export function timeoutSecondsFrom(value: unknown): number {
	const seconds = Number(value);
	return Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_DOWNLOAD_TIMEOUT_S;
}

/**
 * What every download of the action shares: the URL checked, n8n's helper and resolver within the address policy,
 * the cap, and a signal that fires at the deadline or when the execution is cancelled (n8n's httpRequest does not
 * take the execution's signal by itself).
 */
function prepareDownload(
	ctx: IExecuteFunctions,
	url: string,
	itemIndex: number,
	parameters: DownloadParameters,
) {
	if (!/^https?:\/\//i.test(url)) {
		throw new NodeOperationError(ctx.getNode(), 'The URL must start with http:// or https://', {
			itemIndex,
		});
	}
	const maxFileSize = ctx.getNodeParameter(parameters.maxFileSize, itemIndex, DEFAULT_MAX_FILE_MB);
	const timeoutS = timeoutSecondsFrom(
		ctx.getNodeParameter(parameters.timeout, itemIndex, DEFAULT_DOWNLOAD_TIMEOUT_S),
	);
	const allowed = readAllowedHosts(ctx, parameters.allowedHosts, itemIndex);
	const cancel = ctx.getExecutionCancelSignal?.();
	const deadline = AbortSignal.timeout(timeoutS * 1000);
	const limits: DownloadLimits = {
		maxBytes: maxBytesFrom(maxFileSize),
		signal: cancel ? AbortSignal.any([cancel, deadline]) : deadline,
	};
	const fetcher: Fetcher = {
		helpers: {
			http: (o: IHttpRequestOptions) => ctx.helpers.httpRequest(o),
			resolve: n8nResolver(ctx.helpers),
		},
		policy: { allowed, setting: parameters.setting },
	};
	return { fetcher, limits, stop: { cancel, timeoutS } };
}

/** The downloaded file, or the error its failure calls for: the file server's answer, the policy, or a limit. */
async function fileOrThrow<File>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	stop: { cancel?: AbortSignal; timeoutS: number },
	download: Promise<{ ok: true; file: File } | DownloadFailure>,
): Promise<File> {
	const outcome = await download;
	if (outcome.ok) return outcome.file;
	const { kind, message } = outcome;
	if (kind === 'too-large' || kind === 'store' || kind === 'blocked' || kind === 'refused') {
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex });
	}
	if (kind === 'stopped') {
		const lowered = `${message.charAt(0).toLowerCase()}${message.slice(1)}`;
		throw new NodeOperationError(
			ctx.getNode(),
			stop.cancel?.aborted
				? `The execution was cancelled: ${lowered}`
				: `${message.replace(/\.$/, '')} at its Download Timeout of ${stop.timeoutS} s. Raise Download Timeout if files this slow are expected.`,
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
	const { fetcher, limits, stop } = prepareDownload(ctx, url, itemIndex, URL_PARAMETERS);
	return await fileOrThrow(ctx, itemIndex, stop, downloadFile(fetcher, url, format, title, limits));
}

/** Streams a signed caption file into n8n's binary data (Download), or throws what went wrong. */
export async function downloadBinaryOrThrow(
	ctx: IExecuteFunctions,
	url: string,
	format: string,
	title: unknown,
	itemIndex: number,
): Promise<StoredFile<IBinaryData>> {
	const { fetcher, limits, stop } = prepareDownload(ctx, url, itemIndex, OPTIONS_PARAMETERS);
	const store = (data: Readable, fileName: string, mimeType: string) =>
		ctx.helpers.prepareBinaryData(data, fileName, mimeType);
	return await fileOrThrow(
		ctx,
		itemIndex,
		stop,
		downloadToBinary(fetcher, store, url, format, title, limits),
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

/** The total time a download may take, redirects included. */
export const downloadTimeoutProperty: INodeProperties = {
	displayName: 'Download Timeout (Seconds)',
	name: 'downloadTimeout',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: DEFAULT_DOWNLOAD_TIMEOUT_S,
	description:
		'The longest a download may take in all, redirects included: a slower one is stopped and ends in an error',
};
