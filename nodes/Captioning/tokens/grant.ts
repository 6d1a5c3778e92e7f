// One grant at the token endpoint: its parameters, the call (paced within the budget of the call it serves), its
// answer (answer.ts), one fall-back from a refresh that yields no token to the assertion, and what is saved.
import type { IHttpRequestOptions } from 'n8n-workflow';

import { networkCode } from '../shared/network';
import {
	type HttpFailure,
	MAX_ATTEMPTS,
	pacerFor,
	RetryStop,
	sendPaced,
	WAIT_BUDGET_MS,
} from '../shared/pacing';
import { headerValue } from '../shared/schemas';
import { settle } from '../shared/settle';
import { readTokenAnswer, type TokenAnswer, type TokenOutcome } from './answer';
import { RenewalHandBack } from './callTerms';
import { describeTokenFailure, type Grant, REQUIRED_SCOPE, type TokenFailure } from './failures';
import { type CaptioningCredentials, CredentialError } from './values';

export type Http = (options: IHttpRequestOptions) => Promise<unknown>;

/** Query parameters of the token call (sections 4.1 and 4.2: they go in the query string, not a body). */
export function grantParameters(grant: Grant, c: CaptioningCredentials): Record<string, string> {
	if (grant === 'refresh_token') {
		return {
			grant_type: 'refresh_token',
			refresh_token: c.refreshToken ?? '',
			client_id: c.clientId,
			client_secret: c.clientSecret,
		};
	}
	return {
		grant_type: 'assertion',
		provider: 'dashboard',
		assertion: c.assertion,
		client_id: c.clientId,
		client_secret: c.clientSecret,
		scope: REQUIRED_SCOPE,
	};
}

/**
 * A refresh that yields no token starts again from the assertion, once, whatever the refusal (docs/design.md);
 * not after the rate limit (the assertion would meet the same limit) or an unreachable service.
 */
export function shouldFallBackToAssertion(failure: TokenFailure): boolean {
	return failure.kind !== 'unreachable' && failure.kind !== 'rate-limited';
}

/** The hidden fields the credential saves after each grant. */
export interface SavedTokens {
	accessToken: string;
	refreshToken: string;
	/** Epoch milliseconds: the package's calls renew the token shortly before (values.ts). */
	expiresAt: number;
	/** A hash of the values the tokens were obtained with (never the values). */
	tokenFingerprint: string;
}

/** What the credential saves: the hidden fields, with the fingerprint of the values the grant used. */
export function toSavedTokens(
	token: TokenAnswer,
	grant: Grant,
	used: CaptioningCredentials,
	now: number,
): SavedTokens {
	return {
		accessToken: token.access_token,
		// RFC 6749 section 6: a refresh answered without a refresh token keeps the one just accepted
		refreshToken:
			token.refresh_token ?? (grant === 'refresh_token' ? (used.refreshToken ?? '') : ''),
		expiresAt: now + (token.expires_in ?? 7200) * 1000,
		tokenFingerprint: used.fingerprint,
	};
}

/** How a grant runs: its clock and sleep, and what the call it serves allows. */
export interface GrantOptions {
	now: () => number;
	sleep?: (ms: number) => Promise<void>;
	/** When the call this grant serves must end (epoch milliseconds); else a budget of its own. */
	deadline?: number;
	/**
	 * The call renews for itself (a call of the transport): a refused refresh is handed back to it
	 * (RenewalHandBack) instead of falling back to the assertion grant here.
	 */
	handsBack?: boolean;
	/** tokenMark of the access token the caller held before it asked (sharing.ts); else that of the one it holds. */
	held?: string;
}

type FullResponse = {
	statusCode: number;
	headers: Record<string, string | undefined>;
	body: unknown;
};

/** A token request answered with an error status: sendPaced decides whether it is sent again. */
class TokenRequestFailed extends Error {
	constructor(readonly failure: HttpFailure) {
		super(`HTTP ${failure.status}`);
	}
}

