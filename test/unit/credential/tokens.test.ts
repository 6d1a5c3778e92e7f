// The grant flow behind preAuthentication (obtainTokens), branch by branch, with a scripted token endpoint.
import type { IHttpRequestOptions } from 'n8n-workflow';

import {
	canShareGrant,
	chooseGrant,
	grantKey,
	SHARED_GRANT_MS,
} from '../../../nodes/Captioning/tokens/sharing';
import { obtainTokens } from '../../../nodes/Captioning/tokens/obtain';
import { credentialValues, valuesFingerprint } from '../../../nodes/Captioning/tokens/values';
import {
	callTermsOf,
	handedBack,
	RenewalHandBack,
	tokenMark,
	withCallTerms,
} from '../../../nodes/Captioning/tokens/callTerms';
import { creds } from './helpers';

const SECRET = 'cs-unit-secret-123';
const OLD_ASSERTION = 'as-old-assertion-456';
const NEW_ASSERTION = 'as-new-assertion-789';

let clientCounter = 0;
/** Fresh values per test: obtainTokens shares grants between callers with the same values. */
function values(overrides: Record<string, unknown> = {}) {
	clientCounter++;
	return {
		baseUrl: 'https://api.example.com',
		clientId: `client-${clientCounter}`,
		clientSecret: SECRET,
		assertion: OLD_ASSERTION,
		mediaType: 'application/vnd.acme.v1',
		...overrides,
	};
}

const token = (n: number) => ({
	access_token: `access-${n}`,
	token_type: 'Bearer',
	expires_in: 7200,
	refresh_token: `refresh-${n}`,
});

type Answer = { status: number; body: unknown; headers?: Record<string, string> } | 'unreachable';

/** A token endpoint that answers from a script and records each grant's parameters. */
function tokenEndpoint(...answers: Answer[]) {
	const calls: Array<Record<string, string>> = [];
	const http = async (options: IHttpRequestOptions) => {
		calls.push({ ...(options.qs as Record<string, string>) });
		const answer = answers.shift();
		if (!answer) throw new Error('unexpected token call');
		if (answer === 'unreachable') throw Object.assign(new Error('x'), { code: 'ECONNREFUSED' });
		return {
			statusCode: answer.status,
			headers: { 'content-type': 'application/json', ...answer.headers },
			body: answer.body,
		};
	};
	return { http, calls, grants: () => calls.map((c) => c.grant_type) };
}

/** A clock that only sleeps move: the waits a grant takes, without taking them. */
function fakeTime(start = 1_000_000) {
	let t = start;
	const waits: number[] = [];
	return {
		now: () => t,
		sleep: async (ms: number) => {
			waits.push(ms);
			t += ms;
		},
		waits,
	};
}

/**
 * Saved tokens as a previous grant left them for `data`'s values; the refresh token is the client's own, as every
 * issued one is unique (the process drops one that yielded no token).
 */
function saved(data: Record<string, unknown>, fingerprintOf = data) {
	return {
		...data,
		accessToken: 'old-access',
		refreshToken: `old-refresh-${String(data.clientId)}`,
		tokenFingerprint: valuesFingerprint(credentialValues(fingerprintOf)),
	};
}

