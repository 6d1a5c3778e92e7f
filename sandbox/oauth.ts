// The token side of the service: the assertion grant, the refresh-token grant with rotation (or without, as the
// `token-answer=loose` reading plays it), and bearer checks.
import { randomBytes } from 'node:crypto';

import { rotatesRefreshTokens, tokenAnswerBody, type Variants } from './variants';

export const REQUIRED_SCOPE = 'write_transcriptions write_media';

export interface ClientConfig {
	clientId: string;
	clientSecret: string;
	/** Assertion tokens the dashboard has issued to this client. */
	assertions: string[];
}

/** A grant's answer: the body as the `token-answer` reading writes it, and the refresh tokens it involved. */
export interface TokenGrant {
	body: Record<string, unknown>;
	/** The serial number (1, 2, …) of the refresh token this grant issued, if it issued one. */
	issuedRefreshSerial?: number;
}

export interface OAuthError {
	status: number;
	error: string;
	error_description: string;
}

interface AccessToken {
	clientId: string;
	scope: string;
	expiresAt: number;
	revoked: boolean;
}

interface RefreshToken {
	clientId: string;
	scope: string;
	expiresAt: number | null;
	revoked: boolean;
	/** Set once used: rotation makes a refresh token single-use. */
	usedAt: number | null;
	/** Issue order, so that tests can tell which refresh token a grant presented without holding its value. */
	serial: number;
}

/** A refused bearer says whether a token was presented at all: only a presented one is `invalid_token`. */
export type BearerCheck =
	| { ok: true; clientId: string }
	| { ok: false; presented: boolean; description: string };

// Doorkeeper-style opaque tokens: 32 random bytes, base64url.
const newToken = () => randomBytes(32).toString('base64url');

const invalidClient = (): OAuthError => ({
	status: 401,
	error: 'invalid_client',
	error_description:
		'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
});

export class TokenStore {
	private readonly accessTokens = new Map<string, AccessToken>();
	private readonly refreshTokens = new Map<string, RefreshToken>();

	constructor(
		private readonly clients: ClientConfig[],
		private readonly settings: {
			accessTokenTtlSeconds: number;
			refreshTokenTtlSeconds: number | null;
			now: () => number;
			/** The `token-answer` reading now played. */
			reading?: () => Variants['token-answer'];
			/** Whether a grant revokes the client's earlier access tokens (`earlier-tokens=revoked`). */
			revokesEarlier?: () => boolean;
		},
	) {}

	private get reading(): Variants['token-answer'] {
		return this.settings.reading?.() ?? 'contract';
	}

	/** The serial number of a refresh token this store issued, if it did. */
	refreshSerialOf(value: string | null): number | undefined {
		return value === null ? undefined : this.refreshTokens.get(value)?.serial;
	}

	/** Handles POST /oauth/token; `params` are the query parameters, as the contract requires. */
	grant(params: URLSearchParams): TokenGrant | OAuthError {
		const grantType = params.get('grant_type');
		if (!grantType) {
			return {
				status: 400,
				error: 'invalid_request',
				error_description:
					'The request is missing a required parameter: grant_type. The token endpoint reads its parameters from the query string.',
			};
		}
		if (grantType !== 'assertion' && grantType !== 'refresh_token') {
			return {
				status: 400,
				error: 'unsupported_grant_type',
				error_description: `The authorization grant type "${grantType}" is not supported by the authorization server. Use "assertion" or "refresh_token".`,
			};
		}
		const client = this.clients.find((c) => c.clientId === params.get('client_id'));
		if (!client || client.clientSecret !== params.get('client_secret')) return invalidClient();
		return grantType === 'assertion'
			? this.assertionGrant(client, params)
			: this.refreshGrant(client, params);
	}

