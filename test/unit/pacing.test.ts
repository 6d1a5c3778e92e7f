import {
	parseRetryAfter,
	pauseBeforeNextRequest,
	readAnnouncement,
	retryDelayMs,
} from '../../nodes/Captioning/transport/pacing';

describe('parseRetryAfter', () => {
	test('delta-seconds, an HTTP date, and nothing', () => {
		expect(parseRetryAfter('2')).toBe(2000);
		expect(parseRetryAfter('0')).toBe(0);
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:05 GMT', now)).toBe(0);
		expect(parseRetryAfter(undefined)).toBeUndefined();
		expect(parseRetryAfter('soon')).toBeUndefined();
	});
});

describe('retryDelayMs', () => {
	test('429: Retry-After for any method, else exponential back-off', () => {
		expect(retryDelayMs('POST', { status: 429, headers: { 'retry-after': '3' } }, 1)).toBe(3000);
		expect(retryDelayMs('POST', { status: 429, headers: {} }, 1)).toBe(1000);
		expect(retryDelayMs('POST', { status: 429, headers: {} }, 3)).toBe(4000);
		expect(retryDelayMs('POST', { status: 429, headers: {} }, 10)).toBe(16000);
	});

	test('502/503/504 only for idempotent methods, twice at most', () => {
		expect(retryDelayMs('GET', { status: 503, headers: {} }, 1)).toBe(1000);
		expect(retryDelayMs('DELETE', { status: 502, headers: { 'retry-after': '1' } }, 2)).toBe(1000);
		expect(retryDelayMs('GET', { status: 503, headers: {} }, 3)).toBeUndefined();
		expect(retryDelayMs('POST', { status: 503, headers: {} }, 1)).toBeUndefined();
	});

	test('other statuses are not retried', () => {
		for (const status of [400, 401, 404, 422, 500]) {
			expect(retryDelayMs('GET', { status, headers: {} }, 1)).toBeUndefined();
		}
	});
});

describe('announced limits', () => {
	test('X-RateLimit headers are read; missing ones are ignored', () => {
		expect(readAnnouncement({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '100' })).toEqual({
			remaining: 0,
			resetAtMs: 100_000,
		});
		expect(
			readAnnouncement({ 'x-ratelimit-remaining': ['5'], 'x-ratelimit-reset': ['7'] }),
		).toEqual({
			remaining: 5,
			resetAtMs: 7000,
		});
		expect(readAnnouncement({})).toBeUndefined();
	});

	test('pause only when the window is used up, until it resets', () => {
		expect(pauseBeforeNextRequest(undefined, 0)).toBe(0);
		expect(pauseBeforeNextRequest({ remaining: 3, resetAtMs: 5000 }, 0)).toBe(0);
		expect(pauseBeforeNextRequest({ remaining: 0, resetAtMs: 5000 }, 4200)).toBe(800);
		expect(pauseBeforeNextRequest({ remaining: 0, resetAtMs: 5000 }, 6000)).toBe(0);
	});
});
