// A call's renewal decisions (nodes/Captioning/transport/renewal.ts) and the terms it shares with the
// credential (shared/renewal.ts), branch by branch, with the clock passed in.
import { credentialValues, valuesFingerprint } from '../../nodes/Captioning/tokens/values';
import {
	callTermsOf,
	handBack,
	handedBack,
	tokenMark,
	withCallTerms,
} from '../../nodes/Captioning/tokens/callTerms';
import { readFailure } from '../../nodes/Captioning/transport/errors';
import {
	handOver,
	nextRenewalStep,
	renewalMargin,
	saysTokenRefused,
	storedIsNewer,
} from '../../nodes/Captioning/tokens/renewal';
import { input } from './credential/helpers';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const TERMS = { deadline: NOW + 60_000, handBackRefusedRefresh: true };
const stored = {
	...input,
	accessToken: 'at-1',
	refreshToken: 'rt-1',
	expiresAt: NOW + 3_600_000,
	tokenFingerprint: valuesFingerprint(credentialValues(input)),
};

describe('handOver: what a call hands n8n as its credential', () => {
	test('a token far from its expiry: as stored, with the call’s terms and the mark of the token held', () => {
		const data = handOver(stored, TERMS, NOW);
		expect(data).toEqual(stored);
		expect(callTermsOf(data)).toEqual({ ...TERMS, held: tokenMark('at-1') });
	});

	test('a token within the minute before its expiry: emptied, so that n8n renews it before the request', () => {
		const data = handOver({ ...stored, expiresAt: NOW + 30_000 }, TERMS, NOW);
		expect(data.accessToken).toBe('');
		expect(data.refreshToken).toBe('rt-1');
		// the terms still say which token the call held: callers that held it share one grant
		expect(callTermsOf(data)).toEqual({ ...TERMS, held: tokenMark('at-1') });
	});

	test('renew: emptied whatever the expiry (the service refused the token), the terms still beside it', () => {
		const data = handOver(stored, TERMS, NOW, { renew: true });
		expect(data.accessToken).toBe('');
		expect(callTermsOf(data)).toEqual({ ...TERMS, held: tokenMark('at-1') });
	});

	test('tokens of other values: emptied', () => {
		expect(handOver({ ...stored, tokenFingerprint: 'old' }, TERMS, NOW).accessToken).toBe('');
	});

	test('the stored object is never changed (n8n writes a renewal into the one handed over)', () => {
		const copy = { ...stored, expiresAt: 0 };
		handOver(copy, TERMS, NOW);
		expect(copy.accessToken).toBe('at-1');
		expect(callTermsOf(copy)).toBeUndefined();
	});
});

describe('renewalMargin: each process renews at its own point of the minute before an expiry', () => {
	const seeds = Array.from({ length: 200 }, (_, i) => `process-${i}`);
	test('between 30 and 60 s, the same for one token in one process', () => {
		for (const seed of seeds) {
			const margin = renewalMargin(seed, 'at-1');
			expect(margin).toBeGreaterThanOrEqual(30_000);
			expect(margin).toBeLessThanOrEqual(60_000);
			expect(renewalMargin(seed, ' at-1 ')).toBe(margin);
		}
	});

	test('spread across processes (and tokens): four workers rarely reach it within a second of each other', () => {
		const margins = seeds.map((seed) => renewalMargin(seed, 'at-1'));
		const halves = [
			margins.filter((m) => m < 45_000).length,
			margins.filter((m) => m >= 45_000).length,
		];
		expect(Math.min(...halves)).toBeGreaterThan(60);
		expect(new Set(margins.map((m) => Math.floor(m / 1_000))).size).toBeGreaterThan(25);
		expect(renewalMargin('process-0', 'at-2')).not.toBe(renewalMargin('process-0', 'at-1'));
	});

	test('handOver: 45 s before the expiry, a process renews or not by its own point; at 30 s, every process', () => {
		const at = (ms: number, seed: string) =>
			handOver({ ...stored, expiresAt: NOW + ms }, TERMS, NOW, { processSeed: seed })
				.accessToken === '';
		const renewing = seeds.filter((seed) => at(45_000, seed));
		expect(renewing.length).toBeGreaterThan(50);
		expect(renewing.length).toBeLessThan(150);
		for (const seed of renewing) expect(renewalMargin(seed, 'at-1')).toBeGreaterThanOrEqual(45_000);
		expect(seeds.every((seed) => at(30_000, seed))).toBe(true);
		expect(seeds.some((seed) => at(60_001, seed))).toBe(false);
	});
});

