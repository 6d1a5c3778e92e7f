// Token decisions for the captioningApi credential, as small pure functions: which grant to use, whether the saved
// tokens still belong to the credential's values, how to read the token endpoint's answer, and what to tell the
// user when it refuses.
import { createHash } from 'node:crypto';

import { REQUIRED_SCOPE } from './constants';
import { redact } from './redact';
import {
	describeIssues,
	oauthErrorSchema,
	tokenResponseSchema,
	type TokenResponse,
} from './schemas';

export interface CaptioningCredentials {
	baseUrl: string;
	clientId: string;
	clientSecret: string;
	assertion: string;
	mediaType: string;
	accessToken?: string;
	refreshToken?: string;
	/** What `valuesFingerprint` gave for the values the saved tokens were obtained with. */
	tokenFingerprint?: string;
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

export type Grant = 'assertion' | 'refresh_token';

export class CredentialError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'CredentialError';
	}
}

const str = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** The credential's own fields as every decision reads them: trimmed, the Base URL without trailing slashes. */
export function credentialValues(data: Record<string, unknown>) {
	return {
		baseUrl: str(data.baseUrl).replace(/\/+$/, ''),
		clientId: str(data.clientId),
		clientSecret: str(data.clientSecret),
		assertion: str(data.assertion),
		mediaType: str(data.mediaType),
	};
}

type TokenSource = Pick<
	CaptioningCredentials,
	'baseUrl' | 'clientId' | 'clientSecret' | 'assertion'
>;

/**
 * A hash of the values a grant depends on, saved with the tokens: tokens are used only while it matches, so an
 * edited Base URL, Client ID, Client Secret or Assertion Token is never served by tokens of the old ones.
 */
export function valuesFingerprint(values: TokenSource): string {
	return createHash('sha256')
		.update(
			JSON.stringify([
				'captioningApi/1',
				values.baseUrl,
				values.clientId,
				values.clientSecret,
				values.assertion,
			]),
		)
		.digest('hex');
}

/** Whether the saved tokens were obtained with the credential's current values. */
export function tokensMatchValues(data: Record<string, unknown>): boolean {
	const saved = str(data.tokenFingerprint);
	return saved !== '' && saved === valuesFingerprint(credentialValues(data));
}

/** The access token to send, or undefined when there is none or it was obtained with other values. */
export function bearerToken(data: Record<string, unknown>): string | undefined {
	const token = str(data.accessToken);
	return token && tokensMatchValues(data) ? token : undefined;
}

/** Reads the credential's fields and says which one is missing. */
export function readCredentials(data: Record<string, unknown>): CaptioningCredentials {
	const fields = credentialValues(data);
	const labels: Record<keyof typeof fields, string> = {
		baseUrl: 'Base URL',
		clientId: 'Client ID',
		clientSecret: 'Client Secret',
		assertion: 'Assertion Token',
		mediaType: 'API Media Type',
	};
	const missing = (Object.keys(fields) as Array<keyof typeof fields>).filter((k) => !fields[k]);
	if (missing.length) {
		throw new CredentialError(
			`The Captioning credential is missing: ${missing.map((k) => labels[k]).join(', ')}. Open the credential and fill ${missing.length > 1 ? 'them' : 'it'} in.`,
		);
	}
	if (!/^https?:\/\/[^\s/]+/i.test(fields.baseUrl)) {
		throw new CredentialError(
			'The Base URL must start with http:// or https:// (for example https://api.example.com).',
		);
	}
	return {
		...fields,
		accessToken: str(data.accessToken) || undefined,
		refreshToken: str(data.refreshToken) || undefined,
		tokenFingerprint: str(data.tokenFingerprint) || undefined,
	};
}

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

export type TokenFailure =
	| { kind: 'unreachable'; code: string }
	| { kind: 'refused'; status: number; error?: string; description?: string }
	| { kind: 'server'; status: number }
	| { kind: 'not-json'; status: number; contentType: string }
	| { kind: 'invalid-response'; detail: string };

export type TokenOutcome =
	| { ok: true; token: TokenResponse }
	| { ok: false; failure: TokenFailure };

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

