// The trigger's webhookMethods, in the manner of n8n's Stripe trigger, for a service that may or may not let
// n8n list, read and delete webhook endpoints (the contract publishes only their creation). The registration
// lives in the node's static data. Where the service has reads, checkExists verifies it and a stale or deleted
// endpoint is replaced; where it has none, the stored registration is trusted and kept for the next activation.
//
// What n8n 2.41.1 does around these methods (packages/cli/src/workflows/triggers/):
// - activation: WebhookTriggerRegistrar.register runs checkExists, then create when it answered false; after a
//   failure it runs delete on the same in-memory static data, and retryTriggerActivation tries up to 5 times
//   (TRIGGER_ACTIVATION_MAX_ATTEMPTS); WorkflowTriggerActivator.activateInternal then saves the static data.
//   So create and delete must be idempotent, and create stores the registration as soon as it exists.
// - deactivation: WorkflowTriggerActivator.deregisterWebhookTriggers runs delete (3 attempts when it throws)
//   and saves the static data afterwards: what delete keeps is there at the next activation.
// - restart: the publication reconciler re-adds only webhooks missing from n8n's webhook table, so a restart
//   calls neither checkExists nor create.
// - "Listen for test event" (packages/cli/src/webhooks/test-webhooks.ts, needsWebhook): the static data starts
//   empty every time and is never saved; delete gets what create wrote.
// The static data keeps only a hash of the callback token (registration.ts); the token itself is sent once, in
// the callback URI create registers. A registration saved with the plain token is rewritten when read here.
import { randomBytes } from 'node:crypto';
import type { IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { captioningApiCall } from '../transport';
import { checkReachability } from './reachability';
import { CREDENTIAL_TYPE } from '../shared/constants';
import {
	classifyFailure,
	createdEndpointId,
	ENDPOINTS_PATH,
	listEndpoints,
	readEndpointDocument,
	tryCall,
	type WebhookEndpoint,
} from '../shared/webhookEndpoints';
import {
	callbackUriWithToken,
	checkStored,
	endpointMatches,
	endpointsFor,
	findRegistered,
	hashToken,
	isManageable,
	keptEndpointWarning,
	keptKey,
	migrateRegistration,
	orphanedEndpointWarning,
	type Registration,
	unsupportedReason,
} from './registration';

/**
 * Registrations the service could not delete, per service account and webhook URL, for this process. A
 * production registration is also kept in the static data n8n saves; the test URL's static data is thrown away
 * after every "Listen for test event", so without this each listen on a service without deletes would register
 * one more endpoint for the test URL. With it, the test URL has at most one endpoint per n8n process.
 */
const kept = new Map<string, Registration>();

function wanted(ctx: IHookFunctions) {
	return {
		webhookUrl: ctx.getNodeWebhookUrl('default') as string,
		events: ctx.getNodeParameter('events', []) as string[],
	};
}

const isManual = (ctx: IHookFunctions) => ctx.getNodeParameter('registration', 'api') === 'manual';

const itemPath = (id: string) => `${ENDPOINTS_PATH}/${encodeURIComponent(id)}`;

async function keyFor(ctx: IHookFunctions, webhookUrl: string): Promise<string> {
	const credentials = await ctx.getCredentials<{ baseUrl: string; clientId: string }>(
		CREDENTIAL_TYPE,
	);
	return keptKey(
		{ baseUrl: String(credentials.baseUrl ?? ''), clientId: String(credentials.clientId ?? '') },
		webhookUrl,
	);
}

function warn(ctx: IHookFunctions, message: string) {
	ctx.logger.warn(`Captioning Trigger "${ctx.getNode().name}": ${message}`, {
		workflowId: ctx.getWorkflow().id,
		nodeName: ctx.getNode().name,
	});
}

type Deletion = { kind: 'deleted' | 'gone' } | { kind: 'unsupported'; status?: number };

/** Deletes one endpoint by id; a route the service does not offer is an answer, not a failure. */
async function deleteById(
	ctx: IHookFunctions,
	id: string,
	serviceHasReads: boolean,
): Promise<Deletion> {
	const outcome = await tryCall(ctx, { method: 'DELETE', path: itemPath(id) });
	if (outcome.ok) return { kind: 'deleted' };
	const kind = classifyFailure(outcome.status, 'item', serviceHasReads);
	if (kind === 'error') throw outcome.error;
	return kind === 'gone' ? { kind } : { kind, status: outcome.status };
}

/** Deletes the registration's endpoint, found through the list when the creation answer had no id. */
async function deleteRegistered(
	ctx: IHookFunctions,
	registration: Registration,
): Promise<Deletion> {
	let id = registration.endpointId;
	if (id === undefined) {
		if (!isManageable(registration)) return { kind: 'unsupported' };
		const list = await listEndpoints(ctx);
		if (!list.supported) return { kind: 'unsupported', status: list.status };
		id = findRegistered(list.endpoints, registration)?.id ?? undefined;
		if (id === undefined) return { kind: 'gone' };
	}
	return await deleteById(ctx, id, isManageable(registration));
}

type Lookup =
	| { kind: 'current'; endpointId?: string }
	| { kind: 'gone' | 'unsupported' }
	| { kind: 'different'; endpointId: string };

/** What the service holds for the stored registration. */
async function lookUp(ctx: IHookFunctions, stored: Registration): Promise<Lookup> {
	let endpoint: WebhookEndpoint | undefined;
	if (stored.endpointId !== undefined) {
		const outcome = await tryCall(ctx, { method: 'GET', path: itemPath(stored.endpointId) });
		if (!outcome.ok) {
			const kind = classifyFailure(outcome.status, 'item', true);
			if (kind === 'error') throw outcome.error;
			return { kind };
		}
		endpoint = readEndpointDocument(outcome.response.body);
		// a 200 for the id is an endpoint that exists, even in a shape this package cannot read
		if (!endpoint) return { kind: 'current' };
		endpoint.id ??= stored.endpointId;
	} else {
		const list = await listEndpoints(ctx);
		if (!list.supported) return { kind: 'unsupported' };
		endpoint = findRegistered(list.endpoints, stored);
		// an incomplete list proves nothing missing: trust the registration rather than register twice
		if (!endpoint) return { kind: list.incomplete ? 'current' : 'gone' };
	}
	if (endpointMatches(endpoint, stored))
		return { kind: 'current', endpointId: endpoint.id ?? undefined };
	return endpoint.id ? { kind: 'different', endpointId: endpoint.id } : { kind: 'gone' };
}

/** Removes a registration that is being replaced; where the service cannot, says so. */
async function retire(ctx: IHookFunctions, stored: Registration) {
	const deletion = await deleteRegistered(ctx, stored);
	if (deletion.kind === 'unsupported') {
		warn(ctx, orphanedEndpointWarning(stored, unsupportedReason('DELETE', deletion.status)));
	}
}

// ---- reachability (reachability.ts): create() refuses a URL the service cannot call back; n8n then runs
// delete(), which has nothing to look for at the service (and must not bury create's message under its own)
async function unreachableCallback(ctx: IHookFunctions, webhookUrl: string) {
	const { baseUrl } = await ctx.getCredentials<{ baseUrl: string }>(CREDENTIAL_TYPE);
	const skip = ctx.getNodeParameter('options.skipReachabilityCheck', false) as boolean;
	return checkReachability(webhookUrl, String(baseUrl ?? ''), { skip });
}
// ----

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return true;
	const staticData = this.getWorkflowStaticData('node');
	const stored = migrateRegistration(staticData);
	const state = checkStored(stored, wanted(this));
	if (!stored || state === 'missing') return false;
	if (state === 'stale') {
		// the URL (WEBHOOK_URL changed) or the events differ: replace the registration
		await retire(this, stored);
		delete staticData.registration;
		return false;
	}
	// without reads there is nothing to verify it with: the stored registration is trusted
	if (!isManageable(stored)) return true;
	const found = await lookUp(this, stored);
	switch (found.kind) {
		case 'current':
			if (found.endpointId && found.endpointId !== stored.endpointId) {
				staticData.registration = { ...stored, endpointId: found.endpointId };
			}
			return true;
		case 'unsupported':
			staticData.registration = { ...stored, manageable: false };
			return true;
		case 'different':
			await deleteById(this, found.endpointId, true);
			break;
		case 'gone':
			break;
	}
	delete staticData.registration;
	return false;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return true;
	const staticData = this.getWorkflowStaticData('node');
	const want = wanted(this);
	if (want.events.length === 0) {
		// the user's choice, not the service's answer
		throw new NodeOperationError(
			this.getNode(),
			'Select at least one event for the Captioning Trigger to listen to',
		);
	}
	// reachability: a URL the service cannot call back is refused before anything is registered
	const unreachable = await unreachableCallback(this, want.webhookUrl);
	if (unreachable) {
		const { message, description } = unreachable;
		throw new NodeOperationError(this.getNode(), message, { description });
	}
	const stored = migrateRegistration(staticData);
	// a registration the service could not delete is reused as it is, with its token
	if (stored && !isManageable(stored) && checkStored(stored, want) === 'current') return true;

	const key = await keyFor(this, want.webhookUrl);
	const list = await listEndpoints(this);
	if (list.supported) {
		kept.delete(key);
		// an earlier activation may have registered and then lost its state: never leave two endpoints
		for (const leftover of endpointsFor(list.endpoints, want.webhookUrl)) {
			if (leftover.id === null) continue;
			const deletion = await deleteById(this, leftover.id, true);
			if (deletion.kind === 'unsupported') {
				warn(this, orphanedEndpointWarning(want, unsupportedReason('DELETE', deletion.status)));
				break;
			}
		}
	} else {
		const reusable = kept.get(key);
		if (reusable && checkStored(reusable, want) === 'current') {
			staticData.registration = { ...reusable };
			return true;
		}
	}

	// the only place the plain token exists: the static data gets its hash
	const token = randomBytes(24).toString('base64url');
	const form: Array<[string, string]> = [
		['callback_uri', callbackUriWithToken(want.webhookUrl, token)],
	];
	for (const event of want.events) form.push(['enabled_events[]', event]);
	const response = await captioningApiCall.call(this, {
		method: 'POST',
		path: ENDPOINTS_PATH,
		form,
	});
	const registration: Registration = {
		webhookUrl: want.webhookUrl,
		events: want.events,
		tokenHash: hashToken(token),
	};
	const id = createdEndpointId(response);
	if (id !== undefined) registration.endpointId = id;
	if (!list.supported) registration.manageable = false;
	// stored at once: a failure after this point makes n8n call delete, which must find it
	staticData.registration = { ...registration };
	if (!list.supported) kept.set(key, registration);
	if (id === undefined && list.supported) {
		// the answer did not say the id: the list does, by the callback URI and its token
		const after = await listEndpoints(this);
		const found = after.supported ? findRegistered(after.endpoints, registration) : undefined;
		if (found?.id) staticData.registration = { ...registration, endpointId: found.id };
	}
	return true;
}

export async function remove(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return true;
	const staticData = this.getWorkflowStaticData('node');
	const stored = migrateRegistration(staticData);
	const { webhookUrl } = wanted(this);
	if (!stored && (await unreachableCallback(this, webhookUrl))) return true;
	try {
		if (stored) {
			const deletion = await deleteRegistered(this, stored);
			if (deletion.kind === 'unsupported') {
				// kept for the next activation, which reuses it instead of registering another
				const keep: Registration = { ...stored, manageable: false };
				staticData.registration = { ...keep };
				kept.set(await keyFor(this, stored.webhookUrl), keep);
				warn(this, keptEndpointWarning(stored, unsupportedReason('DELETE', deletion.status)));
				return true;
			}
			kept.delete(await keyFor(this, stored.webhookUrl));
		}
		if (!stored || isManageable(stored)) {
			// endpoints this URL still has (a registration whose state was lost) go too
			const list = await listEndpoints(this);
			for (const leftover of list.supported ? endpointsFor(list.endpoints, webhookUrl) : []) {
				if (leftover.id !== null) await deleteById(this, leftover.id, true);
			}
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
