import type { INodeProperties } from 'n8n-workflow';

import * as check from './check.operation';
import * as convert from './convert.operation';
import * as download from './download.operation';
import * as fix from './fix.operation';
import * as fromItems from './fromItems.operation';

export { check, convert, download, fix, fromItems };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['captionFile'] } },
		options: [
			{
				name: 'Check',
				value: 'check',
				description:
					'Measure captions against a style guide: line length, lines, reading speed, duration, gaps and overlaps; one item per file or per violation (Options, Output)',
				action: 'Check captions against a style guide',
			},
			{
				name: 'Convert',
				value: 'convert',
				description:
					'Convert captions to SRT, WebVTT, TTML, SBV, text, segments, words or transcript chunks',
				action: 'Convert a caption file',
			},
			{
				name: 'Create From Items',
				value: 'fromItems',
				description:
					'Write one caption file (WebVTT, SRT, SBV, TTML) from items, one per cue, as Convert writes segments: translate or edit the text in between',
				action: 'Create a caption file from items',
			},
			{
				name: 'Download',
				value: 'download',
				description: 'Download a caption file from its signed URL into a binary field',
				action: 'Download a caption file',
			},
			{
				name: 'Fix',
				value: 'fix',
				description:
					'Re-segment and re-time captions to a style guide, and report what cannot be fixed',
				action: 'Fix captions to a style guide',
			},
		],
		default: 'download',
	},
	...download.description,
	...convert.description,
	...check.description,
	...fix.description,
	...fromItems.description,
];
