import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, updateDisplayOptions } from 'n8n-workflow';

import {
	listEndpoints,
	redactEndpoint,
	UNSHOWN,
	type WebhookEndpoint,
	withNote,
} from '../../transport/webhookEndpoints';
import { endpointOutput, readOptionsFor } from './output';
import { credentialSecrets, notOffered } from './shared';

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
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', i) as number);
	const { typeVersion } = this.getNode();
	const list = await listEndpoints(this, { limit, itemIndex: i, ...readOptionsFor(typeVersion) });
	if (!list.supported) throw notOffered(this, 'list', 'GET /webhook_endpoints', list.status, i);
	if (list.incomplete) {
		throw new NodeApiError(
			this.getNode(),
			{ message: list.incomplete },
			{
				message: `Could not read the whole list of webhook endpoints: ${list.incomplete}`,
				description:
					'The node follows next-page links only at the credential’s Base URL, for a bounded number of pages. Check that the Base URL is the address the service uses in its own links, or turn off Return All and set a Limit.',
				itemIndex: i,
			},
		);
	}
	const { items, hints } = listedItems(list, await credentialSecrets(this, i));
	for (const message of hints) this.addExecutionHints({ message, location: 'outputPane' });
	return items.map((endpoint) => ({
		json: endpointOutput(endpoint, typeVersion),
		pairedItem: { item: i },
	}));
}

/**
 * Get Many's output: the endpoints without the callback token or any of `secrets` (the credential's), and what the
 * list held that is no endpoint.
 */
export function listedItems(
	list: { endpoints: WebhookEndpoint[]; skipped?: string },
	secrets: string[] = [],
): {
	items: WebhookEndpoint[];
	hints: string[];
} {
	return {
		// an endpoint listed without its id is said on its item (one whose id was inexact says so already)
		items: list.endpoints.map((endpoint) =>
			redactEndpoint(
				endpoint.id === null && !endpoint.note?.includes(UNSHOWN.inexactId)
					? withNote(endpoint, ['listedNoId'])
					: endpoint,
				secrets,
			),
		),
		// an item the service listed but the node cannot read is said, never silently dropped
		hints: list.skipped
			? [`The service's list of webhook endpoints was read, but ${list.skipped}.`]
			: [],
	};
}