describe('which grant', () => {
	test('no saved tokens: one assertion grant, and the fingerprint of the values is saved', async () => {
		const data = values();
		const endpoint = tokenEndpoint({ status: 200, body: token(1) });
		const result = await obtainTokens(endpoint.http, data, () => 0);
		expect(endpoint.calls).toEqual([
			expect.objectContaining({ grant_type: 'assertion', assertion: OLD_ASSERTION }),
		]);
		expect(result).toEqual({
			accessToken: 'access-1',
			refreshToken: 'refresh-1',
			expiresAt: 7_200_000,
			tokenFingerprint: valuesFingerprint(credentialValues(data)),
		});
	});

	test('a refresh token of the current values: one refresh grant', async () => {
		const data = saved(values());
		const endpoint = tokenEndpoint({ status: 200, body: token(2) });
		await obtainTokens(endpoint.http, data);
		expect(endpoint.calls).toEqual([
			expect.objectContaining({ grant_type: 'refresh_token', refresh_token: data.refreshToken }),
		]);
	});

	test.each([
		['assertion', { assertion: NEW_ASSERTION }],
		['client secret', { clientSecret: 'cs-edited-000' }],
		['client ID', { clientId: 'edited-client' }],
		['Base URL', { baseUrl: 'https://other.example.com' }],
	])(
		'the %s changed since the tokens were saved: the assertion grant with the new values, the old refresh token unused',
		async (_name, edit) => {
			const before = values();
			const data: Record<string, unknown> = { ...saved(before), ...edit };
			const endpoint = tokenEndpoint({
				status: 200,
				body: { ...token(3), refresh_token: undefined },
			});
			const result = await obtainTokens(endpoint.http, data);
			expect(endpoint.grants()).toEqual(['assertion']);
			expect(endpoint.calls[0]).toMatchObject({
				assertion: data.assertion,
				client_id: data.clientId,
				client_secret: data.clientSecret,
			});
			expect(JSON.stringify(endpoint.calls)).not.toContain(String(data.refreshToken));
			// no refresh token in the answer: the old values' one is not kept either
			expect(result.refreshToken).toBe('');
			expect(result.tokenFingerprint).toBe(valuesFingerprint(credentialValues(data)));
			expect(result.tokenFingerprint).not.toBe(data.tokenFingerprint);
		},
	);
});

describe('a refresh that yields no token falls back to one assertion grant, and its token is dropped', () => {
	test.each([
		['400 invalid_grant', { status: 400, body: { error: 'invalid_grant' } }],
		['401 invalid_grant', { status: 401, body: { error: 'invalid_grant' } }],
		['401 invalid_client', { status: 401, body: { error: 'invalid_client' } }],
		['400 without an error code', { status: 400, body: { message: 'no' } }],
		['401 without an error code', { status: 401, body: {} }],
		['403 with an HTML page', { status: 403, body: '<html>Forbidden</html>' }],
		['500', { status: 500, body: {} }],
		['200 with an OAuth error', { status: 200, body: { error: 'invalid_grant' } }],
		['200 without access_token', { status: 200, body: { token_type: 'Bearer', expires_in: 7200 } }],
		['200 with access_token null', { status: 200, body: { access_token: null } }],
		['200 that is not JSON', { status: 200, body: '<html>Welcome</html>' }],
	])('%s', async (_name, refusal) => {
		const data = saved(values());
		const endpoint = tokenEndpoint(refusal, { status: 200, body: token(4) });
		const result = await obtainTokens(endpoint.http, data);
		expect(endpoint.grants()).toEqual(['refresh_token', 'assertion']);
		expect(result.accessToken).toBe('access-4');
		// the assertion's own refresh token replaces the dropped one
		expect(result.refreshToken).toBe('refresh-4');
	});

	test('an assertion answer without a refresh token: the dropped one is not kept', async () => {
		const endpoint = tokenEndpoint(
			{ status: 500, body: {} },
			{ status: 200, body: { access_token: 'access-5' } },
		);
		const result = await obtainTokens(endpoint.http, saved(values()));
		expect(result).toMatchObject({ accessToken: 'access-5', refreshToken: '' });
	});

	test('when the assertion is refused too, the error is about the assertion grant', async () => {
		const endpoint = tokenEndpoint(
			{ status: 401, body: { error: 'invalid_client' } },
			{ status: 401, body: { error: 'invalid_client' } },
		);
		await expect(obtainTokens(endpoint.http, saved(values()))).rejects.toThrow(
			/rejected the Client ID or Client Secret \(invalid_client\)/,
		);
		expect(endpoint.grants()).toEqual(['refresh_token', 'assertion']);
	});

	test('when the assertion fails too, the dropped refresh token is not sent again by the next call', async () => {
		const data = saved(values());
		const first = tokenEndpoint({ status: 500, body: {} }, { status: 500, body: {} });
		await expect(obtainTokens(first.http, data)).rejects.toThrow(/HTTP 500/);
		expect(first.grants()).toEqual(['refresh_token', 'assertion']);
		// nothing was saved: the next call reads the same refresh token, and goes to the assertion at once
		const next = tokenEndpoint({ status: 200, body: token(6) });
		await expect(obtainTokens(next.http, data)).resolves.toMatchObject({ accessToken: 'access-6' });
		expect(next.grants()).toEqual(['assertion']);
		expect(JSON.stringify(next.calls)).not.toContain(String(data.refreshToken));
	});
});

