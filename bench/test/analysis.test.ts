// The benchmark's pure decisions: which versions it measures, how it pairs runs, how it reads a CPU profile
// and n8n's query log.
//   npm test -- --selectProjects bench
import { newNodeDescription, previewVersion2, triggerVersions } from '../lib/build';
import { analyseProfile, type CpuProfile, ownerOf } from '../lib/cpuprofile';
import { perRequestTable, type ProfileWindow } from '../lib/profileTable';
import { countStatements, statementKey } from '../lib/queries';
import { tokenRouteOf } from '../lib/n8n';
import { medianInterval } from '../lib/stats';
import {
	buildBenchSummary,
	buildSummary,
	goalRatios,
	pairedRatios,
	ratioFigure,
	type Results,
} from '../report';
import { fullSeenList } from '../lib/earlierList';
import {
	isPrimed,
	measuringOrder,
	roundOrder,
	selectTargets,
	targetSpecs,
	type ThroughputRun,
} from '../measure/throughput';

const run = (
	target: ThroughputRun['target'],
	round: number,
	eventsPerSecond: number,
	n8nCpuMsPerRequest = 10,
) =>
	({
		target,
		round,
		concurrency: 4,
		eventsPerSecond,
		n8nCpuMsPerRequest,
		p50Ms: 100,
		p99Ms: 200,
	}) as ThroughputRun;

describe('newNodeDescription', () => {
	test("one description as it is; a versioned type's at its default version, with all its versions", () => {
		const plain = { version: [1, 2], properties: ['p'] };
		expect(newNodeDescription({ description: plain })).toBe(plain);
		const versioned = {
			description: { defaultVersion: 2 },
			nodeVersions: {
				1: { description: { version: 1, properties: ['old'] } },
				2: { description: { version: 2, properties: ['new'] } },
				3: { description: { version: 3, properties: ['next'] } },
			},
		};
		expect(newNodeDescription(versioned)).toEqual({
			version: [1, 2, 3],
			defaultVersion: 2,
			properties: ['new'],
		});
		// without a defaultVersion, the highest
		expect(newNodeDescription({ ...versioned, description: {} }).properties).toEqual(['next']);
	});
});

describe('triggerVersions', () => {
	it('takes a single version as the default', () => {
		expect(triggerVersions({ version: 1 })).toEqual({ versions: [1], defaultVersion: 1 });
	});
	it('takes the highest listed version when no default is declared', () => {
		expect(triggerVersions({ version: [1, 2] })).toEqual({ versions: [1, 2], defaultVersion: 2 });
	});
	it('takes the declared defaultVersion over the highest', () => {
		expect(triggerVersions({ version: [1, 2], defaultVersion: 1 }).defaultVersion).toBe(1);
	});
});

describe('previewVersion2', () => {
	const compiled = "\n\t\t\tgroup: ['trigger'],\n\t\t\tversion: 1,\n\t\t\tsubtitle: 'x',";
	it('declares versions 1 and 2 with 2 as the default', () => {
		expect(previewVersion2(compiled)).toBe(
			"\n\t\t\tgroup: ['trigger'],\n\t\t\tversion: [1, 2],\n\t\t\tdefaultVersion: 2,\n\t\t\tsubtitle: 'x',",
		);
	});
	it('refuses a trigger that has no version 1 line', () => {
		expect(() => previewVersion2(compiled.replace('version: 1', 'version: [1, 2]'))).toThrow(
			/run without --preview-v2/,
		);
	});
});

describe('targetSpecs', () => {
	it('measures ours at its only version, steady and fresh, and no separate v1', () => {
		const keys = targetSpecs({ versions: [1], defaultVersion: 1 }).map((s) => s.key);
		expect(keys).toEqual([
			'ours',
			'oursFresh',
			'floor',
			'floorCred',
			'floorCredList',
			'floorCredPrimed',
			'floorCredNode',
			'floorCredDesc',
			'floorV1',
			'webhook',
			'webhookCredNode',
		]);
	});
	it('measures the floor bare and carrying the credential ours carries, both at its best version', () => {
		const specs = targetSpecs({ versions: [1, 2], defaultVersion: 2 });
		const floors = specs.filter((s) => s.kind === 'floor');
		expect(
			floors.map((s) => [
				s.key,
				s.typeVersion,
				s.credential ?? false,
				s.list ?? false,
				s.credentialNode ?? false,
			]),
		).toEqual([
			['floor', 2, false, false, false],
			['floorCred', 2, true, false, false],
			['floorCredList', 2, true, true, false],
			['floorCredPrimed', 2, true, false, false],
			['floorCredNode', 2, false, false, true],
			['floorCredDesc', 2, true, false, false],
			['floorV1', 1, false, false, false],
		]);
	});
	it('adds ours at v1 for the record when the default is another version', () => {
		const specs = targetSpecs({ versions: [1, 2], defaultVersion: 2 });
		expect(specs.find((s) => s.key === 'ours')?.typeVersion).toBe(2);
		expect(specs.find((s) => s.key === 'oursV1')).toMatchObject({
			typeVersion: 1,
			dedupe: 'steady',
		});
	});
});