describe('the terms beside the data, and what is handed back', () => {
	test('callTermsOf and handedBack answer for the very object handed over, nothing else', () => {
		const held = tokenMark('x');
		const data = withCallTerms({ accessToken: '' }, { ...TERMS, held });
		expect(callTermsOf(data)).toEqual({ ...TERMS, held });
		expect(handedBack(data)).toBeUndefined();
		expect(callTermsOf({ accessToken: '' })).toBeUndefined();
		expect(handBack(data, 'refresh-refused').reason).toBe('refresh-refused');
		expect(handedBack(data)).toBe('refresh-refused');
		// data no call handed over: nothing noted, the error all the same
		const stray = {};
		expect(handBack(stray, 'token-refused').message).toMatch(/refused the access token/);
		expect(handedBack(stray)).toBeUndefined();
	});

	test('tokenMark: the same for the same token, never the token itself; none and empty alike', () => {
		expect(tokenMark('at-1')).toBe(tokenMark(' at-1 '));
		expect(tokenMark('at-1')).not.toBe(tokenMark('at-2'));
		expect(tokenMark('at-1')).not.toContain('at-1');
		expect(tokenMark(undefined)).toBe(tokenMark(''));
	});
});

describe("readFailure: the HTTP answer behind n8n's error, in both n8n lines", () => {
	test('n8n 2.41: the wrapped error keeps the response', () => {
		const error = {
			httpCode: '403',
			cause: {
				response: { status: 403, headers: { 'www-authenticate': 'Bearer' }, data: { a: 1 } },
			},
		};
		expect(readFailure(error)).toEqual({
			status: 403,
			headers: { 'www-authenticate': 'Bearer' },
			data: { a: 1 },
		});
	});

	test('n8n 1.123: the wrapped error is dropped; the status and a JSON body are kept, not the headers', () => {
		const data = { errors: [{ code: 'invalid_token' }] };
		expect(readFailure({ httpCode: '403', context: { data } })).toEqual({
			status: 403,
			headers: {},
			data,
		});
		expect(readFailure({ httpCode: '429', context: {} })).toEqual({
			status: 429,
			headers: {},
			data: undefined,
		});
	});

	test('no HTTP answer at all: a network error, a credential failure', () => {
		expect(readFailure({ httpCode: null, message: 'connection refused' })).toBeUndefined();
		expect(readFailure({ httpCode: 'ECONNREFUSED' })).toBeUndefined();
		expect(readFailure(new Error('x'))).toBeUndefined();
		expect(readFailure(undefined)).toBeUndefined();
	});
});