describe('RFC 6749 section 6: a refresh answered without a refresh token keeps the one held', () => {
	test('two renewals in a row use the same refresh token', async () => {
		let data: Record<string, unknown> = saved(values());
		const kept = data.refreshToken;
		for (const n of [7, 8]) {
			const endpoint = tokenEndpoint({
				status: 200,
				body: { access_token: `access-${n}`, expires_in: '7200', refresh_token: null, scope: null },
			});
			const result = await obtainTokens(endpoint.http, data, () => 0);
			expect(endpoint.calls).toEqual([
				expect.objectContaining({ grant_type: 'refresh_token', refresh_token: kept }),
			]);
			expect(result).toMatchObject({
				accessToken: `access-${n}`,
				refreshToken: kept,
				expiresAt: 7_200_000,
			});
			data = { ...data, ...result };
		}
	});
});

describe('no fallback where another grant could not help', () => {
	test('an unreachable service: one grant, a clear error', async () => {
		const endpoint = tokenEndpoint('unreachable');
		const error = await obtainTokens(endpoint.http, saved(values())).catch((e: Error) => e);
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toMatch(/Could not reach .* \(connection refused\)/);
		expect((error as Error).message).not.toContain(SECRET);
		expect(endpoint.grants()).toEqual(['refresh_token']);
	});
});

describe("the token endpoint's 429 and 503 are waited for within the budget of one call", () => {
	const limited = (retryAfter?: string): Answer => ({
		status: 429,
		body: {
			error: 'rate_limited',
			error_description: 'Too many requests to the token endpoint. Retry after 1 second.',
		},
		headers: retryAfter === undefined ? undefined : { 'retry-after': retryAfter },
	});

	test('a 429 with Retry-After: 1: the same grant again after 1 s, and its token', async () => {
		const time = fakeTime();
		const endpoint = tokenEndpoint(limited('1'), { status: 200, body: token(10) });
		const result = await obtainTokens(endpoint.http, values(), time.now, time.sleep);
		expect(result.accessToken).toBe('access-10');
		expect(endpoint.grants()).toEqual(['assertion', 'assertion']);
		expect(time.waits).toEqual([1_000]);
	});

	test('a 429 without Retry-After: backs off 1, 2, 4 s as API calls do', async () => {
		const time = fakeTime();
		const endpoint = tokenEndpoint(limited(), limited(), limited(), {
			status: 200,
			body: token(11),
		});
		await expect(
			obtainTokens(endpoint.http, saved(values()), time.now, time.sleep),
		).resolves.toMatchObject({ accessToken: 'access-11' });
		expect(endpoint.grants()).toEqual([
			'refresh_token',
			'refresh_token',
			'refresh_token',
			'refresh_token',
		]);
		expect(time.waits).toEqual([1_000, 2_000, 4_000]);
	});

	test('a 429 that lasts: the budget is spent, the error says so in one sentence, and no assertion grant follows', async () => {
		const time = fakeTime();
		const endpoint = tokenEndpoint(...Array.from({ length: 4 }, () => limited('20')));
		const error = (await obtainTokens(endpoint.http, saved(values()), time.now, time.sleep).catch(
			(e: Error) => e,
		)) as Error;
		expect(error.message).toBe(
			"The service's rate limit is used up for the token request (refresh_token grant): after 60 s it asks for 20 s more, beyond the 60 s a call may take in all. The token endpoint limits requests too: try again in a minute.",
		);
		expect(time.waits).toEqual([20_000, 20_000, 20_000]);
		expect(endpoint.grants()).toEqual(Array(4).fill('refresh_token'));
	});

	test('a Retry-After beyond the budget: no wait at all, the error at once', async () => {
		const time = fakeTime();
		const endpoint = tokenEndpoint(limited('3600'));
		await expect(obtainTokens(endpoint.http, values(), time.now, time.sleep)).rejects.toThrow(
			/token request \(assertion grant\): it asks to wait 3600 s, longer than the 60 s a call may take in all/,
		);
		expect(time.waits).toEqual([]);
	});

	test('a 503: sent again twice (1 s, then 2 s), then the refresh falls back to the assertion', async () => {
		const time = fakeTime();
		const unavailable = { status: 503, body: 'Service Unavailable' };
		const endpoint = tokenEndpoint(unavailable, unavailable, unavailable, {
			status: 200,
			body: token(12),
		});
		const result = await obtainTokens(endpoint.http, saved(values()), time.now, time.sleep);
		expect(result.accessToken).toBe('access-12');
		expect(endpoint.grants()).toEqual([
			'refresh_token',
			'refresh_token',
			'refresh_token',
			'assertion',
		]);
		expect(time.waits).toEqual([1_000, 2_000]);
	});

	test('a 503 that lasts for both grants: the error says how often it failed', async () => {
		const time = fakeTime();
		const endpoint = tokenEndpoint(...Array.from({ length: 3 }, () => ({ status: 503, body: {} })));
		await expect(obtainTokens(endpoint.http, values(), time.now, time.sleep)).rejects.toThrow(
			/token endpoint failed with HTTP 503, 3 times in a row\. This is a problem on the service's side/,
		);
	});

	test("a call's terms: the waits come out of what is left of the call's budget", async () => {
		const time = fakeTime();
		const endpoint = tokenEndpoint(limited('10'));
		const data = withCallTerms(values(), {
			deadline: time.now() + 5_000,
			handBackRefusedRefresh: true,
			held: tokenMark(''),
		});
		await expect(obtainTokens(endpoint.http, data, time.now, time.sleep)).rejects.toThrow(
			/it asks to wait 10 s, longer than the 60 s a call may take in all/,
		);
		expect(time.waits).toEqual([]);
	});
});

