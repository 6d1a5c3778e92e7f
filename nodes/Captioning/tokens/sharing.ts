// Which grant, and one grant for the callers that ask together; a refresh token that yielded no token is dropped,
// never sent again by this process.
import { createHash } from 'node:crypto';

import { RenewalHandBack, tokenMark } from './callTerms';
import type { Grant } from './failures';
import { type GrantOptions, grantTokens, type Http, type SavedTokens } from './grant';
import type { CaptioningCredentials } from './values';

// refresh tokens that yielded no token, by hash, oldest first: still saved when the assertion after them failed too
const dropped = new Set<string>();
const MAX_DROPPED = 1_000;
const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');

function dropRefreshToken(token: string): void {
	dropped.add(hashOf(token));
	if (dropped.size > MAX_DROPPED) dropped.delete(dropped.values().next().value as string);
}

const isDropped = (token: string) => dropped.has(hashOf(token));

/** Section 5.2: the refresh token when it is the current values' and was not dropped; else the assertion. */
export function chooseGrant(
	credentials: CaptioningCredentials,
	isRefused: (refreshToken: string) => boolean = () => false,
): Grant {
	const current = credentials.tokenFingerprint === credentials.fingerprint;
	const usable = credentials.refreshToken && !isRefused(credentials.refreshToken);
	return usable && current ? 'refresh_token' : 'assertion';
}

/** How long a fresh grant answers callers that read the credential before it was saved. */
export const SHARED_GRANT_MS = 10_000;
interface SharedGrant {
	promise: Promise<SavedTokens>;
	/** tokenMark of the access token the caller that started it held: the state the grant answers. */
	startedWith: string;
	settledAt?: number;
}
const grants = new Map<string, SharedGrant>();

/** Whether a caller may take a grant another started: while it is fresh, and when both held the same token. */
export function canShareGrant(
	shared: Pick<SharedGrant, 'settledAt' | 'startedWith'> | undefined,
	callerHeld: string,
	nowMs: number,
): boolean {
	if (!shared || shared.startedWith !== callerHeld) return false;
	return shared.settledAt === undefined || nowMs - shared.settledAt < SHARED_GRANT_MS;
}

/** Callers with the same credential values (and the same usable refresh token) share one grant. */
export function grantKey(c: CaptioningCredentials, grant = chooseGrant(c, isDropped)): string {
	const refresh = grant === 'refresh_token' ? (c.refreshToken ?? '') : '';
	return createHash('sha256')
		.update(JSON.stringify([c.baseUrl, c.clientId, c.clientSecret, c.assertion, refresh]))
		.digest('hex');
}

/** Forgets the grants that settled more than SHARED_GRANT_MS ago. */
function forgetOldGrants(nowMs: number) {
	for (const [k, v] of grants) {
		if (v.settledAt !== undefined && nowMs - v.settledAt >= SHARED_GRANT_MS) grants.delete(k);
	}
}

/** One grant for the executions of a process that ask together, before the first token is saved. */
export async function sharedGrant(
	http: Http,
	credentials: CaptioningCredentials,
	options: GrantOptions,
): Promise<SavedTokens> {
	const { now } = options;
	const grant = chooseGrant(credentials, isDropped);
	// a call that read a refresh token this process saw refused looks at the store too, before the assertion
	if (options.handsBack && grant === 'assertion' && chooseGrant(credentials) === 'refresh_token') {
		throw new RenewalHandBack('refresh-refused');
	}
	const key = grantKey(credentials, grant);
	const shared = grants.get(key);
	// a call of the transport empties the token it held to ask for a renewal: its terms say which one it was
	const held = options.held ?? tokenMark(credentials.accessToken);
	if (shared && canShareGrant(shared, held, now())) return await shared.promise;
	const entry: SharedGrant = {
		promise: grantTokens(http, credentials, grant, dropRefreshToken, options),
		startedWith: held,
	};
	grants.set(key, entry);
	entry.promise.then(
		() => {
			entry.settledAt = now();
			forgetOldGrants(now());
		},
		// a failure is not shared: the next call tries again (after the user fixed the credential)
		() => grants.delete(key),
	);
	return await entry.promise;
}
