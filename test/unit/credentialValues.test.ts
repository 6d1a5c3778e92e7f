// The credential's values as every room reads them: the normalised Base URL, and the fingerprint that ties saved
// tokens to the values they were obtained with.
import {
	credentialValues,
	normaliseBaseUrl,
	expiryDue,
	readExpiry,
	RENEW_BEFORE_EXPIRY_MS,
	renewBeforeCall,
	tokenExpired,
	tokensMatchValues,
	valuesFingerprint,
} from '../../nodes/Captioning/tokens/values';
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

describe('renewBeforeCall: saved tokens that are renewed before a call', () => {
	const NOW = Date.parse('2026-06-01T12:00:00Z');
	const current = valuesFingerprint(credentialValues(input));
	const fresh = {
		...input,
		accessToken: 'at',
		tokenFingerprint: current,
		expiresAt: NOW + 3_600_000,
	};

	test('a token of the current values, an hour from its expiry: used as it is', () => {
		expect(renewBeforeCall(fresh, NOW)).toBe(false);
	});

	test('a token of other values, or of no known values: renewed, whatever its expiry', () => {
		expect(renewBeforeCall({ ...fresh, tokenFingerprint: 'old' }, NOW)).toBe(true);
		expect(renewBeforeCall({ ...fresh, tokenFingerprint: undefined }, NOW)).toBe(true);
	});

	test('within a minute of its expiry, or past it: renewed', () => {
		expect(renewBeforeCall({ ...fresh, expiresAt: NOW + 61_000 }, NOW)).toBe(false);
		expect(renewBeforeCall({ ...fresh, expiresAt: NOW + 60_000 }, NOW)).toBe(true);
		expect(renewBeforeCall({ ...fresh, expiresAt: NOW - 1 }, NOW)).toBe(true);
	});

	test('no token saved: nothing to renew (n8n obtains one first on its own)', () => {
		expect(renewBeforeCall({ ...fresh, accessToken: '' }, NOW)).toBe(false);
		expect(renewBeforeCall({ ...fresh, accessToken: '  ', tokenFingerprint: 'old' }, NOW)).toBe(
			false,
		);
	});

	test('an expiry that cannot be read (0 as 0.1.0 saved before its first grant, missing, garbage): renewed once', () => {
		for (const expiresAt of [0, undefined, null, '', 'soon', -5, Number.NaN, Infinity, {}]) {
			expect(renewBeforeCall({ ...fresh, expiresAt }, NOW)).toBe(true);
		}
		// saved as a numeric string (an import): read as the number it spells
		expect(renewBeforeCall({ ...fresh, expiresAt: String(NOW + 3_600_000) }, NOW)).toBe(false);
	});
});

describe('expiryDue and readExpiry: the decision with the clock passed in', () => {
	const NOW = 1_000_000_000_000;
	test('the margin is n8n’s own: 60 s; another margin may be passed', () => {
		expect(RENEW_BEFORE_EXPIRY_MS).toBe(60_000);
		expect(expiryDue(NOW + 60_001, NOW)).toBe(false);
		expect(expiryDue(NOW + 60_000, NOW)).toBe(true);
		expect(expiryDue(NOW + 10_000, NOW, 5_000)).toBe(false);
		expect(expiryDue(NOW + 5_000, NOW, 5_000)).toBe(true);
		expect(expiryDue(NOW, NOW, 0)).toBe(true);
	});

	test('readExpiry: a positive number or a numeric string, nothing else', () => {
		expect(readExpiry(NOW)).toBe(NOW);
		expect(readExpiry(` ${NOW} `)).toBe(NOW);
		for (const value of [0, -1, '', ' ', 'x', null, undefined, NaN, Infinity, [NOW], { NOW }]) {
			expect(readExpiry(value)).toBeUndefined();
		}
	});

	test('tokenExpired: only a readable expiry in the past', () => {
		expect(tokenExpired({ expiresAt: NOW - 1 }, NOW)).toBe(true);
		expect(tokenExpired({ expiresAt: NOW }, NOW)).toBe(true);
		expect(tokenExpired({ expiresAt: NOW + 1 }, NOW)).toBe(false);
		expect(tokenExpired({ expiresAt: 0 }, NOW)).toBe(false);
		expect(tokenExpired({}, NOW)).toBe(false);
	});
});
