import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { webhookEndpointDocumentSchema } from '../../shared/schemas';
import { captioningApiRequest } from '../../transport';
import { endpointIdProperty, readEndpointId } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookEndpoint'], operation: ['get'] } },
	[endpointIdProperty],
);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = readEndpointId(this, i);
	const doc = await captioningApiRequest.call(
		this,
		{ method: 'GET', path: `/webhook_endpoints/${encodeURIComponent(id)}`, itemIndex: i },
		webhookEndpointDocumentSchema,
	);
	return [{ json: doc.data as IDataObject, pairedItem: { item: i } }];
}
