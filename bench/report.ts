// Turns the raw runs into figures (median and spread over repetitions), the console table and the figures block
// of BENCHMARKS.md.
import { readFile, writeFile } from 'node:fs/promises';

import type { MachineInfo, LoadSample } from './lib/machine';
import {
	type Decision,
	decide,
	fixedRounds,
	GOAL,
	type GoalVerdict,
	type Judged,
	lookConfidence,
	lookRounds,
	type StopRule,
} from './lib/goal';
import { medianInterval, round, roundSummary, summarize, type Summary } from './lib/stats';
import type { RateLimitRun, TokenEconomyRun } from './measure/api';
import { type CaptionBench, captionFigures, type CaptionFigures } from './measure/captions';
import type { Counted } from './lib/callgrind';
import { type InstructionSetting, medianIdleRate, perRequest } from './measure/instructions';
import type { IsolateCount } from './measure/isolates';
import type { LatencyRound } from './measure/latency';
import type { ReceiveCost } from './measure/receive-cost';
import type { TargetKey, TargetSpec, ThroughputRun } from './measure/throughput';

/** Item 1 at one concurrency in one setting: per target, and ratios of runs made back to back in a round. */
export interface ThroughputFigures {
	targets: Partial<
		Record<
			TargetKey,
			{
				eventsPerSecond: Summary;
				p50Ms: Summary;
				p99Ms: Summary;
				n8nCpuMsPerRequest: Summary;
			}
		>
	>;
	/** `a/b`: events/s of a ÷ events/s of b, paired per round; median and spread over rounds. */
	ratios: Record<string, Summary>;
}

/** What item 1 compared, as measured (see bench/measure/throughput.ts). */
export type TargetInfo = Omit<TargetSpec, 'key'>;

/** One n8n setting (an n8n process of its own): its key in the results, label and environment. */
export interface SettingInfo {
	label: string;
	env: Record<string, string>;
}

export interface PrimingRecord {
	target: TargetKey;
	events: number;
	seconds: number;
	/** The workflow's static data as n8n saved it, after priming and after the last run. */
	savedStaticDataBytes: number;
	savedStaticDataBytesAtEnd?: number;
}

export interface Results {
	schema: 2;
	/** When measuring started (after any --wait-quiet wait). */
	date: string;
	durationSeconds: number;
	command: string;
	/** The --wait-quiet wait before measuring: whether the 1-minute load fell below the threshold. */
	quietWait?: { threshold: number; quiet: boolean; waitedSeconds: number };
	machine: MachineInfo;
	load: Array<{ phase: string } & LoadSample>;
	versions: Record<string, string>;
	settings: Record<string, unknown>;
	targets: Partial<Record<TargetKey, TargetInfo>>;
	n8nSettings: Record<string, SettingInfo>;
	summary: {
		throughput: Record<string, Record<string, ThroughputFigures>>;
		isolates: Record<string, IsolateCount[]>;
		isolateCycle?: { cpuMs: Summary; wallMs: Summary };
		latency: Record<
			string,
			Partial<
				Record<
					TargetKey,
					{ p50Ms: Summary; p99Ms: Summary; answerP50Ms: Summary; answerP99Ms: Summary }
				>
			>
		>;
		tokenEconomy?: Record<
			string,
			{
				tokenRequestsPer1000Calls: Summary;
				tokenRequests: Summary;
				apiCalls: Summary;
				unauthorized: number;
				failedExecutions: number;
			}
		>;
		rateLimit?: Array<{
			n: number;
			ratePerSecond: number;
			announced: boolean;
			ratio: Summary;
			seconds: Summary;
			rateLimited: Summary;
			failures: number;
			failedExecutions: number;
		}>;
		receiveCost?: {
			totalUs: Summary;
			stepsUs: Record<string, Summary>;
			/** n8n's CPU per request for our trigger and for the Webhook node, default setting, item 1. */
			n8nCpuUsPerRequest: Partial<Record<TargetKey, Summary>>;
			/** The trigger's own code as a share of what n8n spends per request on it. */
			sharePercent?: number;
		};
		captions?: CaptionFigures;
	};
	raw: {
		throughput: Record<string, ThroughputRun[]>;
		idleCpuRate: Record<string, number>;
		priming: Record<string, PrimingRecord[]>;
		isolates: Record<string, IsolateCount[]>;
		latency: Record<string, LatencyRound[]>;
		tokenEconomy: TokenEconomyRun[];
		rateLimit: RateLimitRun[];
		receiveCost: ReceiveCost[];
		isolateCycle: Array<{ cpuMsPerCycle: number; wallMsPerCycle: number }>;
		/** Item 7 (the caption library), when it ran. */
		captions?: CaptionBench;
		/** Item 1's goal at each look of the stop rule, per setting (bench/lib/goal.ts). */
		decisions?: Record<string, Decision[]>;
		/** The measured requests every run of a setting sent. */
		requestsPerRun?: Record<string, number>;
		/** Item 9: instructions per request under callgrind, per setting. */
		instructions?: Record<string, InstructionSetting>;
	};
}

const s = (values: number[], digits = 3) => roundSummary(summarize(values), digits);

/** The summary of one number of each row. */
const figureOf = <T>(rows: readonly T[], pick: (row: T) => number, digits = 3) =>
	s(rows.map(pick), digits);

/** Ratios `numerator/denominator` of item 1 that the figures report, when both targets ran. */
export const RATIOS: Array<[TargetKey, TargetKey]> = [
	['ours', 'floor'],
	['ours', 'floorCred'],
	['ours', 'webhook'],
	['floor', 'webhook'],
	['floorCred', 'floor'],
	['oursFresh', 'floor'],
	['oursV1', 'floor'],
	['floorV1', 'floor'],
];

/** A ratio's paired values summarised, with the median's distribution-free 95 % interval. */
export interface RatioFigure extends Summary {
	interval95?: { low: number; high: number; confidence: number };
}

/** `a/b` of `figure` over the rounds of `runs` (one setting, one concurrency): spread and interval. */
export function ratioFigure(
	runs: ThroughputRun[],
	key: string,
	figure: RatioOf = 'eventsPerSecond',
): RatioFigure | undefined {
	const [a, b] = key.split('/') as [TargetKey, TargetKey];
	const ratios = pairedRatios(runs, a, b, figure);
	if (!ratios.length) return undefined;
	const interval = medianInterval(ratios);
	return {
		...s(ratios),
		...(interval
			? {
					interval95: {
						low: round(interval.low),
						high: round(interval.high),
						confidence: round(interval.confidence),
					},
				}
			: {}),
	};
}