/** The token request of a grant: a POST with its parameters in the query; an error status is thrown for sendPaced. */
function tokenRequest(
	http: Http,
	grant: Grant,
	credentials: CaptioningCredentials,
): () => Promise<FullResponse> {
	const request: IHttpRequestOptions = {
		method: 'POST',
		url: `${credentials.baseUrl}/oauth/token`,
		qs: grantParameters(grant, credentials),
		headers: { Accept: 'application/json' },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: 30_000,
	};
	return async () => {
		const response = (await http(request)) as FullResponse;
		if (response.statusCode < 400) return response;
		const { statusCode: status, headers, body: data } = response;
		throw new TokenRequestFailed({ status, headers, data });
	};
}

/** What a token request that sendPaced gave up on comes to: unreachable, rate-limited, or its last answer. */
function stoppedOutcome(stop: unknown): TokenOutcome {
	if (!(stop instanceof RetryStop) || !stop.failure) {
		const cause = stop instanceof RetryStop ? stop.error : stop;
		return { ok: false, failure: { kind: 'unreachable', code: networkCode(cause) } };
	}
	const { status, headers, data } = stop.failure;
	if (status === 429) {
		const { reason, attempts, elapsedMs, refusedWaitMs } = stop;
		return {
			ok: false,
			failure: { kind: 'rate-limited', stop: { reason, attempts, elapsedMs, refusedWaitMs } },
		};
	}
	const outcome = readTokenAnswer(status, headerValue(headers, 'content-type') ?? '', data);
	if (!outcome.ok && outcome.failure.kind === 'server') outcome.failure.attempts = stop.attempts;
	return outcome;
}

/**
 * The token request, sent again after a 429 or 502/503/504 as API calls are (safe to repeat: the assertion is not
 * spent, and a spent refresh token is refused on the repeat), within the budget of the call it serves.
 */
async function callTokenEndpoint(
	http: Http,
	grant: Grant,
	credentials: CaptioningCredentials,
	options: GrantOptions,
): Promise<TokenOutcome> {
	const { now } = options;
	const send = tokenRequest(http, grant, credentials);
	const sent = await settle(
		sendPaced(send, {
			method: 'POST',
			repeatable: true,
			pacer: pacerFor(`${credentials.baseUrl}/oauth/token|${credentials.clientId}`),
			readFailure: (error) => (error instanceof TokenRequestFailed ? error.failure : undefined),
			now,
			sleep: options.sleep,
			limits: {
				budgetMs:
					options.deadline === undefined ? WAIT_BUDGET_MS : Math.max(0, options.deadline - now()),
				maxAttempts: MAX_ATTEMPTS,
			},
		}),
	);
	if (!sent.ok) return stoppedOutcome(sent.error);
	const { statusCode, headers, body } = sent.value;
	return readTokenAnswer(statusCode, headerValue(headers, 'content-type') ?? '', body);
}

/**
 * The grant `chosen`, then the assertion once after a refresh that yielded no token (a call that renews for
 * itself gets a RenewalHandBack instead); else a CredentialError that names the cause and the fix.
 */
export async function grantTokens(
	http: Http,
	credentials: CaptioningCredentials,
	chosen: Grant,
	onRefreshRefused: (refreshToken: string) => void,
	options: GrantOptions,
): Promise<SavedTokens> {
	let grant = chosen;
	let outcome = await callTokenEndpoint(http, grant, credentials, options);
	if (!outcome.ok && grant === 'refresh_token' && shouldFallBackToAssertion(outcome.failure)) {
		onRefreshRefused(credentials.refreshToken ?? '');
		// a refusal (any 4xx) is what another process that spent a rotated token leaves behind; a 5xx or an
		// answer without a token is not, and the assertion follows at once
		if (options.handsBack && outcome.failure.kind === 'refused') {
			throw new RenewalHandBack('refresh-refused');
		}
		grant = 'assertion';
		outcome = await callTokenEndpoint(http, grant, credentials, options);
	}
	if (outcome.ok) return toSavedTokens(outcome.token, grant, credentials, options.now());
	throw new CredentialError(describeTokenFailure(outcome.failure, grant, credentials));
}
