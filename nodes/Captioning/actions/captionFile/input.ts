// Where Convert, Check and Fix read a caption file from (a binary field, text or a URL), and its reading into the
// common model with errors that name the file and the fix.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	type CaptionDocument,
	CaptionFormatError,
	type CaptionOptions,
	type CaptionWarning,
	capWarnings,
	decodeCaptionBytes,
	readCaptions,
} from '../../captions';
import {
	captionFormat,
	detectFormat,
	formatFromUrl,
	INPUT_FORMAT_OPTIONS,
} from '../../captions/formats';
import { describeFound, whyUnreadable } from '../../captions/found';
import { allowedHostsProperty } from '../../transport/addressPolicy';
import { downloadOrThrow, downloadTimeoutProperty, maxFileSizeProperty } from './downloads';

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
	{ ...downloadTimeoutProperty, displayOptions: { show: { inputSource: ['url'] } } },
	{ ...allowedHostsProperty, displayOptions: { show: { inputSource: ['url'] } } },
	{
		displayName: 'From',
		name: 'from',
		type: 'options',
		options: [{ name: 'Detect Automatically', value: 'auto' }, ...INPUT_FORMAT_OPTIONS],
		default: 'auto',
		description: 'The format of the caption file',
	},
];

export interface CaptionInput {
	content: string;
	/** Base of the output file name. */
	name: string;
	/** Where the content came from, for messages. */
	label: string;
	/** What decoding the file's bytes guessed (no byte order mark, not UTF-8). */
	warnings: CaptionWarning[];
	/** The host it was fetched from: its content is then described, never quoted, in an error. */
	fetchedFrom?: string;
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
		const fetchedFrom = new URL(url).host;
		return {
			content: text,
			name: file.fileName,
			label: `the file at ${fetchedFrom}`,
			warnings,
			fetchedFrom,
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
		const found = input.fetchedFrom ? `: ${describeFound(input.content)}` : '';
		throw new NodeOperationError(
			ctx.getNode(),
			input.fetchedFrom
				? `The file at ${input.fetchedFrom} is not a caption file this node reads${found}`
				: `The file in ${input.label} is not a caption file this node reads`,
			{
				itemIndex: i,
				description: `It reads ${READABLE}. Choose the input format under From, or check that the right input is selected.`,
			},
		);
	}
	try {
		const document = readCaptions(from, input.content, options);
		return { input, from, document, warnings: capWarnings(input.warnings, document.warnings) };
	} catch (error) {
		if (error instanceof CaptionFormatError) {
			const label = captionFormat(from)?.label ?? from;
			// a fetched file is described, never quoted: the readers' messages quote the line they stopped at
			const message = input.fetchedFrom
				? `The file at ${input.fetchedFrom} ${whyUnreadable(label, input.content, error.line)}.`
				: `The ${label} file in ${input.label} cannot be read: ${error.message}`;
			throw new NodeOperationError(ctx.getNode(), message, { itemIndex: i });
		}
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
	}
}
