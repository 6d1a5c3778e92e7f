// The credential's values as every room reads them: the Base URL normalised, and the fingerprint that ties saved
// tokens to the values they were obtained with (tokens of other values are renewed before any call).
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

/** Whether an access token is saved that was obtained with other values: it must be renewed before a call. */
export function tokensOfOtherValues(data: Record<string, unknown>): boolean {
	return str(data.accessToken) !== '' && !tokensMatchValues(data);
}