describe('isPrimed', () => {
	it('primes ours in its steady state and a floor that asks for it, nothing else', () => {
		const specs = targetSpecs({ versions: [1, 2], defaultVersion: 2 });
		expect(specs.filter(isPrimed).map((s) => s.key)).toEqual(['ours', 'oursV1', 'floorCredPrimed']);
	});
});

describe('fullSeenList', () => {
	it('is a list at its limit as earlier versions saved it: 1,000 entries of 15 characters, all of one minute', () => {
		const list = fullSeenList(Date.UTC(2026, 10, 23, 12, 0));
		expect(list).toHaveLength(15_000);
		const entries = list.match(/.{15}/g)!;
		expect(entries).toHaveLength(1000);
		// 2026-11-23T12:00Z is minute 29,923,920 since 1970: htdg0 in base36
		expect(entries.every((e) => /^[\w-]{10}htdg0$/.test(e))).toBe(true);
		expect(new Set(entries).size).toBe(1000);
	});
});

describe('roundOrder', () => {
	it('keeps the order in odd rounds and reverses it in even ones', () => {
		expect(roundOrder(['a', 'b', 'c'], 1)).toEqual(['a', 'b', 'c']);
		expect(roundOrder(['a', 'b', 'c'], 2)).toEqual(['c', 'b', 'a']);
		expect(roundOrder(['a', 'b', 'c'], 3)).toEqual(['a', 'b', 'c']);
	});
	it('lets each of two neighbours run first in every other round', () => {
		const firsts = [1, 2, 3, 4]
			.map((round) => roundOrder(['x', 'ours', 'floor', 'y'], round))
			.map((order) => (order.indexOf('ours') < order.indexOf('floor') ? 'ours' : 'floor'));
		expect(firsts).toEqual(['ours', 'floor', 'ours', 'floor']);
	});
});

describe('measuringOrder', () => {
	it('puts ours between the floor and the floor with a credential, the floor beside the Webhook node', () => {
		const specs = selectTargets(targetSpecs({ versions: [1, 2], defaultVersion: 2 }), undefined);
		const keys = measuringOrder(specs).map((s) => s.key);
		expect(keys).toHaveLength(specs.length);
		const at = (key: string) => keys.indexOf(key as never);
		expect(Math.abs(at('ours') - at('floor'))).toBe(1);
		expect(Math.abs(at('ours') - at('floorCred'))).toBe(1);
		expect(Math.abs(at('floor') - at('webhook'))).toBe(1);
		expect([0, keys.length - 1]).toContain(at('oursFresh'));
	});
	it('keeps its order when typeVersion 1 is the default and oursV1 is absent', () => {
		const keys = measuringOrder(
			selectTargets(targetSpecs({ versions: [1], defaultVersion: 1 }), undefined),
		).map((s) => s.key);
		expect(keys).toEqual(['floorV1', 'floorCred', 'ours', 'floor', 'webhook', 'oursFresh']);
	});
	it('puts ours between the floors with a credential, without and with a list, when a bisection names them', () => {
		const specs = targetSpecs({ versions: [1, 2], defaultVersion: 2 });
		const keys = measuringOrder(selectTargets(specs, 'floorCredList,floorCred,ours')).map(
			(s) => s.key,
		);
		expect(keys).toEqual(['floorCred', 'ours', 'floorCredList']);
		expect(
			measuringOrder(selectTargets(specs, 'floorCredPrimed,ours,floorCred')).map((s) => s.key),
		).toEqual(['floorCred', 'ours', 'floorCredPrimed']);
	});
	it('puts the credential on another node beside the credential on the trigger, for both references', () => {
		const specs = targetSpecs({ versions: [1, 2], defaultVersion: 2 });
		const keys = measuringOrder(
			selectTargets(specs, 'ours,floorCred,floorCredNode,webhookCredNode,webhook'),
		).map((s) => s.key);
		expect(keys).toEqual(['webhookCredNode', 'floorCredNode', 'floorCred', 'ours', 'webhook']);
	});
});

