import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export const endpointIdProperty: INodeProperties = {
	displayName: 'Endpoint ID',
	name: 'endpointId',
	type: 'string',
	default: '',
	required: true,
	description: 'The ID of the webhook endpoint, as Create or Get Many returned it',
};

export function readEndpointId(ctx: IExecuteFunctions, i: number): string {
	const id = String(ctx.getNodeParameter('endpointId', i) ?? '').trim();
	if (!id) throw new NodeOperationError(ctx.getNode(), 'Endpoint ID is empty', { itemIndex: i });
	return id;
}
