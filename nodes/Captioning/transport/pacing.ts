// Keeping within the service's rate limit (contract 8: strict, limits not shown). Two mechanisms: wait out a
// 429 for its Retry-After, and, where the service announces X-RateLimit-Remaining/Reset, pause before the
// request that would be refused. Pure decisions; the only state is the latest announcement per client.
import type { IHttpRequestMethods } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string | undefined => {
	const value = headers[name] ?? headers[name.toLowerCase()];
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
	if (failure.status === 429) {
		return (
			parseRetryAfter(header(failure.headers, 'retry-after'), now) ??
			Math.min(1000 * 2 ** (attempt - 1), 16_000)
		);
	}
	if ([502, 503, 504].includes(failure.status) && IDEMPOTENT.includes(method) && attempt <= 2) {
		return parseRetryAfter(header(failure.headers, 'retry-after'), now) ?? 1000 * attempt;
	}
	return undefined;
}

/** When the service announces that the window is used up, the time to wait until it resets. */
export function pauseBeforeNextRequest(
	announced: { remaining: number; resetAtMs: number } | undefined,
	now = Date.now(),
): number {
	if (!announced || announced.remaining > 0) return 0;
	return Math.max(0, announced.resetAtMs - now);
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

export interface Pacer {
	beforeRequest(): Promise<void>;
	afterResponse(headers: Headers): void;
}

const MAX_PAUSE_MS = 60_000;
const pacers = new Map<string, { remaining: number; resetAtMs: number } | undefined>();

export function pacerFor(key: string): Pacer {
	return {
		async beforeRequest() {
			const pause = Math.min(pauseBeforeNextRequest(pacers.get(key)), MAX_PAUSE_MS);
			if (pause > 0) {
				pacers.delete(key);
				await sleep(pause);
			}
		},
		afterResponse(headers) {
			const announced = readAnnouncement(headers);
			if (announced) pacers.set(key, announced);
		},
	};
}
