import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	type CallOutcome,
	classifyFailure,
	ENDPOINTS_PATH,
	tryCall,
} from '../../shared/webhookEndpoints';

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

export const itemPath = (id: string) => `${ENDPOINTS_PATH}/${encodeURIComponent(id)}`;

const DASHBOARD_ADVICE = {
	read: 'See the endpoint in the service’s developers dashboard.',
	list: 'See the endpoints in the service’s developers dashboard.',
	delete: 'Delete the endpoint in the service’s developers dashboard.',
} as const;

/** The service answered that it has no such route: a capability it lacks, said with what to do instead. */
export function notOffered(
	ctx: IExecuteFunctions,
	action: keyof typeof DASHBOARD_ADVICE,
	request: string,
	status: number | undefined,
	itemIndex: number,
): NodeApiError {
	const verb = { read: 'reading', list: 'listing', delete: 'deleting' }[action];
	return new NodeApiError(
		ctx.getNode(),
		{ message: `${request} is not offered` },
		{
			message: `The captioning service does not offer ${verb} webhook endpoints (${request} answered HTTP ${status ?? 'an error'})`,
			description: `Its published API only creates webhook endpoints. ${DASHBOARD_ADVICE[action]}`,
			httpCode: status === undefined ? undefined : String(status),
			itemIndex,
		},
	);
}

/**
 * Why a read or delete of one endpoint failed. A 405/501 is a route the service lacks; a 404 is either an id
 * that does not exist or a route the service lacks, which its answer on the collection tells apart.
 */
export async function explainItemFailure(
	ctx: IExecuteFunctions,
	failure: Extract<CallOutcome, { ok: false }>,
	action: 'read' | 'delete',
	id: string,
	itemIndex: number,
): Promise<Error> {
	const request = `${action === 'read' ? 'GET' : 'DELETE'} ${ENDPOINTS_PATH}/{id}`;
	if (failure.status === 404) {
		const collection = await tryCall(ctx, { method: 'GET', path: ENDPOINTS_PATH, itemIndex });
		const hasReads =
			collection.ok || classifyFailure(collection.status, 'collection', true) !== 'unsupported';
		if (!hasReads) return notOffered(ctx, action, request, failure.status, itemIndex);
		return new NodeApiError(
			ctx.getNode(),
			{ message: `No webhook endpoint ${id}` },
			{
				message: `There is no webhook endpoint with ID "${id}" at the service (HTTP 404)`,
				description: 'Get Many lists the webhook endpoints that exist, with their IDs.',
				httpCode: '404',
				itemIndex,
			},
		);
	}
	if (classifyFailure(failure.status, 'item', true) === 'unsupported') {
		return notOffered(ctx, action, request, failure.status, itemIndex);
	}
	return failure.error;
}
