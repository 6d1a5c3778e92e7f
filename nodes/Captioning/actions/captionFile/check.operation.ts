import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkCaptions } from '../../captions';
import { inputProperties, readCaptionFile } from './input';
import { profileProperties, readProfile } from './profiles';

const DEFAULT_MAX_VIOLATIONS = 1000;

const properties: INodeProperties[] = [
	...inputProperties,
	...profileProperties,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Max Violations Listed',
				name: 'maxViolations',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: DEFAULT_MAX_VIOLATIONS,
				description:
					'Most violations listed in "check.violations"; all are counted in "check.counts"',
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				options: [
					{
						name: 'One Item per File',
						value: 'summary',
						description:
							'The input item with the result in "check": passed, counts, worst cues and violations',
					},
					{
						name: 'One Item per Violation',
						value: 'violations',
						description: 'One item for each violation; none when the captions pass',
					},
				],
				default: 'summary',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['captionFile'], operation: ['check'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	i: number,
	item: INodeExecutionData,
): Promise<INodeExecutionData[]> {
	const profile = readProfile(this, i);
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const { from, document, warnings } = await readCaptionFile(this, i, item);
	const report = checkCaptions(document.cues, profile.limits, {
		maxViolations: Number(options.maxViolations ?? DEFAULT_MAX_VIOLATIONS),
	});
	const { limits, ...guide } = profile;
	if (options.output === 'violations') {
		// what reading left out goes with every violation: a file that was not read whole is not checked whole
		return report.violations.map((violation) => ({
			json: {
				...violation,
				profile: guide.name,
				format: from,
				warnings,
			} as unknown as IDataObject,
			pairedItem: { item: i },
		}));
	}
	return [
		{
			json: {
				...item.json,
				check: {
					...report,
					format: from,
					profile: guide,
					limits,
					warnings,
				} as unknown as IDataObject,
			},
			binary: item.binary,
			pairedItem: { item: i },
		},
	];
}
