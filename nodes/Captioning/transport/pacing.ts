// Keeping within the service's rate limit (contract 8: strict, limits not shown), with waiting that always ends.
// Two mechanisms: wait out a 429 for its Retry-After, and, where the service announces X-RateLimit-Remaining/Reset,
// pause before the request that would be refused. Every pause and every retry delay of one call counts against one
// budget (WAIT_BUDGET_MS), attempts are capped, each retry waits at least MIN_RETRY_DELAY_MS, and a cancelled
// execution ends any wait at once. The decisions are pure functions; the loop takes its clock and sleep as inputs.
import type { IHttpRequestMethods } from 'n8n-workflow';
import { sleep as n8nSleep } from 'n8n-workflow';

import { settle } from '../shared/settle';

type Headers = Record<string, string | string[] | undefined>;

/** What a call may spend waiting (pauses and retry delays together) before it gives up with an error. */
export const WAIT_BUDGET_MS = 60_000;
/** Attempts of one call in all: the first and at most five retries. */
export const MAX_ATTEMPTS = 6;
/** The least a retry waits, whatever Retry-After says (`0`, or a date already past). */
export const MIN_RETRY_DELAY_MS = 1_000;
const MAX_BACKOFF_MS = 16_000;

interface WaitLimits {
	budgetMs: number;
	maxAttempts: number;
}

const DEFAULT_LIMITS: WaitLimits = { budgetMs: WAIT_BUDGET_MS, maxAttempts: MAX_ATTEMPTS };

// header names are case-insensitive; n8n's client gives them in lower case, other callers may not
const header = (headers: Headers, name: string): string | undefined => {
	const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
	const value = key === undefined ? undefined : headers[key];
	return Array.isArray(value) ? value[0] : value;
};

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined || value.trim() === '') return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential back-off for a 429 that names no usable wait: 1, 2, 4, 8, 16, 16 … seconds. */
export function backoffMs(attempt: number): number {
	return Math.min(1000 * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
}

const IDEMPOTENT: IHttpRequestMethods[] = ['GET', 'HEAD', 'DELETE', 'PUT'];

/**
 * How long to wait before trying a failed call again, or undefined to give up now. A 429 was not processed,
 * so any method may be re-sent; a 502/503/504 only for idempotent methods (a POST may have been applied).
 */
export function retryDelayMs(
	method: IHttpRequestMethods,
	failure: { status: number; headers: Headers },
	attempt: number,
	now = Date.now(),
): number | undefined {
	const asked = parseRetryAfter(header(failure.headers, 'retry-after'), now);
	// `Retry-After: 0` or a past date would retry at once, again and again: wait as if there were none
	const wait = (otherwise: number) =>
		asked !== undefined && asked > 0 ? Math.max(asked, MIN_RETRY_DELAY_MS) : otherwise;
	if (failure.status === 429) return wait(backoffMs(attempt));
	if ([502, 503, 504].includes(failure.status) && IDEMPOTENT.includes(method) && attempt <= 2) {
		return wait(1000 * attempt);
	}
	return undefined;
}

type RetryPlan =
	| { kind: 'retry'; delayMs: number }
	| { kind: 'give-up'; reason: 'not-retryable' }
	| { kind: 'give-up'; reason: 'attempts' | 'budget'; delayMs: number };

/** Whether attempt number `attempt`, having failed, is tried again after `delayMs`. */
export function planRetry(
	delayMs: number | undefined,
	attempt: number,
	waitedMs: number,
	limits: WaitLimits = DEFAULT_LIMITS,
): RetryPlan {
	if (delayMs === undefined) return { kind: 'give-up', reason: 'not-retryable' };
	if (attempt >= limits.maxAttempts) return { kind: 'give-up', reason: 'attempts', delayMs };
	if (waitedMs + delayMs > limits.budgetMs) return { kind: 'give-up', reason: 'budget', delayMs };
	return { kind: 'retry', delayMs };
}

/** When the service announces that the window is used up, the time to wait until it resets. */
export function pauseBeforeNextRequest(
	announced: { remaining: number; resetAtMs: number } | undefined,
	now = Date.now(),
): number {
	if (!announced || announced.remaining > 0) return 0;
	return Math.max(0, announced.resetAtMs - now);
}

type PausePlan = { kind: 'go' } | { kind: 'pause'; ms: number } | { kind: 'give-up'; ms: number };

/** A pause before a request is waiting too: it comes out of the same budget as the retries. */
export function planPause(
	pauseMs: number,
	waitedMs: number,
	limits: WaitLimits = DEFAULT_LIMITS,
): PausePlan {
	if (pauseMs <= 0) return { kind: 'go' };
	if (waitedMs + pauseMs > limits.budgetMs) return { kind: 'give-up', ms: pauseMs };
	return { kind: 'pause', ms: pauseMs };
}

export function readAnnouncement(
	headers: Headers,
): { remaining: number; resetAtMs: number } | undefined {
	const remaining = Number(header(headers, 'x-ratelimit-remaining'));
	const reset = Number(header(headers, 'x-ratelimit-reset'));
	if (!Number.isFinite(remaining) || !Number.isFinite(reset)) return undefined;
	// X-RateLimit-Reset is an epoch in seconds
	return { remaining, resetAtMs: reset * 1000 };
}

interface Pacer {
	/** The pause the latest announcement asks for before the next request; taking it clears it. */
	takePause(now: number): number;
	afterResponse(headers: Headers): void;
}

const pacers = new Map<string, { remaining: number; resetAtMs: number } | undefined>();

/** One pacer per client and service, shared by the executions of this process. */
export function pacerFor(key: string): Pacer {
	return {
		takePause(now) {
			const pause = pauseBeforeNextRequest(pacers.get(key), now);
			if (pause > 0) pacers.delete(key);
			return pause;
		},
		afterResponse(headers) {
			const announced = readAnnouncement(headers);
			if (announced) pacers.set(key, announced);
		},
	};
}

/** The execution was cancelled while a call waited (or before it could be sent). */
export class WaitCancelledError extends Error {
	constructor(readonly waitedMs: number) {
		super('The execution was cancelled');
		this.name = 'WaitCancelledError';
	}
}

/** A call that ended without an answer to return: the last failure, and why no further attempt was made. */
export class RetryStop extends Error {
	constructor(
		readonly error: unknown,
		readonly failure: HttpFailure | undefined,
		readonly reason: 'not-retryable' | 'attempts' | 'budget',
		readonly attempts: number,
		readonly waitedMs: number,
		/** The wait that was asked for and not granted (attempts, budget). */
		readonly refusedWaitMs?: number,
	) {
		super(reason);
		this.name = 'RetryStop';
	}
}

export interface HttpFailure {
	status: number;
	headers: Headers;
	data: unknown;
}

type Sleep = (ms: number) => Promise<void>;

/** An abort signal as n8n hands it out (getExecutionCancelSignal). */
export interface CancelSignal {
	readonly aborted: boolean;
	addEventListener(type: 'abort', listener: () => void): void;
	removeEventListener(type: 'abort', listener: () => void): void;
}

// slices keep no long timer alive once a wait is over early (n8n's sleep cannot be cleared)
const SLICE_MS = 500;

/** Sleeps `ms`, or throws WaitCancelledError as soon as `signal` aborts. */
export async function waitUnlessCancelled(
	ms: number,
	signal: CancelSignal | undefined,
	sleep: Sleep = n8nSleep,
	waitedBeforeMs = 0,
): Promise<void> {
	const cancelled = () => new WaitCancelledError(waitedBeforeMs);
	if (signal?.aborted) throw cancelled();
	if (!signal) return await sleep(ms);
	let onAbort = () => {};
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(cancelled());
		signal.addEventListener('abort', onAbort);
	});
	try {
		for (let left = ms; left > 0; left -= SLICE_MS) {
			await Promise.race([sleep(Math.min(left, SLICE_MS)), aborted]);
		}
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
	if (signal.aborted) throw cancelled();
}

