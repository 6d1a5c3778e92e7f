import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { endpointPath, tryCall } from '../../transport/webhookEndpoints';
import { endpointIdProperty, explainFailure, readEndpointId } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookEndpoint'], operation: ['delete'] } },
	[endpointIdProperty],
);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = readEndpointId(this, i);
	const outcome = await tryCall(this, { method: 'DELETE', path: endpointPath(id), itemIndex: i });
	if (!outcome.ok) throw await explainFailure(this, outcome, 'delete', i, id);
	return [{ json: { id, deleted: true }, pairedItem: { item: i } }];
}
