// Pure decisions of the trigger's registration: the service account it was made with, whether what is stored
// still matches what the node wants, which endpoints at the service are this trigger's (callback.ts reads their
// callback URIs), what to do when the service dropped or refused the token, and what to tell the user when the
// service cannot delete an endpoint. Only hashes of the token
// and of the account are stored: n8n copies the static data into execution records, which more people may read
// than may edit the workflow.
import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { normaliseBaseUrl } from '../tokens/values';
import {
	readEndpoint,
	redactCallbackToken,
	type WebhookEndpoint,
} from '../transport/webhookEndpoints';
import {
	compareStored,
	readCallback,
	type StoredCallback,
	type TokenRoute,
	type TriggerUrls,
} from './callback';
import { hashToken, sameHash } from './token';

export interface Registration extends TriggerUrls {
	/** Absent when the service did not say it and no list could tell it. */
	endpointId?: string;
	/** The webhook URL without the token (what n8n's getNodeWebhookUrl returns). */
	webhookUrl: string;
	/** 'path': the token is the token route's last segment (`pathUrl`); absent: it is in the webhook URL's query. */
	tokenRoute?: 'path';
	/** The token route's URL with `:token`, kept with a registration on that route. */
	pathUrl?: string;
	events: string[];
	/** hashToken of the callback token: the token itself is in the callback URI only. */
	tokenHash: string;
	/**
	 * false when the service answered that it has no list, reads or deletes of webhook endpoints: the
	 * registration is then trusted as it is and kept until it can be reused. Absent: it has them.
	 */
	manageable?: boolean;
	/**
	 * accountFingerprint of the Base URL and Client ID it was made with. Absent in a registration saved before
	 * this was kept: it is taken as the current account's, and verified where the service has reads.
	 */
	account?: string;
}

/** A service account: the normalised Base URL and the Client ID of the credential. */
export interface Account {
	baseUrl: string;
	clientId: string;
}

/** A hash of the account (never its values) that a registration keeps, to know whose endpoint it is. */
export function accountFingerprint(account: Account): string {
	return createHash('sha256')
		.update(
			JSON.stringify([
				'captioningApi/account/1',
				normaliseBaseUrl(account.baseUrl),
				account.clientId.trim(),
			]),
		)
		.digest('base64url');
}

/**
 * Whether the registration was made with this account. One of another account is stale: its endpoint cannot be
 * reached with the current credential, and its id may name another endpoint in this account.
 */
export function madeWith(registration: Pick<Registration, 'account'>, account: string): boolean {
	return registration.account === undefined || registration.account === account;
}

/** A registration as version 0.1.0 saved it: with the plain token instead of its hash. */
type StoredRegistration = Partial<Registration> & { token?: unknown };

/** The stored registration; one saved by version 0.1.0 (plain `token`) is read as its hash. */
export function readRegistration(staticData: IDataObject): Registration | undefined {
	const r = staticData.registration as StoredRegistration | undefined;
	if (!r || typeof r !== 'object') return undefined;
	const tokenHash =
		typeof r.tokenHash === 'string' && r.tokenHash
			? r.tokenHash
			: typeof r.token === 'string' && r.token
				? hashToken(r.token)
				: undefined;
	const onPath = r.tokenRoute === 'path';
	if (
		typeof r.webhookUrl !== 'string' ||
		tokenHash === undefined ||
		(onPath && typeof r.pathUrl !== 'string') ||
		!Array.isArray(r.events) ||
		(r.endpointId !== undefined && r.endpointId !== null && typeof r.endpointId !== 'string')
	) {
		return undefined;
	}
	const registration: Registration = {
		webhookUrl: r.webhookUrl,
		events: r.events.map(String),
		tokenHash,
	};
	if (typeof r.endpointId === 'string' && r.endpointId) registration.endpointId = r.endpointId;
	if (r.manageable === false) registration.manageable = false;
	if (typeof r.account === 'string' && r.account) registration.account = r.account;
	if (onPath) {
		registration.tokenRoute = 'path';
		registration.pathUrl = r.pathUrl;
	}
	return registration;
}

/** The route a registration's token travels on. */
export const routeOf = (registration: Pick<Registration, 'tokenRoute'>): TokenRoute =>
	registration.tokenRoute ?? 'query';

/** Whether the stored registration still holds a plain token (saved by version 0.1.0). */
export function hasPlainToken(staticData: IDataObject): boolean {
	const r = staticData.registration as StoredRegistration | undefined;
	return typeof r === 'object' && r !== null && 'token' in r;
}

/**
 * The stored registration, rewritten with only its token's hash when version 0.1.0 saved the plain token
 * (a record that cannot be read is left as it is: nothing matches it).
 */
export function migrateRegistration(staticData: IDataObject): Registration | undefined {
	const registration = readRegistration(staticData);
	if (registration && hasPlainToken(staticData)) staticData.registration = { ...registration };
	return registration;
}

/** Whether the service lets the trigger read and delete this registration's endpoint. */
export const isManageable = (registration: Registration) => registration.manageable !== false;