describe('pairedRatios', () => {
	it('pairs runs of the same round and skips rounds without a partner or with 0 events/s', () => {
		const runs = [
			run('ours', 1, 10),
			run('floor', 1, 20),
			run('ours', 2, 30),
			run('floor', 2, 0),
			run('ours', 3, 9),
		];
		expect(pairedRatios(runs, 'ours', 'floor')).toEqual([0.5]);
	});
});

describe('medianInterval', () => {
	const ranks = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
	// the sign test's order statistics: n = 6..8 min–max; 9 → x(2), x(8); 12 → x(3), x(10); 20 → x(6), x(15)
	it.each([
		[5, undefined],
		[6, { low: 1, high: 6, confidence: 1 - 2 / 64 }],
		[7, { low: 1, high: 7, confidence: 1 - 2 / 128 }],
		[9, { low: 2, high: 8, confidence: 1 - 20 / 512 }],
		[12, { low: 3, high: 10, confidence: 1 - (2 * (1 + 12 + 66)) / 4096 }],
		[20, { low: 6, high: 15 }],
	])('for %i values', (n, expected) => {
		const interval = medianInterval(ranks(n).reverse());
		if (expected === undefined) expect(interval).toBeUndefined();
		else expect(interval).toMatchObject(expected);
	});
});

describe('ratioFigure', () => {
	it('summarises the paired ratios of events/s or of n8n CPU per request, with the median’s 95 % interval', () => {
		const runs = [0.9, 0.96, 1, 1.02, 0.97, 0.99, 1.05, 0.98].flatMap((ratio, i) => [
			run('ours', i + 1, 100 * ratio, 12 / ratio),
			run('floorCred', i + 1, 100, 12),
		]);
		const figure = ratioFigure(runs, 'ours/floorCred')!;
		expect(figure).toMatchObject({ n: 8, median: 0.985, min: 0.9, max: 1.05 });
		expect(figure.interval95).toMatchObject({ low: 0.9, high: 1.05 });
		expect(ratioFigure(runs, 'ours/floorCred', 'n8nCpuMsPerRequest')).toMatchObject({
			n: 8,
			min: 0.952,
			max: 1.111,
		});
		expect(ratioFigure(runs, 'ours/floor')).toBeUndefined();
	});
});

describe('goalRatios', () => {
	it('pairs ours with the floor with a credential per round, CPU and events/s, at the first concurrency', () => {
		const runs = [
			run('floorCred', 1, 50, 10),
			run('ours', 1, 45, 11),
			run('ours', 2, 60, 9),
			run('floorCred', 2, 50, 10),
			// a second concurrency and a round past the limit are left out
			{ ...run('ours', 1, 1, 1), concurrency: 16 },
			{ ...run('floorCred', 1, 1, 1), concurrency: 16 },
			run('ours', 3, 50, 10),
			run('floorCred', 3, 50, 10),
		];
		const ratios = goalRatios(runs, 2);
		expect(ratios.throughput).toEqual([0.9, 1.2]);
		expect(ratios.cpu.map((r) => Math.round(r * 100) / 100)).toEqual([1.1, 0.9]);
		expect(goalRatios(runs).cpu).toHaveLength(3);
	});
});