describe('a call of the transport renews for itself: what it decides better is handed back', () => {
	const terms = (held: string) => ({
		deadline: Date.now() + 60_000,
		handBackRefusedRefresh: true,
		held: tokenMark(held),
	});

	test('the terms are kept beside the data, never in it (n8n 1.123 saves the object it renewed whole)', () => {
		const kept = terms('x');
		const data = withCallTerms({ ...values() }, kept);
		expect(callTermsOf(data)).toEqual(kept);
		expect(Object.keys(data).sort()).toEqual(Object.keys(values()).sort());
		// a copy is another object: not a call's
		expect(callTermsOf({ ...data })).toBeUndefined();
	});

	test('asked with a token (n8n after the service refused it): handed back, no grant', async () => {
		const endpoint = tokenEndpoint();
		const data = withCallTerms(saved(values()), terms('old-access'));
		const error = await obtainTokens(endpoint.http, data).catch((e: unknown) => e);
		// noted for the call that handed the data over: n8n 1.123's errors drop the error they wrap
		expect(handedBack(data)).toBe('token-refused');
		expect(error).toBeInstanceOf(RenewalHandBack);
		expect(endpoint.calls).toEqual([]);
	});

	test('a refused refresh: handed back instead of the assertion grant; the refresh token is dropped all the same', async () => {
		const data = { ...saved(values()), accessToken: '' };
		const first = withCallTerms({ ...data }, terms('old-access'));
		const endpoint = tokenEndpoint({ status: 400, body: { error: 'invalid_grant' } });
		await expect(obtainTokens(endpoint.http, first)).rejects.toThrow(RenewalHandBack);
		expect(handedBack(first)).toBe('refresh-refused');
		expect(endpoint.grants()).toEqual(['refresh_token']);
		// another call of this process that read the same refresh token is handed back too, without a request
		const second = withCallTerms({ ...data }, terms('old-access'));
		const other = tokenEndpoint();
		await expect(obtainTokens(other.http, second)).rejects.toThrow(RenewalHandBack);
		expect(handedBack(second)).toBe('refresh-refused');
		expect(other.calls).toEqual([]);
		// the call found nothing newer stored and asks once more, without a hand-back: the assertion
		const next = tokenEndpoint({ status: 200, body: token(13) });
		const looked = withCallTerms(
			{ ...data },
			{ ...terms('old-access'), handBackRefusedRefresh: false },
		);
		await expect(obtainTokens(next.http, looked)).resolves.toMatchObject({
			accessToken: 'access-13',
		});
		expect(handedBack(looked)).toBeUndefined();
		expect(next.grants()).toEqual(['assertion']);
	});

	test('a refresh that failed (500) rather than was refused: no sign of another process, the assertion at once', async () => {
		const data = withCallTerms({ ...saved(values()), accessToken: '' }, terms('old-access'));
		const endpoint = tokenEndpoint({ status: 500, body: {} }, { status: 200, body: token(15) });
		await expect(obtainTokens(endpoint.http, data)).resolves.toMatchObject({
			accessToken: 'access-15',
		});
		expect(endpoint.grants()).toEqual(['refresh_token', 'assertion']);
	});

	test('without terms (the credential test, the HTTP Request node): the assertion grant at once, as ever', async () => {
		const endpoint = tokenEndpoint(
			{ status: 400, body: { error: 'invalid_grant' } },
			{ status: 200, body: token(14) },
		);
		await expect(
			obtainTokens(endpoint.http, { ...saved(values()), accessToken: '' }),
		).resolves.toMatchObject({ accessToken: 'access-14' });
		expect(endpoint.grants()).toEqual(['refresh_token', 'assertion']);
	});
});

