// One grant's decisions (contract 4.1, 4.2, 5.2), branch by branch.
import {
	chooseGrant,
	grantParameters,
	readTokenAnswer,
	shouldFallBackToAssertion,
	toSavedTokens,
} from '../../../nodes/Captioning/shared/credential/grant';
import { valuesFingerprint } from '../../../nodes/Captioning/shared/credential/values';
import { ASSERTION, creds, SECRET } from './helpers';

describe('chooseGrant and grantParameters (contract 4.1, 4.2)', () => {
	test('without a refresh token: the assertion grant with provider dashboard and the exact scope', () => {
		expect(chooseGrant(creds)).toBe('assertion');
		expect(grantParameters('assertion', creds)).toEqual({
			grant_type: 'assertion',
			provider: 'dashboard',
			assertion: ASSERTION,
			client_id: 'client-1',
			client_secret: SECRET,
			scope: 'write_transcriptions write_media',
		});
	});

	test('with a refresh token of the current values: the refresh-token grant, without assertion or scope', () => {
		const withRefresh = {
			...creds,
			refreshToken: 'rt-1',
			tokenFingerprint: valuesFingerprint(creds),
		};
		expect(chooseGrant(withRefresh)).toBe('refresh_token');
		expect(grantParameters('refresh_token', withRefresh)).toEqual({
			grant_type: 'refresh_token',
			refresh_token: 'rt-1',
			client_id: 'client-1',
			client_secret: SECRET,
		});
	});

	test.each([
		['no fingerprint (saved before fingerprints existed)', undefined],
		['the fingerprint of another assertion', valuesFingerprint({ ...creds, assertion: 'old' })],
		[
			'the fingerprint of another client secret',
			valuesFingerprint({ ...creds, clientSecret: 'x' }),
		],
		['the fingerprint of another client ID', valuesFingerprint({ ...creds, clientId: 'other' })],
		[
			'the fingerprint of another Base URL',
			valuesFingerprint({ ...creds, baseUrl: 'https://b.c' }),
		],
	])('a refresh token with %s: the assertion grant', (_name, tokenFingerprint) => {
		expect(chooseGrant({ ...creds, refreshToken: 'rt-1', tokenFingerprint })).toBe('assertion');
	});
});

describe('readTokenAnswer', () => {
	const token = {
		access_token: 'a',
		token_type: 'Bearer',
		expires_in: 7200,
		refresh_token: 'r',
		scope: 'write_transcriptions write_media',
		created_at: 1,
	};

	test('a 2.1 token response is accepted, extra fields pass through', () => {
		const outcome = readTokenAnswer(200, 'application/json', { ...token, extra: 1 });
		expect(outcome).toEqual({ ok: true, token: { ...token, extra: 1 } });
	});

	test('5xx is a server failure whatever the body', () => {
		expect(readTokenAnswer(503, 'text/html', '<html>')).toEqual({
			ok: false,
			failure: { kind: 'server', status: 503 },
		});
	});

	test('a non-JSON body is reported with its content type', () => {
		expect(readTokenAnswer(200, 'text/html', '<html>')).toEqual({
			ok: false,
			failure: { kind: 'not-json', status: 200, contentType: 'text/html' },
		});
	});

	test('an OAuth error body is read; a 4xx without one still is a refusal', () => {
		expect(
			readTokenAnswer(400, 'application/json', { error: 'invalid_grant', error_description: 'x' }),
		).toEqual({
			ok: false,
			failure: { kind: 'refused', status: 400, error: 'invalid_grant', description: 'x' },
		});
		expect(readTokenAnswer(404, 'application/json', { message: 'no' })).toEqual({
			ok: false,
			failure: { kind: 'refused', status: 404, error: undefined, description: undefined },
		});
	});

	test('JSON of the wrong shape names the offending fields, not their values', () => {
		const outcome = readTokenAnswer(200, 'application/json', {
			access_token: 42,
			token_type: 'mac',
		});
		expect(outcome.ok).toBe(false);
		if (outcome.ok || outcome.failure.kind !== 'invalid-response')
			throw new Error('expected invalid-response');
		expect(outcome.failure.detail).toMatch(/access_token: Expected string, received number/);
		expect(outcome.failure.detail).toMatch(/token_type: must be "Bearer"/);
	});
});

describe('shouldFallBackToAssertion', () => {
	test.each([
		['400 invalid_grant', { kind: 'refused', status: 400, error: 'invalid_grant' }],
		['401 invalid_grant', { kind: 'refused', status: 401, error: 'invalid_grant' }],
		['401 invalid_client', { kind: 'refused', status: 401, error: 'invalid_client' }],
		['400 invalid_client', { kind: 'refused', status: 400, error: 'invalid_client' }],
		['400 without a code', { kind: 'refused', status: 400 }],
		['401 without a code', { kind: 'refused', status: 401 }],
		['403 without a code', { kind: 'refused', status: 403 }],
		['404', { kind: 'refused', status: 404 }],
		['401 with an HTML page', { kind: 'not-json', status: 401, contentType: 'text/html' }],
		['400 with an empty body', { kind: 'not-json', status: 400, contentType: '' }],
	] as const)('a refused refresh, %s: falls back to the assertion', (_name, failure) => {
		expect(shouldFallBackToAssertion(failure)).toBe(true);
	});

	test.each([
		['429 (a rate limit, not a refusal)', { kind: 'refused', status: 429 }],
		['a server failure', { kind: 'server', status: 500 }],
		['an unreachable service', { kind: 'unreachable', code: 'ECONNREFUSED' }],
		['a 200 that is not JSON', { kind: 'not-json', status: 200, contentType: 'text/html' }],
		['a 429 that is not JSON', { kind: 'not-json', status: 429, contentType: 'text/plain' }],
		['an invalid token response', { kind: 'invalid-response', detail: 'x' }],
	] as const)('%s: no fallback', (_name, failure) => {
		expect(shouldFallBackToAssertion(failure)).toBe(false);
	});
});

describe('toSavedTokens', () => {
	test('saves both tokens, the expiry and the fingerprint of the values used', () => {
		expect(
			toSavedTokens(
				{ access_token: 'a', token_type: 'Bearer', refresh_token: 'r', expires_in: 60 },
				'assertion',
				creds,
				1000,
			),
		).toEqual({
			accessToken: 'a',
			refreshToken: 'r',
			expiresAt: 61_000,
			tokenFingerprint: valuesFingerprint(creds),
		});
	});

	test('a refresh answered without a refresh token keeps the one just accepted', () => {
		expect(
			toSavedTokens(
				{ access_token: 'a', token_type: 'bearer' },
				'refresh_token',
				{ ...creds, refreshToken: 'old' },
				0,
			),
		).toMatchObject({ accessToken: 'a', refreshToken: 'old', expiresAt: 7_200_000 });
	});

	test('an assertion grant without a refresh token keeps none (the old one may be refused or stale)', () => {
		expect(
			toSavedTokens(
				{ access_token: 'a', token_type: 'bearer' },
				'assertion',
				{ ...creds, refreshToken: 'refused-or-stale' },
				0,
			),
		).toMatchObject({ accessToken: 'a', refreshToken: '' });
	});
});
