import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { type WebhookEndpointResource, webhookEndpointListSchema } from '../../shared/schemas';
import { captioningApiRequest } from '../../transport';

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookEndpoint'], operation: ['getAll'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	const list = await captioningApiRequest.call(
		this,
		{ method: 'GET', path: '/webhook_endpoints', itemIndex: i },
		webhookEndpointListSchema,
	);
	const endpoints = returnAll
		? list.data
		: list.data.slice(0, this.getNodeParameter('limit', i) as number);
	return endpoints.map((endpoint: WebhookEndpointResource) => ({
		json: endpoint as IDataObject,
		pairedItem: { item: i },
	}));
}
