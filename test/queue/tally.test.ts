// The queue suite's pure decisions, branch by branch (they run with the suite, in jest's queue project).
import {
	busiestWorker,
	countOf,
	explainMissing,
	grantsOf,
	histogram,
	renewalSettings,
	renewalsOf,
	retryMargin,
	runningInLog,
	runSettings,
	tallyDeliveries,
	tallyDownstream,
	tallyRenewals,
	timeline,
} from './tally';

describe('runSettings', () => {
	it('defaults to the full burst with the webhook process killed', () => {
		expect(runSettings({})).toEqual({
			profile: 'full',
			transcriptions: 500,
			burstMs: 30_000,
			kill: 'webhook',
			webhooks: 2,
			killAtShare: 0.4,
			replays: 50,
			probeIds: 200,
			workers: 2,
		});
	});

	it('has a CI profile of 100 transcriptions in 10 s', () => {
		expect(runSettings({ CAPTIONING_QUEUE_PROFILE: 'ci' })).toMatchObject({
			profile: 'ci',
			transcriptions: 100,
			burstMs: 10_000,
			kill: 'webhook',
			replays: 20,
			probeIds: 100,
		});
	});

	it('kills a worker, or nothing; 0 still means no kill', () => {
		expect(runSettings({ CAPTIONING_QUEUE_KILL: 'worker' }).kill).toBe('worker');
		expect(runSettings({ CAPTIONING_QUEUE_KILL: 'none' }).kill).toBe('none');
		expect(runSettings({ CAPTIONING_QUEUE_KILL: '0' }).kill).toBe('none');
	});

	it('lets the size and the number of webhook processes be overridden', () => {
		expect(
			runSettings({
				CAPTIONING_QUEUE_PROFILE: 'ci',
				CAPTIONING_QUEUE_TRANSCRIPTIONS: '20',
				CAPTIONING_QUEUE_BURST_MS: '4000',
				CAPTIONING_QUEUE_WEBHOOKS: '1',
				CAPTIONING_QUEUE_WORKERS: '4',
			}),
		).toMatchObject({ transcriptions: 20, burstMs: 4_000, webhooks: 1, workers: 4 });
	});

	it('names the variable and the value it refuses', () => {
		expect(() => runSettings({ CAPTIONING_QUEUE_PROFILE: 'small' })).toThrow(
			'CAPTIONING_QUEUE_PROFILE must be "full" or "ci", not "small"',
		);
		expect(() => runSettings({ CAPTIONING_QUEUE_KILL: 'main' })).toThrow(
			'CAPTIONING_QUEUE_KILL must be "webhook", "worker" or "none", not "main"',
		);
		expect(() => runSettings({ CAPTIONING_QUEUE_TRANSCRIPTIONS: '-1' })).toThrow(
			'CAPTIONING_QUEUE_TRANSCRIPTIONS must be a positive number, not "-1"',
		);
		expect(() => runSettings({ CAPTIONING_QUEUE_WEBHOOKS: '1.5' })).toThrow(
			'CAPTIONING_QUEUE_WEBHOOKS must be a whole number, not "1.5"',
		);
	});
});

describe('countOf and histogram', () => {
	it('counts values, then counts the counts', () => {
		const counts = countOf(['a', 'b', 'a', 'c', 'a']);
		expect([...counts]).toEqual([
			['a', 3],
			['b', 1],
			['c', 1],
		]);
		expect(histogram(counts.values())).toEqual({ '1': 2, '3': 1 });
	});
});

describe('tallyDownstream', () => {
	it('finds nothing wrong when each sent event was seen once', () => {
		expect(tallyDownstream(['a', 'b'], ['b', 'a'])).toEqual({
			missing: [],
			duplicated: [],
			unexpected: [],
			perEvent: { '1': 2 },
		});
	});

	it('reports missing, duplicated and unexpected ids', () => {
		expect(tallyDownstream(['a', 'b', 'c'], ['a', 'a', 'c', 'x'])).toEqual({
			missing: ['b'],
			duplicated: [['a', 2]],
			unexpected: ['x'],
			perEvent: { '0': 1, '1': 1, '2': 1 },
		});
	});
});

