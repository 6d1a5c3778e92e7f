import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { capWarnings, checkCaptions, fixCaptions, renderCaptions } from '../../captions';
import { captionBaseName, captionFormat, FILE_FORMAT_OPTIONS } from '../../captions/formats';
import { inputProperties, readCaptionFile } from './input';
import { includeVoiceOption } from './options';
import { profileProperties, readProfile } from './profiles';

const MAX_UNFIXABLE_LISTED = 1000;

const properties: INodeProperties[] = [
	...inputProperties,
	...profileProperties,
	{
		displayName: 'To',
		name: 'to',
		type: 'options',
		options: FILE_FORMAT_OPTIONS,
		default: 'vtt',
		description: 'The format of the fixed caption file',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'outputBinaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the fixed file in',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [includeVoiceOption],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['captionFile'], operation: ['fix'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	i: number,
	item: INodeExecutionData,
): Promise<INodeExecutionData[]> {
	const profile = readProfile(this, i);
	const to = this.getNodeParameter('to', i) as string;
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const { input, from, document, warnings } = await readCaptionFile(this, i, item);
	const before = checkCaptions(document.cues, profile.limits, { maxViolations: 0 });
	const fixed = fixCaptions(document, profile.limits, { maxUnfixable: MAX_UNFIXABLE_LISTED });
	const { after } = fixed;
	const target = captionFormat(to)!;
	const written = renderCaptions(
		from,
		to,
		{ ...document, cues: fixed.cues },
		{ includeVoice: options.includeVoice === true },
	);
	const outputName = this.getNodeParameter('outputBinaryPropertyName', i) as string;
	const file = await this.helpers.prepareBinaryData(
		Buffer.from(written.content, 'utf8'),
		`${captionBaseName(input.name)}.${target.extension}`,
		target.mimeType,
	);
	const { limits, ...guide } = profile;
	const fix = {
		passed: after.passed,
		format: from,
		to,
		profile: guide,
		limits,
		cues: { before: before.cues, after: after.cues },
		violations: { before: before.violationCount, after: after.violationCount },
		countsBefore: before.counts,
		countsAfter: after.counts,
		changes: fixed.changes,
		unfixable: fixed.unfixable,
		unfixableOmitted: after.violationsOmitted,
		warnings: capWarnings(warnings, fixed.warnings, written.warnings),
	};
	return [
		{
			json: { ...item.json, fix: fix as unknown as IDataObject },
			binary: { ...(item.binary ?? {}), [outputName]: file },
			pairedItem: { item: i },
		},
	];
}
