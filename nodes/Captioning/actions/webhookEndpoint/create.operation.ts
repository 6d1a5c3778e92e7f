import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { EVENT_OPTIONS, EVENT_TYPES } from '../../shared/constants';
import {
	createEndpoint,
	redactEndpoint,
	type WebhookEndpoint,
} from '../../transport/webhookEndpoints';
import { endpointOutput, readOptionsFor } from './output';
import { explainFailure } from './shared';

const properties: INodeProperties[] = [
	{
		displayName: 'Callback URI',
		name: 'callbackUri',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/hooks/captions',
		description:
			'Where the service sends events, as POST requests. To start an n8n workflow, use the Captioning Trigger instead: it registers itself.',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: EVENT_OPTIONS,
		default: [...EVENT_TYPES],
		required: true,
		description: 'The events to send to the callback URI',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookEndpoint'], operation: ['create'] } },
	properties,
);

export function validateCallbackUri(value: string): string | undefined {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		return `"${value}" is not an absolute URI. Use the full address, starting with https://.`;
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return `The callback URI must use http or https, not ${url.protocol.replace(':', '')}.`;
	}
	return undefined;
}

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const callbackUri = (this.getNodeParameter('callbackUri', i) as string).trim();
	const events = this.getNodeParameter('events', i) as string[];
	const problem = validateCallbackUri(callbackUri);
	if (problem) throw new NodeOperationError(this.getNode(), problem, { itemIndex: i });
	if (events.length === 0) {
		throw new NodeOperationError(this.getNode(), 'Select at least one event', { itemIndex: i });
	}
	const { typeVersion } = this.getNode();
	const created = await createEndpoint(this, callbackUri, events, i, readOptionsFor(typeVersion));
	if (!created.ok) throw await explainFailure(this, created, 'create', i);
	const json = endpointOutput(createdItem(created.endpoint), typeVersion);
	return [{ json, pairedItem: { item: i } }];
}

/** Create's output: the endpoint as the service stored it, without the callback token, and what it did not show. */
export function createdItem(created: WebhookEndpoint): WebhookEndpoint {
	return redactEndpoint(created);
}
