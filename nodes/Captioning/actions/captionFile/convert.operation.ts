import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	captionData,
	CaptionFormatError,
	type CaptionOptions,
	DEFAULT_CHUNK_MINUTES,
	DEFAULT_CUE_LAYOUT,
	DEFAULT_MAX_CUE_MS,
	renderCaptions,
} from '../../captions';
import {
	captionBaseName,
	captionFormat,
	CAPTION_FORMATS,
	conversionsFrom,
	FILE_OUTPUT_FORMATS,
	OUTPUT_FORMAT_OPTIONS,
} from '../../captions/formats';
import { includeVoiceOption, inputProperties, readCaptionFile } from './shared';
import { DEFAULT_TOOL_MAX_CHARS, toolOutput, type ToolOutputStyle } from './toolOutput';

// the editor shows the defaults that apply when an option is not added (captions/words.ts)
const { maxCueChars: MAX_CUE_CHARS, maxLineChars: MAX_LINE_CHARS } = DEFAULT_CUE_LAYOUT;
const MAX_CUE_SECONDS = DEFAULT_MAX_CUE_MS / 1000;
const DEFAULT_CHUNK_TOKENS = 1000;
const WORD_TIMED_INPUTS = CAPTION_FORMATS.filter((f) => f.parse && f.wordTimings)
	.map((f) => f.label)
	.join(', ');

