// What the user reads when the credential fails: the cause, the fix, and never a secret.
import {
	CREDENTIAL_TEST_FAILURES,
	describeTokenFailure,
} from '../../../nodes/Captioning/tokens/failures';
import { ASSERTION, creds, SECRET } from './helpers';

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
			'other refusal, its words ending a sentence: one full stop, never two',
			{ kind: 'refused', status: 409, error: 'busy', description: 'Retry after 1 second.' },
			/HTTP 409 \(busy\): Retry after 1 second\.$/,
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

	test('an unreachable service: its network code in words', () => {
		const text = describeTokenFailure(
			{ kind: 'unreachable', code: 'ETIMEDOUT' },
			'assertion',
			creds,
		);
		expect(text).toMatch(/\(no answer in time\)/);
		expect(text).not.toMatch(/E[A-Z]{4,}/);
	});
});

describe('an OAuth error that echoes the request', () => {
	test('the assertion and the client secret, raw, URL-encoded, base64 and hex, are out; the words bounded', () => {
		const echo = [
			ASSERTION,
			encodeURIComponent(SECRET),
			Buffer.from(ASSERTION).toString('base64'),
			Buffer.from(SECRET).toString('hex'),
		].join(' ');
		const message = describeTokenFailure(
			{
				kind: 'refused',
				status: 400,
				error: `bad ${echo}`,
				description: `${echo} ${'x '.repeat(400)}`,
			},
			'assertion',
			creds,
		);
		for (const form of [
			ASSERTION,
			SECRET,
			encodeURIComponent(SECRET),
			Buffer.from(ASSERTION).toString('base64'),
			Buffer.from(SECRET).toString('hex'),
		]) {
			expect(message).not.toContain(form);
		}
		expect(message).toMatch(
			/^The service refused the assertion grant with HTTP 400 \(bad \[redacted\] \[redacted\] \[redacted\] \[redacted\]\): \[redacted\]/,
		);
		expect(message.length).toBeLessThan(600);
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
