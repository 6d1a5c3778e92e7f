// One grant at the token endpoint, as pure decisions: which grant to ask for, its parameters, how to read the
// answer (by need: shared/schemas.ts), whether a refresh that yields no token starts again from the assertion, and
// what the credential saves.
import {
	describeIssues,
	isObject,
	readOAuthError,
	type TokenAnswer,
	tokenAnswerSchema,
} from '../schemas';
import { type CaptioningCredentials, valuesFingerprint } from './values';

/** Contract 4.1: the assertion grant must ask for exactly these scopes. */
export const REQUIRED_SCOPE = 'write_transcriptions write_media';

export type Grant = 'assertion' | 'refresh_token';

/**
 * Section 5.2: renew with the refresh token when there is one, it was obtained with the current values and it was
 * not dropped (a refresh with it yielded no token); else start from the assertion (a refresh token of the old values
 * would keep serving the old account).
 */
export function chooseGrant(
	credentials: CaptioningCredentials,
	isDropped: (refreshToken: string) => boolean = () => false,
): Grant {
	const current = credentials.tokenFingerprint === valuesFingerprint(credentials);
	const usable = credentials.refreshToken && !isDropped(credentials.refreshToken);
	return usable && current ? 'refresh_token' : 'assertion';
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

export type TokenOutcome = { ok: true; token: TokenAnswer } | { ok: false; failure: TokenFailure };

/**
 * A refresh that yields no token starts again from the assertion, once: services refuse a rotated, revoked or
 * expired refresh token with any 4xx, with or without a code, and some answer 200 with an OAuth error, no
 * access_token or no JSON at all; a 5xx (the token call is a POST, never repeated) may have spent a rotated token.
 * Only a 429 (the assertion grant would meet the same limit) and an unreachable service (it would be as unreachable)
 * are not answered so.
 */
export function shouldFallBackToAssertion(failure: TokenFailure): boolean {
	if (failure.kind === 'unreachable') return false;
	return !('status' in failure && failure.status === 429);
}

/** A body n8n left as text (JSON sent under another content type) is read as JSON. */
function asJson(body: unknown): unknown {
	if (typeof body !== 'string') return body;
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

/**
 * Classifies the token endpoint's answer, reading only what decides: `access_token` (the one required member) on a
 * 2xx, `error` and `error_description` (for wording) otherwise or when there is no usable access token.
 */
export function readTokenAnswer(status: number, contentType: string, body: unknown): TokenOutcome {
	if (status >= 500) return { ok: false, failure: { kind: 'server', status } };
	const json = asJson(body);
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
		tokenFingerprint: valuesFingerprint(used),
	};
}
