// `npm run bench`: the five measurements of issue 7 in a real n8n 2.41 against the sandbox. Prints a table,
// writes bench/results.json, and with --update-doc rewrites the figures block of BENCHMARKS.md.
//
//   bash scripts/run.sh exec tsx bench/run.ts [--quick] [--only 1,3] [--wait-quiet 0.7] [--update-doc]
//   bash scripts/run.sh exec tsx bench/run.ts --report bench/results.json [--update-doc]
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';

import { N8N_VERSION, PROJECT_ROOT, resolveN8nDir, startN8n } from '../test/e2e/harness/n8n';
import type { N8nInstance } from '../test/e2e/harness/n8n';
import { startSandbox } from '../sandbox/server';
import { type BuiltPackages, buildPackages } from './lib/build';
import { eventTemplate, type EventTemplate } from './lib/event';
import {
	findPidByCommandLine,
	loadSample,
	type LoadSample,
	machineInfo,
	waitForQuietMachine,
} from './lib/machine';
import { createCaptioningCredential } from './lib/n8n';
import {
	measureRateLimit,
	measureTokenEconomy,
	type RateLimitRun,
	type TokenEconomyRun,
} from './measure/api';
import { countIsolates, type IsolateCount } from './measure/isolates';
import { measureLatency } from './measure/latency';
import { measureReceiveCost, type ReceiveCost } from './measure/receive-cost';
import { createTargets, measureThroughput, type TargetKey } from './measure/throughput';
import { buildSummary, printTable, renderMarkdown, type Results, updateDoc } from './report';

const execFileAsync = promisify(execFile);

const { values } = parseArgs({
	options: {
		quick: { type: 'boolean', default: false },
		only: { type: 'string' },
		rounds: { type: 'string' },
		duration: { type: 'string', description: 'seconds per throughput run' },
		concurrency: { type: 'string', description: 'comma-separated, e.g. 4,16' },
		'no-variant': { type: 'boolean', default: false },
		'wait-quiet': { type: 'string', description: '1-minute load to wait for (up to 20 min)' },
		out: { type: 'string' },
		report: {
			type: 'string',
			description: 'only print (and --update-doc) an existing results file',
		},
		'update-doc': { type: 'boolean', default: false },
	},
});

const quick = values.quick === true;
const only = new Set((values.only ?? '1,2,3,4,5').split(',').map((s) => Number(s.trim())));
const settings = {
	quick,
	rounds: Number(values.rounds ?? (quick ? 1 : 3)),
	warmupSeconds: quick ? 2 : 3,
	durationSeconds: Number(values.duration ?? (quick ? 5 : 15)),
	concurrencies: (values.concurrency ?? (quick ? '4' : '4,16')).split(',').map(Number),
	variant: values['no-variant'] !== true,
	bodyBytes: 2048,
	isolateCountRequests: quick ? 5 : 20,
	latency: { rounds: quick ? 1 : 3, eventsPerRound: quick ? 4 : 15, gapMs: 400 },
	tokenEconomy: { executions: 20, itemsPerExecution: 50, repetitions: quick ? 1 : 3 },
	rateLimit: {
		cases: quick
			? [{ n: 50, ratePerSecond: 10 }]
			: [
					{ n: 100, ratePerSecond: 10 },
					{ n: 200, ratePerSecond: 20 },
				],
		repetitions: quick ? 1 : 3,
		repetitionsUnannounced: quick ? 1 : 2,
	},
	receiveCost: { iterations: quick ? 2000 : 20_000, repetitions: quick ? 3 : 7 },
	isolateCycle: { cycles: quick ? 10 : 40, repetitions: quick ? 1 : 3 },
};
const outFile = resolve(
	values.out ?? join(PROJECT_ROOT, quick ? 'bench/tmp/results.quick.json' : 'bench/results.json'),
);

