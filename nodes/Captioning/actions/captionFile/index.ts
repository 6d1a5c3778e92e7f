import type { INodeProperties } from 'n8n-workflow';

import * as convert from './convert.operation';
import * as download from './download.operation';

export { convert, download };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['captionFile'] } },
		options: [
			{
				name: 'Convert',
				value: 'convert',
				description:
					'Convert WebVTT or Google Speech-to-Text JSON to SRT, WebVTT, text, segments or words',
				action: 'Convert a caption file',
			},
			{
				name: 'Download',
				value: 'download',
				description: 'Download a caption file from its signed URL into a binary field',
				action: 'Download a caption file',
			},
		],
		default: 'download',
	},
	...download.description,
	...convert.description,
];
