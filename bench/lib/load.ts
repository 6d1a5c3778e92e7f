// A closed-loop HTTP load generator: `concurrency` connections, each sending its next request as soon as the
// previous one is answered. Keep-alive, one socket per connection, a new body per request.
import { Agent, request } from 'node:http';

import { sleep } from './machine';
import { percentiles } from './stats';

export interface LoadOptions {
	url: string;
	concurrency: number;
	/** Requests before this are sent but not counted (connections, JIT, pool warm-up). */
	warmupMs: number;
	durationMs: number;
	body: () => string;
	contentType?: string;
	timeoutMs?: number;
	/** Stop sending after this many requests (the window still bounds the run). */
	maxRequests?: number;
}

export interface LoadResult {
	/** 2xx answers that arrived inside the measuring window. */
	requests: number;
	/** Every 2xx, warm-up and the tail included: each started an execution. */
	totalOk: number;
	/** Non-2xx answers and transport errors, anywhere in the run. */
	errors: number;
	firstError?: string;
	statusCounts: Record<string, number>;
	windowSeconds: number;
	eventsPerSecond: number;
	latencyMs: { p50: number; p99: number; max: number };
	/** When the measuring window opened and the last answer arrived (epoch ms). */
	windowStart: number;
	finishedAt: number;
}

function post(
	agent: Agent,
	url: URL,
	body: string,
	contentType: string,
	timeoutMs: number,
): Promise<{ status: number; text: string }> {
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: 'POST',
				agent,
				headers: {
					'content-type': contentType,
					'content-length': Buffer.byteLength(body),
				},
				timeout: timeoutMs,
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('end', () =>
					resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
				);
				res.on('error', reject);
			},
		);
		req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
		req.on('error', reject);
		req.end(body);
	});
}

/** One POST on a new connection; resolves with the status and body text. */
export async function postOnce(
	url: string,
	body: string,
	contentType = 'application/json',
): Promise<{ status: number; text: string }> {
	const agent = new Agent({ keepAlive: false });
	try {
		return await post(agent, new URL(url), body, contentType, 30_000);
	} finally {
		agent.destroy();
	}
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
	const url = new URL(options.url);
	const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
	const contentType = options.contentType ?? 'application/json';
	const timeoutMs = options.timeoutMs ?? 30_000;
	const windowStart = Date.now() + options.warmupMs;
	const windowEnd = windowStart + options.durationMs;
	const latencies: number[] = [];
	const statusCounts: Record<string, number> = {};
	let requests = 0;
	let totalOk = 0;
	let errors = 0;
	let firstError: string | undefined;
	let sent = 0;

	const worker = async () => {
		while (Date.now() < windowEnd) {
			if (options.maxRequests !== undefined && sent >= options.maxRequests) break;
			sent++;
			const t0 = performance.now();
			let status = 0;
			try {
				const answer = await post(agent, url, options.body(), contentType, timeoutMs);
				status = answer.status;
				if (status < 200 || status >= 300)
					firstError ??= `HTTP ${status}: ${answer.text.slice(0, 300)}`;
			} catch (error) {
				firstError ??= (error as Error).message;
			}
			const elapsed = performance.now() - t0;
			const key = status === 0 ? 'error' : String(status);
			statusCounts[key] = (statusCounts[key] ?? 0) + 1;
			const ok = status >= 200 && status < 300;
			if (ok) totalOk++;
			else errors++;
			const endedAt = Date.now();
			// throughput counts answers that arrive inside the window, whenever they were sent
			if (ok && endedAt >= windowStart && endedAt <= windowEnd) {
				requests++;
				latencies.push(elapsed);
			}
			// a refusing server must not turn into a busy loop
			if (!ok) await sleep(50);
		}
	};
	await Promise.all(Array.from({ length: options.concurrency }, worker));
	agent.destroy();
	const windowSeconds = options.durationMs / 1000;
	return {
		requests,
		totalOk,
		errors,
		firstError,
		statusCounts,
		windowSeconds,
		eventsPerSecond: requests / windowSeconds,
		latencyMs: percentiles(latencies),
		windowStart,
		finishedAt: Date.now(),
	};
}
