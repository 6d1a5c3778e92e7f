// Token decisions of the credential, branch by branch.
import {
	bearerToken,
	chooseGrant,
	credentialValues,
	CREDENTIAL_TEST_FAILURES,
	CredentialError,
	describeTokenFailure,
	grantParameters,
	networkProblem,
	readCredentials,
	readTokenAnswer,
	shouldFallBackToAssertion,
	tokensMatchValues,
	toSavedTokens,
	valuesFingerprint,
	type CaptioningCredentials,
} from '../../nodes/Captioning/shared/auth';
import { grantKey, networkCode } from '../../nodes/Captioning/shared/tokens';
import { redact, stripQueryStrings } from '../../nodes/Captioning/shared/redact';

const SECRET = 'cs-very-secret-123';
const ASSERTION = 'as-very-secret-456';

const input = {
	baseUrl: 'https://api.example.com/',
	clientId: 'client-1',
	clientSecret: SECRET,
	assertion: ASSERTION,
	mediaType: 'application/vnd.acme.v1',
};
const creds: CaptioningCredentials = readCredentials(input);

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

	test('grantKey: callers share a grant only with the same values and the same usable refresh token', () => {
		const tokenFingerprint = valuesFingerprint(creds);
		const refresh = { ...creds, refreshToken: 'rt-1', tokenFingerprint };
		expect(grantKey(refresh)).toBe(grantKey({ ...refresh }));
		expect(grantKey(refresh)).not.toBe(grantKey({ ...refresh, refreshToken: 'rt-2' }));
		expect(grantKey(refresh)).not.toBe(grantKey({ ...refresh, assertion: 'other' }));
		// a refresh token of other values is not used: it does not split callers either
		const stale = { ...creds, tokenFingerprint: 'old' };
		expect(grantKey({ ...stale, refreshToken: 'a' })).toBe(
			grantKey({ ...stale, refreshToken: 'b' }),
		);
		expect(grantKey({ ...stale, refreshToken: 'a' })).toBe(grantKey(creds));
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

describe('describeTokenFailure names the cause and the fix, and no secret', () => {
	const cases: Array<[string, Parameters<typeof describeTokenFailure>[0], RegExp]> = [
		[
			'unreachable',
			{ kind: 'unreachable', code: 'ECONNREFUSED' },
			/Could not reach .*https:\/\/api\.example\.com \(connection refused\)\. Check the Base URL/,
		],
		['server error', { kind: 'server', status: 500 }, /failed with HTTP 500.*try again later/],
		[
			'HTML',
			{ kind: 'not-json', status: 502, contentType: 'text/html' },
			/HTTP 502 with text\/html instead of a JSON token response\. Check the Base URL/,
		],
		[
			'wrong JSON',
			{ kind: 'invalid-response', detail: 'access_token: Required' },
			/not a valid token response \(access_token: Required\)/,
		],
		[
			'client rejected',
			{ kind: 'refused', status: 401, error: 'invalid_client' },
			/rejected the Client ID or Client Secret \(invalid_client\)/,
		],
		[
			'assertion rejected',
			{ kind: 'refused', status: 400, error: 'invalid_grant' },
			/rejected the Assertion Token \(invalid_grant\).*Create a new assertion token/,
		],
		[
			'scope refused',
			{ kind: 'refused', status: 400, error: 'invalid_scope' },
			/refused the scope "write_transcriptions write_media"/,
		],
		[
			'no token endpoint',
			{ kind: 'refused', status: 404 },
			/no token endpoint at https:\/\/api\.example\.com\/oauth\/token \(HTTP 404\)/,
		],
		[
			'grant unsupported',
			{ kind: 'refused', status: 400, error: 'unsupported_grant_type' },
			/does not accept the assertion grant/,
		],
		[
			'other refusal',
			{ kind: 'refused', status: 418, error: 'teapot', description: 'short and stout' },
			/HTTP 418 \(teapot\): short and stout\.$/,
		],
		[
			'a 401 without a code',
			{ kind: 'refused', status: 401 },
			/refused the assertion grant with HTTP 401\. Check the Client ID, Client Secret and Assertion Token/,
		],
		[
			'a 400 with an unknown code',
			{ kind: 'refused', status: 400, error: 'access_denied' },
			/HTTP 400 \(access_denied\)\. Check the Client ID, Client Secret and Assertion Token/,
		],
	];
	test.each(cases)('%s', (_name, failure, message) => {
		const text = describeTokenFailure(failure, 'assertion', creds);
		expect(text).toMatch(message);
		expect(text).not.toContain(SECRET);
		expect(text).not.toContain(ASSERTION);
	});

	test('a refused refresh grant is described as such', () => {
		expect(
			describeTokenFailure(
				{ kind: 'refused', status: 400, error: 'invalid_grant' },
				'refresh_token',
				creds,
			),
		).toMatch(/rejected the saved refresh token/);
	});

	test('a service that echoes a secret in its description is redacted', () => {
		const text = describeTokenFailure(
			{ kind: 'refused', status: 400, error: 'odd', description: `bad secret ${SECRET}` },
			'assertion',
			creds,
		);
		expect(text).toContain('[redacted]');
		expect(text).not.toContain(SECRET);
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

describe('CREDENTIAL_TEST_FAILURES', () => {
	const byStatus = new Map(CREDENTIAL_TEST_FAILURES.map((f) => [f.status, f.message]));

	test('a refused token and a refused media type fail the test and say what to check', () => {
		expect(byStatus.get(401)).toMatch(/issued a token but refused it.*Check that the Base URL/);
		expect(byStatus.get(406)).toMatch(/API Media Type \(HTTP 406\)\. Set it to application\/vnd/);
	});

	test('a failing service fails the test with its status', () => {
		for (const status of [500, 502, 503, 504, 520, 599]) {
			expect(byStatus.get(status)).toMatch(
				new RegExp(`failed with HTTP ${status}.*Test again later`),
			);
		}
	});

	test('an endpoint the service lacks, or any other answer, does not fail the test', () => {
		for (const status of [200, 204, 301, 400, 403, 404, 405, 409, 410, 422, 429, 501]) {
			expect(byStatus.has(status)).toBe(false);
		}
	});
});

describe('redact and networkCode', () => {
	test('network codes are put in words, unknown ones generically', () => {
		expect(networkProblem('ENOTFOUND')).toBe('host name not found');
		expect(networkProblem('EWHATEVER')).toBe('network error');
		const text = describeTokenFailure(
			{ kind: 'unreachable', code: 'ETIMEDOUT' },
			'assertion',
			creds,
		);
		expect(text).toMatch(/\(no answer in time\)/);
		expect(text).not.toMatch(/E[A-Z]{4,}/);
	});

	test('query strings are stripped from URLs', () => {
		expect(
			stripQueryStrings(`POST https://x.test/oauth/token?client_secret=${SECRET}&a=b failed`),
		).toBe('POST https://x.test/oauth/token?[redacted] failed');
	});

	test('each secret is replaced, raw and URL-encoded; short or empty values are ignored', () => {
		const weird = 'p@ss/word+=';
		expect(
			redact(`a ${weird} b ${encodeURIComponent(weird)} c`, [weird, '', undefined, 'ab']),
		).toBe('a [redacted] b [redacted] c');
	});

	test('networkCode digs out the code, never the message', () => {
		expect(
			networkCode({
				message: `connect ECONNREFUSED ?client_secret=${SECRET}`,
				cause: { code: 'ECONNREFUSED' },
			}),
		).toBe('ECONNREFUSED');
		expect(networkCode({ code: 'ENOTFOUND' })).toBe('ENOTFOUND');
		expect(networkCode(new Error('x'))).toBe('network error');
	});
});