describe('saysTokenRefused: a 400 or 403 that means what a 401 means', () => {
	const answer = (status: number, data: unknown, headers: Record<string, string> = {}) => ({
		status,
		headers,
		data,
	});
	const bearer = 'Bearer realm="service", error="invalid_token", error_description="expired"';

	test.each([
		[
			'403 with WWW-Authenticate error="invalid_token"',
			answer(403, {}, { 'WWW-Authenticate': bearer }),
		],
		[
			'400 with error=invalid_token unquoted',
			answer(400, '', { 'www-authenticate': 'Bearer error=invalid_token' }),
		],
		['400 with an OAuth invalid_token body', answer(400, { error: 'invalid_token' })],
		['403 with an OAuth body sent as text', answer(403, '{"error":"invalid_token"}')],
		[
			'403 with a JSON:API error coded invalid_token',
			answer(403, { errors: [{ code: 'invalid_token', title: 'Forbidden' }] }),
		],
		[
			'403 with a JSON:API error coded token_expired',
			answer(403, { errors: [{ code: 'token_expired' }] }),
		],
		[
			'403 whose JSON:API detail says the access token expired',
			answer(403, { errors: [{ detail: 'The access token expired' }] }),
		],
		[
			'400 whose title says the token is invalid',
			answer(400, { errors: [{ title: 'Token is invalid' }] }),
		],
		[
			'403 saying the token was revoked, one error among others',
			answer(403, { errors: [{ detail: 'x' }, { detail: 'Your token was revoked.' }] }),
		],
		[
			'403 with an expired bearer token, one error object',
			answer(403, { errors: { title: 'Expired bearer token' } }),
		],
	])('%s: the token is refused', (_name, failure) => {
		expect(saysTokenRefused(failure)).toBe(true);
	});

	test.each([
		[
			'403 for a missing scope',
			answer(403, {
				errors: [{ code: 'insufficient_scope', detail: 'The token lacks write_media' }],
			}),
		],
		[
			'403 with an invalid scope for the token',
			answer(403, { errors: [{ detail: 'Invalid scope for this token' }] }),
		],
		['400 for a bad field', answer(400, { errors: [{ detail: 'callback_uri is invalid' }] })],
		[
			'403 for an expired signed URL',
			answer(403, { errors: [{ detail: 'This signed URL expired' }] }),
		],
		[
			'403 with an insufficient_scope challenge',
			answer(403, {}, { 'www-authenticate': 'Bearer error="insufficient_scope"' }),
		],
		['400 with an OAuth invalid_request', answer(400, { error: 'invalid_request' })],
		['403 without a body', answer(403, undefined)],
		['401 (n8n renews it itself)', answer(401, { error: 'invalid_token' })],
		['404 saying the token is invalid', answer(404, { error: 'invalid_token' })],
	])('%s: the answer to the call itself', (_name, failure) => {
		expect(saysTokenRefused(failure)).toBe(false);
	});
});

describe('nextRenewalStep: once each, as n8n renews once after a 401', () => {
	const fresh = { tokenRefused: false, refreshRefused: false };
	test('the token refused: the store is read once, then the refusal stands', () => {
		expect(nextRenewalStep('token-refused', fresh)).toBe('read-stored');
		expect(nextRenewalStep('token-refused', { ...fresh, tokenRefused: true })).toBe('give-up');
	});
	test('the refresh token refused: the store is awaited once, then the refusal stands', () => {
		expect(nextRenewalStep('refresh-refused', fresh)).toBe('await-stored');
		expect(nextRenewalStep('refresh-refused', { ...fresh, refreshRefused: true })).toBe('give-up');
		// a token refused after a refresh was refused is still renewed once
		expect(nextRenewalStep('token-refused', { ...fresh, refreshRefused: true })).toBe(
			'read-stored',
		);
	});
	test('anything else: given up at once (the pacing decides about 429 and 5xx)', () => {
		expect(nextRenewalStep(undefined, fresh)).toBe('give-up');
	});
});

describe('storedIsNewer: another process renewed meanwhile', () => {
	const held = { accessToken: 'at-1', refreshToken: 'rt-1' };
	test('another access token, or another refresh token: newer', () => {
		expect(storedIsNewer({ accessToken: 'at-2', refreshToken: 'rt-2' }, held)).toBe(true);
		expect(storedIsNewer({ accessToken: 'at-1', refreshToken: 'rt-2' }, held)).toBe(true);
	});
	test('the same tokens, or none stored: not newer', () => {
		expect(storedIsNewer({ accessToken: ' at-1 ', refreshToken: 'rt-1' }, held)).toBe(false);
		expect(storedIsNewer({ accessToken: '', refreshToken: 'rt-2' }, held)).toBe(false);
		expect(storedIsNewer({}, held)).toBe(false);
	});
});
