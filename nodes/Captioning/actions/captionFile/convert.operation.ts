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
	type CaptionWarning,
	capWarnings,
	CONVERT_OPTION_FIELDS,
	type EditorOptionName,
	readOptions,
	renderCaptions,
	Warnings,
} from '../../captions';
import {
	captionBaseName,
	captionFormat,
	CAPTION_FORMATS,
	conversionsFrom,
	FILE_OUTPUT_FORMATS,
	OUTPUT_FORMAT_OPTIONS,
} from '../../captions/formats';
import { inputProperties, type ReadCaptions, readCaptionFile } from './input';
import { optionProperty } from './options';
import { DEFAULT_TOOL_MAX_CHARS, toolOutputWithWarnings, type ToolOutputStyle } from './toolOutput';

/** The first typeVersion with these; version 1 keeps 0.1.0's (docs/design.md, "Node versions"). */
const FROM_VERSION_2 = { _cnd: { gte: 2 } };
/** 0.1.0 cut cues built from words at 5 s unless Max Cue Duration was added (whose field showed 6). */
const VERSION_1_MAX_CUE_MS = 5000;

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
	optionProperty('chunkMinutes', {
		displayOptions: { show: { to: ['chunks'], chunkBy: ['minutes'] } },
	}),
	optionProperty('chunkTokens', {
		displayOptions: { show: { to: ['chunks'], chunkBy: ['tokens'] } },
	}),
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
		displayOptions: { show: { '@tool': [true], '@version': [FROM_VERSION_2] } },
		description:
			'What the agent reads. Agents see no files, so a caption file comes as its text in "content".',
	},
	{
		displayName: 'Max Output Characters',
		name: 'toolMaxChars',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: DEFAULT_TOOL_MAX_CHARS,
		displayOptions: { show: { '@tool': [true], '@version': [FROM_VERSION_2] } },
		description:
			'Longest output the agent reads (about 4 characters per token), its warnings included (the first few and their count); longer output is cut and says so. 0 for no limit.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			optionProperty('includeVoice'),
			optionProperty('language'),
			optionProperty('maxCueChars'),
			optionProperty('maxLineChars'),
			optionProperty('maxCueMs'),
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['captionFile'], operation: ['convert'] } },
	properties,
);

/** The options collection's parameters, by their editor name, and the option each sets. */
const COLLECTED: EditorOptionName[] = [
	'includeVoice',
	'language',
	'maxCueChars',
	'maxLineChars',
	'maxCueMs',
];

/**
 * The editor's values as conversion options: each parameter to its option (seconds to milliseconds), then checked
 * once against the options schema, which refuses an option it does not know.
 */
export function optionsFromEditor(
	values: IDataObject,
	chunks: { chunkMinutes?: number; chunkTokens?: number } = {},
): CaptionOptions {
	const options: Record<string, unknown> = { ...chunks };
	for (const [name, value] of Object.entries(values)) {
		const key = COLLECTED.find((option) => CONVERT_OPTION_FIELDS[option].name === name);
		if (key === undefined) {
			options[name] = value;
			continue;
		}
		if (value === undefined || value === null || value === '') continue;
		const field = CONVERT_OPTION_FIELDS[key];
		options[key] = 'scale' in field ? Math.round(Number(value) * field.scale) : value;
	}
	return readOptions(options);
}

/** The editor's values as conversion options. */
function conversionOptions(ctx: IExecuteFunctions, i: number, to: string): CaptionOptions {
	const chunks: { chunkMinutes?: number; chunkTokens?: number } = {};
	if (to === 'chunks') {
		if (ctx.getNodeParameter('chunkBy', i, 'minutes') === 'tokens') {
			chunks.chunkTokens = Math.round(Number(ctx.getNodeParameter('chunkTokens', i)));
		} else {
			chunks.chunkMinutes = Number(ctx.getNodeParameter('chunkMinutes', i));
		}
	}
	try {
		const options = optionsFromEditor(
			ctx.getNodeParameter('options', i, {}) as IDataObject,
			chunks,
		);
		if (ctx.getNode().typeVersion < 2) options.maxCueMs ??= VERSION_1_MAX_CUE_MS;
		return options;
	} catch (error) {
		const known = error instanceof CaptionFormatError;
		throw new NodeOperationError(ctx.getNode(), known ? error.message : (error as Error), {
			itemIndex: i,
			...(known ? { description: 'Change the value under Options.' } : {}),
		});
	}
}

/**
 * Whether the node answers as an AI agent's tool (n8n names the tool variant of a node `…Tool`): from version 2;
 * version 1 answers with its ordinary items, as 0.1.0 did.
 */
function answersAsTool(ctx: IExecuteFunctions): boolean {
	const node = ctx.getNode();
	return node.type.endsWith('Tool') && node.typeVersion >= 2;
}

/** The document in the format `to`: a file's text or the JSON it gives, with what writing it left out. */
function convertDocument(
	ctx: IExecuteFunctions,
	i: number,
	{
		from,
		to,
		document,
		options,
	}: Pick<ReadCaptions, 'from' | 'document'> & {
		to: string;
		options: CaptionOptions;
	},
): { value: unknown; warnings: CaptionWarning[] } {
	const target = captionFormat(to)!;
	try {
		if (target.output?.kind === 'json') {
			const warnings = new Warnings();
			const value = captionData(to, document, options, (warning) => warnings.add(warning));
			return { value, warnings: warnings.list() };
		}
		const written = renderCaptions(from, to, document, options);
		return { value: written.content, warnings: written.warnings };
	} catch (error) {
		const message =
			error instanceof CaptionFormatError
				? `Cannot convert to ${target.label}: ${error.message}`
				: error;
		throw new NodeOperationError(ctx.getNode(), message as string | Error, { itemIndex: i });
	}
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
	const { input, from, document, warnings: read } = await readCaptionFile(this, i, item, options);
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
	const { value, warnings: written } = convertDocument(this, i, { from, to, document, options });
	const warnings = capWarnings(read, written);
	const noted = { warnings: warnings as unknown as IDataObject[] };
	if (answersAsTool(this)) {
		const style = this.getNodeParameter('toolOutput', i, 'full') as ToolOutputStyle;
		const maxChars = Number(this.getNodeParameter('toolMaxChars', i, DEFAULT_TOOL_MAX_CHARS));
		const field = target.output?.kind === 'json' ? target.output.field : 'content';
		// the warnings within the same bound: a file may have thousands of them
		const json = toolOutputWithWarnings(field, value, style, maxChars, noted.warnings);
		return [{ json, pairedItem: { item: i } }];
	}
	if (target.output?.kind === 'json') {
		return [
			{
				json: { ...item.json, [target.output.field]: value as IDataObject, ...noted },
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
			json: { ...item.json, ...noted },
			binary: { ...(item.binary ?? {}), [outputName]: file },
			pairedItem: { item: i },
		},
	];
}
