// The trigger's webhookMethods, in the manner of n8n's Stripe trigger: the registration lives in the node's
// static data; checkExists verifies it at the service and clears what is stale; create removes this trigger's
// leftovers before registering; delete tolerates an endpoint already gone and reports any other failure.
import { randomBytes } from 'node:crypto';
import type { IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { z } from 'zod';

import { captioningApiRequest, statusOf } from '../transport';
import {
	webhookEndpointDocumentSchema,
	webhookEndpointListSchema,
	type WebhookEndpointResource,
} from '../shared/schemas';
import {
	callbackUriWithToken,
	checkStored,
	endpointMatches,
	endpointsFor,
	readRegistration,
	type Registration,
} from './registration';

const noContent = z.unknown();

function wanted(ctx: IHookFunctions) {
	return {
		webhookUrl: ctx.getNodeWebhookUrl('default') as string,
		events: ctx.getNodeParameter('events', []) as string[],
	};
}

const isManual = (ctx: IHookFunctions) => ctx.getNodeParameter('registration', 'api') === 'manual';

const isGone = (error: unknown) => statusOf(error) === 404;

async function deleteEndpoint(ctx: IHookFunctions, id: string): Promise<void> {
	try {
		await captioningApiRequest.call(
			ctx,
			{ method: 'DELETE', path: `/webhook_endpoints/${encodeURIComponent(id)}` },
			noContent,
		);
	} catch (error) {
		if (isGone(error)) return;
		// captioningApiRequest throws NodeApiError: this hands back the same instance
		throw new NodeApiError(ctx.getNode(), error as JsonObject);
	}
}

async function fetchEndpoint(
	ctx: IHookFunctions,
	id: string,
): Promise<WebhookEndpointResource | undefined> {
	try {
		const doc = await captioningApiRequest.call(
			ctx,
			{ method: 'GET', path: `/webhook_endpoints/${encodeURIComponent(id)}` },
			webhookEndpointDocumentSchema,
		);
		return doc.data;
	} catch (error) {
		if (isGone(error)) return undefined;
		throw new NodeApiError(ctx.getNode(), error as JsonObject);
	}
}

async function listEndpoints(ctx: IHookFunctions): Promise<WebhookEndpointResource[]> {
	const list = await captioningApiRequest.call(
		ctx,
		{ method: 'GET', path: '/webhook_endpoints' },
		webhookEndpointListSchema,
	);
	return list.data;
}

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return true;
	const staticData = this.getWorkflowStaticData('node');
	const stored = readRegistration(staticData);
	const state = checkStored(stored, wanted(this));
	if (state === 'missing') return false;
	if (state === 'stale') {
		// the URL (WEBHOOK_URL changed) or the events differ: replace the registration
		await deleteEndpoint(this, stored!.endpointId);
		delete staticData.registration;
		return false;
	}
	const endpoint = await fetchEndpoint(this, stored!.endpointId);
	if (endpoint && endpointMatches(endpoint, stored!)) return true;
	if (endpoint) await deleteEndpoint(this, endpoint.id);
	delete staticData.registration;
	return false;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return true;
	const staticData = this.getWorkflowStaticData('node');
	const { webhookUrl, events } = wanted(this);
	if (events.length === 0) {
		throw new NodeApiError(
			this.getNode(),
			{},
			{
				message: 'Select at least one event for the Captioning Trigger to listen to',
			},
		);
	}
	// an earlier activation may have registered and then failed before saving: never leave two endpoints
	for (const leftover of endpointsFor(await listEndpoints(this), webhookUrl)) {
		await deleteEndpoint(this, leftover.id);
	}
	const token = randomBytes(24).toString('base64url');
	const form: Array<[string, string]> = [['callback_uri', callbackUriWithToken(webhookUrl, token)]];
	for (const event of events) form.push(['enabled_events[]', event]);
	const doc = await captioningApiRequest.call(
		this,
		{ method: 'POST', path: '/webhook_endpoints', form },
		webhookEndpointDocumentSchema,
	);
	const registration: Registration = { endpointId: doc.data.id, webhookUrl, events, token };
	staticData.registration = registration as unknown as typeof staticData.registration;
	return true;
}

export async function remove(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return true;
	const staticData = this.getWorkflowStaticData('node');
	const stored = readRegistration(staticData);
	const { webhookUrl } = wanted(this);
	try {
		if (stored) await deleteEndpoint(this, stored.endpointId);
		// endpoints this URL still has (a registration whose state was lost) go too
		for (const leftover of endpointsFor(await listEndpoints(this), webhookUrl)) {
			await deleteEndpoint(this, leftover.id);
		}
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		throw new NodeApiError(
			this.getNode(),
			{},
			{
				message: `Could not unregister the webhook endpoint at the captioning service: ${reason}`,
				description: `The service may still send events to ${webhookUrl}. Delete the endpoint in the service's dashboard if it stays.`,
			},
		);
	}
	delete staticData.registration;
	return true;
}
