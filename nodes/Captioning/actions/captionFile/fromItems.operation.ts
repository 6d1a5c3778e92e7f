// Create From Items: every input item one cue, as Convert writes Segments JSON, into one caption file, so a workflow
// can translate or edit the text with any node and get WebVTT, SRT, SBV or TTML back with the timing kept. An
// operation of its own rather than an input of Convert: it reads all items at once and answers with one, where
// Convert answers each item with its own file (docs/captions.md, "Captions from items").
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	CAPTION_PROFILES,
	CaptionFormatError,
	captionProfile,
	cuesFromItems,
	DEFAULT_PROFILE_ID,
	WRITABLE_FILE_FORMATS,
	writeCaptionFile,
} from '../../captions';
import { includeVoiceOption, optionProperty } from './options';

const KEEP_LINES = 'keep';

const properties: INodeProperties[] = [
	{
		displayName: 'To',
		name: 'to',
		type: 'options',
		options: WRITABLE_FILE_FORMATS.map((format) => ({ name: format.label, value: format.id })).sort(
			(a, b) => a.name.localeCompare(b.name),
		),
		default: 'vtt',
		description: 'The format of the caption file written from the items',
	},
	{
		displayName: 'Text Field',
		name: 'textField',
		type: 'string',
		default: 'text',
		required: true,
		hint: 'The field of each item that holds its cue’s text, e.g. the field a translation node writes',
	},
	{
		displayName: 'Lines',
		name: 'lines',
		type: 'options',
		options: [
			...CAPTION_PROFILES.map((profile) => ({
				name: `Laid Out to ${profile.name}`,
				value: profile.id,
				description: `At most ${profile.limits.maxCharsPerLine} characters a line, ${profile.limits.maxLines} lines`,
			})),
			{
				name: 'Kept as Given',
				value: KEEP_LINES,
				description: 'Each item’s text as it is, line breaks included',
			},
		],
		default: DEFAULT_PROFILE_ID,
		description:
			'A translation is rarely as long as its source: its lines are laid out again to a style guide, breaking at natural points',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'outputBinaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
	},
	{
		displayName: 'File Name',
		name: 'fileName',
		type: 'string',
		default: 'captions',
		description: 'The name of the file written, without its extension',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [includeVoiceOption, optionProperty('language')],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['captionFile'], operation: ['fromItems'] } },
	properties,
);

/** The line limits the items' text is laid out to, or none when kept as given. */
function layoutOf(choice: string) {
	if (choice === KEEP_LINES) return undefined;
	const limits = (captionProfile(choice) ?? captionProfile(DEFAULT_PROFILE_ID)!).limits;
	return { maxLineChars: limits.maxCharsPerLine, maxLines: limits.maxLines };
}

/** Every input item a cue; one output item with the caption file and what writing it could not keep as it was. */
export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const to = this.getNodeParameter('to', 0) as string;
	const textField = String(this.getNodeParameter('textField', 0, 'text')).trim() || 'text';
	const layout = layoutOf(String(this.getNodeParameter('lines', 0, DEFAULT_PROFILE_ID)));
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	let written: ReturnType<typeof writeCaptionFile>;
	let cues: number;
	try {
		const read = cuesFromItems(
			items.map((item) => item.json),
			{ textField, layout },
		);
		cues = read.cues.length;
		written = writeCaptionFile(
			to,
			{ cues: read.cues, warnings: read.warnings },
			{
				includeVoice: options.includeVoice === true,
				...(typeof options.language === 'string' && options.language !== ''
					? { language: options.language }
					: {}),
			},
		);
	} catch (error) {
		if (!(error instanceof CaptionFormatError)) {
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: 0 });
		}
		throw new NodeOperationError(this.getNode(), error.message, {
			itemIndex: error.item ?? 0,
			description:
				'Create From Items takes one item per cue, as Convert writes Segments JSON (To: Segments JSON, then Split Out on "segments").',
		});
	}
	const outputName = this.getNodeParameter('outputBinaryPropertyName', 0) as string;
	const name = String(this.getNodeParameter('fileName', 0, 'captions')).trim() || 'captions';
	const file = await this.helpers.prepareBinaryData(
		Buffer.from(written.content, 'utf8'),
		`${name}.${written.fileExtension}`,
		written.mimeType,
	);
	return [
		{
			json: { format: to, cues, warnings: written.warnings as unknown as IDataObject[] },
			binary: { [outputName]: file },
			pairedItem: items.map((_, index) => ({ item: index })),
		},
	];
}
