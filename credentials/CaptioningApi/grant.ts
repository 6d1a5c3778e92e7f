// One grant at the token endpoint: its parameters, the call, the answer read by need
// (nodes/Captioning/shared/schemas.ts), one fall-back from a refresh that yields no token to the assertion, and
// what the credential saves; a failure is worded by failures.ts.
import type { IHttpRequestOptions } from 'n8n-workflow';

import { networkCode } from '../../nodes/Captioning/shared/network';
import {
	describeIssues,
	headerValue,
	isObject,
	parseBody,
	readOAuthError,
	type TokenAnswer,
	tokenAnswerSchema,
} from '../../nodes/Captioning/shared/schemas';
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

export type TokenOutcome = { ok: true; token: TokenAnswer } | { ok: false; failure: TokenFailure };

/**
 * A refresh that yields no token starts again from the assertion, once, whatever the refusal (docs/design.md);
 * not after a 429 (the assertion would meet the same limit) or an unreachable service.
 */
export function shouldFallBackToAssertion(failure: TokenFailure): boolean {
	if (failure.kind === 'unreachable') return false;
	return !('status' in failure && failure.status === 429);
}

/**
 * Classifies the token endpoint's answer, reading only what decides: `access_token` (the one required member) on a
 * 2xx, `error` and `error_description` (for wording) otherwise or when there is no usable access token.
 */
export function readTokenAnswer(status: number, contentType: string, body: unknown): TokenOutcome {
	if (status >= 500) return { ok: false, failure: { kind: 'server', status } };
	const json = parseBody(body);
	if (!isObject(json)) return { ok: false, failure: { kind: 'not-json', status, contentType } };
	const token = tokenAnswerSchema.safeParse(json);
	if (status >= 200 && status < 300 && token.success) return { ok: true, token: token.data };
	const said = readOAuthError(json);
	if (status >= 300 || said.error) {
		return { ok: false, failure: { kind: 'refused', status, ...said } };
	}
	return {
		ok: false,
		failure: {
			kind: 'invalid-response',
			detail: token.success ? `HTTP ${status}` : describeIssues(token.error),
		},
	};
}

/** The hidden fields the credential saves after each grant. */
export interface SavedTokens {
	accessToken: string;
	refreshToken: string;
	/** Epoch milliseconds; informational (n8n refreshes on a 401, not on a clock). */
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

async function callTokenEndpoint(
	http: Http,
	grant: Grant,
	credentials: CaptioningCredentials,
): Promise<TokenOutcome> {
	let response: { statusCode: number; headers: Record<string, string | undefined>; body: unknown };
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
		headerValue(response.headers, 'content-type') ?? '',
		response.body,
	);
}

/**
 * The grant `chosen`, and the assertion grant once after a refresh that yielded no token (`onRefreshRefused` is
 * told of that refresh token first). Throws a CredentialError that names the cause and the fix.
 */
export async function grantTokens(
	http: Http,
	credentials: CaptioningCredentials,
	chosen: Grant,
	onRefreshRefused: (refreshToken: string) => void,
	now: () => number,
): Promise<SavedTokens> {
	let grant = chosen;
	let outcome = await callTokenEndpoint(http, grant, credentials);
	if (!outcome.ok && grant === 'refresh_token' && shouldFallBackToAssertion(outcome.failure)) {
		onRefreshRefused(credentials.refreshToken ?? '');
		grant = 'assertion';
		outcome = await callTokenEndpoint(http, grant, credentials);
	}
	if (outcome.ok) return toSavedTokens(outcome.token, grant, credentials, now());
	throw new CredentialError(describeTokenFailure(outcome.failure, grant, credentials));
}
