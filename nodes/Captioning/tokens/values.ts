// The credential's values as its token flow reads them, each named when it is missing, with the fingerprint of
// the values read once: saved tokens are sent, refreshed and saved only while theirs matches it.
import {
	credentialValues,
	tokenExpired,
	tokensMatchValues,
	valuesFingerprint,
} from '../shared/credentialValues';

/**
 * Contract 5.3's placeholder (`service` stands for the service's own name), sent when the field is empty: the field
 * had it as its default until 0.1.0, and n8n saved no value for a credential that kept it.
 */
export const DEFAULT_MEDIA_TYPE = 'application/vnd.service.v1';

export interface CaptioningCredentials {
	baseUrl: string;
	clientId: string;
	clientSecret: string;
	assertion: string;
	mediaType: string;
	/** `valuesFingerprint` of the four values above: what tokens obtained with them are saved with. */
	fingerprint: string;
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

/** shared/credentialValues.ts's normaliseBaseUrl as n8n evaluates it in the credential test's request (no package code runs there). */
export const BASE_URL_EXPRESSION = '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}';

/**
 * The access token to send, or undefined when there is none, it was obtained with other values, or it has
 * expired by its saved expiry: without a token the service answers 401 (RFC 6750 3.1), after which n8n renews
 * it for any caller, where an expired one might be answered 400 or 403.
 */
export function bearerToken(data: Record<string, unknown>, now = Date.now()): string | undefined {
	const token = typeof data.accessToken === 'string' ? data.accessToken.trim() : '';
	return token && tokensMatchValues(data) && !tokenExpired(data, now) ? token : undefined;
}

const LABELS = {
	baseUrl: 'Base URL',
	clientId: 'Client ID',
	clientSecret: 'Client Secret',
	assertion: 'Assertion Token',
} as const;

const saved = (value: unknown) => (typeof value === 'string' && value.trim()) || undefined;

/** Reads the credential's fields and says which one is missing. */
export function readCredentials(data: Record<string, unknown>): CaptioningCredentials {
	const fields = credentialValues(data);
	fields.mediaType ||= DEFAULT_MEDIA_TYPE;
	const missing = (Object.keys(LABELS) as Array<keyof typeof LABELS>).filter((k) => !fields[k]);
	if (missing.length) {
		throw new CredentialError(
			`The Captioning credential is missing: ${missing.map((k) => LABELS[k]).join(', ')}. Open the credential and fill ${missing.length > 1 ? 'them' : 'it'} in.`,
		);
	}
	if (!/^https?:\/\/[^\s/]+/i.test(fields.baseUrl)) {
		throw new CredentialError(
			'The Base URL must start with http:// or https:// (for example https://api.example.com).',
		);
	}
	return {
		...fields,
		fingerprint: valuesFingerprint(fields),
		accessToken: saved(data.accessToken),
		refreshToken: saved(data.refreshToken),
		tokenFingerprint: saved(data.tokenFingerprint),
	};
}
