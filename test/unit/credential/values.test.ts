// The credential's values as its token flow reads them: each field named when it is missing, and the bearer token
// sent only while the saved tokens' fingerprint matches.
import {
	bearerToken,
	CredentialError,
	credentialValues,
	readCredentials,
	valuesFingerprint,
} from '../../../nodes/Captioning/tokens/values';
import { input } from './helpers';

describe('readCredentials', () => {
	test('trims the trailing slash of the Base URL and keeps saved tokens', () => {
		const read = readCredentials({ ...input, refreshToken: 'rt', accessToken: 'at' });
		expect(read.baseUrl).toBe('https://api.example.com');
		expect(read.refreshToken).toBe('rt');
		expect(read.accessToken).toBe('at');
	});

	test('names every missing field', () => {
		expect(() => readCredentials({ ...input, clientSecret: '', assertion: ' ' })).toThrow(
			'The Captioning credential is missing: Client Secret, Assertion Token. Open the credential and fill them in.',
		);
		expect(() => readCredentials({ ...input, baseUrl: undefined })).toThrow(
			/missing: Base URL\. .*fill it in/,
		);
	});

	test('an empty API Media Type is the one credentials saved with the old default send', () => {
		expect(readCredentials({ ...input, mediaType: '' }).mediaType).toBe(
			'application/vnd.service.v1',
		);
	});

	test('rejects a Base URL without http(s)', () => {
		expect(() => readCredentials({ ...input, baseUrl: 'api.example.com' })).toThrow(
			CredentialError,
		);
		expect(() => readCredentials({ ...input, baseUrl: 'ftp://x' })).toThrow(/must start with http/);
	});
});

describe('bearerToken', () => {
	test('bearerToken: the saved access token only while the fingerprint matches', () => {
		const tokenFingerprint = valuesFingerprint(credentialValues(input));
		expect(bearerToken({ ...input, accessToken: 'at', tokenFingerprint })).toBe('at');
		expect(bearerToken({ ...input, accessToken: '', tokenFingerprint })).toBeUndefined();
		expect(
			bearerToken({ ...input, clientSecret: 'edited', accessToken: 'at', tokenFingerprint }),
		).toBeUndefined();
		expect(bearerToken({ ...input, accessToken: 'at' })).toBeUndefined();
	});

	test('bearerToken: not a token its saved expiry says has expired; one whose expiry cannot be read is sent', () => {
		const now = Date.parse('2026-06-01T12:00:00Z');
		const saved = {
			...input,
			accessToken: 'at',
			tokenFingerprint: valuesFingerprint(credentialValues(input)),
		};
		expect(bearerToken({ ...saved, expiresAt: now - 1 }, now)).toBeUndefined();
		expect(bearerToken({ ...saved, expiresAt: now + 1 }, now)).toBe('at');
		// within the minute before it: the token is still good for callers that do not renew ahead (HTTP Request)
		expect(bearerToken({ ...saved, expiresAt: now + 30_000 }, now)).toBe('at');
		expect(bearerToken({ ...saved, expiresAt: 0 }, now)).toBe('at');
	});
});
