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
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Manage the captioning service\'s webhook endpoints, and download, convert, check and fix caption files (WebVTT, SRT, SBV, TTML, Google Speech-to-Text JSON, text, transcript chunks for AI)',
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
