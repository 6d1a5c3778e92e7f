import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { z } from 'zod';

import { captioningApiRequest } from '../../transport';
import { endpointIdProperty, readEndpointId } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookEndpoint'], operation: ['delete'] } },
	[endpointIdProperty],
);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = readEndpointId(this, i);
	await captioningApiRequest.call(
		this,
		{ method: 'DELETE', path: `/webhook_endpoints/${encodeURIComponent(id)}`, itemIndex: i },
		z.unknown(),
	);
	return [{ json: { id, deleted: true }, pairedItem: { item: i } }];
}