/** The figure a paired ratio divides: events/s, or n8n's CPU per request. */
export type RatioOf = 'eventsPerSecond' | 'n8nCpuMsPerRequest';

/**
 * Item 1's goal's paired ratios in `runs` (one setting; its first concurrency), up to round `rounds`: n8n's CPU per
 * request and events/s of ours ÷ the floor with a credential.
 */
export function goalRatios(
	runs: ThroughputRun[],
	rounds = Infinity,
): { cpu: number[]; throughput: number[] } {
	const concurrency = runs[0]?.concurrency;
	const mine = runs.filter((r) => r.concurrency === concurrency && r.round <= rounds);
	const ratios = (figure: RatioOf) => pairedRatios(mine, GOAL.numerator, GOAL.denominator, figure);
	return { cpu: ratios('n8nCpuMsPerRequest'), throughput: ratios('eventsPerSecond') };
}

/** The stop rule a run of results used (fixed rounds for results written before it had one). */
function ruleOf(results: Results, runs: ThroughputRun[]): StopRule {
	const recorded = (results.settings as { stopRule?: StopRule }).stopRule;
	return recorded ?? fixedRounds(new Set(runs.map((r) => r.round)).size);
}

/** The goal as the setting's last look decided it (results without looks: judged once on all their rounds). */
export function finalDecision(results: Results, setting: string): Decision | undefined {
	const recorded = results.raw.decisions?.[setting];
	if (recorded?.length) return recorded[recorded.length - 1];
	const runs = results.raw.throughput[setting] ?? [];
	if (!runs.some((r) => r.target === GOAL.numerator)) return undefined;
	const rounds = Math.max(0, ...runs.map((r) => r.round));
	return decide(rounds, goalRatios(runs, rounds), ruleOf(results, runs));
}

/** The ratios the summary section and bench/summary.json name; the rest of RATIOS are "other". */
const HEADLINE_RATIOS = ['ours/floor', 'ours/floorCred', 'ours/webhook', 'floor/webhook'];

/** `figure` of `numerator` ÷ the same of `denominator` for each round in which both ran. */
export function pairedRatios(
	runs: ThroughputRun[],
	numerator: TargetKey,
	denominator: TargetKey,
	figure: RatioOf = 'eventsPerSecond',
): number[] {
	const ratios: number[] = [];
	for (const run of runs.filter((r) => r.target === numerator)) {
		const partner = runs.find(
			(r) => r.target === denominator && r.round === run.round && r.concurrency === run.concurrency,
		);
		if (partner && partner[figure] > 0 && Number.isFinite(run[figure])) {
			ratios.push(run[figure] / partner[figure]);
		}
	}
	return ratios;
}

export function buildSummary(results: Results): Results['summary'] {
	const { raw } = results;
	return {
		throughput: mapValues(raw.throughput, throughputByConcurrency),
		isolates: raw.isolates,
		latency: mapValues(raw.latency, latencyByTarget),
		...(raw.isolateCycle.length ? { isolateCycle: isolateCycleFigures(raw.isolateCycle) } : {}),
		...(raw.tokenEconomy.length ? { tokenEconomy: tokenEconomyByMode(raw.tokenEconomy) } : {}),
		...(raw.rateLimit.length ? { rateLimit: rateLimitByCase(raw.rateLimit) } : {}),
		...(raw.receiveCost.length
			? { receiveCost: receiveCostFigures(raw.receiveCost, raw.throughput.default ?? []) }
			: {}),
		...(raw.captions ? { captions: captionFigures(raw.captions) } : {}),
	};
}

type Summaries = Results['summary'];

/** `record` with `figures` applied to each value, keys in the same order. */
function mapValues<T, U>(record: Record<string, T>, figures: (value: T) => U): Record<string, U> {
	return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, figures(value)]));
}

/** `items` grouped by `key`, groups in the order their first item comes. */
function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
	const groups = new Map<K, T[]>();
	for (const item of items) {
		const group = groups.get(key(item));
		if (group) group.push(item);
		else groups.set(key(item), [item]);
	}
	return groups;
}

/** One setting's runs of item 1: per concurrency, per target and the ratios of RATIOS. */
function throughputByConcurrency(runs: ThroughputRun[]): Record<string, ThroughputFigures> {
	const out: Record<string, ThroughputFigures> = {};
	for (const [concurrency, atConcurrency] of groupBy(runs, (r) => r.concurrency)) {
		const figures: ThroughputFigures = { targets: {}, ratios: {} };
		for (const [target, mine] of groupBy(atConcurrency, (r) => r.target)) {
			figures.targets[target] = {
				eventsPerSecond: figureOf(mine, (r) => r.eventsPerSecond, 2),
				p50Ms: figureOf(mine, (r) => r.p50Ms, 1),
				p99Ms: figureOf(mine, (r) => r.p99Ms, 1),
				n8nCpuMsPerRequest: figureOf(mine, (r) => r.n8nCpuMsPerRequest, 1),
			};
		}
		for (const [a, b] of RATIOS) {
			const ratios = pairedRatios(atConcurrency, a, b);
			if (ratios.length) figures.ratios[`${a}/${b}`] = s(ratios);
		}
		out[String(concurrency)] = figures;
	}
	return out;
}

function latencyByTarget(rounds: LatencyRound[]): Summaries['latency'][string] {
	const out: Summaries['latency'][string] = {};
	for (const [target, mine] of groupBy(rounds, (r) => r.target)) {
		out[target] = {
			p50Ms: figureOf(mine, (r) => r.p50Ms, 1),
			p99Ms: figureOf(mine, (r) => r.p99Ms, 1),
			answerP50Ms: figureOf(mine, (r) => r.answerP50Ms, 1),
			answerP99Ms: figureOf(mine, (r) => r.answerP99Ms, 1),
		};
	}
	return out;
}

function isolateCycleFigures(
	runs: Results['raw']['isolateCycle'],
): NonNullable<Summaries['isolateCycle']> {
	return {
		cpuMs: figureOf(runs, (r) => r.cpuMsPerCycle, 1),
		wallMs: figureOf(runs, (r) => r.wallMsPerCycle, 1),
	};
}

