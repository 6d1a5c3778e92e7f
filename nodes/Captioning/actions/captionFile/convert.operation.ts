import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	CaptionFormatError,
	type CaptionSourceFormat,
	type CaptionTargetFormat,
	convertCaptions,
	SUPPORTED_CONVERSIONS,
} from '../../shared/captions';

const properties: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The binary field that holds the caption file, e.g. "vtt" after the Captioning Trigger downloaded it',
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'options',
		options: [
			{ name: 'Detect Automatically', value: 'auto' },
			{ name: 'Google Speech-to-Text JSON', value: 'google_stt' },
			{ name: 'WebVTT', value: 'vtt' },
		],
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
				default: 84,
				description: 'When cues are built from words (Google Speech-to-Text input)',
			},
			{
				displayName: 'Max Characters per Line',
				name: 'maxLineChars',
				type: 'number',
				typeOptions: { minValue: 10 },
				default: 42,
				description: 'Lines longer than this are wrapped, two lines per cue at most',
			},
			{
				displayName: 'Max Cue Duration (Seconds)',
				name: 'maxCueSeconds',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 6,
				description: 'When cues are built from words (Google Speech-to-Text input)',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['captionFile'], operation: ['convert'] } },
	properties,
);

/** Recognises the service's two formats from their content. */
export function detectFormat(content: string): CaptionSourceFormat | undefined {
	const start = content.replace(/^\uFEFF/, '').trimStart();
	if (start.startsWith('WEBVTT')) return 'vtt';
	if (start.startsWith('{')) return 'google_stt';
	return undefined;
}

export async function execute(
	this: IExecuteFunctions,
	i: number,
	item: INodeExecutionData,
): Promise<INodeExecutionData[]> {
	const binaryPropertyName = this.getNodeParameter('binaryPropertyName', i) as string;
	const to = this.getNodeParameter('to', i) as CaptionTargetFormat;
	const chosen = this.getNodeParameter('from', i) as CaptionSourceFormat | 'auto';
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	this.helpers.assertBinaryData(i, binaryPropertyName);
	const buffer = await this.helpers.getBinaryDataBuffer(i, binaryPropertyName);
	const content = buffer.toString('utf8');
	const from = chosen === 'auto' ? detectFormat(content) : chosen;
	if (!from) {
		throw new NodeOperationError(
			this.getNode(),
			`The file in "${binaryPropertyName}" is neither WebVTT nor Google Speech-to-Text JSON`,
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
				`The ${from} file in "${binaryPropertyName}" cannot be read: ${error.message}`,
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
	const source = item.binary?.[binaryPropertyName];
	const base = (source?.fileName ?? 'captions').replace(/(\.google_stt)?\.[^.]+$/, '');
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