const startedAt = Date.now();
const log = (line: string) =>
	process.stderr.write(
		`[bench ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
	);

const loads: Array<{ phase: string } & LoadSample> = [];
const markLoad = (phase: string) => {
	const sample = { phase, ...loadSample() };
	loads.push(sample);
	log(`${phase}: load ${sample.load.join(' ')}`);
};

function readVersion(path: string): string {
	try {
		return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
	} catch {
		return 'unknown';
	}
}

/**
 * n8n configurations, each in its own n8n process; the first is n8n's default. `items`: what runs in it (items 2
 * and 3 do not go through a trigger and run once, in the default configuration).
 */
const CONFIGS: Array<{ key: string; label: string; env: Record<string, string>; items: number[] }> =
	[
		{
			key: 'default',
			label: 'n8n defaults (engine vm, pool size 1, eager isolate acquisition)',
			env: {},
			items: [1, 2, 3, 4, 5],
		},
		{
			key: 'lazyAcquire',
			label: 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true',
			env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
			items: [1, 5],
		},
		{
			key: 'poolSize2',
			label: 'N8N_EXPRESSION_ENGINE_POOL_SIZE=2',
			env: { N8N_EXPRESSION_ENGINE_POOL_SIZE: '2' },
			items: [5],
		},
	];

async function withN8n<T>(
	packages: BuiltPackages,
	env: Record<string, string>,
	body: (n8n: N8nInstance, pid: number) => Promise<T>,
): Promise<T> {
	const n8n = await startN8n({
		packageTarball: settings.variant ? [packages.shipped, packages.variant] : [packages.shipped],
		env,
	});
	try {
		const pid = findPidByCommandLine(`${n8n.userFolder}/.captioning-watchdog.cjs`);
		if (pid === undefined) throw new Error('could not find the n8n process');
		log(`n8n ${N8N_VERSION} ready in ${n8n.timings[0].readySeconds.toFixed(1)} s (pid ${pid})`);
		return await body(n8n, pid);
	} finally {
		await n8n.stop();
	}
}

async function isolateCycleCost(
	n8nDir: string,
): Promise<Array<{ cpuMsPerCycle: number; wallMsPerCycle: number }>> {
	const runs = [];
	for (let i = 0; i < settings.isolateCycle.repetitions; i++) {
		const { stdout } = await execFileAsync(
			join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'),
			[join(__dirname, 'measure', 'isolate-cost.ts'), n8nDir, String(settings.isolateCycle.cycles)],
			{ cwd: PROJECT_ROOT, maxBuffer: 16 * 1024 * 1024 },
		);
		runs.push(JSON.parse(stdout.trim().split('\n').pop()!));
	}
	return runs;
}

/** Leaves what the bench writes as `npm run format` would. */
async function prettier(...files: string[]): Promise<void> {
	await execFileAsync(
		join(PROJECT_ROOT, 'node_modules', '.bin', 'prettier'),
		['--write', ...files],
		{
			cwd: PROJECT_ROOT,
		},
	);
}

/** Prints (and with --update-doc writes into BENCHMARKS.md) the figures of an existing results file. */
async function reportOnly(file: string) {
	const results = JSON.parse(readFileSync(resolve(file), 'utf8')) as Results;
	results.summary = buildSummary(results);
	printTable(results);
	if (values['update-doc']) {
		await updateDoc(join(PROJECT_ROOT, 'BENCHMARKS.md'), renderMarkdown(results));
		await prettier(join(PROJECT_ROOT, 'BENCHMARKS.md'));
		log('updated the figures in BENCHMARKS.md');
	}
}

async function main() {
	if (values.report) return await reportOnly(values.report);
	let quietWait: Results['quietWait'];
	if (values['wait-quiet']) {
		const wait = await waitForQuietMachine(Number(values['wait-quiet']), 20, log);
		quietWait = {
			threshold: Number(values['wait-quiet']),
			quiet: wait.quiet,
			waitedSeconds: wait.waitedSeconds,
		};
		log(
			wait.quiet
				? `machine quiet after ${wait.waitedSeconds} s (load ${wait.sample.load.join(' ')})`
				: `machine still busy after 20 min (load ${wait.sample.load.join(' ')}); measuring anyway`,
		);
	}
	const measuringSince = Date.now();
	markLoad('start');
	const n8nDir = resolveN8nDir();
	const modules = join(n8nDir, 'node_modules');
	const template: EventTemplate = await eventTemplate(settings.bodyBytes);
	const keys: TargetKey[] = settings.variant ? ['ours', 'oursV2', 'webhook'] : ['ours', 'webhook'];

	const raw: Results['raw'] = {
		throughput: {},
		idleCpuRate: {},
		isolates: {},
		latency: {},
		tokenEconomy: [],
		rateLimit: [],
		receiveCost: [],
		isolateCycle: [],
	};

	if (only.has(4)) {
		markLoad('item 4: receive path (in-process)');
		for (let i = 0; i < settings.receiveCost.repetitions; i++) {
			const run: ReceiveCost = measureReceiveCost(template, settings.receiveCost.iterations);
			raw.receiveCost.push(run);
			log(`receive path ${run.totalUs.toFixed(1)} µs/event`);
		}
	}
	if (only.has(1) || only.has(4)) {
		markLoad('item 1: one isolate cycle (child process)');
		raw.isolateCycle = await isolateCycleCost(n8nDir);
		for (const run of raw.isolateCycle) {
			log(
				`isolate cycle ${run.cpuMsPerCycle.toFixed(1)} ms CPU, ${run.wallMsPerCycle.toFixed(1)} ms wall`,
			);
		}
	}

	// item 4 compares against n8n's CPU per request from item 1's runs
	const needsN8n = [1, 2, 3, 4, 5].some((item) => only.has(item));
	let packages: BuiltPackages | undefined;
	try {
		if (needsN8n) {
			log('building the package and the typeVersion 2 variant in a temp dir');
			packages = await buildPackages();
		}
		for (const config of CONFIGS) {
			const runs = (item: number) => only.has(item) && config.items.includes(item);
			const wantThroughput = runs(1) || runs(4);
			const wantLatency = runs(5);
			const wantApi = runs(2) || runs(3);
			if (!packages || !(wantThroughput || wantLatency || wantApi)) continue;
			await withN8n(packages, config.env, async (n8n, pid) => {
				if (wantThroughput) {
					const sandbox = await startSandbox({ rateLimit: null });
					try {
						const credentialId = await createCaptioningCredential(n8n, sandbox, 'bench main');
						const targets = await createTargets(n8n, sandbox, credentialId, keys);
						markLoad(`item 1 (${config.key}): throughput`);
						const result = await measureThroughput(n8n, pid, targets, {
							concurrencies: settings.concurrencies,
							rounds: settings.rounds,
							warmupMs: settings.warmupSeconds * 1000,
							durationMs: settings.durationSeconds * 1000,
							template,
							log,
						});
						raw.throughput[config.key] = result.runs;
						raw.idleCpuRate[config.key] = result.idleCpuRate;
						markLoad(`item 1 (${config.key}): done`);
					} finally {
						await sandbox.stop();
					}
				}
				if (wantLatency) {
					markLoad(`item 5 (${config.key}): delivery latency`);
					raw.latency[config.key] = await measureLatency(n8n, keys, { ...settings.latency, log });
				}
				if (runs(2)) {
					markLoad('item 2: token economy');
					for (const mode of ['sequential', 'concurrent'] as const) {
						for (let i = 0; i < settings.tokenEconomy.repetitions; i++) {
							const run: TokenEconomyRun = await measureTokenEconomy(n8n, {
								mode,
								executions: settings.tokenEconomy.executions,
								itemsPerExecution: settings.tokenEconomy.itemsPerExecution,
							});
							raw.tokenEconomy.push(run);
							log(
								`tokens ${mode}: ${run.tokenRequests} token requests for ${run.apiCalls} API calls ` +
									`(${run.tokenRequestsPer1000Calls.toFixed(2)} per 1,000), ${run.unauthorized} x 401, ` +
									`${run.failedExecutions} failed executions`,
							);
						}
					}
				}
				if (runs(3)) {
					markLoad('item 3: rate-limit efficiency');
					for (const announced of [true, false]) {
						const reps = announced
							? settings.rateLimit.repetitions
							: settings.rateLimit.repetitionsUnannounced;
						for (const testCase of settings.rateLimit.cases) {
							for (let i = 0; i < reps; i++) {
								const run: RateLimitRun = await measureRateLimit(n8n, { ...testCase, announced });
								raw.rateLimit.push(run);
								log(
									`rate limit N=${run.n} R=${run.ratePerSecond}/s ${announced ? 'announced' : 'unannounced'}: ` +
										`${run.seconds.toFixed(2)} s (ideal ${run.idealSeconds} s, ratio ${run.ratio.toFixed(3)}), ` +
										`${run.failures} failures, ${run.rateLimited} x 429`,
								);
							}
						}
					}
				}
			});
		}
		if (packages && only.has(1)) {
			// a separate n8n with /metrics on, only to count isolates; never used for a timing
			for (const config of CONFIGS.filter((c) => c.items.includes(1))) {
				await withN8n(packages, { ...config.env, N8N_METRICS: 'true' }, async (n8n) => {
					const sandbox = await startSandbox({ rateLimit: null });
					try {
						const credentialId = await createCaptioningCredential(n8n, sandbox, 'bench diag');
						const targets = await createTargets(n8n, sandbox, credentialId, keys);
						markLoad(`item 1 (${config.key}): isolates per request`);
						const counts: IsolateCount[] = await countIsolates(
							n8n,
							targets,
							template,
							settings.isolateCountRequests,
						);
						raw.isolates[config.key] = counts;
						for (const c of counts) {
							log(
								`isolates (${config.key}) ${c.target}: ${c.isolatesPerRequest.toFixed(2)} per request ` +
									`(${c.syncColdStartsPerRequest.toFixed(2)} built synchronously), ` +
									`${c.evaluationsPerRequest.toFixed(2)} evaluations`,
							);
						}
					} finally {
						await sandbox.stop();
					}
				});
			}
		}
	} finally {
		await packages?.remove();
	}
	markLoad('end');

	const results: Results = {
		schema: 1,
		date: new Date(measuringSince).toISOString(),
		durationSeconds: Math.round((Date.now() - measuringSince) / 1000),
		quietWait,
		machine: machineInfo(),
		load: loads,
		versions: {
			node: process.version,
			n8n: readVersion(join(modules, 'n8n', 'package.json')),
			n8nCore: readVersion(join(modules, 'n8n-core', 'package.json')),
			n8nWorkflow: readVersion(join(modules, 'n8n-workflow', 'package.json')),
			expressionRuntime: readVersion(join(modules, '@n8n', 'expression-runtime', 'package.json')),
			isolatedVm: readVersion(join(modules, 'isolated-vm', 'package.json')),
			package: readVersion(join(PROJECT_ROOT, 'package.json')),
		},
		settings: { ...settings, bodyBytes: template.bytes, configs: CONFIGS },
		summary: { throughput: {}, isolates: {}, latency: {} },
		raw,
	};
	results.summary = buildSummary(results);
	await mkdir(dirname(outFile), { recursive: true });
	await writeFile(outFile, JSON.stringify(results, null, '\t') + '\n');
	await prettier(outFile);
	printTable(results);
	log(`wrote ${outFile}`);
	if (values['update-doc']) {
		await updateDoc(join(PROJECT_ROOT, 'BENCHMARKS.md'), renderMarkdown(results));
		await prettier(join(PROJECT_ROOT, 'BENCHMARKS.md'));
		log('updated the figures in BENCHMARKS.md');
	}
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
	process.exit(1);
});
