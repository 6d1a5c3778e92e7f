// Rate-limit waiting, branch by branch: every wait is bounded, counted and cancellable.
import {
	backoffMs,
	MAX_ATTEMPTS,
	MIN_RETRY_DELAY_MS,
	pacerFor,
	parseRetryAfter,
	pauseBeforeNextRequest,
	planPause,
	planRetry,
	readAnnouncement,
	RetryStop,
	retryDelayMs,
	sendPaced,
	WAIT_BUDGET_MS,
	waitUnlessCancelled,
	WaitCancelledError,
} from '../../nodes/Captioning/transport/pacing';
import { readFailure } from '../../nodes/Captioning/transport';
import { settle } from '../../nodes/Captioning/shared/settle';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
	test('delta-seconds, an HTTP date, and nothing', () => {
		expect(parseRetryAfter('2')).toBe(2000);
		expect(parseRetryAfter('0')).toBe(0);
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', NOW)).toBe(5000);
		expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:05 GMT', NOW)).toBe(0);
		expect(parseRetryAfter(undefined)).toBeUndefined();
		expect(parseRetryAfter(' ')).toBeUndefined();
		expect(parseRetryAfter('soon')).toBeUndefined();
	});
});

describe('backoffMs', () => {
	test('1, 2, 4, 8, 16 s, then 16 s', () => {
		expect([1, 2, 3, 4, 5, 6, 10].map(backoffMs)).toEqual([
			1000, 2000, 4000, 8000, 16000, 16000, 16000,
		]);
	});
});

describe('retryDelayMs', () => {
	const h429 = (headers: Record<string, string> = {}) => ({ status: 429, headers });

	test('429: Retry-After in seconds for any method', () => {
		expect(retryDelayMs('POST', h429({ 'retry-after': '3' }), 1, NOW)).toBe(3000);
		expect(retryDelayMs('GET', h429({ 'Retry-After': '7' }), 4, NOW)).toBe(7000);
	});

	test('429 with an HTTP date ahead: the time until then', () => {
		const inFive = new Date(NOW + 5000).toUTCString();
		expect(retryDelayMs('GET', h429({ 'retry-after': inFive }), 1, NOW)).toBe(5000);
	});

	test.each([
		['Retry-After: 0', { 'retry-after': '0' }],
		['a date already past', { 'retry-after': new Date(NOW - 60_000).toUTCString() }],
		['the date of now', { 'retry-after': new Date(NOW).toUTCString() }],
		['no Retry-After', {}],
		['an unreadable Retry-After', { 'retry-after': 'later' }],
	])('429 with %s: exponential back-off, never at once', (_name, headers) => {
		expect(retryDelayMs('POST', h429(headers), 1, NOW)).toBe(1000);
		expect(retryDelayMs('POST', h429(headers), 3, NOW)).toBe(4000);
		expect(retryDelayMs('POST', h429(headers), 10, NOW)).toBe(16000);
	});

	test('a Retry-After under the minimum is raised to it', () => {
		expect(retryDelayMs('GET', h429({ 'retry-after': '0.2' }), 1, NOW)).toBe(MIN_RETRY_DELAY_MS);
	});

	test('502/503/504 only for idempotent methods, twice at most, never at once', () => {
		expect(retryDelayMs('GET', { status: 503, headers: {} }, 1, NOW)).toBe(1000);
		expect(retryDelayMs('GET', { status: 503, headers: {} }, 2, NOW)).toBe(2000);
		expect(retryDelayMs('GET', { status: 503, headers: { 'retry-after': '0' } }, 2, NOW)).toBe(
			2000,
		);
		expect(retryDelayMs('DELETE', { status: 502, headers: { 'retry-after': '3' } }, 2, NOW)).toBe(
			3000,
		);
		expect(retryDelayMs('GET', { status: 503, headers: {} }, 3, NOW)).toBeUndefined();
		expect(retryDelayMs('POST', { status: 503, headers: {} }, 1, NOW)).toBeUndefined();
	});

	test('other statuses are not retried', () => {
		for (const status of [400, 401, 403, 404, 405, 422, 500, 501]) {
			expect(retryDelayMs('GET', { status, headers: {} }, 1, NOW)).toBeUndefined();
		}
	});
});