/** The callback URI without query or fragment, to compare it with a webhook URL. */
export function withoutQuery(uri: string): string {
	try {
		const url = new URL(uri);
		url.search = '';
		url.hash = '';
		return url.toString().replace(/\/+$/, '');
	} catch {
		return uri;
	}
}

/** Whether the callback URI carries, on either route, the token whose hash is stored. */
function carriesToken(uri: string, urls: TriggerUrls, tokenHash: string): boolean {
	const token = readCallback(uri, urls)?.token;
	return token !== undefined && sameHash(hashToken(token), tokenHash);
}

const sameEvents = (a: readonly string[], b: readonly string[]) =>
	a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

export type StoredCheck = 'missing' | 'stale' | 'current';

/** Whether the stored registration is what the node wants now (another URL or other events make it stale). */
export function checkStored(
	stored: Registration | undefined,
	wanted: { webhookUrl: string; events: readonly string[] },
): StoredCheck {
	if (!stored) return 'missing';
	if (withoutQuery(stored.webhookUrl) !== withoutQuery(wanted.webhookUrl)) return 'stale';
	if (!sameEvents(stored.events, wanted.events)) return 'stale';
	return 'current';
}

/** An endpoint in the package's shape, or a JSON:API resource as the service may send it. */
export type EndpointLike =
	| WebhookEndpoint
	| { id: string; attributes: { callback_uri: string; enabled_events: string[] } };

/** Whether an endpoint delivers to this trigger with the token of this hash, on either route. */
export function deliversWithToken(endpoint: EndpointLike, urls: TriggerUrls, tokenHash: string) {
	const e = readEndpoint(endpoint);
	return e !== undefined && carriesToken(e.callback_uri, urls, tokenHash);
}

/** Whether the endpoint the service holds is still the stored registration. */
export function endpointMatches(endpoint: EndpointLike, stored: Registration): boolean {
	const e = readEndpoint(endpoint);
	return (
		e !== undefined &&
		(stored.endpointId === undefined || e.id === stored.endpointId) &&
		deliversWithToken(e, stored, stored.tokenHash) &&
		sameEvents(e.enabled_events, stored.events)
	);
}

/**
 * Whether the endpoint delivers to this trigger (its webhook URL with any query, or its token route), whatever its
 * token: the one test an endpoint must pass before this trigger deletes it, whatever id the registration stores.
 */
export function deliversTo(endpoint: EndpointLike, urls: TriggerUrls): boolean {
	const e = readEndpoint(endpoint);
	return e !== undefined && readCallback(e.callback_uri, urls) !== undefined;
}

/** Endpoints at the service that deliver to this trigger, whatever their token: this trigger's own. */
export function endpointsFor<E extends EndpointLike>(endpoints: E[], urls: TriggerUrls): E[] {
	return endpoints.filter((e) => deliversTo(e, urls));
}

/** The endpoint this registration created, found by its callback URI and token (for an answer without id). */
export function findRegistered<E extends EndpointLike>(
	endpoints: E[],
	registration: TriggerUrls & Pick<Registration, 'tokenHash'>,
): E | undefined {
	return endpoints.find((e) => deliversWithToken(e, registration, registration.tokenHash));
}

/**
 * The endpoint a creation made, from a list read after it: the one with its token, else the only endpoint of this
 * trigger (its token dropped by the service: the endpoints of earlier registrations were deleted before).
 */
export function createdAmong<E extends EndpointLike>(
	endpoints: E[],
	registration: TriggerUrls & Pick<Registration, 'tokenHash'>,
): E | undefined {
	const mine = endpointsFor(endpoints, registration);
	return findRegistered(mine, registration) ?? (mine.length === 1 ? mine[0] : undefined);
}

// ---- what the service stored (docs/design.md, "Where the token travels")

/** Statuses with which a service refuses a field's value: a callback URI with a query may be one. */
const VALIDATION_REFUSALS = new Set([400, 422]);

/** Whether a refused creation on the query route is worth one more on the token route. */
export function retryOnPath(route: TokenRoute, status: number | undefined, hasPathUrl: boolean) {
	return route === 'query' && hasPathUrl && status !== undefined && VALIDATION_REFUSALS.has(status);
}

/**
 * What create does with the callback URI the service stored (undefined: its answer did not show it and it cannot
 * be read): `kept`; `unverified`; `reroute` (the token was dropped: register it on the token route); `fail` (the
 * token was dropped and there is no token route); `changed` (stored otherwise: kept, with a warning).
 */
export type StoredVerdict = StoredCallback | 'unverified' | 'reroute' | 'fail';

export function judgeStored(
	sent: string,
	stored: string | undefined,
	route: TokenRoute,
	hasPathUrl: boolean,
): StoredVerdict {
	if (stored === undefined) return 'unverified';
	const compared = compareStored(sent, stored);
	if (compared !== 'token-dropped') return compared;
	return route === 'query' && hasPathUrl ? 'reroute' : 'fail';
}

