// Rate-limit waiting, branch by branch: every wait is bounded, counted and cancellable.
import {
	backoffMs,
	MAX_ATTEMPTS,
	MIN_RETRY_DELAY_MS,
	pacerFor,
	pauseBeforeNextRequest,
	planPause,
	planRetry,
	rateLimitMessage,
	RetryStop,
	retryDelayMs,
	sendPaced,
	WAIT_BUDGET_MS,
	waitUnlessCancelled,
	WaitCancelledError,
} from '../../nodes/Captioning/shared/pacing';
import { readFailure } from '../../nodes/Captioning/transport/errors';
import { readAnnouncement, readRetryAfter } from '../../nodes/Captioning/shared/schemas';
import { settle } from '../../nodes/Captioning/shared/settle';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('readRetryAfter', () => {
	test('delta-seconds, an HTTP date, and nothing', () => {
		expect(readRetryAfter('2', NOW)).toBe(2000);
		expect(readRetryAfter('0', NOW)).toBe(0);
		expect(readRetryAfter('-3', NOW)).toBe(0);
		expect(readRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', NOW)).toBe(5000);
		expect(readRetryAfter('Wed, 31 Dec 2025 00:00:05 GMT', NOW)).toBe(0);
		expect(readRetryAfter(undefined, NOW)).toBeUndefined();
		expect(readRetryAfter(' ', NOW)).toBeUndefined();
		expect(readRetryAfter('soon', NOW)).toBeUndefined();
		// delta-seconds are digits: zeros lead them, white space around them
		expect(readRetryAfter('007', NOW)).toBe(7000);
		expect(readRetryAfter(' 2 ', NOW)).toBe(2000);
		// the three HTTP dates a recipient must accept (RFC 9110 5.6.7); asctime's names no zone and is GMT
		expect(readRetryAfter('Thursday, 01-Jan-26 00:00:05 GMT', NOW)).toBe(5000);
		expect(readRetryAfter('Thu Jan  1 00:00:05 2026', NOW)).toBe(5000);
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

	test('a POST its caller says may be repeated (the token request): 502/503/504 like an idempotent method', () => {
		const unavailable = { status: 503, headers: { 'retry-after': '1' } };
		expect(retryDelayMs('POST', unavailable, 1, NOW, true)).toBe(1000);
		expect(retryDelayMs('POST', { status: 504, headers: {} }, 2, NOW, true)).toBe(2000);
		expect(retryDelayMs('POST', unavailable, 3, NOW, true)).toBeUndefined();
		// and a GET its caller says may not be repeated is not
		expect(retryDelayMs('GET', unavailable, 1, NOW, false)).toBeUndefined();
		expect(retryDelayMs('POST', { status: 500, headers: {} }, 1, NOW, true)).toBeUndefined();
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
	test('X-RateLimit headers are read whatever the case of their names; missing ones are ignored', () => {
		expect(
			readAnnouncement({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1767225700' }, NOW),
		).toEqual({ remaining: 0, resetAtMs: 1_767_225_700_000 });
		expect(
			readAnnouncement(
				{ 'X-RateLimit-Remaining': ['5'], 'X-RATELIMIT-RESET': ['1767225607'] },
				NOW,
			),
		).toEqual({ remaining: 5, resetAtMs: 1_767_225_607_000 });
		expect(readAnnouncement({}, NOW)).toBeUndefined();
		expect(
			readAnnouncement({ 'x-ratelimit-remaining': 'none', 'x-ratelimit-reset': '9' }, NOW),
		).toBe(undefined);
	});

	test.each([
		['epoch seconds', String(NOW / 1000 + 30), NOW + 30_000],
		['epoch milliseconds', String(NOW + 30_000), NOW + 30_000],
		['seconds from now', '30', NOW + 30_000],
		['a decimal of seconds from now', '1.5', NOW + 1_500],
	])('X-RateLimit-Reset in %s', (_name, reset, at) => {
		expect(
			readAnnouncement({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, NOW),
		).toEqual({ remaining: 0, resetAtMs: at });
	});

	test('pause only when the window is used up, until it resets', () => {
		expect(pauseBeforeNextRequest(undefined, 0)).toBe(0);
		expect(pauseBeforeNextRequest({ remaining: 3, resetAtMs: 5000 }, 0)).toBe(0);
		expect(pauseBeforeNextRequest({ remaining: 0, resetAtMs: 5000 }, 4200)).toBe(800);
		expect(pauseBeforeNextRequest({ remaining: 0, resetAtMs: 5000 }, 6000)).toBe(0);
	});

	test('planPause: go, pause, and a pause beyond what is left of the budget capped to none (send)', () => {
		const limits = { budgetMs: 10_000, maxAttempts: 3 };
		expect(planPause(0, 0, limits)).toEqual({ kind: 'go' });
		expect(planPause(4000, 6000, limits)).toEqual({ kind: 'pause', ms: 4000 });
		expect(planPause(4001, 6000, limits)).toEqual({ kind: 'go' });
		expect(planPause(3_600_000, 0, limits)).toEqual({ kind: 'go' });
	});

	test('a pacer hands out an announced pause once', () => {
		const pacer = pacerFor(`unit-${Math.random()}`);
		expect(pacer.takePause(0)).toBe(0);
		pacer.afterResponse({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3' }, 0);
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

/**
 * sendPaced with a fake clock whose sleep advances it, and a script of answers; each request takes `requestMs` of
 * that clock.
 */
function harness(script: Array<() => unknown>, signal?: AbortSignal, requestMs = 0) {
	const clock = { now: NOW };
	const slept: number[] = [];
	let sent = 0;
	const send = async () => {
		const next = script[Math.min(sent, script.length - 1)];
		sent++;
		clock.now += requestMs;
		const outcome = next();
		if (outcome instanceof Error) throw outcome;
		return outcome as { headers: Record<string, string>; body: unknown };
	};
	// one service account: the runs of one harness share its pacer
	const pacer = pacerFor(`paced-${Math.random()}`);
	const run = () =>
		sendPaced(send, {
			method: 'GET',
			pacer,
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
		expect(stop.elapsedMs).toBe(31_000);
	});

	test('Retry-After: 20 each time: three waits fill the 60 s, the fourth would not fit', async () => {
		const h = harness([() => rateLimited({ 'retry-after': '20' })]);
		const stop = await stopOf(h.run());
		expect(stop).toMatchObject({ reason: 'budget', attempts: 4, elapsedMs: 60_000 });
		expect(stop.refusedWaitMs).toBe(20_000);
		expect(h.slept).toEqual([20_000, 20_000, 20_000]);
	});

	test('a Retry-After longer than the budget: no wait at all', async () => {
		const h = harness([() => rateLimited({ 'retry-after': '3600' })]);
		const stop = await stopOf(h.run());
		expect(stop).toMatchObject({ reason: 'budget', attempts: 1, elapsedMs: 0 });
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

describe('sendPaced: the budget counts requests as well as waits', () => {
	test('requests of 20 s and a Retry-After of 10 s: three attempts fill the 60 s, the fourth is not made', async () => {
		const h = harness([() => rateLimited({ 'retry-after': '10' })], undefined, 20_000);
		const stop = await stopOf(h.run());
		// 20 s request, 10 s wait, 20 s request (50 s), 10 s wait (60 s), 20 s request (80 s): no room for more
		expect(h.sent()).toBe(3);
		expect(h.slept).toEqual([10_000, 10_000]);
		expect(stop).toMatchObject({ reason: 'budget', attempts: 3, elapsedMs: 80_000 });
	});

	test('requests that take no time: the waits alone fill the budget, as before', async () => {
		const h = harness([() => rateLimited({ 'retry-after': '10' })]);
		const stop = await stopOf(h.run());
		expect(h.sent()).toBe(MAX_ATTEMPTS);
		expect(stop).toMatchObject({ reason: 'attempts', elapsedMs: 50_000 });
	});
});

describe('sendPaced: pauses come out of the same budget', () => {
	const usedUp = (resetInMs: number) => ({
		'x-ratelimit-remaining': '0',
		'x-ratelimit-reset': String((NOW + resetInMs) / 1000),
	});

	test('an announced pause of 30 s, then a 429 asking 40 s: stops, 30 s spent in all', async () => {
		const h = harness([
			() => rateLimited({ ...usedUp(30_000), 'retry-after': '0' }),
			() => rateLimited({ 'retry-after': '40' }),
		]);
		const stop = await stopOf(h.run());
		// attempt 1 answered 429 (back-off 1 s) and announced the window; attempt 2 paused for the window
		expect(h.slept).toEqual([1000, 29_000]);
		expect(stop).toMatchObject({ reason: 'budget', elapsedMs: 30_000, refusedWaitMs: 40_000 });
		expect(total(h.slept)).toBeLessThanOrEqual(WAIT_BUDGET_MS);
	});

	test.each([
		[
			'an hour ahead',
			{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 3600) },
		],
		[
			'in milliseconds, an hour ahead',
			{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW + 3_600_000) },
		],
	])(
		'an announced reset %s, beyond the budget: capped, the request is sent and its answer decides',
		async (_name, announced) => {
			const h = harness([
				() => ({ headers: announced, body: 'first' }),
				() => ({ headers: {}, body: 'second' }),
			]);
			await expect(h.run()).resolves.toMatchObject({ body: 'first' });
			await expect(h.run()).resolves.toMatchObject({ body: 'second' });
			expect(h.sent()).toBe(2);
			expect(h.slept).toEqual([]);
		},
	);
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
		const error = await h.run().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(WaitCancelledError);
		// what ended the call was the cancellation during its request, not a wait
		expect(error).toMatchObject({ during: 'request' });
		expect(h.sent()).toBe(1);
		expect(h.slept).toEqual([]);
	});

	test('cancelled during a wait: says so', async () => {
		const { signal, cancel } = cancellable();
		const error = await sendPaced(
			async () => {
				throw rateLimited({ 'retry-after': '30' });
			},
			{
				method: 'GET',
				pacer: pacerFor(`cancel-${Math.random()}`),
				readFailure,
				signal,
				// the execution is cancelled while the retry waits
				sleep: async () => {
					cancel();
					await new Promise(() => {});
				},
			},
		).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(WaitCancelledError);
		expect(error).toMatchObject({ during: 'wait' });
	});
});

describe('rateLimitMessage', () => {
	const what = 'GET /webhook_endpoints';
	test('a wait longer than the budget, asked at once', () => {
		expect(
			rateLimitMessage(what, {
				reason: 'budget',
				attempts: 1,
				elapsedMs: 400,
				refusedWaitMs: 3_600_000,
			}),
		).toMatch(
			/rate limit is used up for GET \/webhook_endpoints: it asks to wait 3600 s, longer than the 60 s a call may take in all\. Process fewer items/,
		);
	});

	test('a wait that no longer fits after waiting', () => {
		expect(
			rateLimitMessage(what, {
				reason: 'budget',
				attempts: 4,
				elapsedMs: 60_000,
				refusedWaitMs: 20_000,
			}),
		).toMatch(/after 60 s it asks for 20 s more, beyond the 60 s a call may take in all/);
	});

	test('the attempts used up', () => {
		expect(rateLimitMessage(what, { reason: 'attempts', attempts: 6, elapsedMs: 31_000 })).toMatch(
			/still exceeded for GET \/webhook_endpoints after 6 attempts in 31 s/,
		);
	});

	test('advice of its own for a request that is not about items (the token request)', () => {
		expect(
			rateLimitMessage(
				'the token request',
				{ reason: 'attempts', attempts: 6, elapsedMs: 31_000 },
				'Try again in a minute.',
			),
		).toBe(
			"The service's rate limit was still exceeded for the token request after 6 attempts in 31 s. Try again in a minute.",
		);
	});

	test('the budget is the README’s 60 s', () => {
		expect(WAIT_BUDGET_MS).toBe(60_000);
	});
});
