// The trigger's webhookMethods, in the manner of n8n's Stripe trigger: the registration lives in the node's static
// data, is verified where the service has reads and trusted where it has none, and knows its account. What n8n
// does around these methods, and why they are idempotent: docs/design.md, "The trigger's lifecycle".
import { randomBytes } from 'node:crypto';
import type { IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { checkReachability, UnreachableCallbackError } from './reachability';
import { CREDENTIAL_TYPE } from '../shared/constants';
import { normaliseBaseUrl } from '../shared/credentialValues';
import {
	classifyFailure,
	createEndpoint,
	endpointPath,
	listEndpoints,
	readEndpointDocument,
	tryCall,
	type WebhookEndpoint,
} from '../transport/webhookEndpoints';
import {
	type Account,
	accountFingerprint,
	callbackUriWithToken,
	checkStored,
	deliversTo,
	endpointMatches,
	endpointsFor,
	findRegistered,
	isManageable,
	keptEndpointWarning,
	keptKey,
	madeWith,
	migrateRegistration,
	orphanedEndpointWarning,
	otherAccountWarning,
	type Registration,
	unsupportedReason,
} from './registration';
import { hashToken } from './token';

/**
 * Registrations the service could not delete, per service account and webhook URL, for this process. A
 * "Listen for test event" reuses its own, as its static data is never saved (docs/design.md).
 */
const kept = new Map<string, Registration>();

function wanted(ctx: IHookFunctions) {
	return {
		webhookUrl: ctx.getNodeWebhookUrl('default') as string,
		events: ctx.getNodeParameter('events', []) as string[],
	};
}

const isManual = (ctx: IHookFunctions) => ctx.getNodeParameter('registration', 'api') === 'manual';

/** The service account the credential names now, and its fingerprint. */
async function accountOf(ctx: IHookFunctions): Promise<Account & { fingerprint: string }> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const account = {
		baseUrl: normaliseBaseUrl(credentials.baseUrl),
		clientId: String(credentials.clientId ?? '').trim(),
	};
	return { ...account, fingerprint: accountFingerprint(account) };
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
	const outcome = await tryCall(ctx, { method: 'DELETE', path: endpointPath(id) });
	if (outcome.ok) return { kind: 'deleted' };
	const kind = classifyFailure(outcome.status, 'item', serviceHasReads);
	if (kind === 'error') throw outcome.error;
	return kind === 'gone' ? { kind } : { kind, status: outcome.status };
}

type Ownership = 'ours' | 'not-ours' | 'gone' | 'unknown';

/** Whether the endpoint the id names now delivers to this webhook URL, read from the service where it can be. */
async function ownershipOf(
	ctx: IHookFunctions,
	id: string,
	registration: Registration,
): Promise<Ownership> {
	const outcome = await tryCall(ctx, { method: 'GET', path: endpointPath(id) });
	if (!outcome.ok) {
		const kind = classifyFailure(outcome.status, 'item', isManageable(registration));
		if (kind === 'error') throw outcome.error;
		return kind === 'gone' ? 'gone' : 'unknown';
	}
	const endpoint = readEndpointDocument(outcome.response.body);
	if (!endpoint) return 'unknown';
	return deliversTo(endpoint, registration.webhookUrl) ? 'ours' : 'not-ours';
}

/**
 * Deletes the registration's endpoint: found through the list when the creation answer had no id, and by id only
 * once the service shows it delivers to this trigger's URL (a stored id may name another endpoint by now). Where
 * the service cannot show it, only an id this account's own creation answered is trusted.
 */
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
		return await deleteById(ctx, id, true);
	}
	const ownership = await ownershipOf(ctx, id, registration);
	if (ownership === 'gone' || ownership === 'not-ours') return { kind: 'gone' };
	if (ownership === 'unknown' && registration.account === undefined) return { kind: 'unsupported' };
	return await deleteById(ctx, id, isManageable(registration));
}

type Lookup =
	| { kind: 'current'; endpointId?: string }
	| { kind: 'gone' | 'unsupported' }
	| { kind: 'different'; endpoint: WebhookEndpoint & { id: string } };

