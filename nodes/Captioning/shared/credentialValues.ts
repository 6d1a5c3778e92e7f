// The credential's values as every room reads them: the Base URL normalised, the fingerprint that ties saved
// tokens to the values they were obtained with, and the expiry they were saved with: tokens of other values, and
// tokens at or near their expiry, are renewed before a call.
import { createHash } from 'node:crypto';

const str = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/**
 * The Base URL as every caller uses it (credential values, transport, list paging, the trigger's keys): trimmed,
 * without trailing slashes. The credential test's request spells the same rule as an n8n expression.
 */
export function normaliseBaseUrl(value: unknown): string {
	return str(value).replace(/\/+$/, '');
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
 * Whether a token saved with `expiresAt` is renewed before a call at `now`: within `marginMs` of its expiry, or
 * past it. An expiry that cannot be read (the field's default 0, missing, or anything else a credential may hold
 * from an import) counts as due: one grant saves a real one, where waiting for a refusal could end in a 403 the
 * package cannot tell from a missing scope.
 */
export function expiryDue(
	expiresAt: unknown,
	now: number,
	marginMs = RENEW_BEFORE_EXPIRY_MS,
): boolean {
	const expiry = readExpiry(expiresAt);
	return expiry === undefined || now >= expiry - marginMs;
}

/**
 * Whether the saved access token is renewed before a call: it was obtained with other values, or it is due
 * (expiryDue, within `marginMs`). No saved token: nothing to renew (n8n obtains one before the call on its own).
 */
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