describe('tallyDeliveries', () => {
	it('counts attempts per event and the attempt that got the first 2xx', () => {
		const tally = tallyDeliveries(
			['a', 'b', 'c'],
			[
				{ eventId: 'a', attempt: 1, status: 200 },
				{ eventId: 'b', attempt: 1 },
				{ eventId: 'b', attempt: 2, status: 503 },
				{ eventId: 'b', attempt: 3, status: 202 },
				{ eventId: 'c', attempt: 1, status: 500 },
				{ eventId: 'x', attempt: 1, status: 200 },
			],
		);
		expect(tally).toEqual({
			attemptsPerEvent: { '1': 2, '3': 1 },
			deliveredAtAttempt: { '1': 1, '3': 1 },
			undelivered: ['c'],
			mostAttemptsNeeded: 3,
		});
	});

	it('needs no attempts when nothing was sent', () => {
		expect(tallyDeliveries([], []).mostAttemptsNeeded).toBe(0);
	});
});

describe('retryMargin', () => {
	const delays = [1_000, 3_000, 8_000, 20_000, 40_000];

	it('leaves the whole schedule when the first attempt worked', () => {
		expect(retryMargin(delays, 1)).toEqual({
			attemptsAllowed: 6,
			spareAttempts: 5,
			spareSeconds: 72,
		});
	});

	it('leaves the last delay when the fifth attempt worked', () => {
		expect(retryMargin(delays, 5)).toEqual({
			attemptsAllowed: 6,
			spareAttempts: 1,
			spareSeconds: 40,
		});
	});

	it('leaves nothing when the last attempt was needed', () => {
		expect(retryMargin(delays, 6)).toEqual({
			attemptsAllowed: 6,
			spareAttempts: 0,
			spareSeconds: 0,
		});
	});
});

describe('explainMissing', () => {
	it('sorts missing events by what n8n kept of them', () => {
		expect(
			explainMissing(
				['crashed', 'failed', 'no-trace', 'succeeded', 'orphan', 'mixed'],
				[
					{ eventId: 'crashed', status: 'crashed' },
					{ eventId: 'failed', status: 'error' },
					{ eventId: 'succeeded', status: 'success' },
					{ eventId: 'orphan', status: 'new' },
					{ eventId: 'mixed', status: 'error' },
					{ eventId: 'mixed', status: 'success' },
					{ eventId: undefined, status: 'error' },
				],
			),
		).toEqual({
			interrupted: ['crashed', 'failed'],
			untraced: ['no-trace'],
			unexplained: ['succeeded', 'orphan', 'mixed'],
		});
	});
});

describe('runningInLog and busiestWorker', () => {
	const idle = 'Worker started execution 1 (job 1)\nWorker finished execution 1 (job 1)\n';
	const busy =
		'Worker started execution 2 (job 2)\nWorker started execution 3 (job 3)\n' +
		'Worker finished execution 2 (job 2)\nWorker started execution 4 (job 4)\n';

	it('lists what a worker started and did not finish', () => {
		expect(runningInLog(idle)).toEqual([]);
		expect(runningInLog(busy)).toEqual(['3', '4']);
	});

	it('picks the worker running the most, the first on a tie', () => {
		expect(busiestWorker([idle, busy])).toBe(1);
		expect(busiestWorker([busy, busy])).toBe(0);
		expect(busiestWorker([idle, idle])).toBe(0);
	});
});

describe('timeline', () => {
	it('counts outcomes per bucket from the start', () => {
		const since = Date.parse('2026-01-01T00:00:00.000Z');
		expect(
			timeline(
				[
					{ at: '2026-01-01T00:00:00.500Z', outcome: '2xx' },
					{ at: '2026-01-01T00:00:01.900Z', outcome: '2xx' },
					{ at: '2026-01-01T00:00:02.000Z', outcome: 'status 503' },
					{ at: '2026-01-01T00:00:05.100Z', outcome: 'timeout' },
				],
				since,
				2,
			),
		).toEqual({ '0': { '2xx': 2 }, '2': { 'status 503': 1 }, '4': { timeout: 1 } });
	});
});

