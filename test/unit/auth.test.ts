// Token decisions of the credential, branch by branch.
import {
	chooseGrant,
	CredentialError,
	describeTokenFailure,
	grantParameters,
	networkProblem,
	readCredentials,
	readTokenAnswer,
	shouldFallBackToAssertion,
	toSavedTokens,
	type CaptioningCredentials,
} from '../../nodes/Captioning/shared/auth';
import { networkCode } from '../../nodes/Captioning/shared/tokens';
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

	test('with a refresh token: the refresh-token grant, without assertion or scope', () => {
		const withRefresh = { ...creds, refreshToken: 'rt-1' };
		expect(chooseGrant(withRefresh)).toBe('refresh_token');
		expect(grantParameters('refresh_token', withRefresh)).toEqual({
			grant_type: 'refresh_token',
			refresh_token: 'rt-1',
			client_id: 'client-1',
			client_secret: SECRET,
		});
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
	test('only a refusal with 400 (rotated, revoked, expired refresh token)', () => {
		expect(
			shouldFallBackToAssertion({ kind: 'refused', status: 400, error: 'invalid_grant' }),
		).toBe(true);
		expect(
			shouldFallBackToAssertion({ kind: 'refused', status: 401, error: 'invalid_client' }),
		).toBe(false);
		expect(shouldFallBackToAssertion({ kind: 'server', status: 500 })).toBe(false);
		expect(shouldFallBackToAssertion({ kind: 'unreachable', code: 'ECONNREFUSED' })).toBe(false);
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
			/HTTP 418 \(teapot\): short and stout/,
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
	test('saves both tokens and the expiry', () => {
		expect(
			toSavedTokens(
				{ access_token: 'a', token_type: 'Bearer', refresh_token: 'r', expires_in: 60 },
				creds,
				1000,
			),
		).toEqual({ accessToken: 'a', refreshToken: 'r', expiresAt: 61_000 });
	});

	test('keeps the previous refresh token when the service sends none', () => {
		expect(
			toSavedTokens(
				{ access_token: 'a', token_type: 'bearer' },
				{ ...creds, refreshToken: 'old' },
				0,
			),
		).toEqual({ accessToken: 'a', refreshToken: 'old', expiresAt: 7_200_000 });
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
