import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { CAPTION_FORMAT_OPTIONS } from '../../captions/formats';
import { allowedHostsProperty } from '../../transport/addressPolicy';
import { downloadBinaryOrThrow, downloadTimeoutProperty, maxFileSizeProperty } from './downloads';

const properties: INodeProperties[] = [
	{
		displayName: 'Source',
		name: 'source',
		type: 'options',
		options: [
			{
				name: 'Captioning Trigger Item',
				value: 'triggerItem',
				description: 'The file URL of the chosen format in the "files" field of the input item',
			},
			{ name: 'URL', value: 'url', description: 'A signed file URL' },
		],
		default: 'triggerItem',
	},
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://…?expires=…&signature=…',
		displayOptions: { show: { source: ['url'] } },
		description: 'The signed URL of a caption file, exactly as the event delivered it',
	},
	{
		displayName: 'Format',
		name: 'format',
		type: 'options',
		options: CAPTION_FORMAT_OPTIONS,
		default: 'vtt',
		description: 'Which caption file to download',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [allowedHostsProperty, downloadTimeoutProperty, maxFileSizeProperty],
	},
	{
		displayName:
			'Signed URLs expire soon after the event. To keep files, turn on "Download Caption Files" in the Captioning Trigger, which fetches them as the event arrives.',
		name: 'expiryNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['captionFile'], operation: ['download'] } },
	properties,
);

function urlFromItem(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	format: string,
	i: number,
): string {
	const files = item.json.files as Record<string, unknown> | undefined;
	const url = files?.[format];
	if (typeof url === 'string' && url) return url;
	const available = files ? Object.keys(files).join(', ') : '';
	throw new NodeOperationError(ctx.getNode(), `The input item has no ${format} file URL`, {
		itemIndex: i,
		description: available
			? `It has: ${available}. Choose one of those formats.`
			: 'Connect this node after a Captioning Trigger that listens for "Transcription Transcribed", or set Source to URL.',
	});
}

export async function execute(
	this: IExecuteFunctions,
	i: number,
	item: INodeExecutionData,
): Promise<INodeExecutionData[]> {
	const source = this.getNodeParameter('source', i) as string;
	const format = this.getNodeParameter('format', i) as string;
	const binaryPropertyName = this.getNodeParameter('binaryPropertyName', i) as string;
	const url =
		source === 'url'
			? (this.getNodeParameter('url', i) as string).trim()
			: urlFromItem(this, item, format, i);
	// streamed into n8n's binary data: the file is never held whole in memory
	const { binary } = await downloadBinaryOrThrow(this, url, format, item.json.title, i);
	return [
		{
			json: item.json,
			binary: { ...(item.binary ?? {}), [binaryPropertyName]: binary },
			pairedItem: { item: i },
		},
	];
}
