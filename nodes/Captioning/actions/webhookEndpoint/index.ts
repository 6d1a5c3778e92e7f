import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { create, del as delete, get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhookEndpoint'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Register a callback URI to receive transcription events',
				action: 'Create a webhook endpoint',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Stop sending events to a webhook endpoint',
				action: 'Delete a webhook endpoint',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a webhook endpoint by ID',
				action: 'Get a webhook endpoint',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the webhook endpoints of this application',
				action: 'Get many webhook endpoints',
			},
		],
		default: 'create',
	},
	...create.description,
	...del.description,
	...get.description,
	...getAll.description,
];