describe('buildBenchSummary', () => {
	it('reports per setting the median ratios over rounds and p50 per target', () => {
		const results = {
			schema: 2,
			date: '2026-01-01T00:00:00.000Z',
			durationSeconds: 1,
			command: 'npm run bench',
			machine: { cpuModel: 'x', cores: 2, memoryGiB: 1, kernel: 'k', platform: 'p' },
			load: [
				{ phase: 'start', at: 'a', load: [1, 1, 1] },
				{ phase: 'end', at: 'b', load: [3, 1, 1] },
			],
			versions: {},
			settings: {},
			targets: { ours: { label: 'ours', kind: 'ours', typeVersion: 2 } },
			n8nSettings: { lazy: { label: 'lazy', env: { A: '1' } } },
			summary: { throughput: {}, isolates: {}, latency: {} },
			raw: {
				throughput: {
					lazy: [
						run('ours', 1, 9),
						run('floor', 1, 10),
						run('webhook', 1, 20),
						run('ours', 2, 10),
						run('floor', 2, 10),
						run('webhook', 2, 10),
						run('ours', 3, 8),
						run('floor', 3, 10),
						run('webhook', 3, 10),
					],
				},
				idleCpuRate: {},
				priming: {},
				isolates: {},
				latency: {
					lazy: [
						{
							round: 1,
							target: 'ours',
							events: 3,
							p50Ms: 30,
							p99Ms: 1,
							answerP50Ms: 1,
							answerP99Ms: 1,
						},
						{
							round: 2,
							target: 'ours',
							events: 3,
							p50Ms: 10,
							p99Ms: 1,
							answerP50Ms: 1,
							answerP99Ms: 1,
						},
						{
							round: 3,
							target: 'ours',
							events: 3,
							p50Ms: 20,
							p99Ms: 1,
							answerP50Ms: 1,
							answerP99Ms: 1,
						},
					],
				},
				tokenEconomy: [],
				rateLimit: [],
				receiveCost: [],
				isolateCycle: [],
			},
		} as unknown as Results;
		results.summary = buildSummary(results);
		const summary = buildBenchSummary(results);
		expect(summary.default).toBeUndefined();
		expect(summary.lazy).toMatchObject({
			env: { A: '1' },
			rounds: 3,
			connections: 4,
			oursOverFloor: 0.9,
			oursOverWebhook: 0.8,
			floorOverWebhook: 1,
			p50ms: { ours: 20 },
		});
		expect(summary.load).toMatchObject({ min: 1, max: 3, median: 2 });
	});

	it('records the goal as the last look decided it, with both intervals, the check and the load of its rounds', () => {
		// 8 rounds: CPU ratios 0.97-1.04 (met), events/s 0.96-1.03 (met), the check 0.9-1.1
		const cpu = [0.98, 1.0, 1.01, 0.99, 1.03, 1.02, 0.97, 1.04];
		const eps = [0.96, 1.0, 1.01, 0.99, 1.03, 1.02, 0.97, 1.0];
		const check = [0.9, 1.0, 1.1, 1.0, 0.95, 1.05, 1.0, 1.0];
		const runs = cpu.flatMap((c, i) => [
			run('ours', i + 1, 50 * eps[i], 10 * c),
			run('floorCred', i + 1, 50, 10),
			run('floor', i + 1, 50 / check[i], 10),
		]);
		const rule = { first: 8, step: 4, cap: 24 };
		const results = {
			schema: 2,
			date: '2026-01-01T00:00:00.000Z',
			durationSeconds: 1,
			command: 'npm run bench -- --only 1,6',
			machine: { cpuModel: 'x', cores: 2, memoryGiB: 1, kernel: 'k', platform: 'p' },
			load: [
				{ phase: 'start', at: 'a', load: [5, 1, 1] },
				...cpu.map((_, i) => ({
					phase: `legacy: round ${i + 1}`,
					at: 'a',
					load: [1 + i / 10, 1, 1],
				})),
				{ phase: 'lazy: round 1', at: 'a', load: [9, 1, 1] },
			],
			versions: {},
			settings: { stopRule: rule },
			targets: {},
			n8nSettings: { legacy: { label: 'legacy', env: {} } },
			summary: { throughput: {}, isolates: {}, latency: {} },
			raw: {
				throughput: { legacy: runs },
				idleCpuRate: {},
				priming: {},
				isolates: {},
				latency: {},
				tokenEconomy: [],
				rateLimit: [],
				receiveCost: [],
				isolateCycle: [],
				requestsPerRun: { legacy: 580 },
			},
		} as unknown as Results;
		results.summary = buildSummary(results);
		const goal = buildBenchSummary(results).legacy!.goal!;
		expect(goal).toMatchObject({
			verdict: 'met',
			rounds: 8,
			requestsPerRun: 580,
			looks: [8, 12, 16, 20, 24],
			confidence: 0.99,
			cpu: {
				ratio: 'ours/floorCred n8n CPU per request',
				bound: 'atMost',
				threshold: 1.05,
				n: 8,
				median: 1.005,
				interval: { low: 0.97, high: 1.04, confidence: 0.9922 },
				verdict: 'met',
			},
			throughput: { bound: 'atLeast', threshold: 0.95, median: 1, verdict: 'met' },
			check: { median: 1, min: 0.9, max: 1.1, suspect: false },
			load: { min: 1, median: 1.35, max: 1.7 },
		});
	});
});

