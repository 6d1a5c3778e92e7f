import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	CAPTION_PROFILES,
	type CaptionDocument,
	CaptionFormatError,
	type CaptionLimits,
	type CaptionOptions,
	captionProfile,
	DEFAULT_PROFILE_ID,
	readCaptions,
} from '../../captions';
import {
	captionFormat,
	detectFormat,
	formatFromUrl,
	INPUT_FORMAT_OPTIONS,
} from '../../captions/formats';
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

const READABLE = INPUT_FORMAT_OPTIONS.map((option) => option.name).join(', ');

/** Where Convert, Check and Fix read a caption file from, and its format. */
export const inputProperties: INodeProperties[] = [
	{
		displayName: 'Input',
		name: 'inputSource',
		type: 'options',
		options: [
			{
				name: 'Binary Field',
				value: 'binary',
				description: 'A caption file in a binary field of the input item',
			},
			{
				name: 'Text',
				value: 'text',
				description: 'The caption file’s content as text, e.g. from an expression or an AI agent',
			},
			{
				name: 'URL',
				value: 'url',
				description: 'A signed caption file URL, downloaded first',
			},
		],
		default: 'binary',
		description:
			'Where the caption file comes from. As an AI agent tool, use Text or URL: tools get no input files.',
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { inputSource: ['binary'] } },
		hint: 'The binary field that holds the caption file, e.g. "vtt" after the Captioning Trigger downloaded it',
	},
	{
		displayName: 'Caption Text',
		name: 'content',
		type: 'string',
		typeOptions: { rows: 6 },
		default: '',
		required: true,
		displayOptions: { show: { inputSource: ['text'] } },
		placeholder: 'e.g. WEBVTT …',
		description: `The whole caption file: ${READABLE}`,
	},
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		displayOptions: { show: { inputSource: ['url'] } },
		placeholder: 'e.g. https://…?expires=…&signature=…',
		description: 'The signed URL of a caption file',
		hint: 'After the Captioning Trigger: {{ $json.files.vtt }}',
	},
	{ ...maxFileSizeProperty, displayOptions: { show: { inputSource: ['url'] } } },
	{
		displayName: 'From',
		name: 'from',
		type: 'options',
		options: [{ name: 'Detect Automatically', value: 'auto' }, ...INPUT_FORMAT_OPTIONS],
		default: 'auto',
		description: 'The format of the caption file',
	},
];

/** Convert's and Fix's option to name speakers where a format has no markup for them. */
export const includeVoiceOption: INodeProperties = {
	displayName: 'Include Speaker Names',
	name: 'includeVoice',
	type: 'boolean',
	default: false,
	description:
		'Whether to start a cue with its speaker ("Anna: …") in formats without speaker markup (SRT, SBV, TTML)',
};

export interface CaptionInput {
	content: string;
	/** Base of the output file name. */
	name: string;
	/** Where the content came from, for messages. */
	label: string;
}

async function readInput(
	ctx: IExecuteFunctions,
	i: number,
	item: INodeExecutionData,
	chosen: string,
): Promise<CaptionInput> {
	const source = ctx.getNodeParameter('inputSource', i, 'binary') as string;
	if (source === 'text') {
		const content = String(ctx.getNodeParameter('content', i) ?? '');
		if (!content.trim()) {
			throw new NodeOperationError(ctx.getNode(), 'Caption Text is empty', { itemIndex: i });
		}
		return { content, name: 'captions', label: 'Caption Text' };
	}
	if (source === 'url') {
		const url = String(ctx.getNodeParameter('url', i) ?? '').trim();
		const format = chosen === 'auto' ? formatFromUrl(url) : chosen;
		const file = await downloadOrThrow(ctx, url, format, item.json.title, i);
		return {
			content: file.data.toString('utf8'),
			name: file.fileName,
			label: 'the file at the URL',
		};
	}
	const binaryPropertyName = ctx.getNodeParameter('binaryPropertyName', i) as string;
	if (!item.binary?.[binaryPropertyName]) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The input item has no binary field "${binaryPropertyName}"`,
			{
				itemIndex: i,
				description: item.binary
					? `It has: ${Object.keys(item.binary).join(', ')}.`
					: 'It has no files. Download one first (Caption File → Download, or the trigger’s Download Caption Files), or set Input to Text or URL.',
			},
		);
	}
	const buffer = await ctx.helpers.getBinaryDataBuffer(i, binaryPropertyName);
	return {
		content: buffer.toString('utf8'),
		name: item.binary[binaryPropertyName].fileName ?? 'captions',
		label: `"${binaryPropertyName}"`,
	};
}

export interface ReadCaptions {
	input: CaptionInput;
	/** The format read (chosen, or detected). */
	from: string;
	document: CaptionDocument;
}

/** Reads the input's caption file into the common model, with errors that name the file and the fix. */
export async function readCaptionFile(
	ctx: IExecuteFunctions,
	i: number,
	item: INodeExecutionData,
	options: CaptionOptions = {},
): Promise<ReadCaptions> {
	const chosen = ctx.getNodeParameter('from', i, 'auto') as string;
	const input = await readInput(ctx, i, item, chosen);
	const from = chosen === 'auto' ? detectFormat(input.content) : chosen;
	if (!from) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The file in ${input.label} is not a caption file this node reads`,
			{
				itemIndex: i,
				description: `It reads ${READABLE}. Choose the input format under From, or check that the right input is selected.`,
			},
		);
	}
	try {
		return { input, from, document: readCaptions(from, input.content, options) };
	} catch (error) {
		if (error instanceof CaptionFormatError) {
			const label = captionFormat(from)?.label ?? from;
			throw new NodeOperationError(
				ctx.getNode(),
				`The ${label} file in ${input.label} cannot be read: ${error.message}`,
				{ itemIndex: i },
			);
		}
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
	}
}

