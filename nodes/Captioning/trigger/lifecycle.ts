// The trigger's webhookMethods, in the manner of n8n's Stripe trigger: the registration lives in the node's static
// data, is verified where the service has reads and trusted where it has none, and knows its account. What n8n
// does around these methods, and why they are idempotent: docs/design.md, "The trigger's lifecycle".
import { randomBytes } from 'node:crypto';
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { checkReachability, UnreachableCallbackError } from './reachability';
import { CREDENTIAL_TYPE } from '../shared/constants';
import { normaliseBaseUrl } from '../tokens/values';
import {
	classifyFailure,
	createEndpoint,
	endpointPath,
	listEndpoints,
	readEndpointDocument,
	tryCall,
	type WebhookEndpoint,
} from '../transport/webhookEndpoints';
import { callbackUri, type TokenRoute, tokenRouteUrl, type TriggerUrls } from './callback';
import { dropEventLists } from './dedupe/staticData';
import {
	type Account,
	accountFingerprint,
	changedCallbackWarning,
	checkStored,
	createdAmong,
	deliversTo,
	droppedTokenError,
	endpointMatches,
	endpointsFor,
	findRegistered,
	firstRoute,
	isManageable,
	judgeStored,
	keptEndpointWarning,
	keptKey,
	madeWith,
	migrateRegistration,
	orphanedEndpointWarning,
	otherAccountWarning,
	PATH_ROUTE_FOR,
	type Registration,
	reroutedWarning,
	retryOnPath,
	type StoredVerdict,
	strippedEndpointWarning,
	UNVERIFIED_CALLBACK,
	unsupportedReason,
} from './registration';
import { manualSecret } from './manualSecret';
import {
	hashToken,
	MISSING_SECRET,
	OPEN_MANUAL_WARNING,
	SECRET_REQUIRED_FROM_VERSION,
	secretTokenProblem,
	TOKEN_ROUTE,
	unusableSecret,
} from './token';

/**
 * Registrations the service could not delete, per service account and webhook URL, for this process. An
 * Execute step (the test listener of n8n 1.x too) reuses its own, as its static data is never saved (docs/design.md).
 */
const kept = new Map<string, Registration>();

/** The trigger's URLs in this mode, and its events. The token route needs the node's webhook ID in its path. */
function wanted(ctx: IHookFunctions): TriggerUrls & { events: string[] } {
	const pathUrl = tokenRouteUrl(ctx.getNodeWebhookUrl(TOKEN_ROUTE), ctx.getNode().webhookId);
	return {
		webhookUrl: ctx.getNodeWebhookUrl('default') as string,
		...(pathUrl ? { pathUrl } : {}),
		events: ctx.getNodeParameter('events', []) as string[],
	};
}

const isManual = (ctx: IHookFunctions) => ctx.getNodeParameter('registration', 'api') === 'manual';

/**
 * A manual trigger registers nothing; n8n calls checkExists at every publication (and Execute step). Without a
 * Secret Token, one of typeVersion 3 or later is refused, and an earlier one says in n8n's log that it is open.
 */
async function checkManual(ctx: IHookFunctions): Promise<true> {
	const secret = await manualSecret(ctx);
	if (ctx.getNode().typeVersion >= SECRET_REQUIRED_FROM_VERSION) {
		const problem = secretTokenProblem(secret);
		if (problem) {
			throw new NodeOperationError(
				ctx.getNode(),
				secret === '' ? MISSING_SECRET : unusableSecret(problem),
			);
		}
	} else if (secret === '') {
		warn(ctx, OPEN_MANUAL_WARNING);
	}
	return true;
}

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
	return deliversTo(endpoint, registration) ? 'ours' : 'not-ours';
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
	const staticData = this.getWorkflowStaticData('node');
	// the lists of events earlier versions wrote with every delivery go at the first activation after an upgrade
	dropEventLists(staticData);
	if (isManual(this)) return await checkManual(this);
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
		// the URL (N8N_WEBHOOK_URL or WEBHOOK_URL changed) or the events differ: replace the registration
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
			if (deliversTo(found.endpoint, want)) {
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
	if (isManual(this)) return await checkManual(this);
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
		await deleteLeftovers(this, list.endpoints, want);
	} else {
		const reusable = kept.get(key);
		if (reusable && checkStored(reusable, want) === 'current') {
			staticData.registration = { ...reusable };
			return true;
		}
	}

	await registerChecked(this, { want, account, staticData, hasLists: list.supported, key });
	return true;
}

/** An earlier activation may have registered and then lost its state: never leave two endpoints. */
async function deleteLeftovers(
	ctx: IHookFunctions,
	endpoints: Parameters<typeof endpointsFor>[0],
	want: Registering['want'],
): Promise<void> {
	for (const leftover of endpointsFor(endpoints, want)) {
		if (leftover.id === null) continue;
		const deletion = await deleteById(ctx, leftover.id, true);
		if (deletion.kind === 'unsupported') {
			warn(ctx, orphanedEndpointWarning(want, unsupportedReason('DELETE', deletion.status)));
			break;
		}
	}
}