describe('ownerOf', () => {
	it('names the innermost package, scoped or not', () => {
		expect(ownerOf('file:///u/.n8n/nodes/node_modules/n8n-nodes-captioning/dist/a.js', 'f')).toBe(
			'n8n-nodes-captioning',
		);
		expect(ownerOf('/x/node_modules/n8n/node_modules/@n8n/typeorm/a.js', 'f')).toBe('@n8n/typeorm');
	});
	it('tells node core, V8 pseudo-frames and script-less builtins apart', () => {
		expect(ownerOf('node:internal/streams', 'f')).toBe('node core');
		expect(ownerOf('', '(garbage collector)')).toBe('garbage collector');
		expect(ownerOf('', '(idle)')).toBe('idle');
		expect(ownerOf('', 'parse')).toBeUndefined();
	});
});

describe('analyseProfile', () => {
	const frame = (functionName: string, url: string) => ({
		functionName,
		url,
		lineNumber: 0,
		columnNumber: 0,
	});
	const profile: CpuProfile = {
		nodes: [
			{ id: 1, callFrame: frame('(root)', ''), children: [2, 5] },
			{
				id: 2,
				callFrame: frame('executeWebhook', '/m/node_modules/n8n/dist/live.js'),
				children: [3],
			},
			{ id: 3, callFrame: frame('webhook', '/m/node_modules/ours/t.js'), children: [4] },
			{ id: 4, callFrame: frame('parse', ''), children: [] },
			{ id: 5, callFrame: frame('(idle)', ''), children: [] },
		],
		startTime: 0,
		endTime: 10_000,
		samples: [4, 4, 3, 2, 5],
		timeDeltas: [1000, 1000, 1000, 1000, 6000],
	};
	it('counts a builtin for its caller, idle apart, and markers for everything beneath them', () => {
		const result = analyseProfile(profile, [
			{ label: 'request', url: 'n8n/dist/live.js' },
			{ label: 'ours', url: 'ours/t.js', functionName: 'webhook' },
		]);
		expect(result.idleMs).toBe(6);
		expect(result.busyMs).toBe(4);
		expect(result.byOwner).toEqual({ ours: 3, n8n: 1 });
		expect(result.byMarker).toEqual({ request: 4, ours: 3 });
		expect(result.byFunction).toEqual({});
	});
	it('times each function of the detailed scripts with everything beneath it', () => {
		const result = analyseProfile(profile, [], 'node_modules/ours/');
		expect(result.byFunction).toEqual({ 'webhook t.js:1': 3 });
	});
});

describe('statementKey', () => {
	it('names the statement by verb and main table', () => {
		expect(statementKey('query: SELECT "a"."id" FROM "workflow_entity" "a" WHERE x = ?')).toBe(
			'SELECT workflow_entity',
		);
		expect(statementKey('2026 debug query: INSERT INTO "execution_entity"("id") VALUES (?)')).toBe(
			'INSERT execution_entity',
		);
		expect(statementKey('query: UPDATE "workflow_entity" SET "staticData" = ?')).toBe(
			'UPDATE workflow_entity',
		);
		expect(statementKey('query: BEGIN TRANSACTION')).toBe('BEGIN');
	});
});

describe('countStatements', () => {
	const esc = String.fromCharCode(27);
	it('counts the query lines per request, colour codes and other lines aside', () => {
		const output = [
			`${esc}[2mquery:${esc}[0m SELECT "a" FROM "workflow_entity" "a"`,
			'Webhook received',
			'query: INSERT INTO "execution_entity"("id") VALUES (?)',
			'query: SELECT "b" FROM "workflow_entity" "b"',
			'query: SELECT "c" FROM "workflow_entity" "c"',
		].join('\n');
		const counted = countStatements(output, 2);
		expect(counted.perRequest).toBe(2);
		expect(counted.byStatement).toEqual({
			'SELECT workflow_entity': 1.5,
			'INSERT execution_entity': 0.5,
		});
	});
	it('counts nothing in output without queries', () => {
		expect(countStatements('Editor is now accessible via\n', 5)).toEqual({
			perRequest: 0,
			byStatement: {},
		});
	});
});