/** Where the service's path shows up afterwards, for every text that moves the token there. */
const PATH_CAVEAT =
	'n8n writes request paths, and so this token, to its log at the debug level and for requests to a workflow that is not published';

/** What n8n's log says when the token moved to the token route: what the service did, and what it costs. */
export function reroutedWarning(cause: 'dropped' | 'refused', detail?: string): string {
	const what =
		cause === 'dropped'
			? 'stored the callback URI without its query string, which carries the trigger’s token'
			: `refused a callback URI with a query string${detail ? ` (${detail})` : ''}`;
	return `The captioning service ${what}, so the token now travels as the callback URI’s last path segment. ${PATH_CAVEAT}.`;
}

/** The activation error when the service dropped the token and n8n gives the node no token route. */
export function droppedTokenError(stored: string): { message: string; description: string } {
	return {
		message: 'The captioning service dropped the token from the callback URI',
		description: `It stored ${redactCallbackToken(stored)} without the query string that carries the trigger's token, so it would deliver every event without it and each delivery would be refused (401). This trigger node has no webhook ID, which the token route needs: add a new Captioning Trigger in the editor in its place, then publish the workflow again.`,
	};
}

/** What n8n's log says when the service stored another callback URI than the one sent. */
export function changedCallbackWarning(sent: string, stored: string): string {
	return `The captioning service stored the callback URI ${redactCallbackToken(stored)} for ${redactCallbackToken(sent)}. If its deliveries do not reach this trigger or are refused (401), check the endpoint in the service's developers dashboard.`;
}

/** What n8n's log says when nothing shows what the service stored (its answer did not, and it has no reads). */
export const UNVERIFIED_CALLBACK =
	'The captioning service did not show the callback URI it stored (its answer had none, and it does not let n8n read endpoints). If every delivery is refused (401), it dropped the query string that carries the token: tell its support.';

/** What n8n's log says when a stripped endpoint cannot be deleted: its deliveries all fail. */
export function strippedEndpointWarning(webhookUrl: string, reason: string): string {
	return `The captioning service ${reason}, so the endpoint that delivers to ${withoutQuery(webhookUrl)} without the token stays registered: its deliveries are refused (401). Delete it in the service's developers dashboard.`;
}

/** The account whose service needs the token route, as the static data remembers it between registrations. */
export const PATH_ROUTE_FOR = 'tokenRouteFor';

/** The route to register on first: the token route where this account's service refused or dropped a query. */
export function firstRoute(
	staticData: IDataObject,
	account: string,
	hasPathUrl: boolean,
): TokenRoute {
	return hasPathUrl && staticData[PATH_ROUTE_FOR] === account ? 'path' : 'query';
}

/** What n8n's log says when deactivation cannot delete the endpoint: what stays, and what the user must do. */
export function keptEndpointWarning(
	registration: Pick<Registration, 'webhookUrl'>,
	reason: string,
): string {
	return (
		`The captioning service ${reason}, so the webhook endpoint that delivers to ` +
		`${withoutQuery(registration.webhookUrl)} stays registered; the next publication of this workflow ` +
		`reuses it instead of registering another. If this workflow will not be published again, delete ` +
		`the endpoint for ${withoutQuery(registration.webhookUrl)} in the service's developers dashboard.`
	);
}

/** What n8n's log says when a replaced registration (other URL or events) cannot be deleted. */
export function orphanedEndpointWarning(
	registration: Pick<Registration, 'webhookUrl'>,
	reason: string,
): string {
	return (
		`The captioning service ${reason}, so the previous webhook endpoint for ` +
		`${withoutQuery(registration.webhookUrl)} (registered with other settings) could not be deleted. ` +
		`Its deliveries are refused (their token is no longer valid); delete it in the service's ` +
		`developers dashboard to stop them.`
	);
}

/** What n8n's log says when the registration was made with another account: what to delete, and where. */
export function otherAccountWarning(
	registration: Pick<Registration, 'webhookUrl' | 'endpointId'>,
): string {
	const which = registration.endpointId ? `${registration.endpointId} ` : '';
	return (
		`The webhook endpoint ${which}that delivers to ${withoutQuery(registration.webhookUrl)} was ` +
		`registered with another account of the captioning service (another Base URL or Client ID than the ` +
		`credential now has), which n8n cannot reach any more: it was left as it is there. Its deliveries are ` +
		`refused (their token is no longer valid); delete it in that account's developers dashboard.`
	);
}

/** The reason of a management call the service does not offer, for the warnings above. */
export function unsupportedReason(method: 'GET' | 'DELETE', status: number | undefined): string {
	const what = method === 'DELETE' ? 'delete' : 'read';
	return `does not let n8n ${what} webhook endpoints${status ? ` (HTTP ${status})` : ''}`;
}

/** The key of a kept registration in this process: one per service account and webhook URL. */
export function keptKey(account: Account, webhookUrl: string) {
	return JSON.stringify([accountFingerprint(account), withoutQuery(webhookUrl)]);
}