describe('a grant is shared only with callers in the state it started from', () => {
	test('a caller holding a newer token than the grant issued (saved by another process, refused since) gets its own', async () => {
		// the refresh token is kept: every renewal of these values has the same key
		const data = saved(values());
		const endpoint = tokenEndpoint(
			{ status: 200, body: { access_token: 'access-9' } },
			{ status: 200, body: { access_token: 'access-10' } },
		);
		const renewed = await obtainTokens(endpoint.http, data, () => 0);
		// a caller that read the credential before that grant was saved takes its answer
		await expect(obtainTokens(endpoint.http, { ...data }, () => 1)).resolves.toEqual(renewed);
		expect(endpoint.grants()).toEqual(['refresh_token']);
		// one whose token is newer than the grant's would be handed an older token than the one just refused
		const newer = { ...data, accessToken: 'access-from-another-process' };
		await expect(obtainTokens(endpoint.http, newer, () => 2)).resolves.toMatchObject({
			accessToken: 'access-10',
			refreshToken: data.refreshToken,
		});
		expect(endpoint.grants()).toEqual(['refresh_token', 'refresh_token']);
	});
});

describe('canShareGrant: a grant another caller started', () => {
	const now = 1_000_000;
	const none = tokenMark('');
	test('none to share', () => expect(canShareGrant(undefined, none, now)).toBe(false));
	test('still running, the caller in the same state: shared', () => {
		expect(canShareGrant({ startedWith: tokenMark('old') }, tokenMark('old'), now)).toBe(true);
		expect(canShareGrant({ startedWith: none }, tokenMark(undefined), now)).toBe(true);
	});
	test('settled within the window, the caller read the credential before it was saved: shared', () =>
		expect(canShareGrant({ settledAt: now - 1, startedWith: none }, none, now)).toBe(true));
	test('settled too long ago: not shared', () =>
		expect(canShareGrant({ settledAt: now - SHARED_GRANT_MS, startedWith: none }, none, now)).toBe(
			false,
		));
	test('the caller holds another token, the one issued (refused since) or a newer one: not shared', () => {
		expect(canShareGrant({ settledAt: now - 1, startedWith: none }, tokenMark('a1'), now)).toBe(
			false,
		);
		expect(canShareGrant({ startedWith: tokenMark('old') }, tokenMark('newer'), now)).toBe(false);
	});
});

describe('grantKey', () => {
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

describe('chooseGrant (contract 4.1, 4.2, 5.2)', () => {
	test('without a refresh token: the assertion grant', () => {
		expect(chooseGrant(creds)).toBe('assertion');
	});

	test('with a refresh token of the current values: the refresh-token grant', () => {
		const withRefresh = {
			...creds,
			refreshToken: 'rt-1',
			tokenFingerprint: valuesFingerprint(creds),
		};
		expect(chooseGrant(withRefresh)).toBe('refresh_token');
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

	test('a refresh token that was dropped (a refresh with it yielded no token): the assertion grant', () => {
		const withRefresh = {
			...creds,
			refreshToken: 'rt-1',
			tokenFingerprint: valuesFingerprint(creds),
		};
		expect(chooseGrant(withRefresh, (token) => token === 'rt-1')).toBe('assertion');
		expect(chooseGrant(withRefresh, (token) => token === 'rt-other')).toBe('refresh_token');
	});
});
