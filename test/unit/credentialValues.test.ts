// The credential's values as every room reads them: the normalised Base URL, and the fingerprint that ties saved
// tokens to the values they were obtained with.
import {
	credentialValues,
	normaliseBaseUrl,
	tokensMatchValues,
	tokensOfOtherValues,
	valuesFingerprint,
} from '../../nodes/Captioning/shared/credentialValues';
import { ASSERTION, creds, input, SECRET } from './credential/helpers';

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
