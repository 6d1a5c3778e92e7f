// Keeping within the service's rate limit (contract 8: strict, limits not shown) with waiting that always ends: a
// 429 waited out for its Retry-After, an announced pause before the request that would be refused, one budget per
// call (docs/design.md, "One budget per call"). Pure decisions; the loop takes its clock and sleep as inputs.
import type { IHttpRequestMethods } from 'n8n-workflow';
import { sleep as n8nSleep } from 'n8n-workflow';

import { type Headers, headerValue, readAnnouncement, readRetryAfter } from './schemas';
import { settle } from './settle';

/** What one call may take in all (requests, pauses and retry delays) before it gives up with an error. */
export const WAIT_BUDGET_MS = 60_000;
/** Attempts of one call in all: the first and at most five retries. */
export const MAX_ATTEMPTS = 6;
/** The least a retry waits, whatever Retry-After says (`0`, or a date already past). */
export const MIN_RETRY_DELAY_MS = 1_000;
const MAX_BACKOFF_MS = 16_000;

export interface WaitLimits {
	budgetMs: number;
	maxAttempts: number;
}

const DEFAULT_LIMITS: WaitLimits = { budgetMs: WAIT_BUDGET_MS, maxAttempts: MAX_ATTEMPTS };

/** Exponential back-off for a 429 that names no usable wait: 1, 2, 4, 8, 16, 16 … seconds. */
export function backoffMs(attempt: number): number {
	return Math.min(1000 * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
}

const IDEMPOTENT: IHttpRequestMethods[] = ['GET', 'HEAD', 'DELETE', 'PUT'];

/**
 * How long to wait before trying a failed call again, or undefined to give up now. A 429 was not processed,
 * so any method may be re-sent; a 502/503/504 only for a request that may be repeated: an idempotent method (a
 * POST may have been applied), or one its caller says is safe to repeat (the token request).
 */
export function retryDelayMs(
	method: IHttpRequestMethods,
	failure: { status: number; headers: Headers },
	attempt: number,
	now = Date.now(),
	repeatable = IDEMPOTENT.includes(method),
): number | undefined {
	const asked = readRetryAfter(headerValue(failure.headers, 'retry-after'), now);
	// `Retry-After: 0` or a past date would retry at once, again and again: wait as if there were none
	const wait = (otherwise: number) =>
		asked !== undefined && asked > 0 ? Math.max(asked, MIN_RETRY_DELAY_MS) : otherwise;
	if (failure.status === 429) return wait(backoffMs(attempt));
	if ([502, 503, 504].includes(failure.status) && repeatable && attempt <= 2) {
		return wait(1000 * attempt);
	}
	return undefined;
}

type RetryPlan =
	| { kind: 'retry'; delayMs: number }
	| { kind: 'give-up'; reason: 'not-retryable' }
	| { kind: 'give-up'; reason: 'attempts' | 'budget'; delayMs: number };

/** Whether attempt number `attempt`, having failed `elapsedMs` after the call began, is tried again after `delayMs`. */
export function planRetry(
	delayMs: number | undefined,
	attempt: number,
	elapsedMs: number,
	limits: WaitLimits = DEFAULT_LIMITS,
): RetryPlan {
	if (delayMs === undefined) return { kind: 'give-up', reason: 'not-retryable' };
	if (attempt >= limits.maxAttempts) return { kind: 'give-up', reason: 'attempts', delayMs };
	if (elapsedMs + delayMs > limits.budgetMs) return { kind: 'give-up', reason: 'budget', delayMs };
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

type PausePlan = { kind: 'go' } | { kind: 'pause'; ms: number };

/**
 * An announced pause is advice, a 429 is the rule: a pause that fits in what is left of the budget is taken; one
 * that does not (a window that reopens too late, or a reset written in a way not understood) is capped to none,
 * and the request goes, so that the service's own answer decides. Never a refusal to send.
 */
export function planPause(
	pauseMs: number,
	elapsedMs: number,
	limits: WaitLimits = DEFAULT_LIMITS,
): PausePlan {
	if (pauseMs <= 0 || elapsedMs + pauseMs > limits.budgetMs) return { kind: 'go' };
	return { kind: 'pause', ms: pauseMs };
}

interface Pacer {
	/** The pause the latest announcement asks for before the next request; taking it clears it. */
	takePause(now: number): number;
	afterResponse(headers: Headers, now: number): void;
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
		afterResponse(headers, now) {
			const announced = readAnnouncement(headers, now);
			if (announced) pacers.set(key, announced);
		},
	};
}

/** The execution was cancelled while a call waited, or while its request was in flight (which n8n aborts). */
export class WaitCancelledError extends Error {
	constructor(
		readonly elapsedMs: number,
		readonly during: 'wait' | 'request' = 'wait',
	) {
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
		/** Time the call took, requests and waits together. */
		readonly elapsedMs: number,
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
	/** Safe to send again after a 502/503/504 although the method is not idempotent (the token request). */
	repeatable?: boolean;
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
	const began = now();
	// the budget counts every millisecond of the call: time in requests as well as in waits
	const elapsed = () => Math.max(0, now() - began);
	const wait = async (ms: number) => await waitUnlessCancelled(ms, signal, sleep, elapsed());
	for (let attempt = 1; ; attempt++) {
		if (signal?.aborted) throw new WaitCancelledError(elapsed());
		const pause = planPause(pacer.takePause(now()), elapsed(), limits);
		if (pause.kind === 'pause') await wait(pause.ms);
		const outcome = await settle(send());
		if (outcome.ok) {
			pacer.afterResponse(outcome.value.headers ?? {}, now());
			return outcome.value;
		}
		// n8n aborts the request of a cancelled execution: what failed is the cancellation, not the service
		if (signal?.aborted) throw new WaitCancelledError(elapsed(), 'request');
		const failure = readFailure(outcome.error);
		if (failure) pacer.afterResponse(failure.headers, now());
		const delay = failure
			? retryDelayMs(method, failure, attempt, now(), options.repeatable)
			: undefined;
		const plan = planRetry(delay, attempt, elapsed(), limits);
		if (plan.kind === 'give-up') {
			const refused = plan.reason === 'not-retryable' ? undefined : plan.delayMs;
			throw new RetryStop(outcome.error, failure, plan.reason, attempt, elapsed(), refused);
		}
		await wait(plan.delayMs);
	}
}

/** What the user reads when a rate-limited request was refused for good, by why the waiting stopped. */
export function rateLimitMessage(
	what: string,
	stop: Pick<RetryStop, 'reason' | 'attempts' | 'elapsedMs' | 'refusedWaitMs'>,
	advice = 'Process fewer items per execution, or add a Wait node between batches.',
): string {
	const budget = `${WAIT_BUDGET_MS / 1000} s`;
	const asked = Math.ceil((stop.refusedWaitMs ?? 0) / 1000);
	const spent = Math.round(stop.elapsedMs / 1000);
	if (stop.reason === 'budget') {
		return stop.attempts <= 1
			? `The service's rate limit is used up for ${what}: it asks to wait ${asked} s, longer than the ${budget} a call may take in all. ${advice}`
			: `The service's rate limit is used up for ${what}: after ${spent} s it asks for ${asked} s more, beyond the ${budget} a call may take in all. ${advice}`;
	}
	return `The service's rate limit was still exceeded for ${what} after ${stop.attempts} attempts in ${spent} s. ${advice}`;
}
