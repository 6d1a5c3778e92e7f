import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, updateDisplayOptions } from 'n8n-workflow';

import {
	readEndpointDocument,
	endpointPath,
	ITEM_SHAPE,
	type ReadOptions,
	redactEndpoint,
	tryCall,
	type WebhookEndpoint,
} from '../../transport/webhookEndpoints';
import { endpointOutput, readOptionsFor } from './output';
import { credentialSecrets, endpointIdProperty, explainFailure, readEndpointId } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookEndpoint'], operation: ['get'] } },
	[endpointIdProperty],
);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = readEndpointId(this, i);
	const outcome = await tryCall(this, { method: 'GET', path: endpointPath(id), itemIndex: i });
	if (!outcome.ok) throw await explainFailure(this, outcome, 'read', i, id);
	const { typeVersion } = this.getNode();
	const endpoint = gotItem(
		outcome.response.body,
		id,
		await credentialSecrets(this, i),
		readOptionsFor(typeVersion),
	);
	if (!endpoint) {
		throw new NodeApiError(
			this.getNode(),
			{ message: 'Unexpected body' },
			{
				message: `The service answered GET /webhook_endpoints/{id} with a body that is not a webhook endpoint`,
				description: ITEM_SHAPE,
				itemIndex: i,
			},
		);
	}
	return [{ json: endpointOutput(endpoint, typeVersion), pairedItem: { item: i } }];
}

/**
 * Get's output: the endpoint read by `id` (as `read` says), without the callback token or any of `secrets` (the
 * credential's); undefined when the body is no endpoint.
 */
export function gotItem(
	body: unknown,
	id: string,
	secrets: string[] = [],
	read?: ReadOptions,
): WebhookEndpoint | undefined {
	const endpoint = readEndpointDocument(body, read);
	if (!endpoint) return undefined;
	// the service may leave the id out of a read by id
	endpoint.id ??= id;
	return redactEndpoint(endpoint, secrets);
}
