// The credential's own values as every decision reads them, and the fingerprint that ties saved tokens to them:
// tokens are sent only while it matches, so an edited credential is never served by the old values' tokens.
import { createHash } from 'node:crypto';

/** Contract 5.3: `service` stands for the service's own name; users can change it in the credential. */
export const DEFAULT_MEDIA_TYPE = 'application/vnd.service.v1';

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

export class CredentialError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'CredentialError';
	}
}

const str = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/**
 * The Base URL as every caller uses it (credential values, transport, list paging, the trigger's keys): trimmed,
 * without trailing slashes. The credential test's request spells the same rule as an n8n expression.
 */
export function normaliseBaseUrl(value: unknown): string {
	return str(value).replace(/\/+$/, '');
}

/** normaliseBaseUrl as n8n evaluates it in the credential test's request (no package code runs there). */
export const BASE_URL_EXPRESSION = '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}';

/** The credential's own fields as every decision reads them: trimmed, the Base URL normalised. */
export function credentialValues(data: Record<string, unknown>) {
	return {
		baseUrl: normaliseBaseUrl(data.baseUrl),
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

/** Whether an access token is saved that was obtained with other values: it must be renewed before a call. */
export function tokensOfOtherValues(data: Record<string, unknown>): boolean {
	return str(data.accessToken) !== '' && !tokensMatchValues(data);
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
