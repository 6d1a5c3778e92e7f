// The credential's values as decisions read them, and the fingerprint that ties saved tokens to them.
import {
	bearerToken,
	credentialValues,
	CredentialError,
	normaliseBaseUrl,
	readCredentials,
	tokensMatchValues,
	tokensOfOtherValues,
	valuesFingerprint,
} from '../../../nodes/Captioning/shared/credential/values';
import { ASSERTION, creds, input, SECRET } from './helpers';

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

	test('rejects a Base URL without http(s)', () => {
		expect(() => readCredentials({ ...input, baseUrl: 'api.example.com' })).toThrow(
			CredentialError,
		);
		expect(() => readCredentials({ ...input, baseUrl: 'ftp://x' })).toThrow(/must start with http/);
	});
});

describe('the fingerprint of the values the tokens belong to', () => {
	test('a hash that changes with each value it covers, and never contains one', () => {
		const print = valuesFingerprint(creds);
		expect(print).toMatch(/^[0-9a-f]{64}$/);
		for (const value of [SECRET, ASSERTION, 'client-1', 'api.example.com']) {
			expect(print).not.toContain(value);
		}
		const others = [
			{ ...creds, baseUrl: 'https://api.example.org' },
			{ ...creds, clientId: 'client-2' },
			{ ...creds, clientSecret: `${SECRET}x` },
			{ ...creds, assertion: `${ASSERTION}x` },
		].map(valuesFingerprint);
		expect(new Set([print, ...others]).size).toBe(5);
	});

	test('the media type and the saved tokens are not part of it', () => {
		expect(
			valuesFingerprint({ ...creds, mediaType: 'application/json', refreshToken: 'r' } as never),
		).toBe(valuesFingerprint(creds));
	});

	test('values are compared as the credential reads them (spaces, trailing slashes)', () => {
		const saved = valuesFingerprint(credentialValues(input));
		expect(
			tokensMatchValues({
				...input,
				baseUrl: ' https://api.example.com// ',
				tokenFingerprint: saved,
			}),
		).toBe(true);
		expect(tokensMatchValues({ ...input, assertion: 'new', tokenFingerprint: saved })).toBe(false);
		expect(tokensMatchValues({ ...input, tokenFingerprint: '' })).toBe(false);
		expect(tokensMatchValues({ ...input })).toBe(false);
	});

	test('bearerToken: the saved access token only while the fingerprint matches', () => {
		const tokenFingerprint = valuesFingerprint(credentialValues(input));
		expect(bearerToken({ ...input, accessToken: 'at', tokenFingerprint })).toBe('at');
		expect(bearerToken({ ...input, accessToken: '', tokenFingerprint })).toBeUndefined();
		expect(
			bearerToken({ ...input, clientSecret: 'edited', accessToken: 'at', tokenFingerprint }),
		).toBeUndefined();
		expect(bearerToken({ ...input, accessToken: 'at' })).toBeUndefined();
	});
});

describe('normaliseBaseUrl: the one rule every caller uses', () => {
	test.each([
		['https://api.example.com', 'https://api.example.com'],
		['https://api.example.com/', 'https://api.example.com'],
		['  https://api.example.com///  ', 'https://api.example.com'],
		['https://api.example.com/v1/', 'https://api.example.com/v1'],
		['', ''],
	])('%j → %j', (input, expected) => {
		expect(normaliseBaseUrl(input)).toBe(expected);
	});

	test('anything but text is no Base URL', () => {
		expect(normaliseBaseUrl(undefined)).toBe('');
		expect(normaliseBaseUrl(42)).toBe('');
	});
});

describe('tokensOfOtherValues: saved tokens that must be renewed before a call', () => {
	const current = valuesFingerprint(credentialValues(input));
	test('a token of other values, or of no known values: renew first', () => {
		expect(tokensOfOtherValues({ ...input, accessToken: 'at', tokenFingerprint: 'old' })).toBe(
			true,
		);
		expect(tokensOfOtherValues({ ...input, accessToken: 'at' })).toBe(true);
	});
	test('a token of the current values, or none at all: nothing to do before the call', () => {
		expect(tokensOfOtherValues({ ...input, accessToken: 'at', tokenFingerprint: current })).toBe(
			false,
		);
		expect(tokensOfOtherValues({ ...input, accessToken: '', tokenFingerprint: 'old' })).toBe(false);
	});
});
