// The load generator's rate (bench/lib/load.ts): answers over the time to the last of them, not autocannon's own
// duration, which runs to its next one-second tick and so put every short run's rate in steps.
//   npm test -- --selectProjects bench
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { answeredWindow, runLoad } from '../lib/load';

describe('answeredWindow', () => {
	it('is the answers over the time from the start to the last 2xx answer', () => {
		expect(answeredWindow(175, 1_000, 6_000)).toEqual({ windowSeconds: 5, eventsPerSecond: 35 });
		expect(answeredWindow(60, 250, 8_750)).toEqual({
			windowSeconds: 8.5,
			eventsPerSecond: 60 / 8.5,
		});
	});

	it('has no window without an answer', () => {
		expect(answeredWindow(0, 1_000, undefined)).toEqual({ windowSeconds: 0, eventsPerSecond: 0 });
		expect(answeredWindow(3, 1_000, undefined)).toEqual({ windowSeconds: 0, eventsPerSecond: 0 });
		expect(answeredWindow(3, 1_000, 1_000)).toEqual({ windowSeconds: 0, eventsPerSecond: 0 });
	});
});

describe('runLoad against a server on 127.0.0.1', () => {
	let server: Server;
	let url: string;
	beforeAll(async () => {
		// each answer after 20 ms: 5 requests one at a time take about 0.1 s, far from a one-second step
		server = createServer((req, res) => {
			req.resume();
			req.on('end', () => setTimeout(() => res.writeHead(200).end('{}'), 20));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
	});
	afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

	it('ends a run of a fixed number of requests at its last answer, not at the next second', async () => {
		const load = await runLoad({
			url,
			concurrency: 1,
			warmupMs: 0,
			durationMs: 60_000,
			maxRequests: 5,
			body: () => '{}',
		});
		expect(load.requests).toBe(5);
		expect(load.windowSeconds).toBeGreaterThanOrEqual(0.1);
		expect(load.windowSeconds).toBeLessThan(0.9);
		expect(load.eventsPerSecond).toBeCloseTo(5 / load.windowSeconds, 6);
	});
});
