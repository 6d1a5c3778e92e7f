// Turns the raw runs into figures (median and spread over repetitions), the console table and the figures block
// of BENCHMARKS.md.
import { readFile, writeFile } from 'node:fs/promises';

import type { MachineInfo, LoadSample } from './lib/machine';
import {
	goalVerdict,
	type GoalVerdict,
	medianInterval,
	round,
	roundSummary,
	summarize,
	type Summary,
} from './lib/stats';
import type { RateLimitRun, TokenEconomyRun } from './measure/api';
import { type CaptionBench, captionFigures, type CaptionFigures } from './measure/captions';
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

/**
 * The goal item 1 is judged by: ours at least 0.95 of the floor that carries a credential, in each setting. Decided
 * by the median of the paired ratios: met when its 95 % interval lies at or above 0.95, not met below, undecided
 * astride (more rounds narrow it). `floorCred/floor` is the method's check: a floor cannot be faster for carrying
 * a credential, so an interval wholly above 1 means the runs are biased, not the targets.
 */
export const GOAL = { ratio: 'ours/floorCred', threshold: 0.95, check: 'floorCred/floor' } as const;

/** A ratio's paired values summarised, with the median's distribution-free 95 % interval (and a goal's verdict). */
export interface RatioFigure extends Summary {
	interval95?: { low: number; high: number; confidence: number };
	verdict?: GoalVerdict;
}

/** `a/b` over the rounds of `runs` (one setting, one concurrency): spread, interval, and the verdict on `goal`. */
export function ratioFigure(
	runs: ThroughputRun[],
	key: string,
	goal?: number,
): RatioFigure | undefined {
	const [a, b] = key.split('/') as [TargetKey, TargetKey];
	const ratios = pairedRatios(runs, a, b);
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
		...(goal === undefined ? {} : { verdict: goalVerdict(ratios, goal) }),
	};
}

/** The ratios the summary section and bench/summary.json name; the rest of RATIOS are "other". */
const HEADLINE_RATIOS = ['ours/floor', 'ours/floorCred', 'ours/webhook', 'floor/webhook'];

/** events/s of `numerator` ÷ events/s of `denominator` for each round in which both ran. */
export function pairedRatios(
	runs: ThroughputRun[],
	numerator: TargetKey,
	denominator: TargetKey,
): number[] {
	const ratios: number[] = [];
	for (const run of runs.filter((r) => r.target === numerator)) {
		const partner = runs.find(
			(r) => r.target === denominator && r.round === run.round && r.concurrency === run.concurrency,
		);
		if (partner && partner.eventsPerSecond > 0) {
			ratios.push(run.eventsPerSecond / partner.eventsPerSecond);
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
	/** GOAL in this setting: ours ÷ the floor with a credential ≥ 0.95, and the method's check. */
	goal?: {
		ratio: string;
		threshold: number;
		verdict: GoalVerdict;
		/** floorCred ÷ floor's interval lies wholly above 1: the runs favour one position, the method is suspect. */
		methodSuspect: boolean;
	};
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
	if (!byConcurrency && !latency) return undefined;
	const [concurrency, figures] = Object.entries(byConcurrency ?? {})[0] ?? [];
	const runs = results.raw.throughput[setting] ?? [];
	const ratio = (key: string) => figures?.ratios[key]?.median;
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
		...goalFigures(runs.filter((r) => String(r.concurrency) === concurrency)),
	};
}

/** The spreads of every ratio that ran, and GOAL's verdict and check (SettingSummary). */
function goalFigures(runs: ThroughputRun[]): Pick<SettingSummary, 'ratioSpreads' | 'goal'> {
	const ratioSpreads: Record<string, RatioFigure> = {};
	for (const [a, b] of RATIOS) {
		const figure = ratioFigure(runs, `${a}/${b}`);
		if (figure) ratioSpreads[`${a}/${b}`] = figure;
	}
	const goal = ratioFigure(runs, GOAL.ratio, GOAL.threshold);
	const check = ratioSpreads[GOAL.check];
	return {
		ratioSpreads,
		...(goal
			? {
					goal: {
						ratio: GOAL.ratio,
						threshold: GOAL.threshold,
						verdict: goal.verdict!,
						methodSuspect: (check?.interval95?.low ?? 0) > 1,
					},
				}
			: {}),
	};
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

/** "median (IQR p25–p75; min–max; 95 % interval of the median) n" of a ratio. */
const ratioSpread = (f: RatioFigure | undefined) =>
	f
		? `${fmt(f.median, 2)} (IQR ${fmt(f.p25, 2)}–${fmt(f.p75, 2)}; ${fmt(f.min, 2)}–${fmt(f.max, 2)}; ` +
			`median within ${f.interval95 ? `${fmt(f.interval95.low, 2)}–${fmt(f.interval95.high, 2)}` : '– (too few rounds)'}) n=${f.n}`
		: '–';

/** GOAL per setting: the paired ratio's spread and verdict, and the method's check beside it. */
function goalSection(results: Results): Section | undefined {
	const rows = Object.entries(results.raw.throughput).flatMap(([setting, runs]) => {
		const concurrency = runs[0]?.concurrency;
		const mine = runs.filter((r) => r.concurrency === concurrency);
		const goal = ratioFigure(mine, GOAL.ratio, GOAL.threshold);
		if (!goal) return [];
		const check = ratioFigure(mine, GOAL.check);
		return [
			[
				settingLabel(setting),
				ratioSpread(goal),
				goal.verdict ?? '',
				ratioSpread(check),
				(check?.interval95?.low ?? 0) > 1 ? 'suspect: the floor gains from a credential' : 'ok',
			],
		];
	});
	if (!rows.length) return undefined;
	return {
		title: `Goal: ${GOAL.ratio} ≥ ${GOAL.threshold} in each setting (paired ratios of back-to-back runs)`,
		header: ['n8n setting', GOAL.ratio, 'goal', `check: ${GOAL.check}`, 'method'],
		rows,
		notes: [
			'met when the 95 % interval of the median of the paired ratios lies at or above the goal, not met when ' +
				'below, undecided astride; the interval is distribution-free (order statistics), so 6 rounds at least, ' +
				'and an even number keeps the alternating order balanced',
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
	return [
		`${results.date}: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB; Node ${v.node}, n8n ${v.n8n}, ` +
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