describe('renewalSettings', () => {
	it('checks one small run by default: one service-side expiry, earlier tokens revoked', () => {
		expect(renewalSettings({})).toEqual({
			mode: 'check',
			runs: [
				{
					expiry: 'clock',
					earlierTokens: 'revoked',
					executions: 40,
					burstMs: 8_000,
					expiries: 1,
					tokenTtlSeconds: 7_200,
				},
			],
		});
	});

	it('measures both kinds of expiry, with and without revocation; the size can be changed', () => {
		const { mode, runs } = renewalSettings({
			CAPTIONING_QUEUE_RENEWAL: 'measure',
			CAPTIONING_QUEUE_RENEWAL_EXECUTIONS: '100',
		});
		expect(mode).toBe('measure');
		expect(runs.map((r) => [r.expiry, r.earlierTokens, r.expiries, r.tokenTtlSeconds])).toEqual([
			['clock', 'kept', 3, 7_200],
			['clock', 'revoked', 3, 7_200],
			['lifetime', 'kept', 0, 70],
			['lifetime', 'revoked', 0, 70],
		]);
		expect(runs.every((r) => r.executions === 100 && r.burstMs === 30_000)).toBe(true);
	});

	it('is off when asked, and names a value it does not know', () => {
		expect(renewalSettings({ CAPTIONING_QUEUE_RENEWAL: 'off' })).toEqual({ mode: 'off', runs: [] });
		expect(() => renewalSettings({ CAPTIONING_QUEUE_RENEWAL: 'yes' })).toThrow(
			'CAPTIONING_QUEUE_RENEWAL must be "check", "measure" or "off", not "yes"',
		);
	});
});

describe('renewalsOf and tallyRenewals', () => {
	const token = (at: number, grantType: string, status: number) => ({
		at,
		path: '/oauth/token',
		status,
		grantType,
	});
	const log = [
		token(1_000, 'assertion', 200),
		{ at: 5_000, path: '/webhook_endpoints', status: 401 },
		token(5_010, 'refresh_token', 200),
		token(5_020, 'refresh_token', 400),
		token(5_300, 'assertion', 200),
		token(12_000, 'refresh_token', 200),
		token(20_000, 'refresh_token', 429),
		token(21_000, 'refresh_token', 200),
	];

	it('splits at the clock jumps: each renewal from its jump to the next, nothing before the first', () => {
		const renewals = renewalsOf(log, [5_000, 10_000, 15_000]);
		expect(renewals.map((r) => r.map((q) => q.at))).toEqual([
			[5_010, 5_020, 5_300],
			[12_000],
			[20_000, 21_000],
		]);
	});

	it('without jumps, requests less than the gap apart are one renewal; API requests are not counted', () => {
		expect(renewalsOf(log).map((r) => r.length)).toEqual([1, 3, 1, 2]);
	});

	it('counts grants by kind and outcome; only a lone granted refresh is the goal', () => {
		const renewals = renewalsOf(log, [5_000, 10_000, 15_000]);
		expect(grantsOf(renewals[0])).toEqual({
			'refresh_token 200': 1,
			'refresh_token 400': 1,
			'assertion 200': 1,
		});
		expect(tallyRenewals(renewals)).toEqual({
			expiries: 3,
			perExpiry: [
				{ 'refresh_token 200': 1, 'refresh_token 400': 1, 'assertion 200': 1 },
				{ 'refresh_token 200': 1 },
				{ 'refresh_token 429': 1, 'refresh_token 200': 1 },
			],
			oneRefreshOnly: 1,
			refreshesGranted: 3,
			refreshesRefused: 1,
			assertionGrants: 1,
			rateLimited: 1,
		});
	});
});
