// Item 1's goal and the rule that decides when it is decided. Per setting, ours against the floor that carries a
// credential, in runs made back to back: n8n's CPU per request (the primary figure: it moves far less with the
// neighbours' load than events/s do) at most 1.05 times the floor's, and events/s (secondary) at least 0.95 times.
// Each figure is judged by the median of its paired ratios over rounds and that median's distribution-free interval.
// Item 9 judges the same goal on instruction counts (bench/measure/instructions.ts), with the same rule.
import { medianInterval } from './stats';

export type GoalVerdict = 'met' | 'not met' | 'undecided';

/** One figure of the goal: the paired ratio of `figure` must stay at or below (at or above) `threshold`. */
export interface Criterion {
	figure: 'n8nCpuMsPerRequest' | 'eventsPerSecond';
	bound: 'atMost' | 'atLeast';
	threshold: number;
}

export const GOAL = {
	numerator: 'ours',
	denominator: 'floorCred',
	cpu: { figure: 'n8nCpuMsPerRequest', bound: 'atMost', threshold: 1.05 },
	throughput: { figure: 'eventsPerSecond', bound: 'atLeast', threshold: 0.95 },
	/** The method's check: a floor cannot be faster for carrying a credential (an interval wholly above 1). */
	check: 'floorCred/floor',
	/** The chance, over the whole sequence of looks, that a look decides the wrong side. */
	alpha: 0.05,
} as const satisfies {
	numerator: string;
	denominator: string;
	cpu: Criterion;
	throughput: Criterion;
	check: string;
	alpha: number;
};

/**
 * When the goal is looked at: after round `first`, then every `step` rounds, up to `cap` (always a look). Rounds
 * stop at the first look that decides both figures' side.
 */
export interface StopRule {
	first: number;
	step: number;
	cap: number;
}

/**
 * 12, 16, …, 48: ten looks, each at 99.5 % (GOAL.alpha / 10). At 12 rounds the interval is min–max (99.95 %): the
 * first look that can decide at that confidence (8 rounds' min–max holds 99.2 %); a step of 4 keeps the
 * alternating order balanced at every look. The cap is 48: 24 rounds decided no setting on this 2-core machine
 * (2026-12-02), 48 decided `default` after 16 and `lazy` after 36 (2026-12-03).
 */
export const DEFAULT_STOP_RULE: StopRule = { first: 12, step: 4, cap: 48 };

/** A fixed number of rounds: one look, at the end. */
export const fixedRounds = (rounds: number): StopRule => ({ first: rounds, step: 1, cap: rounds });

/** The rounds after which the rule looks. */
export function lookRounds(rule: StopRule): number[] {
	const looks: number[] = [];
	for (let round = rule.first; round < rule.cap; round += Math.max(1, rule.step)) looks.push(round);
	looks.push(rule.cap);
	return looks;
}

/**
 * The confidence of each look's interval: GOAL.alpha shared out over the looks (Bonferroni), so that the chance
 * that any look of the run decides the wrong side stays below alpha. One 95 % interval looked at after every round,
 * stopping at the first that decides, would be wrong far more often than 1 time in 20.
 */
export function lookConfidence(rule: StopRule, alpha: number = GOAL.alpha): number {
	return 1 - alpha / lookRounds(rule).length;
}

/** One figure judged: its paired ratios' median, the median's interval, and which side of the threshold it lies. */
export interface Judged {
	n: number;
	median: number;
	interval?: { low: number; high: number; confidence: number };
	verdict: GoalVerdict;
}

export function judge(ratios: readonly number[], criterion: Criterion, confidence: number): Judged {
	const finite = ratios.filter((r) => Number.isFinite(r));
	const sorted = [...finite].sort((a, b) => a - b);
	const mid = (sorted.length - 1) / 2;
	const median = sorted.length
		? (sorted[Math.floor(mid)] + sorted[Math.ceil(mid)]) / 2
		: Number.NaN;
	const interval = medianInterval(finite, confidence);
	return { n: finite.length, median, interval, verdict: sideOf(interval, criterion) };
}

function sideOf(interval: Judged['interval'], { bound, threshold }: Criterion): GoalVerdict {
	if (!interval) return 'undecided';
	if (bound === 'atMost') {
		if (interval.high <= threshold) return 'met';
		return interval.low > threshold ? 'not met' : 'undecided';
	}
	if (interval.low >= threshold) return 'met';
	return interval.high < threshold ? 'not met' : 'undecided';
}

/** Both figures: met when both are, not met when either is not, else undecided. */
export function bothOf(a: GoalVerdict, b: GoalVerdict): GoalVerdict {
	if (a === 'not met' || b === 'not met') return 'not met';
	return a === 'met' && b === 'met' ? 'met' : 'undecided';
}

export interface Decision {
	rounds: number;
	cpu: Judged;
	throughput: Judged;
	verdict: GoalVerdict;
}

/** The goal judged on the paired ratios of `rounds` rounds, at the rule's per-look confidence. */
export function decide(
	rounds: number,
	ratios: { cpu: readonly number[]; throughput: readonly number[] },
	rule: StopRule,
): Decision {
	const confidence = lookConfidence(rule);
	const cpu = judge(ratios.cpu, GOAL.cpu, confidence);
	const throughput = judge(ratios.throughput, GOAL.throughput, confidence);
	return { rounds, cpu, throughput, verdict: bothOf(cpu.verdict, throughput.verdict) };
}

/** What the rule does after `round`: no look (go on), or a look's decision and whether the rounds stop there. */
export type Look = { decision?: undefined; stop: false } | { decision: Decision; stop: boolean };

/** After `round` rounds with these paired ratios: a look when the rule has one there; stop when it decided, or at the cap. */
export function lookAfter(
	round: number,
	ratios: { cpu: readonly number[]; throughput: readonly number[] },
	rule: StopRule,
): Look {
	if (!lookRounds(rule).includes(round)) return { stop: false };
	const decision = decide(round, ratios, rule);
	return { decision, stop: decision.verdict !== 'undecided' || round >= rule.cap };
}
