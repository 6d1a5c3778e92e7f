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
	type CaptionWarning,
	captionProfile,
	CONVERT_OPTION_FIELDS,
	decodeCaptionBytes,
	type EditorOptionName,
	DEFAULT_PROFILE_ID,
	FRAME_RATES,
	frameRateLabel,
	optionBounds,
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

/**
 * An option as an editor parameter, from its one statement (captions/options.ts): name, default and description
 * from its field, type and least value from its schema (in the editor's unit: seconds where it counts ms).
 */
export function optionProperty(
	key: EditorOptionName,
	more: Partial<INodeProperties> = {},
): INodeProperties {
	const field = CONVERT_OPTION_FIELDS[key];
	const bounds = optionBounds(key);
	const scale = 'scale' in field ? field.scale : 1;
	return {
		displayName: field.displayName,
		name: field.name,
		type: bounds.type,
		default: field.default,
		...(bounds.minValue === undefined
			? {}
			: {
					typeOptions: {
						minValue: bounds.minValue / scale,
						...(bounds.integer ? {} : { numberPrecision: 1 }),
					},
				}),
		...('description' in field ? { description: field.description } : {}),
		...('hint' in field ? { hint: field.hint } : {}),
		...('placeholder' in field ? { placeholder: field.placeholder } : {}),
		...more,
	};
}

/** Convert's and Fix's option to name speakers where a format has no markup for them (captions/options.ts). */
export const includeVoiceOption: INodeProperties = optionProperty('includeVoice');

export interface CaptionInput {
	content: string;
	/** Base of the output file name. */
	name: string;
	/** Where the content came from, for messages. */
	label: string;
	/** What decoding the file's bytes guessed (no byte order mark, not UTF-8). */
	warnings: CaptionWarning[];
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
		return { content, name: 'captions', label: 'Caption Text', warnings: [] };
	}
	if (source === 'url') {
		const url = String(ctx.getNodeParameter('url', i) ?? '').trim();
		const format = chosen === 'auto' ? formatFromUrl(url) : chosen;
		const file = await downloadOrThrow(ctx, url, format, item.json.title, i);
		const { text, warnings } = decodeCaptionBytes(file.data);
		return { content: text, name: file.fileName, label: 'the file at the URL', warnings };
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
	const { text, warnings } = decodeCaptionBytes(buffer);
	return {
		content: text,
		name: item.binary[binaryPropertyName].fileName ?? 'captions',
		label: `"${binaryPropertyName}"`,
		warnings,
	};
}

export interface ReadCaptions {
	input: CaptionInput;
	/** The format read (chosen, or detected). */
	from: string;
	document: CaptionDocument;
	/** What decoding and reading the file left out or guessed: line numbers and text. */
	warnings: CaptionWarning[];
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
		const document = readCaptions(from, input.content, options);
		return { input, from, document, warnings: [...input.warnings, ...(document.warnings ?? [])] };
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

/** The style guides that count gaps in frames: they need the video's frame rate. */
const FRAME_COUNTING = CAPTION_PROFILES.filter(
	(profile) => profile.limits.minGapFrames !== undefined,
).map((profile) => profile.id);

const FRAME_RATE_OPTIONS = [
	...FRAME_RATES.map(({ name }) => ({ name: `${name} fps`, value: name })),
	{ name: 'Custom', value: 'custom' },
];

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
		displayName: 'Frame Rate',
		name: 'frameRate',
		type: 'options',
		options: FRAME_RATE_OPTIONS,
		default: '24',
		displayOptions: { show: { profile: FRAME_COUNTING } },
		description:
			'The video’s frame rate: this guide counts gaps and durations in frames (2 frames between cues; gaps of half a second or less closed to 2 frames)',
	},
	{
		displayName: 'Custom Frame Rate',
		name: 'customFrameRate',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 240, numberPrecision: 3 },
		default: 24,
		displayOptions: { show: { profile: FRAME_COUNTING, frameRate: ['custom'] } },
		description: 'Frames per second, e.g. 50 or 59.94',
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
				displayName: 'Close Gaps Up To (Seconds)',
				name: 'chainGapSeconds',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 3 },
				default: 0.5,
				description:
					'Gaps this short or shorter, but longer than Min Gap, should be closed to Min Gap (chaining, as Netflix closes gaps of half a second)',
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
		chainGapMs: seconds(values.chainGapSeconds),
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
	/** The frame rate gaps and durations are counted at, as chosen: "23.976". */
	frameRate?: string;
	limits: CaptionLimits;
}

/** The frame rate chosen in the editor, in frames per second: 23.976 is exactly 24000/1001. */
export function chosenFrameRate(choice: string, custom: unknown): number | undefined {
	if (choice === 'custom') {
		const value = Number(custom);
		return Number.isFinite(value) && value > 0 ? value : undefined;
	}
	return FRAME_RATES.find((rate) => rate.name === choice)?.value;
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
	const { name, source, url } = profile;
	if (!FRAME_COUNTING.includes(id)) return { id, name, source, url, limits: profile.limits };
	const choice = String(ctx.getNodeParameter('frameRate', i, '24'));
	const frameRate = chosenFrameRate(choice, ctx.getNodeParameter('customFrameRate', i, 24));
	if (frameRate === undefined) {
		throw new NodeOperationError(ctx.getNode(), `The frame rate "${choice}" is not a frame rate`, {
			itemIndex: i,
			description: `Choose one of ${FRAME_RATE_OPTIONS.map((option) => option.name).join(', ')}, or a Custom Frame Rate above 0.`,
		});
	}
	return {
		id,
		name,
		source,
		url,
		frameRate: frameRateLabel(frameRate),
		limits: { ...profile.limits, frameRate },
	};
}
