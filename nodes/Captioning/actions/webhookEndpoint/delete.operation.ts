import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { tryCall } from '../../transport/webhookEndpoints';
import { endpointIdProperty, explainItemFailure, itemPath, readEndpointId } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookEndpoint'], operation: ['delete'] } },
	[endpointIdProperty],
);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = readEndpointId(this, i);
	const outcome = await tryCall(this, { method: 'DELETE', path: itemPath(id), itemIndex: i });
	if (!outcome.ok) throw await explainItemFailure(this, outcome, 'delete', id, i);
	return [{ json: { id, deleted: true }, pairedItem: { item: i } }];
}