function tokenEconomyByMode(runs: TokenEconomyRun[]): NonNullable<Summaries['tokenEconomy']> {
	const out: NonNullable<Summaries['tokenEconomy']> = {};
	for (const [mode, mine] of groupBy(runs, (r) => r.mode)) {
		out[mode] = {
			tokenRequestsPer1000Calls: figureOf(mine, (r) => r.tokenRequestsPer1000Calls, 2),
			tokenRequests: figureOf(mine, (r) => r.tokenRequests),
			apiCalls: figureOf(mine, (r) => r.apiCalls),
			unauthorized: mine.reduce((t, r) => t + r.unauthorized, 0),
			failedExecutions: mine.reduce((t, r) => t + r.failedExecutions, 0),
		};
	}
	return out;
}

function rateLimitByCase(runs: RateLimitRun[]): NonNullable<Summaries['rateLimit']> {
	const cases = groupBy(runs, (r) => `${r.n}/${r.ratePerSecond}/${r.announced}`);
	return [...cases.values()].map((mine) => ({
		n: mine[0].n,
		ratePerSecond: mine[0].ratePerSecond,
		announced: mine[0].announced,
		ratio: figureOf(mine, (r) => r.ratio),
		seconds: figureOf(mine, (r) => r.seconds, 2),
		rateLimited: figureOf(mine, (r) => r.rateLimited),
		failures: mine.reduce((t, r) => t + r.failures, 0),
		failedExecutions: mine.filter((r) => r.executionStatus !== 'success').length,
	}));
}

/** Item 4 beside n8n's CPU per request in the default setting of item 1. */
function receiveCostFigures(
	runs: ReceiveCost[],
	defaultRuns: ThroughputRun[],
): NonNullable<Summaries['receiveCost']> {
	const stepsUs: Record<string, Summary> = {};
	for (const name of Object.keys(runs[0].stepsUs)) {
		stepsUs[name] = figureOf(runs, (r) => r.stepsUs[name], 1);
	}
	const n8nCpu: Partial<Record<TargetKey, Summary>> = {};
	for (const target of ['ours', 'floor', 'webhook'] as const) {
		const mine = defaultRuns.filter((r) => r.target === target);
		if (mine.length) n8nCpu[target] = figureOf(mine, (r) => r.n8nCpuMsPerRequest * 1000, 0);
	}
	const totalUs = figureOf(runs, (r) => r.totalUs, 1);
	return {
		totalUs,
		stepsUs,
		n8nCpuUsPerRequest: n8nCpu,
		sharePercent: n8nCpu.ours
			? Math.round((totalUs.median / n8nCpu.ours.median) * 10_000) / 100
			: undefined,
	};
}

// ---- bench/summary.json ------------------------------------------------------------------------------------

/** One setting in bench/summary.json: medians over rounds. */
export interface SettingSummary {
	label: string;
	env: Record<string, string>;
	rounds: number;
	connections: number;
	/** events/s ratios of runs made back to back in a round (ours = steady state). */
	oursOverFloor?: number;
	/** Against the floor carrying a credential: what n8n charges any self-registering trigger, on both sides. */
	oursOverFloorWithCredential?: number;
	oursOverWebhook?: number;
	floorOverWebhook?: number;
	/** Send -> execution finished, one delivery at a time (item 5), per target. */
	p50ms: Partial<Record<TargetKey, number>>;
	/** Send -> 2xx, one delivery at a time. */
	answerP50ms: Partial<Record<TargetKey, number>>;
	/** Send -> 2xx under the load of item 1. */
	loadedP50ms: Partial<Record<TargetKey, number>>;
	eventsPerSecond: Partial<Record<TargetKey, number>>;
	n8nCpuMsPerRequest: Partial<Record<TargetKey, number>>;
	/** The other ratios (fresh state, typeVersion 1), `a/b` as in RATIOS. */
	otherRatios: Record<string, number>;
	/** Every ratio of RATIOS that ran: the paired values' median, quartiles, min–max and 95 % interval. */
	ratioSpreads: Record<string, RatioFigure>;
	/** Item 1's goal in this setting, as the last look of the stop rule decided it (bench/lib/goal.ts). */
	goal?: GoalSummary;
	/** The goal decided in instructions (item 9, callgrind): the verdict this machine can reach. */
	instructions?: InstructionGoalSummary;
}

/** Item 9 in bench/summary.json: the goal in instructions per request, and each target's count. */
export interface InstructionGoalSummary {
	/** met: both figures met; not met: either not; undecided: the cap was reached first. */
	verdict: GoalVerdict;
	rounds: number;
	requestsPerRun: number;
	stopRule: StopRule;
	looks: number[];
	confidence: number;
	/** The primary figure: instructions per request over all of n8n's main-process threads (its CPU). */
	cpu: JudgedSummary;
	/** The secondary: the event loop's capacity, one over the main thread's instructions per request (events/s). */
	throughput: JudgedSummary;
	/** Median millions of instructions per request, all threads and the main thread, per target. */
	millionInstructionsPerRequest: Partial<Record<TargetKey, { all: number; main: number }>>;
	/** The 1-minute load average while its rounds ran (the counts do not depend on it). */
	load?: { min: number; median: number; max: number };
}

/** One figure of the goal in bench/summary.json. */
export interface JudgedSummary {
	/** What is divided, ours ÷ floorCred in runs made back to back. */
	ratio: string;
	bound: 'atMost' | 'atLeast';
	threshold: number;
	n: number;
	median: number;
	/** The median's distribution-free interval at the look's confidence. */
	interval?: { low: number; high: number; confidence: number };
	verdict: GoalVerdict;
}

export interface GoalSummary {
	/** met: both figures met; not met: either not; undecided: the cap was reached first. */
	verdict: GoalVerdict;
	rounds: number;
	/** The measured requests every run of the setting sent. */
	requestsPerRun?: number;
	stopRule: StopRule;
	/** The rounds the rule looks after, and each look's confidence (alpha shared out over them). */
	looks: number[];
	confidence: number;
	/** The primary figure: n8n's CPU per request. */
	cpu: JudgedSummary;
	/** The secondary figure: events/s. */
	throughput: JudgedSummary;
	/** floorCred ÷ floor (events/s); suspect: its interval lies wholly above 1, the runs favour one position. */
	check?: RatioFigure & { suspect: boolean };
	/** The 1-minute load average while the setting's rounds ran. */
	load?: { min: number; median: number; max: number };
	/** CPU seconds per second the rest of the machine used during the goal's runs (bench/measure/throughput.ts). */
	othersCpu?: { min: number; median: number; max: number };
}

