// One grant's decisions (contract 4.1, 4.2, 5.2), branch by branch.
import { readTokenAnswer } from '../../../nodes/Captioning/tokens/answer';
import {
	grantParameters,
	shouldFallBackToAssertion,
	toSavedTokens,
} from '../../../nodes/Captioning/tokens/grant';
import { valuesFingerprint } from '../../../nodes/Captioning/tokens/values';
import { ASSERTION, creds, SECRET } from './helpers';

describe('grantParameters (contract 4.1, 4.2)', () => {
	test('the assertion grant with provider dashboard and the exact scope', () => {
		expect(grantParameters('assertion', creds)).toEqual({
			grant_type: 'assertion',
			provider: 'dashboard',
			assertion: ASSERTION,
			client_id: 'client-1',
			client_secret: SECRET,
			scope: 'write_transcriptions write_media',
		});
	});

	test('the refresh-token grant, without assertion or scope', () => {
		const withRefresh = {
			...creds,
			refreshToken: 'rt-1',
			tokenFingerprint: valuesFingerprint(creds),
		};
		expect(grantParameters('refresh_token', withRefresh)).toEqual({
			grant_type: 'refresh_token',
			refresh_token: 'rt-1',
			client_id: 'client-1',
			client_secret: SECRET,
		});
	});
});