const properties: INodeProperties[] = [
	...inputProperties,
	{
		displayName: 'To',
		name: 'to',
		type: 'options',
		options: OUTPUT_FORMAT_OPTIONS,
		default: 'srt',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'outputBinaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { to: FILE_OUTPUT_FORMATS } },
		hint: 'The name of the output binary field to put the file in',
	},
	{
		displayName: 'Chunk By',
		name: 'chunkBy',
		type: 'options',
		options: [
			{
				name: 'Minutes',
				value: 'minutes',
				description: 'Each chunk spans at most the minutes set below',
			},
			{
				name: 'Token Budget',
				value: 'tokens',
				description: 'Each chunk holds at most about the tokens set below (4 characters per token)',
			},
		],
		default: 'minutes',
		displayOptions: { show: { to: ['chunks'] } },
	},
	{
		displayName: 'Minutes per Chunk',
		name: 'chunkMinutes',
		type: 'number',
		typeOptions: { minValue: 0.1, numberPrecision: 1 },
		default: DEFAULT_CHUNK_MINUTES,
		displayOptions: { show: { to: ['chunks'], chunkBy: ['minutes'] } },
	},
	{
		displayName: 'Tokens per Chunk',
		name: 'chunkTokens',
		type: 'number',
		typeOptions: { minValue: 50 },
		default: DEFAULT_CHUNK_TOKENS,
		displayOptions: { show: { to: ['chunks'], chunkBy: ['tokens'] } },
		hint: 'Estimated as characters ÷ 4, which fits English text and most models; other languages use more tokens',
	},
	{
		displayName: 'Tool Output',
		name: 'toolOutput',
		type: 'options',
		options: [
			{
				name: 'As Chosen Under To',
				value: 'full',
				description:
					'Segments, words and chunks as JSON entries, as many as fit Max Output Characters',
			},
			{
				name: 'Simplified Text',
				value: 'simplified',
				description:
					'One line per segment or chunk: "[start → end] text", about a third of the JSON’s size',
			},
		],
		default: 'full',
		displayOptions: { show: { '@tool': [true] } },
		description:
			'What the agent reads. Agents see no files, so a caption file comes as its text in "content".',
	},
	{
		displayName: 'Max Output Characters',
		name: 'toolMaxChars',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: DEFAULT_TOOL_MAX_CHARS,
		displayOptions: { show: { '@tool': [true] } },
		description:
			'Longest output the agent reads (about 4 characters per token); longer output is cut and says so. 0 for no limit.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			includeVoiceOption,
			{
				displayName: 'Language',
				name: 'language',
				type: 'string',
				default: '',
				placeholder: 'e.g. en-GB',
				description:
					'The language of TTML output (xml:lang) when the captions do not name it; "und" (undetermined) if empty',
			},
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

/** The editor's values as conversion options. */
function conversionOptions(ctx: IExecuteFunctions, i: number, to: string): CaptionOptions {
	const options = ctx.getNodeParameter('options', i, {}) as IDataObject;
	const chunks: CaptionOptions = {};
	if (to === 'chunks') {
		if (ctx.getNodeParameter('chunkBy', i, 'minutes') === 'tokens') {
			chunks.chunkTokens = Math.round(Number(ctx.getNodeParameter('chunkTokens', i)));
		} else {
			chunks.chunkMinutes = Number(ctx.getNodeParameter('chunkMinutes', i));
		}
	}
	return {
		maxCueChars: options.maxCueChars as number | undefined,
		maxLineChars: options.maxLineChars as number | undefined,
		maxCueMs:
			options.maxCueSeconds === undefined
				? undefined
				: Math.round(Number(options.maxCueSeconds) * 1000),
		includeVoice: options.includeVoice as boolean | undefined,
		language: (options.language as string | undefined) || undefined,
		...chunks,
	};
}

/** Whether the node runs as an AI agent's tool (n8n names the tool variant of a node `…Tool`). */
function runsAsTool(ctx: IExecuteFunctions): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

export async function execute(
	this: IExecuteFunctions,
	i: number,
	item: INodeExecutionData,
): Promise<INodeExecutionData[]> {
	const to = this.getNodeParameter('to', i) as string;
	const target = captionFormat(to);
	if (!target?.render) {
		throw new NodeOperationError(this.getNode(), `"${to}" is not a format this node writes`, {
			itemIndex: i,
			description: `Choose one of: ${OUTPUT_FORMAT_OPTIONS.map((o) => o.name).join(', ')}.`,
		});
	}
	const options = conversionOptions(this, i, to);
	const { input, from, document } = await readCaptionFile(this, i, item, options);
	const source = captionFormat(from)!;
	if (!conversionsFrom(source).includes(to)) {
		throw new NodeOperationError(
			this.getNode(),
			`Cannot convert ${source.label} to ${target.label}`,
			{
				itemIndex: i,
				description: `${target.label} needs word timings, which only ${WORD_TIMED_INPUTS} files have. From ${source.label} this node can produce: ${conversionsFrom(source).join(', ')}.`,
			},
		);
	}
	let value: unknown;
	try {
		value =
			target.output?.kind === 'json'
				? captionData(to, document, options)
				: renderCaptions(from, to, document, options);
	} catch (error) {
		const message =
			error instanceof CaptionFormatError
				? `Cannot convert to ${target.label}: ${error.message}`
				: error;
		throw new NodeOperationError(this.getNode(), message as string | Error, { itemIndex: i });
	}
	if (runsAsTool(this)) {
		const style = this.getNodeParameter('toolOutput', i, 'full') as ToolOutputStyle;
		const maxChars = Number(this.getNodeParameter('toolMaxChars', i, DEFAULT_TOOL_MAX_CHARS));
		const field = target.output?.kind === 'json' ? target.output.field : 'content';
		return [{ json: toolOutput(field, value, style, maxChars), pairedItem: { item: i } }];
	}
	if (target.output?.kind === 'json') {
		return [
			{
				json: { ...item.json, [target.output.field]: value as IDataObject },
				binary: item.binary,
				pairedItem: { item: i },
			},
		];
	}
	const outputName = this.getNodeParameter('outputBinaryPropertyName', i) as string;
	const file = await this.helpers.prepareBinaryData(
		Buffer.from(value as string, 'utf8'),
		`${captionBaseName(input.name)}.${target.extension}`,
		target.mimeType,
	);
	return [
		{
			json: item.json,
			binary: { ...(item.binary ?? {}), [outputName]: file },
			pairedItem: { item: i },
		},
	];
}