const PROFILE_OPTIONS = [
	...CAPTION_PROFILES.map((profile) => ({
		name: profile.name,
		value: profile.id,
		description: profile.source,
	})),
	{ name: 'Custom', value: 'custom', description: 'The limits you add under Custom Limits' },
].sort((a, b) => a.name.localeCompare(b.name));

/** The style guide Check measures against and Fix fixes to, or limits of one's own (the editor shows the default guide's numbers). */
export const profileProperties: INodeProperties[] = [
	{
		displayName: 'Style Guide',
		name: 'profile',
		type: 'options',
		options: PROFILE_OPTIONS,
		default: DEFAULT_PROFILE_ID,
		description:
			'Whose limits to apply: line length, lines, reading speed, duration and gaps (docs/captions.md lists each guide’s numbers and sources)',
	},
	{
		displayName: 'Custom Limits',
		name: 'customLimits',
		type: 'collection',
		placeholder: 'Add limit',
		default: {},
		displayOptions: { show: { profile: ['custom'] } },
		description: 'A limit not added is not checked. Overlaps and empty cues always are.',
		options: [
			{
				displayName: 'Allow Cues Without a Gap',
				name: 'allowChained',
				type: 'boolean',
				default: false,
				description:
					'Whether a cue may start exactly when the previous one ends, even though shorter gaps than Min Gap are not allowed',
			},
			{
				displayName: 'Max Characters per Line',
				name: 'maxCharsPerLine',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 42,
			},
			{
				displayName: 'Max Characters per Second',
				name: 'maxCharsPerSecond',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 1 },
				default: 20,
				description: 'Reading speed: spaces and punctuation count, line breaks do not',
			},
			{
				displayName: 'Max Duration (Seconds)',
				name: 'maxDurationSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, numberPrecision: 3 },
				default: 7,
			},
			{
				displayName: 'Max Lines',
				name: 'maxLines',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 2,
			},
			{
				displayName: 'Max Words per Minute',
				name: 'maxWordsPerMinute',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 180,
			},
			{
				displayName: 'Min Duration (Seconds)',
				name: 'minDurationSeconds',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 3 },
				default: 0.833,
			},
			{
				displayName: 'Min Gap (Seconds)',
				name: 'minGapSeconds',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 3 },
				default: 0.083,
				description: 'Shortest time between one cue’s end and the next cue’s start',
			},
		],
	},
];

const seconds = (value: unknown) =>
	value === undefined || value === null || value === ''
		? undefined
		: Math.round(Number(value) * 1000);
const number = (value: unknown) =>
	value === undefined || value === null || value === '' ? undefined : Number(value);

/** Custom limits from the editor's values (seconds) to the library's (milliseconds); pure, for tests. */
export function customLimits(values: IDataObject): CaptionLimits {
	const limits: CaptionLimits = {
		maxCharsPerLine: number(values.maxCharsPerLine),
		maxLines: number(values.maxLines),
		maxCharsPerSecond: number(values.maxCharsPerSecond),
		maxWordsPerMinute: number(values.maxWordsPerMinute),
		minDurationMs: seconds(values.minDurationSeconds),
		maxDurationMs: seconds(values.maxDurationSeconds),
		minGapMs: seconds(values.minGapSeconds),
		allowChained: values.allowChained === true ? true : undefined,
	};
	return Object.fromEntries(
		Object.entries(limits).filter(([, value]) => value !== undefined),
	) as CaptionLimits;
}

/** What limits contradict each other, in words; undefined when they do not. */
export function limitsProblem(limits: CaptionLimits): string | undefined {
	for (const [name, value] of Object.entries(limits)) {
		if (typeof value === 'number' && !(Number.isFinite(value) && value >= 0)) {
			return `${name} must be a number of at least 0, got ${value}`;
		}
	}
	if (
		limits.minDurationMs !== undefined &&
		limits.maxDurationMs !== undefined &&
		limits.minDurationMs > limits.maxDurationMs
	) {
		return 'Min Duration is longer than Max Duration';
	}
	return undefined;
}

export interface ChosenProfile {
	id: string;
	name: string;
	source?: string;
	url?: string;
	limits: CaptionLimits;
}

/** The chosen style guide and its limits. */
export function readProfile(ctx: IExecuteFunctions, i: number): ChosenProfile {
	const id = ctx.getNodeParameter('profile', i, DEFAULT_PROFILE_ID) as string;
	if (id === 'custom') {
		const limits = customLimits(ctx.getNodeParameter('customLimits', i, {}) as IDataObject);
		const problem = limitsProblem(limits);
		if (problem) {
			throw new NodeOperationError(ctx.getNode(), `The custom limits do not work: ${problem}`, {
				itemIndex: i,
				description: 'Change them under Custom Limits.',
			});
		}
		return { id, name: 'Custom', limits };
	}
	const profile = captionProfile(id);
	if (!profile) {
		throw new NodeOperationError(ctx.getNode(), `The style guide "${id}" is not known`, {
			itemIndex: i,
			description: `Choose one of: ${PROFILE_OPTIONS.map((option) => option.name).join(', ')}.`,
		});
	}
	const { name, source, url, limits } = profile;
	return { id, name, source, url, limits };
}
