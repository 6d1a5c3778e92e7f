import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as captionFile from './actions/captionFile';
import { router } from './actions/router';
import * as webhookEndpoint from './actions/webhookEndpoint';
import { searchWebhookEndpoints } from './actions/webhookEndpoint/listSearch';
import { SEARCH_METHOD } from './actions/webhookEndpoint/shared';

export class Captioning implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Captioning',
		name: 'captioning',
		icon: { light: 'file:captioning.svg', dark: 'file:captioning.dark.svg' },
		group: ['transform'],
		// 2: Webhook Endpoint items flat, Convert's 6 s default, a bounded AI tool output; 1 keeps 0.1.0's output.
		// No defaultVersion: a new node gets the last version listed, and n8n adds its Custom API Call only to a
		// node without one (docs/design.md, "Node versions").
		version: [1, 2],
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			"Manage the captioning service's webhook endpoints, and download, convert, check and fix caption files (WebVTT, SRT, SBV, TTML, Google Speech-to-Text JSON, text, transcript chunks for AI)",
		defaults: { name: 'Captioning' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'captioningApi',
				required: true,
				displayOptions: { show: { resource: ['webhookEndpoint'] } },
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Caption File',
						value: 'captionFile',
						description: 'The caption files the service produces for a transcription',
					},
					{
						name: 'Webhook Endpoint',
						value: 'webhookEndpoint',
						description: 'Where the service sends transcription events',
					},
				],
				default: 'captionFile',
			},
			...captionFile.description,
			...webhookEndpoint.description,
		],
	};

	methods = {
		listSearch: { [SEARCH_METHOD]: searchWebhookEndpoints },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return router.call(this);
	}
}