export interface BenchSummary {
	schema: 1;
	date: string;
	command: string;
	machine: MachineInfo;
	/** 1-minute load average over the run, and every sample the run took. */
	load: {
		min: number;
		max: number;
		median: number;
		samples: Array<{ phase: string } & LoadSample>;
	};
	versions: Record<string, string>;
	targets: Partial<Record<TargetKey, string>>;
	method: Record<string, unknown>;
	default?: SettingSummary;
	lazy?: SettingSummary;
	legacy?: SettingSummary;
	captions?: CaptionsSummary;
}

/** Item 7 in bench/summary.json: per task ours ÷ the fastest other library, and growth with length. */
export interface CaptionsSummary {
	date: string;
	input: CaptionBench['input'];
	versions: Record<string, string>;
	/** Median ms per call of ours ÷ of the fastest other library on the same recording (below 1: ours is faster). */
	oursOverFastestPeer: Record<string, { fastestPeer: string; ratio: number }>;
	/** Median ms per call of ours on tasks no other library does. */
	oursOnlyMs: Record<string, number>;
	/** (time at the longest ÷ time at 1x) ÷ the length factor: 1 when linear; and between the two longest. */
	growthOverLinear: Record<string, number | undefined>;
	lastGrowthOverLinear: Record<string, number | undefined>;
}

export function buildCaptionsSummary(date: string, bench: CaptionBench): CaptionsSummary {
	const figures = captionFigures(bench);
	return {
		date,
		input: bench.input,
		versions: bench.versions,
		oursOverFastestPeer: Object.fromEntries(
			figures.tasks
				.filter((task) => task.fastestPeer !== undefined)
				.map((task) => [
					task.task,
					{ fastestPeer: task.fastestPeer!, ratio: task.oursOverFastestPeer! },
				]),
		),
		oursOnlyMs: Object.fromEntries(
			figures.tasks
				.filter((task) => task.fastestPeer === undefined && task.ms.ours)
				.map((task) => [task.task, task.ms.ours!.median]),
		),
		growthOverLinear: Object.fromEntries(
			figures.scaling.map((row) => [row.task, row.growthOverLinear]),
		),
		lastGrowthOverLinear: Object.fromEntries(
			figures.scaling.map((row) => [row.task, row.lastGrowthOverLinear]),
		),
	};
}

/** bench/summary.json: per setting the medians of item 1 (at its first concurrency) and item 5. */
export function buildBenchSummary(results: Results): BenchSummary {
	const loads = results.load.map((l) => l.load[0]);
	const out: BenchSummary = {
		schema: 1,
		date: results.date,
		command: results.command,
		machine: results.machine,
		load: {
			min: Math.min(...loads),
			max: Math.max(...loads),
			median: summarize(loads).median,
			samples: results.load,
		},
		versions: results.versions,
		targets: Object.fromEntries(
			Object.entries(results.targets).map(([key, info]) => [key, info!.label]),
		),
		method: results.settings,
		...(results.raw.captions
			? { captions: buildCaptionsSummary(results.date, results.raw.captions) }
			: {}),
	};
	for (const setting of ['default', 'lazy', 'legacy'] as const) {
		const summary = settingSummary(results, setting);
		if (summary) out[setting] = summary;
	}
	return out;
}

/** One setting's medians, or nothing when neither item 1 nor item 5 ran in it. */
function settingSummary(results: Results, setting: string): SettingSummary | undefined {
	const byConcurrency = results.summary.throughput[setting];
	const latency = results.summary.latency[setting];
	const instructions = instructionGoalSummary(results, setting);
	if (!byConcurrency && !latency && !instructions) return undefined;
	const [concurrency, figures] = Object.entries(byConcurrency ?? {})[0] ?? [];
	const runs = results.raw.throughput[setting] ?? [];
	const ratio = (key: string) => figures?.ratios[key]?.median;
	const goal = goalSummary(results, setting);
	return {
		label: results.n8nSettings[setting]?.label ?? setting,
		env: results.n8nSettings[setting]?.env ?? {},
		rounds: new Set(runs.map((r) => r.round)).size,
		connections: Number(concurrency ?? Number.NaN),
		oursOverFloor: ratio('ours/floor'),
		oursOverFloorWithCredential: ratio('ours/floorCred'),
		oursOverWebhook: ratio('ours/webhook'),
		floorOverWebhook: ratio('floor/webhook'),
		p50ms: medians(latency, (l) => l.p50Ms),
		answerP50ms: medians(latency, (l) => l.answerP50Ms),
		loadedP50ms: medians(figures?.targets, (t) => t.p50Ms),
		eventsPerSecond: medians(figures?.targets, (t) => t.eventsPerSecond),
		n8nCpuMsPerRequest: medians(figures?.targets, (t) => t.n8nCpuMsPerRequest),
		otherRatios: Object.fromEntries(
			Object.entries(figures?.ratios ?? {})
				.filter(([key]) => !HEADLINE_RATIOS.includes(key))
				.map(([key, value]) => [key, value.median]),
		),
		ratioSpreads: ratioSpreadsOf(runs.filter((r) => String(r.concurrency) === concurrency)),
		...(goal ? { goal } : {}),
		...(instructions ? { instructions } : {}),
	};
}

