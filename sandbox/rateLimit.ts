// Rate limiting of the API (A18): a fixed window per client, aligned to the epoch as most API gateways count.
import { HttpError } from './http';
import { retryAfterValue, type Variants } from './variants';

export interface RateLimitSettings {
	limit: number;
	windowMs: number;
}

export interface RateDecision {
	allowed: boolean;
	limit: number;
	/** Requests left in the window after this one. */
	remaining: number;
	/** When the window reopens, epoch milliseconds. */
	resetAtMs: number;
}

export class FixedWindowLimiter {
	private readonly windows = new Map<string, { start: number; count: number }>();

	/** Counts one request of `clientId` at `nowMs` and says whether it is within the limit. */
	take(clientId: string, settings: RateLimitSettings, nowMs: number): RateDecision {
		const start = Math.floor(nowMs / settings.windowMs) * settings.windowMs;
		let window = this.windows.get(clientId);
		if (!window || window.start !== start) {
			window = { start, count: 0 };
			this.windows.set(clientId, window);
		}
		const resetAtMs = window.start + settings.windowMs;
		if (window.count >= settings.limit) {
			return { allowed: false, limit: settings.limit, remaining: 0, resetAtMs };
		}
		window.count++;
		return {
			allowed: true,
			limit: settings.limit,
			remaining: settings.limit - window.count,
			resetAtMs,
		};
	}

	/** Forgets every client's window: the next request of each starts a full one. */
	clear(): void {
		this.windows.clear();
	}
}

/** X-RateLimit-Limit/Remaining/Reset (epoch seconds), for services that announce their limits. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
	return {
		'x-ratelimit-limit': String(decision.limit),
		'x-ratelimit-remaining': String(decision.remaining),
		'x-ratelimit-reset': String(Math.ceil(decision.resetAtMs / 1000)),
	};
}

/** The 429 for a request over the limit, its Retry-After as the variant writes it. */
export function rateLimitedError(
	decision: RateDecision,
	settings: RateLimitSettings,
	retryAfter: Variants['retry-after'],
	nowMs: number,
): HttpError {
	const value = retryAfterValue(retryAfter, decision.resetAtMs, nowMs);
	return new HttpError(
		429,
		'rate_limited',
		`Rate limit of ${settings.limit} requests per ${settings.windowMs / 1000} s exceeded; ${value === undefined ? 'retry once the window has passed' : 'retry after the time in Retry-After'}.`,
		undefined,
		value === undefined ? {} : { 'retry-after': value },
	);
}
