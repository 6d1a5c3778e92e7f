// `npm run bench`: the package in a real n8n 2.41 against the sandbox, beside the floor (the cheapest community
// trigger) and n8n's Webhook node. Prints a table, writes bench/results.json and bench/summary.json, and with
// --update-doc rewrites the figures block of BENCHMARKS.md. Options: see BENCHMARKS.md.
//
//   npm run bench -- [--quick] [--only 1,5] [--settings default,lazy,legacy] [--update-doc]
//   npm run bench -- --report bench/results.json [--update-doc]
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';

import { N8N_VERSION, type N8nInstance, PROJECT_ROOT, resolveN8nDir, startN8n } from '../harness';
import { type Sandbox, startSandbox } from '../sandbox/server';
import { type BuiltPackages, buildPackages } from './lib/build';
import { PRIME_EVENTS } from './lib/earlierList';
import { Callgrind, callgrindCommand } from './lib/callgrind';
import { Inspector, inspectorUrlIn } from './lib/inspector';
import { eventTemplate, type EventTemplate } from './lib/event';
import {
	findPidByCommandLine,
	loadSample,
	type LoadSample,
	machineInfo,
	waitForQuietMachine,
} from './lib/machine';
import { createCaptioningCredential, tokenRouteOf } from './lib/n8n';
import {
	measureRateLimit,
	measureTokenEconomy,
	type RateLimitRun,
	type TokenEconomyRun,
} from './measure/api';
import {
	type InstructionSetting,
	instructionRatios,
	measureInstructions,
	medianIdleRate,
	perRequest,
} from './measure/instructions';
import { countIsolates, type IsolateCount } from './measure/isolates';
import { type LatencyRound, measureLatency } from './measure/latency';
import { measureCaptions } from './measure/captions';
import { measureReceiveCost, type ReceiveCost } from './measure/receive-cost';
import {
	type Decision,
	DEFAULT_STOP_RULE,
	fixedRounds,
	GOAL,
	lookRounds,
	type StopRule,
	lookAfter,
} from './lib/goal';
import {
	createTarget,
	idleCpuRate,
	isPrimed,
	measureRun,
	measuringOrder,
	primeTarget,
	requestsPerRun,
	roundOrder,
	savedStaticDataBytes,
	selectTargets,
	type Target,
	type TargetKey,
	type TargetSpec,
	targetSpecs,
	type ThroughputRun,
} from './measure/throughput';
import {
	buildBenchSummary,
	buildCaptionsSummary,
	buildSummary,
	goalRatios,
	type PrimingRecord,
	printTable,
	renderMarkdown,
	type Results,
	type SettingInfo,
	updateDoc,
} from './report';

const execFileAsync = promisify(execFile);

const { values } = parseArgs({
	options: {
		quick: { type: 'boolean', default: false },
		only: { type: 'string', description: 'items, comma-separated (1-7)' },
		settings: {
			type: 'string',
			description: 'n8n settings for items 1, 5, 6: default,lazy,legacy',
		},
		rounds: {
			type: 'string',
			description:
				'item 1: this many rounds exactly (one look at the goal); default: the stop rule',
		},
		'figure-rounds': {
			type: 'string',
			description: 'item 1: rounds in which every target runs; later rounds run the goal pair only',
		},
		'max-rounds': { type: 'string', description: 'item 1: the stop rule cap (default 24)' },
		requests: {
			type: 'string',
			description:
				'measured requests per throughput run; default: --duration seconds at the floor rate',
		},
		duration: { type: 'string', description: 'seconds a throughput run aims at' },
		warmup: { type: 'string', description: 'seconds of warm-up before each throughput run' },
		pause: {
			type: 'string',
			description: 'seconds of quiet before each throughput run (as bench/profile.ts leaves)',
		},
		concurrency: { type: 'string', description: 'comma-separated, e.g. 4,16' },
		prime: {
			type: 'string',
			description: 'distinct events sent through a steady-state trigger first',
		},
		'latency-events': { type: 'string', description: 'item 5: deliveries per target per round' },
		'instruction-requests': {
			type: 'string',
			description: 'item 9: measured requests per run under callgrind (default 32; 8 in default)',
		},
		'instruction-rounds': {
			type: 'string',
			description: 'item 9: the stop rule cap (default 16)',
		},
		targets: {
			type: 'string',
			description:
				'items 1, 5, 6: only these targets, comma-separated (e.g. ours,floor,floorCred); item 9: these beside ours and floorCred',
		},
		'n8n-env': {
			type: 'string',
			multiple: true,
			description: 'KEY=VALUE for every n8n the benchmark starts (an experiment; repeatable)',
		},
		'preview-v2': { type: 'boolean', default: false },
		'wait-quiet': { type: 'string', description: '1-minute load to wait for (up to 20 min)' },
		out: { type: 'string' },
		'summary-out': { type: 'string' },
		report: {
			type: 'string',
			description: 'only print (and --update-doc) an existing results file',
		},
		'update-doc': { type: 'boolean', default: false },
	},
});