/** Item 9's goal in a setting, as its last look decided it; undefined when item 9 did not run there. */
export function instructionGoalSummary(
	results: Results,
	setting: string,
): InstructionGoalSummary | undefined {
	const item = results.raw.instructions?.[setting];
	const decision = item?.decisions[item.decisions.length - 1];
	if (!item || !decision) return undefined;
	const idle = medianIdleRate(item.runs);
	const perTarget = (target: TargetKey) => {
		const counts = item.runs.filter((r) => r.target === target).map((r) => perRequest(r, idle));
		if (!counts.length) return undefined;
		const median = (pick: (c: Counted) => number) =>
			round(summarize(counts.map(pick)).median / 1e6, 3);
		return { all: median((c) => c.all), main: median((c) => c.main) };
	};
	return {
		verdict: decision.verdict,
		rounds: decision.rounds,
		requestsPerRun: item.runs[0]?.requests ?? 0,
		stopRule: item.stopRule,
		looks: lookRounds(item.stopRule),
		confidence: round(lookConfidence(item.stopRule), 4),
		cpu: judgedSummary(decision.cpu, GOAL.cpu, 'instructions per request (all threads)'),
		throughput: judgedSummary(
			decision.throughput,
			GOAL.throughput,
			"event-loop capacity (1 / the main thread's instructions per request)",
		),
		millionInstructionsPerRequest: Object.fromEntries(
			[GOAL.numerator, GOAL.denominator].map((t) => [t, perTarget(t)]),
		),
		load: settingLoad(results, setting, 'item 9 '),
	};
}

/** The spreads of every ratio that ran (events/s; `cpu ` + the goal's ratio: n8n CPU per request). */
function ratioSpreadsOf(runs: ThroughputRun[]): Record<string, RatioFigure> {
	const spreads: Record<string, RatioFigure> = {};
	for (const [a, b] of RATIOS) {
		const figure = ratioFigure(runs, `${a}/${b}`);
		if (figure) spreads[`${a}/${b}`] = figure;
	}
	const cpu = ratioFigure(runs, GOAL_RATIO, 'n8nCpuMsPerRequest');
	if (cpu) spreads[`cpu ${GOAL_RATIO}`] = cpu;
	return spreads;
}

const GOAL_RATIO = `${GOAL.numerator}/${GOAL.denominator}`;

const judgedSummary = (
	judged: Judged,
	criterion: typeof GOAL.cpu | typeof GOAL.throughput,
	what: string,
): JudgedSummary => ({
	ratio: `${GOAL_RATIO} ${what}`,
	bound: criterion.bound,
	threshold: criterion.threshold,
	n: judged.n,
	median: round(judged.median),
	...(judged.interval
		? {
				interval: {
					low: round(judged.interval.low),
					high: round(judged.interval.high),
					confidence: round(judged.interval.confidence, 4),
				},
			}
		: {}),
	verdict: judged.verdict,
});

/**
 * The 1-minute load while a setting's rounds ran (the samples its rounds took): item 1's (`<setting>: round N`),
 * or item 9's with `item` 'item 9 ' (`<setting>: item 9 round N`).
 */
function settingLoad(results: Results, setting: string, item = ''): GoalSummary['load'] {
	const loads = results.load
		.filter((l) => l.phase.startsWith(`${setting}: ${item}round`))
		.map((l) => l.load[0]);
	if (!loads.length) return undefined;
	return { min: Math.min(...loads), median: summarize(loads).median, max: Math.max(...loads) };
}

/** The goal's verdict, its two figures with their intervals, and the method's check (SettingSummary). */
export function goalSummary(results: Results, setting: string): GoalSummary | undefined {
	const decision = finalDecision(results, setting);
	if (!decision) return undefined;
	const runs = results.raw.throughput[setting] ?? [];
	const rule = ruleOf(results, runs);
	const concurrency = runs[0]?.concurrency;
	const check = ratioFigure(
		runs.filter((r) => r.concurrency === concurrency),
		GOAL.check,
	);
	return {
		verdict: decision.verdict,
		rounds: decision.rounds,
		requestsPerRun: results.raw.requestsPerRun?.[setting],
		stopRule: rule,
		looks: lookRounds(rule),
		confidence: round(lookConfidence(rule), 4),
		cpu: judgedSummary(decision.cpu, GOAL.cpu, 'n8n CPU per request'),
		throughput: judgedSummary(decision.throughput, GOAL.throughput, 'events/s'),
		...(check ? { check: { ...check, suspect: (check.interval95?.low ?? 0) > 1 } } : {}),
		load: settingLoad(results, setting),
		othersCpu: othersCpuOf(runs),
	};
}

/** The rest of the machine's CPU rate over the goal's runs, when the runs recorded it. */
function othersCpuOf(runs: ThroughputRun[]): GoalSummary['othersCpu'] {
	const rates = runs
		.filter((r) => r.target === GOAL.numerator || r.target === GOAL.denominator)
		.map((r) => r.othersCpuPerSecond)
		.filter((v): v is number => v !== undefined && Number.isFinite(v));
	if (!rates.length) return undefined;
	const { min, median, max } = s(rates, 2);
	return { min, median, max };
}

/** Per target, the median of the figure `pick` takes. */
function medians<T>(
	record: Partial<Record<TargetKey, T>> | undefined,
	pick: (value: T) => Summary,
): Partial<Record<TargetKey, number>> {
	return Object.fromEntries(
		Object.entries(record ?? {}).map(([key, value]) => [key, pick(value as T).median]),
	) as Partial<Record<TargetKey, number>>;
}

// ---- presentation ------------------------------------------------------------------------------------------

const fmt = (value: number | undefined, digits = 1) =>
	value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);

/** "median (min–max)" */
const spread = (summary: Summary | undefined, digits = 1) =>
	summary
		? summary.n > 1
			? `${fmt(summary.median, digits)} (${fmt(summary.min, digits)}–${fmt(summary.max, digits)})`
			: fmt(summary.median, digits)
		: '–';

