// The grant flow behind the credential's preAuthentication: refresh when the saved refresh token belongs to the
// current values, else (or when the refresh yields no token) the assertion grant; callers that ask together share
// one. A refresh token that yielded no token is dropped: never sent again by this process.
import { createHash } from 'node:crypto';
import type { IHttpRequestOptions } from 'n8n-workflow';

import { networkCode } from '../network';
import { describeTokenFailure } from './failures';
import {
	chooseGrant,
	type Grant,
	grantParameters,
	readTokenAnswer,
	type SavedTokens,
	shouldFallBackToAssertion,
	type TokenOutcome,
	toSavedTokens,
} from './grant';
import { type CaptioningCredentials, CredentialError, readCredentials } from './values';

type Http = (options: IHttpRequestOptions) => Promise<unknown>;

async function callTokenEndpoint(
	http: Http,
	grant: Grant,
	credentials: CaptioningCredentials,
): Promise<TokenOutcome> {
	let response: { statusCode: number; headers: Record<string, unknown>; body: unknown };
	try {
		response = (await http({
			method: 'POST',
			url: `${credentials.baseUrl}/oauth/token`,
			qs: grantParameters(grant, credentials),
			headers: { Accept: 'application/json' },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: 30_000,
		})) as typeof response;
	} catch (error) {
		return { ok: false, failure: { kind: 'unreachable', code: networkCode(error) } };
	}
	return readTokenAnswer(
		response.statusCode,
		String(response.headers?.['content-type'] ?? ''),
		response.body,
	);
}

/** Refresh tokens that yielded no token, by hash, oldest first: the saved one may still be such a token when the
 * assertion grant after it failed too (nothing was saved then). */
const dropped = new Set<string>();
const MAX_DROPPED = 1_000;
const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');

export function dropRefreshToken(token: string): void {
	dropped.add(hashOf(token));
	if (dropped.size > MAX_DROPPED) dropped.delete(dropped.values().next().value as string);
}

export const isDropped = (token: string) => dropped.has(hashOf(token));

async function grantTokens(
	http: Http,
	credentials: CaptioningCredentials,
	now: () => number,
): Promise<SavedTokens> {
	let grant = chooseGrant(credentials, isDropped);
	let outcome = await callTokenEndpoint(http, grant, credentials);
	if (!outcome.ok && grant === 'refresh_token' && shouldFallBackToAssertion(outcome.failure)) {
		dropRefreshToken(credentials.refreshToken ?? '');
		grant = 'assertion';
		outcome = await callTokenEndpoint(http, grant, credentials);
	}
	if (!outcome.ok)
		throw new CredentialError(describeTokenFailure(outcome.failure, grant, credentials));
	return toSavedTokens(outcome.token, grant, credentials, now());
}

/** How long a fresh grant answers callers that read the credential before it was saved. */
export const SHARED_GRANT_MS = 10_000;
interface SharedGrant {
	promise: Promise<SavedTokens>;
	/** The access token the caller that started it held ('' for none): the state the grant answers. */
	startedWith: string;
	settledAt?: number;
}
const grants = new Map<string, SharedGrant>();

/**
 * Whether a caller may take a grant another caller started: only while it is fresh, and only when the caller holds
 * the access token the starter held (it read the credential before the grant was saved). A caller with any other
 * token, the one that grant issued (the service refused it) or a newer one, gets a grant of its own.
 */
export function canShareGrant(
	shared: Pick<SharedGrant, 'settledAt' | 'startedWith'> | undefined,
	callerAccessToken: string | undefined,
	nowMs: number,
): boolean {
	if (!shared || shared.startedWith !== (callerAccessToken ?? '')) return false;
	return shared.settledAt === undefined || nowMs - shared.settledAt < SHARED_GRANT_MS;
}

/** Callers with the same credential values (and the same usable refresh token) share one grant. */
export function grantKey(c: CaptioningCredentials): string {
	const refresh = chooseGrant(c, isDropped) === 'refresh_token' ? (c.refreshToken ?? '') : '';
	return createHash('sha256')
		.update(JSON.stringify([c.baseUrl, c.clientId, c.clientSecret, c.assertion, refresh]))
		.digest('hex');
}

/**
 * Executions that start together on a credential without a token all run preAuthentication before the first
 * token is saved: within a process they share one grant instead of each asking for one.
 */
export async function obtainTokens(
	http: Http,
	data: Record<string, unknown>,
	now: () => number = Date.now,
): Promise<SavedTokens> {
	const credentials = readCredentials(data);
	const key = grantKey(credentials);
	const shared = grants.get(key);
	if (shared && canShareGrant(shared, credentials.accessToken, now())) return await shared.promise;
	const entry: SharedGrant = {
		promise: grantTokens(http, credentials, now),
		startedWith: credentials.accessToken ?? '',
	};
	grants.set(key, entry);
	entry.promise.then(
		() => {
			entry.settledAt = now();
			for (const [k, v] of grants) {
				if (v.settledAt !== undefined && now() - v.settledAt >= SHARED_GRANT_MS) grants.delete(k);
			}
		},
		// a failure is not shared: the next call tries again (after the user fixed the credential)
		() => grants.delete(key),
	);
	return await entry.promise;
}
