// Pure decisions of the trigger's registration: the callback URI with its secret token, the service account it
// was made with, whether what is stored still matches what the node wants, which endpoints at the service are
// this trigger's, and what to tell the user when the service cannot delete an endpoint. Only hashes of the token
// and of the account are stored: n8n copies the static data into execution records, which more people may read
// than may edit the workflow.
import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { normaliseBaseUrl } from '../shared/credentialValues';
import { readEndpoint, type WebhookEndpoint } from '../transport/webhookEndpoints';
import { hashToken, sameHash, TOKEN_PARAMETER } from './token';

export interface Registration {
	/** Absent when the service did not say it and no list could tell it. */
	endpointId?: string;
	/** The webhook URL without the token (what n8n's getNodeWebhookUrl returns). */
	webhookUrl: string;
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
	if (
		typeof r.webhookUrl !== 'string' ||
		tokenHash === undefined ||
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
	return registration;
}

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

export function callbackUriWithToken(webhookUrl: string, token: string): string {
	const url = new URL(webhookUrl);
	url.searchParams.set(TOKEN_PARAMETER, token);
	return url.toString();
}

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

function tokenOf(uri: string): string | null {
	try {
		return new URL(uri).searchParams.get(TOKEN_PARAMETER);
	} catch {
		return null;
	}
}

/** Whether the callback URI carries the token whose hash is stored. */
function carriesToken(uri: string, tokenHash: string): boolean {
	const token = tokenOf(uri);
	return token !== null && sameHash(hashToken(token), tokenHash);
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

/**
 * Whether an endpoint delivers to this webhook URL with the token of this hash (the service may reorder the
 * query).
 */
export function deliversWithToken(endpoint: EndpointLike, webhookUrl: string, tokenHash: string) {
	const e = readEndpoint(endpoint);
	return e !== undefined && deliversTo(e, webhookUrl) && carriesToken(e.callback_uri, tokenHash);
}

/** Whether the endpoint the service holds is still the stored registration. */
export function endpointMatches(endpoint: EndpointLike, stored: Registration): boolean {
	const e = readEndpoint(endpoint);
	return (
		e !== undefined &&
		(stored.endpointId === undefined || e.id === stored.endpointId) &&
		deliversWithToken(e, stored.webhookUrl, stored.tokenHash) &&
		sameEvents(e.enabled_events, stored.events)
	);
}

/**
 * Whether the endpoint delivers to this webhook URL (query removed), whatever its token: the one test an endpoint
 * must pass before this trigger deletes it, whatever id the registration stores.
 */
export function deliversTo(endpoint: EndpointLike, webhookUrl: string): boolean {
	const e = readEndpoint(endpoint);
	return e !== undefined && withoutQuery(e.callback_uri) === withoutQuery(webhookUrl);
}

/** Endpoints at the service that deliver to this webhook URL, whatever their token: this trigger's own. */
export function endpointsFor<E extends EndpointLike>(endpoints: E[], webhookUrl: string): E[] {
	return endpoints.filter((e) => deliversTo(e, webhookUrl));
}

/** The endpoint this registration created, found by its callback URI and token (for an answer without id). */
export function findRegistered<E extends EndpointLike>(
	endpoints: E[],
	registration: Pick<Registration, 'webhookUrl' | 'tokenHash'>,
): E | undefined {
	return endpoints.find((e) =>
		deliversWithToken(e, registration.webhookUrl, registration.tokenHash),
	);
}

/** What n8n's log says when deactivation cannot delete the endpoint: what stays, and what the user must do. */
export function keptEndpointWarning(
	registration: Pick<Registration, 'webhookUrl'>,
	reason: string,
): string {
	return (
		`The captioning service ${reason}, so the webhook endpoint that delivers to ` +
		`${withoutQuery(registration.webhookUrl)} stays registered; the next activation of this trigger ` +
		`reuses it instead of registering another. If this workflow will not be activated again, delete ` +
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
