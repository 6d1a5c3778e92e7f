// One grant at the token endpoint, as pure decisions: which grant to ask for, its parameters, how to read the
// answer, whether a refused refresh starts again from the assertion, and what the credential saves.
import {
	describeIssues,
	oauthErrorSchema,
	tokenResponseSchema,
	type TokenResponse,
} from '../schemas';
import { type CaptioningCredentials, valuesFingerprint } from './values';

/** Contract 4.1: the assertion grant must ask for exactly these scopes. */
export const REQUIRED_SCOPE = 'write_transcriptions write_media';

export type Grant = 'assertion' | 'refresh_token';

/**
 * Section 5.2: renew with the refresh token when there is one and it was obtained with the current values; else
 * start from the assertion (a refresh token of the old values would keep serving the old account).
 */
export function chooseGrant(credentials: CaptioningCredentials): Grant {
	const current = credentials.tokenFingerprint === valuesFingerprint(credentials);
	return credentials.refreshToken && current ? 'refresh_token' : 'assertion';
}

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

export type TokenFailure =
	| { kind: 'unreachable'; code: string }
	| { kind: 'refused'; status: number; error?: string; description?: string }
	| { kind: 'server'; status: number }
	| { kind: 'not-json'; status: number; contentType: string }
	| { kind: 'invalid-response'; detail: string };

export type TokenOutcome =
	| { ok: true; token: TokenResponse }
	| { ok: false; failure: TokenFailure };

/**
 * A refused refresh grant is answered by starting again from the assertion: services refuse a rotated, revoked or
 * expired refresh token with 400 or 401, with `invalid_grant`, `invalid_client`, no code, or no JSON at all. A 429
 * is not a refusal (the assertion grant would meet the same limit); 5xx and an unreachable service are not either:
 * the refresh token is probably still good, and a second grant would only double the load on a failing service.
 */
export function shouldFallBackToAssertion(failure: TokenFailure): boolean {
	const status = failure.kind === 'refused' || failure.kind === 'not-json' ? failure.status : 0;
	return status >= 400 && status < 500 && status !== 429;
}

/** Classifies the token endpoint's answer. */
export function readTokenAnswer(status: number, contentType: string, body: unknown): TokenOutcome {
	const isObject = typeof body === 'object' && body !== null;
	if (status >= 500) return { ok: false, failure: { kind: 'server', status } };
	if (!isObject) return { ok: false, failure: { kind: 'not-json', status, contentType } };
	if (status >= 400) {
		const parsed = oauthErrorSchema.safeParse(body);
		return {
			ok: false,
			failure: {
				kind: 'refused',
				status,
				error: parsed.success ? parsed.data.error : undefined,
				description: parsed.success ? parsed.data.error_description : undefined,
			},
		};
	}
	const parsed = tokenResponseSchema.safeParse(body);
	if (!parsed.success) {
		return {
			ok: false,
			failure: { kind: 'invalid-response', detail: describeIssues(parsed.error) },
		};
	}
	return { ok: true, token: parsed.data };
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
	token: TokenResponse,
	grant: Grant,
	used: CaptioningCredentials,
	now: number,
): SavedTokens {
	return {
		accessToken: token.access_token,
		// a service that does not rotate refresh tokens may omit one from a refresh: keep the one just accepted
		refreshToken:
			token.refresh_token ?? (grant === 'refresh_token' ? (used.refreshToken ?? '') : ''),
		expiresAt: now + (token.expires_in ?? 7200) * 1000,
		tokenFingerprint: valuesFingerprint(used),
	};
}