/** Registers, and checks what the service stored: on the token route again when it dropped the query. */
async function registerChecked(ctx: IHookFunctions, registering: Registering): Promise<void> {
	const { want, account, staticData } = registering;
	const route = firstRoute(staticData, account.fingerprint, want.pathUrl !== undefined);
	const first = await register(ctx, registering, route);
	const verdict = judgeStored(first.sent, first.stored, first.route, want.pathUrl !== undefined);
	if (verdict === 'fail') {
		// n8n runs delete next, which removes the endpoint where the service lets it
		const { message, description } = droppedTokenError(first.stored ?? first.sent);
		throw new NodeOperationError(ctx.getNode(), message, { description });
	}
	if (verdict !== 'reroute') {
		tell(ctx, verdict, first);
		return;
	}
	// the service dropped the query: its endpoint would deliver without the token, so it goes
	rememberPathRoute(staticData, account.fingerprint);
	warn(ctx, reroutedWarning('dropped'));
	const deletion = await deleteRegistered(ctx, first.registration);
	if (deletion.kind === 'unsupported') {
		warn(
			ctx,
			strippedEndpointWarning(want.webhookUrl, unsupportedReason('DELETE', deletion.status)),
		);
	}
	const second = await register(ctx, registering, 'path');
	tell(ctx, judgeStored(second.sent, second.stored, 'path', true), second);
}

interface Registering {
	want: TriggerUrls & { events: string[] };
	account: Account & { fingerprint: string };
	staticData: IDataObject;
	/** Whether the service lists endpoints (and so reads and deletes them). */
	hasLists: boolean;
	key: string;
}

interface Registered {
	registration: Registration;
	route: TokenRoute;
	sent: string;
	/** The callback URI the service stored, as its answer or a read shows it; undefined when none can. */
	stored: string | undefined;
}

function rememberPathRoute(staticData: IDataObject, account: string) {
	staticData[PATH_ROUTE_FOR] = account;
}

/** Logs what the service stored when it is not what was sent, or when nothing shows it. */
function tell(ctx: IHookFunctions, verdict: StoredVerdict, { sent, stored }: Registered) {
	if (verdict === 'changed' && stored !== undefined)
		warn(ctx, changedCallbackWarning(sent, stored));
	if (verdict === 'unverified') {
		ctx.logger.info(`Captioning Trigger "${ctx.getNode().name}": ${UNVERIFIED_CALLBACK}`, {
			workflowId: ctx.getWorkflow().id,
			nodeName: ctx.getNode().name,
		});
	}
}

/**
 * Registers an endpoint with a new token on the route, stores the registration at once (a failure after this point
 * makes n8n call delete, which must find it), and reads back the callback URI the service stored. A service that
 * refuses the query (400, 422) gets the token route instead.
 */
async function register(
	ctx: IHookFunctions,
	{ want, account, staticData, hasLists, key }: Registering,
	route: TokenRoute,
): Promise<Registered> {
	// the only place the plain token exists: the static data gets its hash
	const token = randomBytes(24).toString('base64url');
	const sent = callbackUri(want, route, token);
	const created = await createEndpoint(ctx, sent, want.events);
	if (!created.ok) {
		if (!retryOnPath(route, created.status, want.pathUrl !== undefined)) throw created.error;
		// a refusal for another reason refuses the token route too, and that error is the one shown
		const onPath = await register(ctx, { want, account, staticData, hasLists, key }, 'path');
		rememberPathRoute(staticData, account.fingerprint);
		warn(ctx, reroutedWarning('refused', serviceWords(created)));
		return onPath;
	}
	const registration: Registration = {
		webhookUrl: want.webhookUrl,
		events: want.events,
		tokenHash: hashToken(token),
		account: account.fingerprint,
	};
	if (route === 'path' && want.pathUrl) {
		registration.tokenRoute = 'path';
		registration.pathUrl = want.pathUrl;
	}
	const id = created.endpoint.id ?? undefined;
	if (id !== undefined) registration.endpointId = id;
	if (!hasLists) registration.manageable = false;
	staticData.registration = { ...registration };
	if (!hasLists) kept.set(key, registration);
	const stored = created.echoed ?? (await readStored(ctx, registration, hasLists));
	staticData.registration = { ...registration };
	return { registration, route, sent, stored };
}

/** The service's words of a refused creation, without the token (the transport redacted them). */
function serviceWords(failed: { status?: number; error: Error }): string {
	const { description } = failed.error as { description?: unknown };
	const words = typeof description === 'string' && description ? description : failed.error.message;
	return `HTTP ${failed.status ?? '?'}: ${words}`;
}

/**
 * The callback URI the service stored for a registration whose creation answer did not show it: read by id where
 * the service has reads, else found in the list (its id completed then). Undefined when nothing shows it.
 */
async function readStored(
	ctx: IHookFunctions,
	registration: Registration,
	hasLists: boolean,
): Promise<string | undefined> {
	if (!hasLists) return undefined;
	if (registration.endpointId !== undefined) {
		const outcome = await tryCall(ctx, {
			method: 'GET',
			path: endpointPath(registration.endpointId),
		});
		return outcome.ok ? readEndpointDocument(outcome.response.body)?.callback_uri : undefined;
	}
	// the answer did not say the id: the list does, by the token or as this trigger's only endpoint
	const after = await listEndpoints(ctx);
	const found = after.supported ? createdAmong(after.endpoints, registration) : undefined;
	if (found?.id) registration.endpointId = found.id;
	return found?.callback_uri;
}

export async function remove(this: IHookFunctions): Promise<boolean> {
	if (isManual(this)) return true;
	const staticData = this.getWorkflowStaticData('node');
	let stored = migrateRegistration(staticData);
	const want = wanted(this);
	const { webhookUrl } = want;
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
			for (const leftover of list.supported ? endpointsFor(list.endpoints, want) : []) {
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