/** What the service holds for the stored registration. */
async function lookUp(ctx: IHookFunctions, stored: Registration): Promise<Lookup> {
	let endpoint: WebhookEndpoint | undefined;
	if (stored.endpointId !== undefined) {
		const outcome = await tryCall(ctx, { method: 'GET', path: endpointPath(stored.endpointId) });
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
	const { id } = endpoint;
	return id ? { kind: 'different', endpoint: { ...endpoint, id } } : { kind: 'gone' };
}

/** Removes a registration that is being replaced; where the service cannot, says so. */
async function retire(ctx: IHookFunctions, stored: Registration) {
	const deletion = await deleteRegistered(ctx, stored);
	if (deletion.kind === 'unsupported') {
		warn(ctx, orphanedEndpointWarning(stored, unsupportedReason('DELETE', deletion.status)));
	}
}

// ---- reachability (reachability.ts): create() refuses a URL no service can call back; n8n then runs
// delete(), which has nothing to look for at the service (and must not bury create's message under its own)
async function unreachableCallback(ctx: IHookFunctions, webhookUrl: string) {
	const { baseUrl } = await ctx.getCredentials(CREDENTIAL_TYPE);
	return checkReachability(webhookUrl, normaliseBaseUrl(baseUrl));
}
// ----

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return true;
	const staticData = this.getWorkflowStaticData('node');
	const stored = migrateRegistration(staticData);
	const want = wanted(this);
	const state = checkStored(stored, want);
	if (!stored || state === 'missing') return false;
	const account = await accountOf(this);
	if (!madeWith(stored, account.fingerprint)) {
		// the old endpoint is out of reach: register afresh with the current account, delete nothing
		warn(this, otherAccountWarning(stored));
		delete staticData.registration;
		return false;
	}
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
		case 'current': {
			// verified: from now on it knows its account
			const verified: Registration = { ...stored, account: account.fingerprint };
			if (found.endpointId) verified.endpointId = found.endpointId;
			staticData.registration = { ...verified };
			return true;
		}
		case 'unsupported':
			staticData.registration = { ...stored, manageable: false };
			return true;
		case 'different':
			// another registration of this URL is replaced; an endpoint of anything else is left alone
			if (deliversTo(found.endpoint, want.webhookUrl)) {
				await deleteById(this, found.endpoint.id, true);
			}
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
	// reachability: a URL no service can call back is refused before anything is registered
	const unreachable = await unreachableCallback(this, want.webhookUrl);
	if (unreachable) throw new UnreachableCallbackError(this.getNode(), unreachable);
	const account = await accountOf(this);
	const key = keptKey(account, want.webhookUrl);
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
	const callbackUri = callbackUriWithToken(want.webhookUrl, token);
	const created = await createEndpoint(this, callbackUri, want.events);
	if (!created.ok) throw created.error;
	const registration: Registration = {
		webhookUrl: want.webhookUrl,
		events: want.events,
		tokenHash: hashToken(token),
		account: account.fingerprint,
	};
	const id = created.endpoint.id ?? undefined;
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
	let stored = migrateRegistration(staticData);
	const { webhookUrl } = wanted(this);
	if (!stored && (await unreachableCallback(this, webhookUrl))) return true;
	try {
		const account = await accountOf(this);
		if (stored && !madeWith(stored, account.fingerprint)) {
			// out of reach with the current credential: nothing is deleted there, the log says what to do
			warn(this, otherAccountWarning(stored));
			stored = undefined;
		}
		const key = keptKey(account, webhookUrl);
		if (stored) {
			const deletion = await deleteRegistered(this, stored);
			if (deletion.kind === 'unsupported') {
				// kept for the next activation, which reuses it instead of registering another
				const keep: Registration = { ...stored, manageable: false };
				staticData.registration = { ...keep };
				kept.set(key, keep);
				warn(this, keptEndpointWarning(stored, unsupportedReason('DELETE', deletion.status)));
				return true;
			}
			kept.delete(key);
		}
		if (!stored || isManageable(stored)) {
			// endpoints this URL still has in this account (a registration whose state was lost) go too
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