// in words: n8n replaces any message that contains a raw code such as ECONNREFUSED with a generic one
const NETWORK_PROBLEMS: Record<string, string> = {
	ECONNREFUSED: 'connection refused',
	ENOTFOUND: 'host name not found',
	EAI_AGAIN: 'host name lookup failed',
	ETIMEDOUT: 'no answer in time',
	ECONNABORTED: 'no answer in time',
	ECONNRESET: 'connection closed by the server',
	EHOSTUNREACH: 'host unreachable',
};

export function networkProblem(code: string): string {
	return NETWORK_PROBLEMS[code] ?? 'network error';
}

/** The message a user sees: the cause, and what to change. Never a secret. */
export function describeTokenFailure(
	failure: TokenFailure,
	grant: Grant,
	credentials: CaptioningCredentials,
): string {
	const where = `${credentials.baseUrl}/oauth/token`;
	let message: string;
	switch (failure.kind) {
		case 'unreachable':
			message = `Could not reach the captioning service at ${credentials.baseUrl} (${networkProblem(failure.code)}). Check the Base URL and that n8n can reach that address.`;
			break;
		case 'server':
			message = `The captioning service's token endpoint failed with HTTP ${failure.status}. This is a problem on the service's side: try again later.`;
			break;
		case 'not-json':
			message = `${where} answered HTTP ${failure.status} with ${failure.contentType || 'a body'} instead of a JSON token response. Check the Base URL: it must be the API's root address, without /oauth/token.`;
			break;
		case 'invalid-response':
			message = `${where} answered with JSON that is not a valid token response (${failure.detail}). Check the Base URL points at the captioning service.`;
			break;
		case 'refused':
			message = describeRefusal(failure, grant, where);
			break;
	}
	return redact(message, [
		credentials.clientSecret,
		credentials.assertion,
		credentials.accessToken,
		credentials.refreshToken,
	]);
}

function describeRefusal(
	failure: Extract<TokenFailure, { kind: 'refused' }>,
	grant: Grant,
	where: string,
): string {
	const said = failure.error ? ` (${failure.error})` : '';
	if (failure.status === 404) {
		return `There is no token endpoint at ${where} (HTTP 404). Check the Base URL: it must be the API's root address.`;
	}
	switch (failure.error) {
		case 'invalid_client':
			return `The service rejected the Client ID or Client Secret${said}. Copy both again from the service's developers dashboard.`;
		case 'invalid_grant':
			return grant === 'assertion'
				? `The service rejected the Assertion Token${said}: it is wrong, expired or revoked, or belongs to another client. Create a new assertion token in the dashboard and paste it into the credential.`
				: `The service rejected the saved refresh token${said}.`;
		case 'invalid_scope':
			return `The service refused the scope "${REQUIRED_SCOPE}"${said}. Ask the service to allow this application both scopes (write_transcriptions and write_media).`;
		case 'unsupported_grant_type':
			return `The service at ${where} does not accept the ${grant} grant${said}. Check the Base URL points at the captioning service.`;
		default: {
			const refused = `The service refused the ${grant} grant with HTTP ${failure.status}${said}${failure.description ? `: ${failure.description}` : ''}.`;
			// without a known code, a 400/401/403 of the assertion grant still points at the values the user gave
			return grant === 'assertion' && [400, 401, 403].includes(failure.status)
				? `${refused} Check the Client ID, Client Secret and Assertion Token against the service's developers dashboard.`
				: refused;
		}
	}
}

/**
 * Answers to the credential test's read that fail the test, with what the user should do. Every other answer
 * passes: the grant before it already proved the values, and 404/405/501 only say the service has no such read.
 */
export const CREDENTIAL_TEST_FAILURES: ReadonlyArray<{ status: number; message: string }> = [
	{
		status: 401,
		message:
			'The service issued a token but refused it on GET /webhook_endpoints (HTTP 401). Check that the Base URL is the address of the API itself, where both /oauth/token and the API are served.',
	},
	{
		status: 406,
		message:
			"The service does not accept the API Media Type (HTTP 406). Set it to application/vnd.<service>.v1 with the service's own name.",
	},
	...Array.from({ length: 100 }, (_, i) => 500 + i)
		.filter((status) => status !== 501)
		.map((status) => ({
			status,
			message: `The token was obtained, but the captioning service failed with HTTP ${status} on GET /webhook_endpoints, so the API Media Type could not be checked. Test again later.`,
		})),
];

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