describe('readTokenAnswer: read by need', () => {
	const token = {
		access_token: 'a',
		token_type: 'Bearer',
		expires_in: 7200,
		refresh_token: 'r',
		scope: 'write_transcriptions write_media',
		created_at: 1,
	};
	const read = { access_token: 'a', expires_in: 7200, refresh_token: 'r' };

	test('a 2.1 token response: only what the credential uses is kept', () => {
		expect(readTokenAnswer(200, 'application/json', { ...token, extra: 1 })).toEqual({
			ok: true,
			token: read,
		});
	});

	test.each([
		['expires_in as a numeric string', { expires_in: '7200' }, read],
		['expires_in as a decimal string', { expires_in: ' 3600.5 ' }, { ...read, expires_in: 3600.5 }],
		['expires_in null', { expires_in: null }, { ...read, expires_in: undefined }],
		['expires_in 0', { expires_in: 0 }, { ...read, expires_in: undefined }],
		['expires_in "soon"', { expires_in: 'soon' }, { ...read, expires_in: undefined }],
		['refresh_token null', { refresh_token: null }, { ...read, refresh_token: undefined }],
		['refresh_token empty', { refresh_token: '' }, { ...read, refresh_token: undefined }],
		['refresh_token a number', { refresh_token: 5 }, { ...read, refresh_token: undefined }],
		['scope null', { scope: null }, read],
		['no token_type', { token_type: undefined }, read],
		['token_type "mac"', { token_type: 'mac' }, read],
		['a fractional created_at', { created_at: 1732350000.25 }, read],
		['created_at as an ISO date', { created_at: '2026-11-23T10:00:00Z' }, read],
	])('%s: still a token', (_name, edit, expected) => {
		const outcome = readTokenAnswer(200, 'application/json', { ...token, ...edit });
		expect(outcome).toEqual({ ok: true, token: expected });
	});

	test('JSON sent as text is read as JSON', () => {
		expect(readTokenAnswer(200, 'text/plain', JSON.stringify(token))).toEqual({
			ok: true,
			token: read,
		});
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

	test('an OAuth error body is read as far as it is text; a 4xx without one still is a refusal', () => {
		expect(
			readTokenAnswer(400, 'application/json', { error: 'invalid_grant', error_description: 'x' }),
		).toEqual({
			ok: false,
			failure: { kind: 'refused', status: 400, error: 'invalid_grant', description: 'x' },
		});
		expect(readTokenAnswer(404, 'application/json', { message: 'no' })).toEqual({
			ok: false,
			failure: { kind: 'refused', status: 404 },
		});
		expect(
			readTokenAnswer(400, 'application/json', { error: 42, error_description: null }),
		).toEqual({ ok: false, failure: { kind: 'refused', status: 400 } });
	});

	test('a 200 with an OAuth error is a refusal; a 200 with a token and an error member is a token', () => {
		expect(readTokenAnswer(200, 'application/json', { error: 'invalid_grant' })).toEqual({
			ok: false,
			failure: { kind: 'refused', status: 200, error: 'invalid_grant' },
		});
		expect(readTokenAnswer(200, 'application/json', { ...token, error: 'x' })).toEqual({
			ok: true,
			token: read,
		});
	});

	test.each([
		['missing', { access_token: undefined }, /access_token: Required/],
		['a number', { access_token: 42 }, /access_token: Expected string, received number/],
		['null', { access_token: null }, /access_token: Expected string, received null/],
		['empty', { access_token: ' ' }, /access_token: is empty/],
		['wrapped in data', { access_token: undefined, data: token }, /access_token: Required/],
	])('an access_token %s: the one member that fails the answer, named', (_n, edit, detail) => {
		const outcome = readTokenAnswer(200, 'application/json', { ...token, ...edit });
		expect(outcome).toEqual({
			ok: false,
			failure: { kind: 'invalid-response', detail: expect.stringMatching(detail) },
		});
		if (!outcome.ok && outcome.failure.kind === 'invalid-response') {
			// only the member that failed is named, never a value
			expect(outcome.failure.detail).not.toMatch(/token_type|expires_in|refresh_token|42/);
		}
	});
});

describe('shouldFallBackToAssertion: a refresh that yields no token', () => {
	test.each([
		['400 invalid_grant', { kind: 'refused', status: 400, error: 'invalid_grant' }],
		['401 invalid_grant', { kind: 'refused', status: 401, error: 'invalid_grant' }],
		['401 invalid_client', { kind: 'refused', status: 401, error: 'invalid_client' }],
		['400 invalid_client', { kind: 'refused', status: 400, error: 'invalid_client' }],
		['400 without a code', { kind: 'refused', status: 400 }],
		['401 without a code', { kind: 'refused', status: 401 }],
		['403 without a code', { kind: 'refused', status: 403 }],
		['404', { kind: 'refused', status: 404 }],
		['a 200 with an OAuth error', { kind: 'refused', status: 200, error: 'invalid_grant' }],
		['401 with an HTML page', { kind: 'not-json', status: 401, contentType: 'text/html' }],
		['400 with an empty body', { kind: 'not-json', status: 400, contentType: '' }],
		['a 200 that is not JSON', { kind: 'not-json', status: 200, contentType: 'text/html' }],
		['a 200 without access_token', { kind: 'invalid-response', detail: 'x' }],
		['a server failure (500)', { kind: 'server', status: 500 }],
		['a server failure (503), retried twice', { kind: 'server', status: 503, attempts: 3 }],
	] as const)('%s: falls back to the assertion', (_name, failure) => {
		expect(shouldFallBackToAssertion(failure)).toBe(true);
	});

	test.each([
		[
			'the rate limit, waited on until the budget was spent (the assertion would meet it too)',
			{ kind: 'rate-limited', stop: { reason: 'budget', attempts: 4, elapsedMs: 60_000 } },
		],
		['an unreachable service', { kind: 'unreachable', code: 'ECONNREFUSED' }],
	] as const)('%s: no fallback', (_name, failure) => {
		expect(shouldFallBackToAssertion(failure)).toBe(false);
	});
});

describe('toSavedTokens', () => {
	test('saves both tokens, the expiry and the fingerprint of the values used', () => {
		expect(
			toSavedTokens(
				{ access_token: 'a', refresh_token: 'r', expires_in: 60 },
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
			toSavedTokens({ access_token: 'a' }, 'refresh_token', { ...creds, refreshToken: 'old' }, 0),
		).toMatchObject({ accessToken: 'a', refreshToken: 'old', expiresAt: 7_200_000 });
	});

	test('an assertion grant without a refresh token keeps none (the old one may be refused or stale)', () => {
		expect(
			toSavedTokens(
				{ access_token: 'a' },
				'assertion',
				{ ...creds, refreshToken: 'refused-or-stale' },
				0,
			),
		).toMatchObject({ accessToken: 'a', refreshToken: '' });
	});
});
