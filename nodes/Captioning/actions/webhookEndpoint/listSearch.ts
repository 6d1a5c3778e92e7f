// "From List" of the Webhook Endpoint resource locator (Get, Delete): the service's endpoints, read through the
// same list as Get Many, shown by their callback URI (a trigger's token redacted) and searched by URI, ID or event.
import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import {
	listEndpoints,
	redactEndpoint,
	type WebhookEndpoint,
} from '../../transport/webhookEndpoints';

/** The list entries for `filter` (case-insensitive, in the URI, the ID or an event); endpoints without an ID cannot be picked. */
export function endpointSearchResults(
	endpoints: WebhookEndpoint[],
	filter = '',
): INodeListSearchItems[] {
	const wanted = filter.trim().toLowerCase();
	const results: INodeListSearchItems[] = [];
	for (const endpoint of endpoints) {
		const { id, callback_uri: uri, enabled_events: events } = redactEndpoint(endpoint);
		if (id === null) continue;
		const searchable = [uri, id, ...events].join(' ').toLowerCase();
		if (wanted && !searchable.includes(wanted)) continue;
		results.push({
			name: uri,
			value: id,
			description: events.length ? `${events.join(', ')} (ID ${id})` : `ID ${id}`,
		});
	}
	return results;
}

export async function searchWebhookEndpoints(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const list = await listEndpoints(this);
	if (!list.supported) {
		// shown in the dropdown: the list is a capability the service may lack, not a broken credential
		throw new NodeApiError(
			this.getNode(),
			{ message: 'GET /webhook_endpoints is not offered' },
			{
				message: `The captioning service does not list its webhook endpoints (HTTP ${list.status ?? 'error'})`,
				description:
					'Choose By ID instead and give the endpoint’s ID: Create returned it, and the service’s developers dashboard shows it.',
				httpCode: list.status === undefined ? undefined : String(list.status),
			},
		);
	}
	return { results: endpointSearchResults(list.endpoints, filter) };
}