const quick = values.quick === true;
const only = new Set((values.only ?? '1,2,3,4,5,6,7,9').split(',').map((s) => Number(s.trim())));

/** The n8n settings items 1, 5 and 6 run in, each in an n8n process of its own. */
const N8N_SETTINGS: Record<string, SettingInfo> = {
	default: { label: "n8n's defaults (engine vm, pool size 1, eager isolate acquisition)", env: {} },
	lazy: {
		label: 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true',
		env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	},
	legacy: { label: 'N8N_EXPRESSION_ENGINE=legacy', env: { N8N_EXPRESSION_ENGINE: 'legacy' } },
};
/** --n8n-env KEY=VALUE pairs, given to every n8n started (after the setting's own variables). */
const extraN8nEnv: Record<string, string> = Object.fromEntries(
	(values['n8n-env'] ?? []).map((pair) => {
		const at = pair.indexOf('=');
		if (at < 1) throw new Error(`--n8n-env ${pair}: write KEY=VALUE`);
		return [pair.slice(0, at), pair.slice(at + 1)];
	}),
);
const settingKeys = (values.settings ?? 'default,lazy,legacy').split(',').map((s) => s.trim());
for (const key of settingKeys) {
	if (!N8N_SETTINGS[key])
		throw new Error(`unknown --settings value ${key}: default, lazy or legacy`);
}

/** Item 1's rounds: a fixed number (--rounds, --quick), or the stop rule of bench/lib/goal.ts up to its cap. */
function stopRule(): StopRule {
	if (quick) return fixedRounds(1);
	if (values.rounds) return fixedRounds(Number(values.rounds));
	const cap = Number(values['max-rounds'] ?? DEFAULT_STOP_RULE.cap);
	return { ...DEFAULT_STOP_RULE, first: Math.min(DEFAULT_STOP_RULE.first, cap), cap };
}

const rule = stopRule();
const settings = {
	quick,
	stopRule: rule,
	/** Rounds in which every target runs (and item 5 with them); later ones run the goal's pair alone. */
	figureRounds: Math.min(rule.cap, Number(values['figure-rounds'] ?? rule.first)),
	requestsPerRun: values.requests === undefined ? undefined : Number(values.requests),
	warmupSeconds: Number(values.warmup ?? (quick ? 1 : 3)),
	pauseSeconds: Number(values.pause ?? 0),
	durationSeconds: Number(values.duration ?? (quick ? 4 : 10)),
	concurrencies: (values.concurrency ?? '4').split(',').map(Number),
	/** Steady state: distinct events through the trigger first (n8n's execution history, the claims). */
	primeEvents: Number(values.prime ?? (quick ? 100 : PRIME_EVENTS)),
	previewV2: values['preview-v2'] === true,
	n8nSettings: settingKeys,
	bodyBytes: 2048,
	latency: {
		eventsPerRound: Number(values['latency-events'] ?? (quick ? 3 : 12)),
		gapMs: 300,
	},
	isolateCountRequests: quick ? 5 : 20,
	/** Item 9 under callgrind: its stop rule (looks after 8, 12, 16 rounds); requests: instructionRequests. */
	instructions: {
		warmupRequests: quick ? 4 : 8,
		stopRule: quick
			? fixedRounds(1)
			: { first: 8, step: 4, cap: Number(values['instruction-rounds'] ?? 16) },
		idleSeconds: quick ? 3 : 6,
	},
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
	captions: {
		hours: 3,
		rounds: quick ? 3 : 9,
		factors: quick ? [1, 4] : [1, 4, 16],
		minSampleMs: quick ? 50 : 200,
	},
};
/** The targets items 1, 5 and 6 measure: every one the built trigger gives, or those `--targets` names. */
const measuredSpecs = (packages: BuiltPackages) =>
	selectTargets(targetSpecs(packages.trigger), values.targets);

// item 7 alone keeps its own results file, so the last full run's raw figures stay
const captionsOnly = only.size === 1 && only.has(7);
const outFile = resolve(
	values.out ??
		join(
			PROJECT_ROOT,
			quick
				? 'bench/tmp/results.quick.json'
				: captionsOnly
					? 'bench/results.captions.json'
					: 'bench/results.json',
		),
);
/** Written after each setting of items 1 and 5 (`--report` renders it): what a run that dies later leaves. */
const partialFile = join(
	PROJECT_ROOT,
	'bench',
	'tmp',
	basename(outFile).replace(/\.json$/, '.partial.json'),
);
const summaryFile = resolve(
	values['summary-out'] ??
		join(PROJECT_ROOT, quick ? 'bench/tmp/summary.quick.json' : 'bench/summary.json'),
);
const command = [
	'npm run bench',
	...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : []),
].join(' ');

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