describe('planRetry', () => {
	const limits = { budgetMs: 10_000, maxAttempts: 3 };
	test('no delay: not retryable', () => {
		expect(planRetry(undefined, 1, 0, limits)).toEqual({
			kind: 'give-up',
			reason: 'not-retryable',
		});
	});
	test('within attempts and budget: retry', () => {
		expect(planRetry(4000, 2, 6000, limits)).toEqual({ kind: 'retry', delayMs: 4000 });
	});
	test('the last attempt: give up, whatever the delay', () => {
		expect(planRetry(1000, 3, 0, limits)).toEqual({
			kind: 'give-up',
			reason: 'attempts',
			delayMs: 1000,
		});
	});
	test('a delay beyond what is left of the budget: give up', () => {
		expect(planRetry(4001, 1, 6000, limits)).toEqual({
			kind: 'give-up',
			reason: 'budget',
			delayMs: 4001,
		});
	});
});

describe('announced limits and pauses', () => {
	test('X-RateLimit headers are read; missing ones are ignored', () => {
		expect(readAnnouncement({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '100' })).toEqual({
			remaining: 0,
			resetAtMs: 100_000,
		});
		expect(
			readAnnouncement({ 'x-ratelimit-remaining': ['5'], 'x-ratelimit-reset': ['7'] }),
		).toEqual({ remaining: 5, resetAtMs: 7000 });
		expect(readAnnouncement({})).toBeUndefined();
	});

	test('pause only when the window is used up, until it resets', () => {
		expect(pauseBeforeNextRequest(undefined, 0)).toBe(0);
		expect(pauseBeforeNextRequest({ remaining: 3, resetAtMs: 5000 }, 0)).toBe(0);
		expect(pauseBeforeNextRequest({ remaining: 0, resetAtMs: 5000 }, 4200)).toBe(800);
		expect(pauseBeforeNextRequest({ remaining: 0, resetAtMs: 5000 }, 6000)).toBe(0);
	});

	test('planPause: go, pause, or give up when the pause would not fit in the budget', () => {
		const limits = { budgetMs: 10_000, maxAttempts: 3 };
		expect(planPause(0, 0, limits)).toEqual({ kind: 'go' });
		expect(planPause(4000, 6000, limits)).toEqual({ kind: 'pause', ms: 4000 });
		expect(planPause(4001, 6000, limits)).toEqual({ kind: 'give-up', ms: 4001 });
	});

	test('a pacer hands out an announced pause once', () => {
		const pacer = pacerFor(`unit-${Math.random()}`);
		expect(pacer.takePause(0)).toBe(0);
		pacer.afterResponse({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3' });
		expect(pacer.takePause(1000)).toBe(2000);
		expect(pacer.takePause(1000)).toBe(0);
	});
});

/** An abort signal that the test controls, as n8n's getExecutionCancelSignal() gives one. */
function cancellable() {
	const controller = new AbortController();
	return { signal: controller.signal, cancel: () => controller.abort() };
}

describe('waitUnlessCancelled', () => {
	test('without a signal: sleeps the whole time', async () => {
		const slept: number[] = [];
		await waitUnlessCancelled(1500, undefined, async (ms) => void slept.push(ms));
		expect(slept).toEqual([1500]);
	});

	test('with a signal: sleeps in short slices that add up to the whole time', async () => {
		const slept: number[] = [];
		await waitUnlessCancelled(1200, cancellable().signal, async (ms) => void slept.push(ms));
		expect(slept).toEqual([500, 500, 200]);
	});

	test('already cancelled: throws at once, without sleeping', async () => {
		const { signal, cancel } = cancellable();
		cancel();
		const slept: number[] = [];
		await expect(
			waitUnlessCancelled(1000, signal, async (ms) => void slept.push(ms)),
		).rejects.toBeInstanceOf(WaitCancelledError);
		expect(slept).toEqual([]);
	});

	test('cancelled during a long wait: ends at once with n8n’s real sleep', async () => {
		const { signal, cancel } = cancellable();
		const started = Date.now();
		const waiting = waitUnlessCancelled(30_000, signal);
		setTimeout(cancel, 50);
		await expect(waiting).rejects.toBeInstanceOf(WaitCancelledError);
		expect(Date.now() - started).toBeLessThan(1000);
	});
});

/** A 429 as n8n's request helpers throw it. */
const rateLimited = (headers: Record<string, string>) =>
	Object.assign(new Error('Request failed with status code 429'), {
		cause: { response: { status: 429, headers, data: {} } },
	});

/** sendPaced with a fake clock whose sleep advances it, and a script of answers. */
function harness(script: Array<() => unknown>, signal?: AbortSignal) {
	const clock = { now: NOW };
	const slept: number[] = [];
	let sent = 0;
	const send = async () => {
		const next = script[Math.min(sent, script.length - 1)];
		sent++;
		const outcome = next();
		if (outcome instanceof Error) throw outcome;
		return outcome as { headers: Record<string, string>; body: unknown };
	};
	const run = () =>
		sendPaced(send, {
			method: 'GET',
			pacer: pacerFor(`paced-${Math.random()}`),
			readFailure,
			now: () => clock.now,
			sleep: async (ms) => {
				slept.push(ms);
				clock.now += ms;
			},
			signal,
		});
	return { run, slept, clock, sent: () => sent };
}

const total = (ms: number[]) => ms.reduce((a, b) => a + b, 0);

async function stopOf(promise: Promise<unknown>): Promise<RetryStop> {
	const outcome = await settle(promise);
	if (outcome.ok || !(outcome.error instanceof RetryStop)) throw new Error('expected a RetryStop');
	return outcome.error;
}

describe('sendPaced: endless 429s end within the budget', () => {
	test.each([
		['Retry-After: 0', () => ({ 'retry-after': '0' })],
		['a past HTTP date', () => ({ 'retry-after': new Date(NOW - 5000).toUTCString() })],
		['no Retry-After', () => ({})],
	])('%s: back-off, then a stop after the last attempt', async (_name, headers) => {
		const h = harness([() => rateLimited(headers())]);
		const stop = await stopOf(h.run());
		expect(stop).toMatchObject({ reason: 'attempts', attempts: MAX_ATTEMPTS });
		expect(stop.failure?.status).toBe(429);
		expect(h.sent()).toBe(MAX_ATTEMPTS);
		expect(h.slept).toEqual([1000, 2000, 4000, 8000, 16000]);
		expect(total(h.slept)).toBeLessThanOrEqual(WAIT_BUDGET_MS);
		expect(stop.waitedMs).toBe(31_000);
	});

	test('Retry-After: 20 each time: three waits fill the 60 s, the fourth would not fit', async () => {
		const h = harness([() => rateLimited({ 'retry-after': '20' })]);
		const stop = await stopOf(h.run());
		expect(stop).toMatchObject({ reason: 'budget', attempts: 4, waitedMs: 60_000 });
		expect(stop.refusedWaitMs).toBe(20_000);
		expect(h.slept).toEqual([20_000, 20_000, 20_000]);
	});

	test('a Retry-After longer than the budget: no wait at all', async () => {
		const h = harness([() => rateLimited({ 'retry-after': '3600' })]);
		const stop = await stopOf(h.run());
		expect(stop).toMatchObject({ reason: 'budget', attempts: 1, waitedMs: 0 });
		expect(h.slept).toEqual([]);
	});

	test('a 429 and then an answer: the answer, after the asked wait', async () => {
		const h = harness([
			() => rateLimited({ 'retry-after': '2' }),
			() => ({ headers: {}, body: 'ok' }),
		]);
		await expect(h.run()).resolves.toEqual({ headers: {}, body: 'ok' });
		expect(h.slept).toEqual([2000]);
	});

	test('a failure that is not retried stops at once', async () => {
		const notFound = Object.assign(new Error('404'), {
			cause: { response: { status: 404, headers: {}, data: {} } },
		});
		const h = harness([() => notFound]);
		const stop = await stopOf(h.run());
		expect(stop).toMatchObject({ reason: 'not-retryable', attempts: 1, error: notFound });
		expect(h.slept).toEqual([]);
	});

	test('an error without an HTTP answer (a refused credential) is not retried', async () => {
		const h = harness([() => new Error('The service rejected the Assertion Token')]);
		const stop = await stopOf(h.run());
		expect(stop).toMatchObject({ reason: 'not-retryable', failure: undefined });
		expect(h.sent()).toBe(1);
	});
});

describe('sendPaced: pauses come out of the same budget', () => {
	const usedUp = (resetInMs: number) => ({
		'x-ratelimit-remaining': '0',
		'x-ratelimit-reset': String((NOW + resetInMs) / 1000),
	});

	test('an announced pause of 30 s, then a 429 asking 40 s: stops, 30 s waited in all', async () => {
		const h = harness([
			() => rateLimited({ ...usedUp(30_000), 'retry-after': '0' }),
			() => rateLimited({ 'retry-after': '40' }),
		]);
		const stop = await stopOf(h.run());
		// attempt 1 answered 429 (back-off 1 s) and announced the window; attempt 2 paused for the window
		expect(h.slept).toEqual([1000, 29_000]);
		expect(stop).toMatchObject({ reason: 'budget', waitedMs: 30_000, refusedWaitMs: 40_000 });
		expect(total(h.slept)).toBeLessThanOrEqual(WAIT_BUDGET_MS);
	});

	test('an announced window that reopens later than the budget allows: nothing more is sent', async () => {
		const h = harness([
			() => rateLimited({ ...usedUp(3_600_000), 'retry-after': '1' }),
			() => ({ headers: {}, body: 'never' }),
		]);
		const stop = await stopOf(h.run());
		expect(h.sent()).toBe(1);
		expect(h.slept).toEqual([1000]);
		expect(stop).toMatchObject({ reason: 'budget', failure: undefined });
		expect(stop.refusedWaitMs).toBeGreaterThan(WAIT_BUDGET_MS);
	});
});

describe('sendPaced: a cancelled execution', () => {
	test('ends a wait at once and sends nothing more', async () => {
		const { signal, cancel } = cancellable();
		let sent = 0;
		const started = Date.now();
		const outcome = settle(
			sendPaced(
				async () => {
					sent++;
					throw rateLimited({ 'retry-after': '30' });
				},
				{ method: 'GET', pacer: pacerFor(`cancel-${Math.random()}`), readFailure, signal },
			),
		);
		setTimeout(cancel, 50);
		const result = await outcome;
		expect(result.ok).toBe(false);
		expect(!result.ok && result.error).toBeInstanceOf(WaitCancelledError);
		expect(Date.now() - started).toBeLessThan(1000);
		expect(sent).toBe(1);
	});

	test('cancelled before the call: nothing is sent', async () => {
		const { signal, cancel } = cancellable();
		cancel();
		const h = harness([() => ({ headers: {}, body: 'never' })], signal);
		await expect(h.run()).rejects.toBeInstanceOf(WaitCancelledError);
		expect(h.sent()).toBe(0);
	});

	test('a request that fails because the execution was cancelled is not retried', async () => {
		const { signal, cancel } = cancellable();
		const h = harness(
			[
				() => {
					cancel();
					return rateLimited({ 'retry-after': '1' });
				},
			],
			signal,
		);
		await expect(h.run()).rejects.toBeInstanceOf(WaitCancelledError);
		expect(h.sent()).toBe(1);
		expect(h.slept).toEqual([]);
	});
});