function table(header: string[], rows: string[][]): string[] {
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
	const line = (cells: string[]) => cells.map((c, i) => (c ?? '').padEnd(widths[i])).join('  ');
	return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

function markdownTable(header: string[], rows: string[][]): string[] {
	return [
		`| ${header.join(' | ')} |`,
		`| ${header.map(() => '---').join(' | ')} |`,
		...rows.map((r) => `| ${r.join(' | ')} |`),
	];
}

interface Section {
	title: string;
	header: string[];
	rows: string[][];
	notes?: string[];
	/** Sections of item 7 go to their own block of BENCHMARKS.md. */
	captions?: boolean;
}

const SETTING_LABELS: Record<string, string> = {
	default: 'default (vm engine)',
	lazy: 'LAZY_ACQUIRE=true',
	legacy: 'ENGINE=legacy',
};
const settingLabel = (key: string) => SETTING_LABELS[key] ?? key;

/** The sections of the report in the order printed; each builds itself from the results, or is absent. */
const SECTIONS: Array<(results: Results) => Section | Section[] | undefined> = [
	floorSummarySection,
	instructionGoalSection,
	goalSection,
	throughputSection,
	latencySection,
	isolatesSection,
	tokenEconomySection,
	rateLimitSection,
	receiveCostSection,
	captionSections,
];

function sections(results: Results): Section[] {
	return SECTIONS.flatMap((build) => build(results) ?? []);
}

/** A target's label as item 1 measured it, else its key. */
const targetLabel = (results: Results, key: string) =>
	results.targets[key as TargetKey]?.label ?? key;

function floorSummarySection({ summary }: Results): Section | undefined {
	const rows = Object.entries(summary.throughput).map(([setting, byConcurrency]) => {
		const [, figures] = Object.entries(byConcurrency)[0] ?? [];
		const latency = summary.latency[setting] ?? {};
		const p50 = (key: TargetKey) => fmt(latency[key]?.p50Ms.median, 0);
		return [
			settingLabel(setting),
			...HEADLINE_RATIOS.map((ratio) => spread(figures?.ratios[ratio], 2)),
			`${p50('ours')} / ${p50('floor')} / ${p50('webhook')}`,
		];
	});
	if (!rows.length) return undefined;
	return {
		title: 'Summary: the trigger against the floor and the Webhook node (ours in its steady state)',
		header: [
			'n8n setting',
			'ours ÷ floor',
			'ours ÷ floor with credential',
			'ours ÷ Webhook node',
			'floor ÷ Webhook node',
			'p50 ms ours / floor / Webhook',
		],
		rows,
		notes: [
			'ratios: events/s of runs made back to back in one round, median (min–max) over rounds; ' +
				'p50: one delivery at a time, send -> execution finished (item 5), median over rounds',
		],
	};
}

/** "median (low–high at c %) verdict" of one figure of the goal. */
const judgedText = (j: JudgedSummary) =>
	`${fmt(j.median, 3)} (${j.interval ? `${fmt(j.interval.low, 3)}–${fmt(j.interval.high, 3)}` : 'no interval'}) ${j.verdict}`;

/** "median (min–max)" of a load or CPU range, 2 decimals. */
const rangeText = (r: { min: number; median: number; max: number } | undefined) =>
	r ? `${fmt(r.median, 2)} (${fmt(r.min, 2)}–${fmt(r.max, 2)})` : '–';

/** Item 1's goal per setting: the verdict, both figures with their intervals, the rounds, the load, the check. */
function goalSection(results: Results): Section | undefined {
	const rows = Object.keys(results.raw.throughput).flatMap((setting) => {
		const goal = goalSummary(results, setting);
		if (!goal) return [];
		return [
			[
				settingLabel(setting),
				goal.verdict,
				judgedText(goal.cpu),
				judgedText(goal.throughput),
				`${goal.rounds} × ${goal.requestsPerRun ?? '?'}`,
				rangeText(goal.load),
				rangeText(goal.othersCpu),
				goal.check ? `${fmt(goal.check.median, 2)}${goal.check.suspect ? ' (suspect)' : ''}` : '–',
			],
		];
	});
	if (!rows.length) return undefined;
	const first = goalSummary(results, Object.keys(results.raw.throughput)[0])!;
	return {
		title:
			`Goal: ours ÷ floorCred at most ${GOAL.cpu.threshold} in n8n CPU per request and at least ` +
			`${GOAL.throughput.threshold} in events/s, in each setting (paired ratios of back-to-back runs)`,
		header: [
			'n8n setting',
			'goal',
			'n8n CPU per request: median (interval)',
			'events/s: median (interval)',
			'rounds × requests',
			'1-minute load',
			"others' CPU/s",
			'check: floorCred ÷ floor',
		],
		rows,
		notes: [
			`each figure is the median of one ratio per round with its distribution-free interval at ` +
				`${(first.confidence * 100).toFixed(1)} % (${GOAL.alpha * 100} % shared over the looks after rounds ` +
				`${first.looks.join(', ')}); met when both intervals lie on the goal's side, not met when either lies on ` +
				"the other, undecided when the cap came first; others' CPU/s: what the rest of the machine used during " +
				"the goal's runs (2: both cores); the check, events/s of the floor with a credential ÷ the bare floor, " +
				'is suspect when its interval lies wholly above 1',
		],
	};
}

/** Item 9: the goal decided in instructions per request, per setting. */
function instructionGoalSection(results: Results): Section | undefined {
	const settings = Object.keys(results.raw.instructions ?? {});
	const goals = settings.flatMap((setting) => {
		const goal = instructionGoalSummary(results, setting);
		return goal ? [{ setting, goal }] : [];
	});
	if (!goals.length) return undefined;
	const millions = (goal: InstructionGoalSummary, target: TargetKey) => {
		const m = goal.millionInstructionsPerRequest[target];
		return m ? `${fmt(m.all, 2)} (${fmt(m.main, 2)})` : '–';
	};
	const first = goals[0].goal;
	return {
		title:
			`9. Goal in instructions (callgrind): ours ÷ floorCred at most ${GOAL.cpu.threshold} in instructions ` +
			`per request and at least ${GOAL.throughput.threshold} in the event loop's capacity, in each setting`,
		header: [
			'n8n setting',
			'goal',
			'instructions per request: median (interval)',
			'event-loop capacity: median (interval)',
			'rounds × requests',
			'M instructions/request ours (main thread)',
			'floorCred (main thread)',
			'1-minute load',
		],
		rows: goals.map(({ setting, goal }) => [
			settingLabel(setting),
			goal.verdict,
			judgedText(goal.cpu),
			judgedText(goal.throughput),
			`${goal.rounds} × ${goal.requestsPerRun}`,
			millions(goal, GOAL.numerator),
			millions(goal, GOAL.denominator),
			rangeText(goal.load),
		]),
		notes: [
			"under valgrind's callgrind (n8n's main process), ours and floorCred in runs back to back in one n8n, a " +
				"full garbage collection before each window, each window less the setting's median idle rate; instructions: all " +
				"threads of the process (the task runner's process not counted: it does the same for both); event-loop " +
				"capacity: floorCred's main-thread instructions per request ÷ ours'; each figure the median of one " +
				`ratio per round with its distribution-free interval at ${(first.confidence * 100).toFixed(1)} % ` +
				`(${GOAL.alpha * 100} % shared over the looks after rounds ${first.looks.join(', ')})`,
		],
	};
}

function throughputSection(results: Results): Section | undefined {
	const rows: string[][] = [];
	for (const [setting, byConcurrency] of Object.entries(results.summary.throughput)) {
		for (const [concurrency, figures] of Object.entries(byConcurrency)) {
			for (const [target, f] of Object.entries(figures.targets)) {
				const overFloor = figures.ratios[`${target}/floor`];
				rows.push([
					settingLabel(setting),
					concurrency,
					targetLabel(results, target),
					spread(f!.eventsPerSecond),
					overFloor ? spread(overFloor, 2) : '',
					spread(f!.p50Ms, 0),
					spread(f!.p99Ms, 0),
					spread(f!.n8nCpuMsPerRequest),
				]);
			}
		}
	}
	if (!rows.length) return undefined;
	return {
		title: '1. Throughput (same n8n per setting, 2 KB body, trigger -> NoOp, closed loop)',
		header: [
			'setting',
			'conns',
			'target',
			'events/s',
			'÷ floor',
			'p50 ms',
			'p99 ms',
			'n8n CPU ms/req',
		],
		rows,
		notes: Object.entries(results.raw.priming ?? {}).flatMap(([setting, records]) =>
			records.map(
				(p) =>
					`${settingLabel(setting)}: ${p.target} primed with ${p.events} distinct events in ` +
					`${p.seconds.toFixed(0)} s; static data n8n saved: ${p.savedStaticDataBytes} bytes after, ` +
					`${p.savedStaticDataBytesAtEnd ?? '–'} bytes at the end`,
			),
		),
	};
}

function latencySection(results: Results): Section | undefined {
	const rows = Object.entries(results.summary.latency).flatMap(([setting, byTarget]) =>
		Object.entries(byTarget).map(([target, l]) => [
			settingLabel(setting),
			targetLabel(results, target),
			spread(l!.p50Ms, 0),
			spread(l!.p99Ms, 0),
			spread(l!.answerP50Ms, 0),
		]),
	);
	if (!rows.length) return undefined;
	return {
		title: '5. Latency, one delivery at a time (send -> execution finished; send -> 2xx)',
		header: ['setting', 'target', 'p50 ms', 'p99 ms', 'send -> 2xx p50 ms'],
		rows,
	};
}

function isolatesSection(results: Results): Section | undefined {
	const { isolates, isolateCycle } = results.summary;
	const rows = Object.entries(isolates).flatMap(([setting, counts]) =>
		counts.map((c) => [
			settingLabel(setting),
			targetLabel(results, c.target),
			fmt(c.isolatesPerRequest, 2),
			fmt(c.syncColdStartsPerRequest, 2),
			fmt(c.evaluationsPerRequest, 2),
		]),
	);
	if (!rows.length && !isolateCycle) return undefined;
	return {
		title: '6. Expression isolates per request (n8n counters) and the cost of one',
		header: ['setting', 'target', 'isolates/req', 'built sync/req', 'evaluations/req'],
		rows,
		notes: isolateCycle
			? [
					`one isolate cycle (acquire, evaluate, release, rebuild): ${spread(isolateCycle.cpuMs)} ms CPU, ` +
						`${spread(isolateCycle.wallMs)} ms wall`,
				]
			: [],
	};
}

function tokenEconomySection({ summary }: Results): Section | undefined {
	if (!summary.tokenEconomy) return undefined;
	return {
		title: '2. Token economy (20 executions x 50 items of Get Many, one token lifetime)',
		header: ['executions', 'API calls', 'token requests', 'per 1,000 calls', '401s', 'failed'],
		rows: Object.entries(summary.tokenEconomy).map(([mode, t]) => [
			mode,
			spread(t.apiCalls, 0),
			spread(t.tokenRequests, 0),
			spread(t.tokenRequestsPer1000Calls, 2),
			String(t.unauthorized),
			String(t.failedExecutions),
		]),
	};
}

function rateLimitSection({ summary }: Results): Section | undefined {
	if (!summary.rateLimit) return undefined;
	return {
		title: '3. Rate-limit efficiency (create N endpoints, sandbox limited to R/s)',
		header: ['N', 'R/s', 'limits', 'seconds', 'time ÷ (N/R)', '429s', 'failures'],
		rows: summary.rateLimit.map((r) => [
			String(r.n),
			String(r.ratePerSecond),
			r.announced ? 'announced' : 'unannounced',
			spread(r.seconds, 2),
			spread(r.ratio, 3),
			spread(r.rateLimited, 0),
			String(r.failures + r.failedExecutions),
		]),
	};
}

function receiveCostSection(results: Results): Section | undefined {
	const rc = results.summary.receiveCost;
	if (!rc) return undefined;
	return {
		title: '4. Receive-path cost (trigger code alone, warm) vs n8n per request',
		header: ['what', 'CPU µs per event'],
		rows: [
			['trigger receive path, total', spread(rc.totalUs)],
			...Object.entries(rc.stepsUs).map(([name, v]) => [`  ${name}`, spread(v)]),
			...Object.entries(rc.n8nCpuUsPerRequest).map(([target, v]) => [
				`n8n per request: ${targetLabel(results, target)}`,
				spread(v, 0),
			]),
		],
		notes:
			rc.sharePercent !== undefined
				? [`the trigger's own code is ${rc.sharePercent}% of n8n's CPU per request for it`]
				: [],
	};
}

const LIBRARY_ORDER = ['ours', 'subtitle', 'subsrt-ts', 'webvtt-parser'] as const;

/** Item 7: ms per call side by side, ours ÷ the fastest other library, retained heap, growth with length. */
function captionSections(results: Results): Section[] {
	const figures = results.summary.captions;
	const bench = results.raw.captions;
	if (!figures || !bench) return [];
	const { input, versions } = bench;
	const tasks: Section = {
		title: `7. Caption library: ms per call on a ${(input.durationSeconds / 3600).toFixed(1)}-hour recording (${input.cues} WebVTT cues, ${input.words} words)${input.subtitles ? ` and on ${input.subtitles.cues} two-line subtitles ("(subtitles)")` : ''}, median (min–max) of ${figures.tasks[0]?.ms.ours?.n ?? 0} rounds`,
		header: [
			'task',
			...LIBRARY_ORDER.map((library) => `${library} ${versions[library]}`),
			'ours ÷ fastest other',
		],
		rows: figures.tasks.map((task) => [
			task.task,
			...LIBRARY_ORDER.map((library) => spread(task.ms[library], 2)),
			task.fastestPeer
				? `${fmt(task.oursOverFastestPeer, 2)}${task.ratioRange ? ` (${fmt(task.ratioRange[0], 2)}–${fmt(task.ratioRange[1], 2)})` : ''} ${task.fastestPeer}`
				: '–',
		]),
		notes: [
			'each library parses with its own exported function and writes from its own parsed structures (ours through its format registry, as the nodes call it); a cell is the median of rounds in which every library ran once, in turn; ours ÷ fastest other is the median (min–max) of that ratio within each round',
		],
		captions: true,
	};
	const memory: Section = {
		title:
			'7. Caption library: heap retained by what a parse returns (MB, after a full collection)',
		header: ['task', ...LIBRARY_ORDER],
		rows: [...new Set(figures.memory.map((m) => m.task))].map((task) => [
			task,
			...LIBRARY_ORDER.map((library) =>
				fmt(figures.memory.find((m) => m.task === task && m.library === library)?.retainedMB, 2),
			),
		]),
		captions: true,
	};
	const factors = [...new Set(bench.scaling.map((run) => run.factor))].sort((a, b) => a - b);
	const cuesAt = (factor: number) => bench.scaling.find((run) => run.factor === factor)?.cues ?? 0;
	const scaling: Section = {
		title: '7. Caption library: ours at longer recordings (ms per call, median)',
		header: [
			'task',
			...factors.map((f) => `${f}x (${cuesAt(f)} cues)`),
			'growth ÷ length, 1x to longest',
			'growth ÷ length, last step',
		],
		rows: figures.scaling.map((row) => [
			row.task,
			...factors.map((f) => fmt(row.ms[`${f}x`], 1)),
			fmt(row.growthOverLinear, 2),
			fmt(row.lastGrowthOverLinear, 2),
		]),
		notes: [
			'growth ÷ length: (time at the longer ÷ time at the shorter) ÷ (longer ÷ shorter length); 1 is linear, and a quadratic step from 1x to 16x would read 16',
		],
		captions: true,
	};
	const peaks = bench.peaks ?? [];
	const peak: Section = {
		title:
			'7. Caption library: peak memory of one call, each in a process of its own (MB it added to the resident set at its peak per MB of input; peak resident set in MB)',
		header: ['task', 'input (MB)', ...LIBRARY_ORDER],
		rows: [...new Set(peaks.map((p) => p.task))].map((task) => {
			const of = (library: string) => peaks.find((p) => p.task === task && p.library === library);
			const input = peaks.find((p) => p.task === task)!.inputMB;
			return [
				task,
				fmt(input, 1),
				...LIBRARY_ORDER.map((library) => {
					const one = of(library);
					return one ? `${fmt(one.addedMB / one.inputMB, 1)} (${fmt(one.peakRssMB, 0)})` : '–';
				}),
			];
		}),
		notes: [
			"each call runs once in a fresh process after the file is read (Convert: as the node does it, bytes decoded, read, written and turned into bytes again); the peak is the process's maximum resident set, Node and the libraries included",
		],
		captions: true,
	};
	return peaks.length > 0 ? [tasks, memory, scaling, peak] : [tasks, memory, scaling];
}

function header(results: Results): string[] {
	const m = results.machine;
	const v = results.versions;
	const loads = results.load.map((l) => l.load[0]);
	const wait = results.quietWait;
	const minutes = Math.round((results.durationSeconds ?? 0) / 60);
	return [
		`\`${results.command}\`, ${results.date}, ${minutes} min`,
		`${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB; Node ${v.node}, n8n ${v.n8n}, ` +
			`n8n-nodes-captioning ${v.package}`,
		`1-minute load during the run: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} ` +
			`(at start ${loads[0]?.toFixed(2)}); figures are median (min–max) over repetitions`,
		...(wait
			? [
					wait.quiet
						? `Waited ${wait.waitedSeconds} s for a 1-minute load below ${wait.threshold}`
						: `The 1-minute load did not fall below ${wait.threshold} within ${Math.round(wait.waitedSeconds / 60)} min of waiting: other work shared the machine`,
				]
			: []),
	];
}

export function printTable(results: Results): void {
	const lines = ['', ...header(results)];
	for (const section of sections(results)) {
		lines.push('', section.title, ...table(section.header, section.rows));
		for (const note of section.notes ?? []) lines.push(`  ${note}`);
	}
	process.stdout.write(lines.join('\n') + '\n\n');
}

export function renderMarkdown(results: Results, captions = false): string {
	const lines = header(results).map((l) => `${l}.`);
	lines.push('');
	for (const section of sections(results).filter((x) => (x.captions === true) === captions)) {
		lines.push(`**${section.title}**`, '', ...markdownTable(section.header, section.rows), '');
		for (const note of section.notes ?? [])
			lines.push(`${note[0].toUpperCase()}${note.slice(1)}.`, '');
	}
	return lines.join('\n').trimEnd() + '\n';
}

const BLOCKS = {
	figures: [
		'<!-- bench:figures:start (written by `npm run bench -- --update-doc`) -->',
		'<!-- bench:figures:end -->',
	],
	captions: [
		'<!-- bench:captions:start (written by `npm run bench -- --only 7 --update-doc`) -->',
		'<!-- bench:captions:end -->',
	],
} as const;

/** Replaces a figures block of BENCHMARKS.md (item 7 has its own); the rest of the file is written by hand. */
export async function updateDoc(
	path: string,
	figures: string,
	block: keyof typeof BLOCKS = 'figures',
): Promise<void> {
	const [START, END] = BLOCKS[block];
	const text = await readFile(path, 'utf8');
	const start = text.indexOf(START);
	const end = text.indexOf(END);
	if (start < 0 || end < start)
		throw new Error(`${path} has no figures block (${START} ... ${END})`);
	await writeFile(path, `${text.slice(0, start + START.length)}\n\n${figures}\n${text.slice(end)}`);
}