describe('perRequestTable', () => {
	const window = (target: string, requests: number, over: Partial<ProfileWindow> = {}) =>
		({
			target,
			round: 1,
			requests,
			eventsPerSecond: requests / 10,
			groupCpuMs: requests * 20,
			// the main thread's CPU is twice the profile's busy time: shares are scaled by 2
			threadsCpuMs: { 'main (n8n)': requests * 8, 'task runner': requests * 2 },
			profile: {
				busyMs: requests * 4,
				idleMs: 0,
				byOwner: { n8n: requests * 3 },
				byMarker: {},
				byFunction: { 'webhook t.js:1': requests * 0.02, 'tiny t.js:9': requests * 0.001 },
			},
			executionDataBytes: 900,
			load1: 0.5,
			...over,
		}) as ProfileWindow;

	it('gives ms per request by cause, scaled to the main thread, median over rounds', () => {
		const { columns, table } = perRequestTable([
			window('ours', 100),
			window('floor', 100, { groupCpuMs: 1500 }),
			window('ours', 100, { groupCpuMs: 3000, round: 2 }),
		]);
		expect(columns).toEqual(['ours', 'floor']);
		const row = (name: string) => table.find((r) => r.row === name);
		expect(row('CPU, n8n process group (all threads, task runner)')).toEqual({
			row: 'CPU, n8n process group (all threads, task runner)',
			ours: 25,
			floor: 15,
			'ours − floor': 10,
		});
		expect(row('  thread: main (n8n)')).toMatchObject({ ours: 8, floor: 8 });
		expect(row('main thread, profiled samples (wall ms, unscaled)')).toMatchObject({ ours: 4 });
		expect(row('  self: n8n')).toMatchObject({ ours: 6 });
		expect(row('execution data, bytes')).toMatchObject({ ours: 900 });
	});
	it('reads ours against the floor with a credential when it was profiled', () => {
		const { columns, table } = perRequestTable([
			window('ours', 100),
			window('floor', 100, { groupCpuMs: 1500 }),
			window('floorCred', 100, { groupCpuMs: 1800 }),
		]);
		expect(columns).toEqual(['ours', 'floor', 'floorCred']);
		expect(table.find((r) => String(r.row).startsWith('CPU, n8n process group'))).toEqual({
			row: 'CPU, n8n process group (all threads, task runner)',
			ours: 20,
			floor: 15,
			floorCred: 18,
			'ours − floorCred': 2,
		});
	});
	it('keeps functions of ours from 0.01 ms per request', () => {
		const { table } = perRequestTable([window('ours', 100)]);
		expect(table.map((r) => r.row)).toContain('  ours, function: webhook t.js:1');
		expect(table.map((r) => r.row)).not.toContain('  ours, function: tiny t.js:9');
	});
	it('reports the prefilled state of ours by name, and 0 where a target lacks a row', () => {
		const { columns, table } = perRequestTable([
			window('floor', 50, { threadsCpuMs: { main: 400 } }),
			window('oursFresh', 50),
		]);
		expect(columns).toEqual(['floor', 'oursPrefilled']);
		expect(table.find((r) => r.row === '  thread: task runner')).toEqual({
			row: '  thread: task runner',
			floor: 0,
			oursPrefilled: 2,
		});
	});
});

describe('selectTargets', () => {
	const specs = targetSpecs({ versions: [1, 2], defaultVersion: 2 });
	it('keeps every target but the opt-in ones without a list', () => {
		expect(selectTargets(specs, undefined).map((s) => s.key)).toEqual([
			'ours',
			'oursFresh',
			'oursV1',
			'floor',
			'floorCred',
			'floorV1',
			'webhook',
		]);
	});
	it('measures an opt-in target when named', () => {
		expect(selectTargets(specs, 'floorCredList').map((s) => s.key)).toEqual(['floorCredList']);
	});
	it('keeps the named ones in their own order', () => {
		expect(selectTargets(specs, 'floor, ours').map((s) => s.key)).toEqual(['ours', 'floor']);
	});
	it('names an unknown key and the choices', () => {
		expect(() => selectTargets(specs, 'ours,flor')).toThrow(
			/unknown --targets flor: choose from ours,/,
		);
	});
});

describe('tokenRouteOf', () => {
	it('moves the query’s token to the token route of the same trigger', () => {
		const id = '0f6c7c2e-2b1a-4c1e-9b0e-1d2c3b4a5f60';
		expect(tokenRouteOf(`http://127.0.0.1:5678/webhook/${id}/webhook?token=a-b_c`)).toBe(
			`http://127.0.0.1:5678/webhook/${id}/${id}/a-b_c`,
		);
		expect(() => tokenRouteOf(`http://127.0.0.1:5678/webhook/${id}/webhook`)).toThrow(
			'not a trigger URL with a token',
		);
	});
});
