// The credential's values as every room reads them: the fields, each named when missing; the Base URL
// normalised; the fingerprint that ties saved tokens to the values they were obtained with, and their expiry.
import { createHash } from 'node:crypto';

const str = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** The Base URL as every caller uses it: trimmed, without trailing slashes (BASE_URL_EXPRESSION spells the same). */
export function normaliseBaseUrl(value: unknown): string {
	return str(value).replace(/\/+$/, '');
}

/** The values of a credential no message may show: the client secret, the assertion, both tokens. */
export function secretsOf(data: Record<string, unknown> | undefined): string[] {
	return ['clientSecret', 'assertion', 'accessToken', 'refreshToken']
		.map((name) => data?.[name])
		.filter((value): value is string => typeof value === 'string' && value !== '');
}

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

/** The values a grant depends on. */
export interface TokenSource {
	baseUrl: string;
	clientId: string;
	clientSecret: string;
	assertion: string;
}

/** A hash of the values a grant depends on, saved with the tokens: edited values are never served old tokens. */
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

/** How long before its expiry a saved access token is renewed (n8n's own OAuth2 renews 60 s before). */
export const RENEW_BEFORE_EXPIRY_MS = 60_000;

/** The saved expiry (epoch milliseconds) when it can be read: a positive number, or a string that spells one. */
export function readExpiry(value: unknown): number | undefined {
	const number =
		typeof value === 'number'
			? value
			: typeof value === 'string' && value.trim()
				? Number(value)
				: NaN;
	return Number.isFinite(number) && number > 0 ? number : undefined;
}

/**
 * Whether a token saved with `expiresAt` is renewed before a call at `now`: within `marginMs` of its expiry, past
 * it, or with an expiry that cannot be read (one grant saves a real one; a refusal might be a 403).
 */
export function expiryDue(
	expiresAt: unknown,
	now: number,
	marginMs = RENEW_BEFORE_EXPIRY_MS,
): boolean {
	const expiry = readExpiry(expiresAt);
	return expiry === undefined || now >= expiry - marginMs;
}

/** Whether the saved access token is renewed before a call: other values' token, or due; none: nothing to renew. */
export function renewBeforeCall(
	data: Record<string, unknown>,
	now: number,
	marginMs = RENEW_BEFORE_EXPIRY_MS,
): boolean {
	if (str(data.accessToken) === '') return false;
	return !tokensMatchValues(data) || expiryDue(data.expiresAt, now, marginMs);
}

/** Whether the saved access token has expired for sure: a readable expiry in the past. */
export function tokenExpired(data: Record<string, unknown>, now: number): boolean {
	const expiry = readExpiry(data.expiresAt);
	return expiry !== undefined && now >= expiry;
}

/** Contract 5.3's placeholder, sent when the field is empty (docs/design.md, "What 0.1.0 saved"). */
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

/** normaliseBaseUrl as n8n evaluates it in the credential test's request (no package code runs there). */
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
