import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { downloadOrThrow } from './shared';
import {
	CaptionFormatError,
	convertCaptions,
	DEFAULT_CUE_LAYOUT,
	DEFAULT_MAX_CUE_MS,
} from '../../captions';
import {
	CAPTION_FORMAT_OPTIONS,
	captionBaseName,
	type CaptionSourceFormat,
	type CaptionTargetFormat,
	detectFormat,
	formatFromUrl,
	SUPPORTED_CONVERSIONS,
} from '../../captions/formats';

// the editor shows the defaults that apply when an option is not added (captions/words.ts)
const { maxCueChars: MAX_CUE_CHARS, maxLineChars: MAX_LINE_CHARS } = DEFAULT_CUE_LAYOUT;
const MAX_CUE_SECONDS = DEFAULT_MAX_CUE_MS / 1000;

const properties: INodeProperties[] = [
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
		placeholder: 'WEBVTT …',
		description: 'The whole WebVTT file, or the Google Speech-to-Text JSON',
	},
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		displayOptions: { show: { inputSource: ['url'] } },
		placeholder: 'https://…?expires=…&signature=…',
		description:
			'The signed URL of a caption file, e.g. {{ $JSON.files.vtt }} after the Captioning Trigger',
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'options',
		options: [{ name: 'Detect Automatically', value: 'auto' }, ...CAPTION_FORMAT_OPTIONS],
		default: 'auto',
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'options',
		options: [
			{
				name: 'Plain Text',
				value: 'text',
				description: 'The transcript as text, in the "text" field',
			},
			{
				name: 'Segments JSON',
				value: 'segments',
				description: 'One entry per cue with start, end and text, in the "segments" field',
			},
			{ name: 'SRT', value: 'srt', description: 'A SubRip subtitle file' },
			{ name: 'WebVTT', value: 'vtt', description: 'A WebVTT caption file' },
			{
				name: 'Words JSON',
				value: 'words',
				description:
					'Every word with its timing (Google Speech-to-Text input only), in the "words" field',
			},
		],
		default: 'srt',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'outputBinaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { to: ['srt', 'vtt'] } },
		hint: 'The name of the output binary field to put the file in',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Max Characters per Cue',
				name: 'maxCueChars',
				type: 'number',
				typeOptions: { minValue: 10 },
				default: MAX_CUE_CHARS,
				description: 'When cues are built from words (Google Speech-to-Text input)',
			},
			{
				displayName: 'Max Characters per Line',
				name: 'maxLineChars',
				type: 'number',
				typeOptions: { minValue: 10 },
				default: MAX_LINE_CHARS,
				description: 'Lines longer than this are wrapped, two lines per cue at most',
			},
			{
				displayName: 'Max Cue Duration (Seconds)',
				name: 'maxCueSeconds',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: MAX_CUE_SECONDS,
				description: 'When cues are built from words (Google Speech-to-Text input)',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['captionFile'], operation: ['convert'] } },
	properties,
);

interface CaptionInput {
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
	chosen: CaptionSourceFormat | 'auto',
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

export async function execute(
	this: IExecuteFunctions,
	i: number,
	item: INodeExecutionData,
): Promise<INodeExecutionData[]> {
	const to = this.getNodeParameter('to', i) as CaptionTargetFormat;
	const chosen = this.getNodeParameter('from', i) as CaptionSourceFormat | 'auto';
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const input = await readInput(this, i, item, chosen);
	const content = input.content;
	const from = chosen === 'auto' ? detectFormat(content) : chosen;
	if (!from) {
		throw new NodeOperationError(
			this.getNode(),
			`The file in ${input.label} is neither WebVTT nor Google Speech-to-Text JSON`,
			{
				itemIndex: i,
				description:
					'Choose the input format under From, or check that the right binary field is selected.',
			},
		);
	}
	if (!SUPPORTED_CONVERSIONS[from].includes(to)) {
		throw new NodeOperationError(this.getNode(), `Cannot convert ${from} to ${to}`, {
			itemIndex: i,
			description: `From ${from} this node can produce: ${SUPPORTED_CONVERSIONS[from].join(', ')}. WebVTT has no word timings.`,
		});
	}
	let converted;
	try {
		converted = convertCaptions({
			from,
			to,
			content,
			options: {
				maxCueChars: options.maxCueChars as number | undefined,
				maxLineChars: options.maxLineChars as number | undefined,
				maxCueMs:
					options.maxCueSeconds === undefined
						? undefined
						: Math.round(Number(options.maxCueSeconds) * 1000),
			},
		});
	} catch (error) {
		if (error instanceof CaptionFormatError) {
			throw new NodeOperationError(
				this.getNode(),
				`The ${from} file in ${input.label} cannot be read: ${error.message}`,
				{ itemIndex: i },
			);
		}
		throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
	}
	if (to === 'text')
		return [
			{
				json: { ...item.json, text: converted.content },
				binary: item.binary,
				pairedItem: { item: i },
			},
		];
	if (to === 'segments' || to === 'words') {
		return [
			{
				json: { ...item.json, [to]: JSON.parse(converted.content) },
				binary: item.binary,
				pairedItem: { item: i },
			},
		];
	}
	const base = captionBaseName(input.name);
	const outputName = this.getNodeParameter('outputBinaryPropertyName', i) as string;
	const file = await this.helpers.prepareBinaryData(
		Buffer.from(converted.content, 'utf8'),
		`${base}.${converted.fileExtension}`,
		converted.mimeType,
	);
	return [
		{
			json: item.json,
			binary: { ...(item.binary ?? {}), [outputName]: file },
			pairedItem: { item: i },
		},
	];
}