/** How withN8n starts n8n beyond the setting: under callgrind (item 9), with its inspector open. */
interface Launch {
	/** The folder callgrind writes its dumps to: n8n's main process runs under valgrind's callgrind. */
	callgrindDir?: string;
	/** --inspect, and a full garbage collection on call through it. */
	inspector?: boolean;
}

async function withN8n<T>(
	packages: BuiltPackages,
	env: Record<string, string>,
	body: (n8n: N8nInstance, pid: number, collectGarbage?: () => Promise<void>) => Promise<T>,
	launch: Launch = {},
): Promise<T> {
	let inspectorUrl: string | undefined;
	const n8n = await startN8n({
		packageTarball: [packages.shipped, packages.floor],
		env: {
			...env,
			...extraN8nEnv,
			...(launch.inspector ? { NODE_OPTIONS: '--inspect=127.0.0.1:0' } : {}),
			// under callgrind a `SELECT 1` can outlast n8n's 5 s ping timeout, and one that does marks the database
			// not ready until the next ping: requests meanwhile get a 503 (item 9 lost a run at round 8 to it)
			...(launch.callgrindDir ? { DB_PING_TIMEOUT_MS: '600000' } : {}),
		},
		onOutput: (chunk) => {
			inspectorUrl ??= inspectorUrlIn(chunk);
		},
		...(launch.callgrindDir
			? { commandPrefix: callgrindCommand(launch.callgrindDir), readyTimeoutMs: 1_200_000 }
			: {}),
	});
	let inspector: Inspector | undefined;
	try {
		if (launch.inspector) {
			if (!inspectorUrl) throw new Error('n8n printed no inspector URL');
			inspector = await Inspector.connect(inspectorUrl);
		}
		const pid = findPidByCommandLine(`${n8n.userFolder}/.captioning-watchdog.cjs`);
		if (pid === undefined) throw new Error('could not find the n8n process');
		log(`n8n ${N8N_VERSION} ready in ${n8n.timings[0].readySeconds.toFixed(1)} s (pid ${pid})`);
		const collectGarbage =
			inspector && (async () => void (await inspector!.send('HeapProfiler.collectGarbage')));
		return await body(n8n, pid, collectGarbage);
	} finally {
		inspector?.close();
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

/** Writes the figures blocks of BENCHMARKS.md the results have: items 1-6, and item 7 in its own. */
async function updateFigures(results: Results): Promise<void> {
	const doc = join(PROJECT_ROOT, 'BENCHMARKS.md');
	const measured = {
		...results.raw.throughput,
		...results.raw.isolates,
		...results.raw.instructions,
	};
	if (Object.keys(measured).length) await updateDoc(doc, renderMarkdown(results));
	if (results.raw.captions) await updateDoc(doc, renderMarkdown(results, true), 'captions');
	await prettier(doc);
	log('updated the figures in BENCHMARKS.md');
}

/** Prints (and with --update-doc writes into BENCHMARKS.md) the figures of an existing results file. */
async function reportOnly(file: string) {
	const results = JSON.parse(readFileSync(resolve(file), 'utf8')) as Results;
	results.summary = buildSummary(results);
	printTable(results);
	if (values['update-doc']) {
		await updateFigures(results);
		// the summary says what the page says
		await writeSummary(results);
	}
}

async function main() {
	if (values.report) return await reportOnly(values.report);
	const oddLook = lookRounds(settings.stopRule).find((r) => r % 2 === 1 && r > 1);
	if (only.has(1) && oddLook !== undefined) {
		log(
			`item 1 looks at the goal after round ${oddLook}, an odd number: neighbours have then run in one order ` +
				'once more than in the other, which can bias their ratios; an even number balances it',
		);
	}
	const quietWait = values['wait-quiet']
		? await waitQuiet(Number(values['wait-quiet']))
		: undefined;
	const measuringSince = Date.now();
	markLoad('start');
	const n8nDir = resolveN8nDir();
	const template: EventTemplate = await eventTemplate(settings.bodyBytes);
	const raw = emptyRaw();
	await inProcessItems(n8nDir, template, raw);
	let packages: BuiltPackages | undefined;
	let targets: Results['targets'] = {};
	try {
		if ([1, 2, 3, 5, 6, 9].some((item) => only.has(item))) {
			packages = await buildForN8n();
			targets = Object.fromEntries(measuredSpecs(packages).map(({ key, ...info }) => [key, info]));
			if (only.has(6) && targets.ours) {
				targets.oursTokenRoute = {
					...targets.ours,
					label: `${targets.ours.label}, its token route`,
				};
			}
			const built = packages;
			// a run that dies later keeps the settings done so far
			const checkpoint = async () => {
				const partial = assembleResults({
					measuringSince,
					quietWait,
					n8nDir,
					packages: built,
					targets,
					template,
					raw,
				});
				await writeJson(partialFile, partial);
			};
			await n8nItems(packages, template, raw, checkpoint);
		}
	} finally {
		await packages?.remove();
	}
	markLoad('end');
	const results = assembleResults({
		measuringSince,
		quietWait,
		n8nDir,
		packages,
		targets,
		template,
		raw,
	});
	await writeResults(results);
	printTable(results);
	if (values['update-doc']) await updateFigures(results);
}

/** --wait-quiet: waits up to 20 min for the 1-minute load to fall below `threshold`, and says how it went. */
async function waitQuiet(threshold: number): Promise<Results['quietWait']> {
	const wait = await waitForQuietMachine(threshold, 20, log);
	log(
		wait.quiet
			? `machine quiet after ${wait.waitedSeconds} s (load ${wait.sample.load.join(' ')})`
			: `machine still busy after 20 min (load ${wait.sample.load.join(' ')}); measuring anyway`,
	);
	return { threshold, quiet: wait.quiet, waitedSeconds: wait.waitedSeconds };
}

function emptyRaw(): Results['raw'] {
	return {
		throughput: {},
		idleCpuRate: {},
		priming: {},
		isolates: {},
		latency: {},
		tokenEconomy: [],
		rateLimit: [],
		receiveCost: [],
		isolateCycle: [],
		decisions: {},
		requestsPerRun: {},
		instructions: {},
	};
}

/** Items 4 and 7, and item 6's isolate cycle: no n8n server, measured before one starts. */
async function inProcessItems(
	n8nDir: string,
	template: EventTemplate,
	raw: Results['raw'],
): Promise<void> {
	if (only.has(4)) {
		markLoad('item 4: receive path (in-process)');
		for (let i = 0; i < settings.receiveCost.repetitions; i++) {
			const run: ReceiveCost = measureReceiveCost(template, settings.receiveCost.iterations);
			raw.receiveCost.push(run);
			log(`receive path ${run.totalUs.toFixed(1)} µs/event`);
		}
	}
	if (only.has(7)) {
		markLoad('item 7: caption library (in-process)');
		raw.captions = measureCaptions(settings.captions, log);
	}
	if (only.has(6)) {
		markLoad('item 6: one isolate cycle (child process)');
		raw.isolateCycle = await isolateCycleCost(n8nDir);
		for (const run of raw.isolateCycle) {
			log(
				`isolate cycle ${run.cpuMsPerCycle.toFixed(1)} ms CPU, ${run.wallMsPerCycle.toFixed(1)} ms wall`,
			);
		}
	}
}

async function buildForN8n(): Promise<BuiltPackages> {
	log('building the package and the floor in a temp dir');
	const packages = await buildPackages({ previewV2: settings.previewV2 });
	log(
		`trigger typeVersions ${packages.trigger.versions.join(', ')}, default ${packages.trigger.defaultVersion}` +
			(packages.trigger.preview ? ' (preview build)' : ''),
	);
	return packages;
}

/**
 * Items 1 and 5 in an n8n per setting; 2 and 3 in the default setting's n8n, or in one of their own; item 6's
 * counts in an n8n per setting with /metrics on.
 */
async function n8nItems(
	packages: BuiltPackages,
	template: EventTemplate,
	raw: Results['raw'],
	checkpoint: () => Promise<void>,
): Promise<void> {
	let apiDone = !(only.has(2) || only.has(3));
	for (const setting of only.has(1) || only.has(5) ? settingKeys : []) {
		await withN8n(packages, N8N_SETTINGS[setting].env, async (n8n, pid) => {
			await floorComparison(n8n, pid, packages, setting, template, raw);
			if (setting === 'default' && !apiDone) {
				await apiItems(n8n, raw);
				apiDone = true;
			}
		});
		await checkpoint();
	}
	if (!apiDone) await withN8n(packages, {}, async (n8n) => await apiItems(n8n, raw));
	// a separate n8n with /metrics on, only to count isolates; never used for a timing (legacy has none)
	for (const setting of only.has(6) ? settingKeys.filter((k) => k !== 'legacy') : []) {
		const env = { ...N8N_SETTINGS[setting].env, N8N_METRICS: 'true' };
		await withN8n(packages, env, async (n8n) => {
			raw.isolates[setting] = await isolateCounts(n8n, packages, setting, template);
		});
	}
	if (only.has(6)) await checkpoint();
	// instructions do not depend on the machine's load: the settings' n8ns run side by side, each setting's
	// results kept as soon as it is done
	if (only.has(9)) {
		const outcomes = await Promise.allSettled(
			settingKeys.map(async (setting) => {
				try {
					raw.instructions![setting] = await instructionItem(
						packages,
						setting,
						template,
						async (sofar) => {
							raw.instructions![setting] = sofar;
							await checkpoint();
						},
					);
				} catch (error) {
					log(`${setting}: item 9 failed: ${(error as Error).stack ?? String(error)}`);
					throw error;
				}
				await checkpoint();
			}),
		);
		// every setting's n8n has stopped before the first failure is reported
		const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
		if (failure) throw failure.reason;
	}
}

/** One setting's n8n with a sandbox and a credential for it: what item 1, 5 or 6 measures against. */
interface Bench {
	n8n: N8nInstance;
	sandbox: Sandbox;
	credentialId: string;
	setting: string;
	template: EventTemplate;
}

async function withSandbox(
	n8n: N8nInstance,
	setting: string,
	template: EventTemplate,
	credentialName: string,
	body: (bench: Bench) => Promise<void>,
): Promise<void> {
	const sandbox = await startSandbox({ rateLimit: null });
	try {
		const credentialId = await createCaptioningCredential(n8n, sandbox, credentialName);
		await body({ n8n, sandbox, credentialId, setting, template });
	} finally {
		await sandbox.stop();
	}
}

/** The targets that last the whole setting (all but the fresh state), created and activated, in spec order. */
async function createLasting(bench: Bench, specs: TargetSpec[]): Promise<Map<TargetKey, Target>> {
	const live = new Map<TargetKey, Target>();
	for (const spec of specs.filter((s) => s.dedupe !== 'fresh')) {
		live.set(spec.key, await createTarget(bench.n8n, bench.sandbox, bench.credentialId, spec));
	}
	return live;
}

/** Items 1 and 5 in one n8n: the targets, the steady state primed, then interleaved rounds until the goal is decided. */
async function floorComparison(
	n8n: N8nInstance,
	pid: number,
	packages: BuiltPackages,
	setting: string,
	template: EventTemplate,
	raw: Results['raw'],
): Promise<void> {
	await withSandbox(n8n, setting, template, 'bench main', async (bench) => {
		const specs = measuredSpecs(packages);
		const live = await createLasting(bench, specs);
		const priming = (raw.priming[setting] = await primeTargets(bench, specs, live));
		const idleRate = (raw.idleCpuRate[setting] = await idleCpuRate(pid));
		const runs: ThroughputRun[] = (raw.throughput[setting] = []);
		const latency: LatencyRound[] = (raw.latency[setting] = []);
		const decisions: Decision[] = ((raw.decisions ??= {})[setting] = []);
		const requests = ((raw.requestsPerRun ??= {})[setting] = only.has(1)
			? await calibrate(bench, specs, live)
			: 0);
		for (let round = 1; round <= settings.stopRule.cap; round++) {
			markLoad(`${setting}: round ${round}`);
			const figures = round <= settings.figureRounds;
			const inRound = figures ? specs : specs.filter((s) => GOAL_PAIR.includes(s.key));
			for (const concurrency of only.has(1) ? settings.concurrencies : []) {
				for (const spec of roundOrder(measuringOrder(inRound), round)) {
					const at = { concurrency, round, requests };
					runs.push(await throughputRun(bench, pid, idleRate, spec, live, at));
				}
			}
			if (only.has(5) && figures) {
				const options = {
					round,
					events: settings.latency.eventsPerRound,
					gapMs: settings.latency.gapMs,
					log,
				};
				latency.push(...(await measureLatency(n8n, [...live.values()], template, options)));
			}
			if (!only.has(1)) {
				if (round >= settings.figureRounds) break;
				continue;
			}
			const look = lookAfter(round, goalRatios(runs), settings.stopRule);
			if (look.decision) {
				decisions.push(look.decision);
				log(describeDecision(setting, look.decision, requests));
			}
			if (look.stop && round >= settings.figureRounds) break;
		}
		for (const record of priming) {
			const { workflowId } = live.get(record.target)!;
			record.savedStaticDataBytesAtEnd = await savedStaticDataBytes(n8n, workflowId);
		}
		for (const target of live.values()) await n8n.deactivateWorkflow(target.workflowId);
	});
}

/** The goal's pair (ours and the floor with a credential): the targets the rounds after the figure rounds run. */
const GOAL_PAIR: readonly TargetKey[] = [GOAL.numerator, GOAL.denominator];

/**
 * Item 9's targets: the goal's pair, or with `--targets` those it names and the pair (a bisection target such as
 * floorCredDesc counted beside them; the stop rule still reads the pair alone).
 */
const instructionSpecs = (packages: BuiltPackages) => {
	const named = values.targets === undefined ? [] : measuredSpecs(packages);
	return targetSpecs(packages.trigger).filter(
		(s) => GOAL_PAIR.includes(s.key) || named.some((n) => n.key === s.key),
	);
};

/** The measured requests of every run in this setting: --requests, or --duration seconds at the floor's rate. */
async function calibrate(
	bench: Bench,
	specs: TargetSpec[],
	live: Map<TargetKey, Target>,
): Promise<number> {
	if (settings.requestsPerRun !== undefined) return settings.requestsPerRun;
	const reference =
		live.get(GOAL.denominator) ?? live.get(specs.find((s) => live.has(s.key))!.key)!;
	const requests = await requestsPerRun(reference, {
		concurrency: settings.concurrencies[0],
		seconds: settings.durationSeconds,
		warmupMs: settings.warmupSeconds * 1000,
		template: bench.template,
	});
	log(`${bench.setting}: ${requests} measured requests per run (${reference.key}'s rate)`);
	return requests;
}

function describeDecision(setting: string, d: Decision, requests: number): string {
	const side = (j: Decision['cpu']) =>
		`${j.median.toFixed(3)} (${j.interval ? `${j.interval.low.toFixed(3)}-${j.interval.high.toFixed(3)}` : 'no interval'}) ${j.verdict}`;
	return (
		`${setting}: after ${d.rounds} rounds of ${requests} requests, ours/floorCred CPU per request ` +
		`${side(d.cpu)}, events/s ${side(d.throughput)}: ${d.verdict}`
	);
}

/** Distinct events through each target measured primed (ours in its steady state); what n8n saved after. */
async function primeTargets(
	bench: Bench,
	specs: TargetSpec[],
	live: Map<TargetKey, Target>,
): Promise<PrimingRecord[]> {
	const records: PrimingRecord[] = [];
	for (const spec of specs.filter(isPrimed)) {
		markLoad(`${bench.setting}: priming ${spec.key} with ${settings.primeEvents} distinct events`);
		const target = live.get(spec.key)!;
		const primed = await primeTarget(bench.n8n, target, settings.primeEvents, bench.template);
		records.push({
			target: spec.key,
			...primed,
			savedStaticDataBytes: await savedStaticDataBytes(bench.n8n, target.workflowId),
		});
		log(`primed ${spec.key}: ${primed.events} events in ${primed.seconds.toFixed(0)} s`);
	}
	return records;
}

/** One run of item 1 against one target; the fresh state gets a workflow of its own for it. */
async function throughputRun(
	bench: Bench,
	pid: number,
	idleRate: number,
	spec: TargetSpec,
	live: Map<TargetKey, Target>,
	{ concurrency, round, requests }: { concurrency: number; round: number; requests: number },
): Promise<ThroughputRun> {
	const { n8n, setting } = bench;
	const fresh = spec.dedupe === 'fresh';
	const target = fresh
		? await createTarget(n8n, bench.sandbox, bench.credentialId, spec)
		: live.get(spec.key)!;
	const run = await measureRun(n8n, pid, idleRate, target, {
		concurrency,
		requests,
		pauseMs: settings.pauseSeconds * 1000,
		warmupMs: settings.warmupSeconds * 1000,
		template: bench.template,
		round,
	});
	run.load1 = loadSample().load[0];
	if (fresh) await n8n.deactivateWorkflow(target.workflowId);
	log(
		`${setting} round ${round} c=${concurrency} ${spec.key.padEnd(9)} ${run.eventsPerSecond.toFixed(1)} ev/s ` +
			`p50 ${run.p50Ms.toFixed(0)} ms p99 ${run.p99Ms.toFixed(0)} ms, ` +
			`n8n CPU ${run.n8nCpuMsPerRequest.toFixed(2)} ms/req over ${run.windowSeconds.toFixed(1)} s, ` +
			`errors ${run.errors}, executions ${run.executionsFinished} (${run.executionsFailed} failed, ` +
			`${run.unfinishedAtClose} unfinished at close), others ${run.othersCpuPerSecond?.toFixed(2)} CPU/s`,
	);
	if (run.errors > 0 || run.executionsFailed > 0) {
		throw new Error(
			`${spec.key} answered errors or had failed executions: ${run.firstError ?? ''}`,
		);
	}
	return run;
}

/** Item 6's counts in one setting: isolates per request of each lasting target. */
async function isolateCounts(
	n8n: N8nInstance,
	packages: BuiltPackages,
	setting: string,
	template: EventTemplate,
): Promise<IsolateCount[]> {
	let counts: IsolateCount[] = [];
	await withSandbox(n8n, setting, template, 'bench diag', async (bench) => {
		const live = await createLasting(bench, measuredSpecs(packages));
		const ours = live.get('ours');
		// both routes: n8n resolves every webhook description of the node for a request to either
		const targets = [
			...live.values(),
			...(ours ? [{ ...ours, key: 'oursTokenRoute' as const, url: tokenRouteOf(ours.url) }] : []),
		];
		markLoad(`item 6 (${setting}): isolates per request`);
		counts = await countIsolates(n8n, targets, template, settings.isolateCountRequests);
	});
	for (const c of counts) {
		log(
			`isolates (${setting}) ${c.target}: ${c.isolatesPerRequest.toFixed(2)} per request ` +
				`(${c.syncColdStartsPerRequest.toFixed(2)} built synchronously), ` +
				`${c.evaluationsPerRequest.toFixed(2)} evaluations`,
		);
	}
	return counts;
}

/**
 * Item 9 in one setting: n8n under callgrind, ours (primed to its steady state) and floorCred, rounds of runs back
 * to back until the goal is decided in instructions per request (all threads: CPU; the main thread's: the event
 * loop's capacity, events/s) or the cap is reached.
 */
async function instructionItem(
	packages: BuiltPackages,
	setting: string,
	template: EventTemplate,
	/** After each round: the rounds so far (an n8n that fails later under callgrind leaves them). */
	keep: (sofar: InstructionSetting) => Promise<void>,
): Promise<InstructionSetting> {
	const dir = await mkdtemp(join(tmpdir(), 'captioning-callgrind-'));
	const rule = settings.instructions.stopRule;
	const result: InstructionSetting = { runs: [], decisions: [], stopRule: rule };
	try {
		await withN8n(
			packages,
			N8N_SETTINGS[setting].env,
			async (n8n, pid, collectGarbage) => {
				await withSandbox(n8n, setting, template, 'bench callgrind', async (bench) => {
					const specs = instructionSpecs(packages);
					const live = await createLasting(bench, specs);
					result.priming = await primeTargets(bench, specs, live);
					const callgrind = new Callgrind(pid, dir);
					await callgrind.instrument(true);
					for (let round = 1; round <= rule.cap; round++) {
						markLoad(`${setting}: item 9 round ${round}`);
						for (const spec of roundOrder(measuringOrder(specs), round)) {
							const run = await measureInstructions(n8n, pid, callgrind, live.get(spec.key)!, {
								round,
								requests: instructionRequests(setting),
								warmupRequests: settings.instructions.warmupRequests,
								concurrency: settings.concurrencies[0],
								template,
								idleSeconds: settings.instructions.idleSeconds,
								beforeWindow: collectGarbage,
							});
							result.runs.push(run);
							const count = perRequest(run, medianIdleRate(result.runs));
							log(
								`${setting} item 9 round ${round} ${spec.key.padEnd(9)} ` +
									`${(count.all / 1e6).toFixed(2)} M instructions/request ` +
									`(main thread ${(count.main / 1e6).toFixed(2)} M) over ` +
									`${run.windowSeconds.toFixed(0)} s, idle ` +
									`${(run.idleSample.all / run.idleSample.seconds / 1e6).toFixed(2)} M/s`,
							);
						}
						const look = lookAfter(round, instructionRatios(result.runs), rule);
						if (look.decision) {
							result.decisions.push(look.decision);
							log(
								describeDecision(
									`${setting} (item 9, instructions)`,
									look.decision,
									instructionRequests(setting),
								),
							);
						}
						await keep(result);
						if (look.stop) break;
					}
					await callgrind.instrument(false);
				});
			},
			{ callgrindDir: dir, inspector: true },
		);
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
	return result;
}

/**
 * Item 9's measured requests per run in a setting: --instruction-requests, or 32; 8 in `default`, where n8n's
 * isolate cycles make each request some ten times the instructions (about the same count per window).
 */
function instructionRequests(setting: string): number {
	if (values['instruction-requests'] !== undefined) return Number(values['instruction-requests']);
	if (quick) return 8;
	return setting === 'default' ? 8 : 32;
}

/** Items 2 and 3: the action node's API traffic, in n8n's default setting. */
async function apiItems(n8n: N8nInstance, raw: Results['raw']): Promise<void> {
	if (only.has(2)) raw.tokenEconomy.push(...(await tokenEconomyItem(n8n)));
	if (only.has(3)) raw.rateLimit.push(...(await rateLimitItem(n8n)));
}

async function tokenEconomyItem(n8n: N8nInstance): Promise<TokenEconomyRun[]> {
	markLoad('item 2: token economy');
	const runs: TokenEconomyRun[] = [];
	for (const mode of ['sequential', 'concurrent'] as const) {
		for (let i = 0; i < settings.tokenEconomy.repetitions; i++) {
			const run = await measureTokenEconomy(n8n, {
				mode,
				executions: settings.tokenEconomy.executions,
				itemsPerExecution: settings.tokenEconomy.itemsPerExecution,
			});
			runs.push(run);
			log(
				`tokens ${mode}: ${run.tokenRequests} token requests for ${run.apiCalls} API calls ` +
					`(${run.tokenRequestsPer1000Calls.toFixed(2)} per 1,000), ${run.unauthorized} x 401, ` +
					`${run.failedExecutions} failed executions`,
			);
		}
	}
	return runs;
}

async function rateLimitItem(n8n: N8nInstance): Promise<RateLimitRun[]> {
	markLoad('item 3: rate-limit efficiency');
	const runs: RateLimitRun[] = [];
	for (const announced of [true, false]) {
		const reps = announced
			? settings.rateLimit.repetitions
			: settings.rateLimit.repetitionsUnannounced;
		for (const testCase of settings.rateLimit.cases) {
			for (let i = 0; i < reps; i++) {
				const run = await measureRateLimit(n8n, { ...testCase, announced });
				runs.push(run);
				log(
					`rate limit N=${run.n} R=${run.ratePerSecond}/s ${announced ? 'announced' : 'unannounced'}: ` +
						`${run.seconds.toFixed(2)} s (ideal ${run.idealSeconds} s, ratio ${run.ratio.toFixed(3)}), ` +
						`${run.failures} failures, ${run.rateLimited} x 429`,
				);
			}
		}
	}
	return runs;
}

function assembleResults(run: {
	measuringSince: number;
	quietWait: Results['quietWait'];
	n8nDir: string;
	packages: BuiltPackages | undefined;
	targets: Results['targets'];
	template: EventTemplate;
	raw: Results['raw'];
}): Results {
	const { measuringSince, raw } = run;
	const results: Results = {
		schema: 2,
		date: new Date(measuringSince).toISOString(),
		durationSeconds: Math.round((Date.now() - measuringSince) / 1000),
		command,
		quietWait: run.quietWait,
		machine: machineInfo(),
		load: loads,
		versions: versions(run.n8nDir, run.packages),
		settings: { ...settings, bodyBytes: run.template.bytes },
		targets: run.targets,
		n8nSettings: Object.fromEntries(settingKeys.map((k) => [k, N8N_SETTINGS[k]])),
		summary: { throughput: {}, isolates: {}, latency: {} },
		raw,
	};
	results.summary = buildSummary(results);
	return results;
}

function versions(n8nDir: string, packages: BuiltPackages | undefined): Record<string, string> {
	const modules = join(n8nDir, 'node_modules');
	const trigger = packages?.trigger;
	return {
		node: process.version,
		n8n: readVersion(join(modules, 'n8n', 'package.json')),
		n8nCore: readVersion(join(modules, 'n8n-core', 'package.json')),
		n8nWorkflow: readVersion(join(modules, 'n8n-workflow', 'package.json')),
		expressionRuntime: readVersion(join(modules, '@n8n', 'expression-runtime', 'package.json')),
		isolatedVm: readVersion(join(modules, 'isolated-vm', 'package.json')),
		package: readVersion(join(PROJECT_ROOT, 'package.json')),
		triggerTypeVersions: trigger
			? `${trigger.versions.join(',')} (default ${trigger.defaultVersion}${trigger.preview ? ', preview build' : ''})`
			: 'not built',
	};
}

/** results.json, and bench/summary.json (writeSummary). */
async function writeResults(results: Results): Promise<void> {
	await writeJson(outFile, results);
	log(`wrote ${outFile}`);
	await writeSummary(results);
}

/**
 * bench/summary.json when item 1, 5 or 9 ran (the caption figures it had kept); item 7 alone adds its figures to
 * the summary the last full run wrote.
 */
async function writeSummary(results: Results): Promise<void> {
	const measured = {
		...results.raw.throughput,
		...results.raw.latency,
		...results.raw.instructions,
	};
	if (Object.keys(measured).length) {
		const summary = buildBenchSummary(results);
		// a run without item 7 keeps the caption figures the summary has
		if (!summary.captions && existsSync(summaryFile)) {
			const { captions } = JSON.parse(readFileSync(summaryFile, 'utf8')) as { captions?: unknown };
			if (captions) Object.assign(summary, { captions });
		}
		await writeJson(summaryFile, summary);
		log(`wrote ${summaryFile}`);
	} else if (results.raw.captions) {
		// item 7 alone: its ratios join the summary the last full run wrote
		const summary = (
			existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')) : {}
		) as Record<string, unknown>;
		summary.captions = buildCaptionsSummary(results.date, results.raw.captions);
		await writeJson(summaryFile, summary);
		log(`wrote the captions figures into ${summaryFile}`);
	}
}

/** Writes `value` as tab-indented JSON, formatted as `npm run format` leaves it. */
async function writeJson(file: string, value: unknown): Promise<void> {
	await mkdir(dirname(file), { recursive: true });
	await writeFile(file, JSON.stringify(value, null, '\t') + '\n');
	await prettier(file);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
	process.exit(1);
});