	private assertionGrant(client: ClientConfig, params: URLSearchParams): TokenGrant | OAuthError {
		const provider = params.get('provider');
		if (provider !== 'dashboard') {
			return {
				status: 400,
				error: 'invalid_request',
				error_description: provider
					? `The assertion provider "${provider}" is not supported. Use provider=dashboard.`
					: 'The request is missing a required parameter: provider.',
			};
		}
		const assertion = params.get('assertion');
		if (!assertion) {
			return {
				status: 400,
				error: 'invalid_request',
				error_description: 'The request is missing a required parameter: assertion.',
			};
		}
		if (!client.assertions.includes(assertion)) {
			return {
				status: 400,
				error: 'invalid_grant',
				error_description:
					'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
			};
		}
		if (params.get('scope') !== REQUIRED_SCOPE) {
			return {
				status: 400,
				error: 'invalid_scope',
				error_description: `The requested scope is invalid, unknown, or malformed. Request exactly "${REQUIRED_SCOPE}".`,
			};
		}
		return this.issue(client.clientId, REQUIRED_SCOPE);
	}

	private refreshGrant(client: ClientConfig, params: URLSearchParams): TokenGrant | OAuthError {
		const value = params.get('refresh_token');
		if (!value) {
			return {
				status: 400,
				error: 'invalid_request',
				error_description: 'The request is missing a required parameter: refresh_token.',
			};
		}
		const record = this.refreshTokens.get(value);
		const now = this.settings.now();
		if (
			!record ||
			record.clientId !== client.clientId ||
			record.revoked ||
			record.usedAt !== null ||
			(record.expiresAt !== null && record.expiresAt <= now)
		) {
			return {
				status: 400,
				error: 'invalid_grant',
				error_description:
					'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
			};
		}
		// rotation spends the refresh token and issues a new one; without it, the one presented stays valid
		const rotates = rotatesRefreshTokens(this.reading);
		if (rotates) record.usedAt = now;
		return this.issue(client.clientId, record.scope, rotates);
	}

	private issue(clientId: string, scope: string, withRefreshToken = true): TokenGrant {
		const now = this.settings.now();
		if (this.settings.revokesEarlier?.()) {
			for (const token of this.accessTokens.values()) {
				if (token.clientId === clientId) token.revoked = true;
			}
		}
		const accessToken = newToken();
		const ttl = this.settings.accessTokenTtlSeconds;
		this.accessTokens.set(accessToken, {
			clientId,
			scope,
			expiresAt: now + ttl * 1000,
			revoked: false,
		});
		let refreshToken: string | undefined;
		let serial: number | undefined;
		if (withRefreshToken) {
			refreshToken = newToken();
			serial = this.refreshTokens.size + 1;
			const refreshTtl = this.settings.refreshTokenTtlSeconds;
			this.refreshTokens.set(refreshToken, {
				clientId,
				scope,
				expiresAt: refreshTtl === null ? null : now + refreshTtl * 1000,
				revoked: false,
				usedAt: null,
				serial,
			});
		}
		const body = tokenAnswerBody(this.reading, {
			accessToken,
			refreshToken,
			expiresInSeconds: ttl,
			scope,
			issuedAtMs: now,
		});
		return { body, ...(serial === undefined ? {} : { issuedRefreshSerial: serial }) };
	}

	checkBearer(authorization: string | undefined): BearerCheck {
		const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
		if (!match) return { ok: false, presented: false, description: 'The access token is missing' };
		const record = this.accessTokens.get(match[1]);
		const refused = (description: string) => ({ ok: false as const, presented: true, description });
		if (!record) return refused('The access token is invalid');
		if (record.revoked) return refused('The access token was revoked');
		if (record.expiresAt <= this.settings.now()) return refused('The access token expired');
		return { ok: true, clientId: record.clientId };
	}

	revoke(which: 'all' | 'access' | 'refresh'): number {
		const records = [
			...(which === 'refresh' ? [] : this.accessTokens.values()),
			...(which === 'access' ? [] : this.refreshTokens.values()),
		].filter((token) => !token.revoked);
		for (const token of records) token.revoked = true;
		return records.length;
	}

	/** Every token value ever issued: tests scan logs and outputs for them. */
	issuedSecrets(): string[] {
		return [...this.accessTokens.keys(), ...this.refreshTokens.keys()];
	}
}