interface PacedOptions {
	method: IHttpRequestMethods;
	pacer: Pacer;
	/** The HTTP answer behind a thrown error, when there was one. */
	readFailure: (error: unknown) => HttpFailure | undefined;
	now?: () => number;
	sleep?: Sleep;
	signal?: CancelSignal;
	limits?: WaitLimits;
}

/**
 * Sends until an answer comes, pausing and retrying within the limits. Throws WaitCancelledError when the
 * execution is cancelled, and RetryStop (with the last failure) when no further attempt is made.
 */
export async function sendPaced<T extends { headers?: Headers }>(
	send: () => Promise<T>,
	options: PacedOptions,
): Promise<T> {
	const { method, pacer, readFailure, signal } = options;
	const now = options.now ?? Date.now;
	const sleep = options.sleep ?? n8nSleep;
	const limits = options.limits ?? DEFAULT_LIMITS;
	let waitedMs = 0;
	const wait = async (ms: number) => {
		await waitUnlessCancelled(ms, signal, sleep, waitedMs);
		waitedMs += ms;
	};
	for (let attempt = 1; ; attempt++) {
		if (signal?.aborted) throw new WaitCancelledError(waitedMs);
		const pause = planPause(pacer.takePause(now()), waitedMs, limits);
		if (pause.kind === 'give-up') {
			throw new RetryStop(undefined, undefined, 'budget', attempt - 1, waitedMs, pause.ms);
		}
		if (pause.kind === 'pause') await wait(pause.ms);
		const outcome = await settle(send());
		if (outcome.ok) {
			pacer.afterResponse(outcome.value.headers ?? {});
			return outcome.value;
		}
		if (signal?.aborted) throw new WaitCancelledError(waitedMs);
		const failure = readFailure(outcome.error);
		if (failure) pacer.afterResponse(failure.headers);
		const delay = failure ? retryDelayMs(method, failure, attempt, now()) : undefined;
		const plan = planRetry(delay, attempt, waitedMs, limits);
		if (plan.kind === 'give-up') {
			const refused = plan.reason === 'not-retryable' ? undefined : plan.delayMs;
			throw new RetryStop(outcome.error, failure, plan.reason, attempt, waitedMs, refused);
		}
		await wait(plan.delayMs);
	}
}
