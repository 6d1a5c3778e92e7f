import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../shared/constants';
import { settle } from '../../shared/settle';
import { secretsOf } from '../../tokens/values';
import {
	type CallOutcome,
	classifyFailure,
	ENDPOINTS_PATH,
	tryCall,
} from '../../transport/webhookEndpoints';

/** The credential's values as stored after the call: no output may show them, however the service echoes them. */
export async function credentialSecrets(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<string[]> {
	const stored = await settle(ctx.getCredentials(CREDENTIAL_TYPE, itemIndex));
	return stored.ok ? secretsOf(stored.value) : [];
}

/** The listSearch method behind "From List" (Captioning.node.ts registers it under this name). */
export const SEARCH_METHOD = 'searchWebhookEndpoints';

// a resource locator as n8n's own nodes declare one; 0.1.0's plain string still reads (docs/design.md)
export const endpointIdProperty: INodeProperties = {
	displayName: 'Webhook Endpoint',
	name: 'endpointId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description:
		'The webhook endpoint: pick it from the service’s list, or give the ID Create returned',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a webhook endpoint...',
			typeOptions: { searchListMethod: SEARCH_METHOD, searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 6f1c2a9e-3b7d-4c1e-9a2f-5d8e7b6c4a31',
		},
	],
};

export function readEndpointId(ctx: IExecuteFunctions, i: number): string {
	const value = ctx.getNodeParameter('endpointId', i, '', { extractValue: true });
	const id = String(value ?? '').trim();
	if (!id) {
		throw new NodeOperationError(ctx.getNode(), 'No webhook endpoint is selected', {
			itemIndex: i,
			description: 'Pick one under Webhook Endpoint (From List), or give its ID (By ID).',
		});
	}
	return id;
}

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
 * Why a call on webhook endpoints failed. Creation is the one route the contract publishes: its failure is the
 * transport's, as thrown. On one endpoint, a 405/501 is a route the service lacks; a 404 is either an id that does
 * not exist or a route the service lacks, which its answer on the collection tells apart.
 */
export async function explainFailure(
	ctx: IExecuteFunctions,
	failure: Extract<CallOutcome, { ok: false }>,
	action: 'create' | 'read' | 'delete',
	itemIndex: number,
	id = '',
): Promise<Error> {
	if (action === 'create') return failure.error;
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
