// Item 1's goal and its stop rule (bench/lib/goal.ts): the looks, their confidence, each figure's side, and the
// rate at which the whole sequence of looks decides the wrong side, simulated with seeded noise.
//   npm test -- --selectProjects bench
import fc from 'fast-check';

import {
	bothOf,
	decide,
	DEFAULT_STOP_RULE,
	fixedRounds,
	GOAL,
	judge,
	lookAfter,
	lookConfidence,
	lookRounds,
	type StopRule,
} from '../lib/goal';

describe('lookRounds and lookConfidence', () => {
	it('looks after every fourth round from 12 to 48 by default, each at 99.5 %', () => {
		expect(lookRounds(DEFAULT_STOP_RULE)).toEqual([12, 16, 20, 24, 28, 32, 36, 40, 44, 48]);
		expect(lookConfidence(DEFAULT_STOP_RULE)).toBeCloseTo(0.995, 10);
	});
	it('always looks at the cap, also off the grid', () => {
		expect(lookRounds({ first: 6, step: 4, cap: 16 })).toEqual([6, 10, 14, 16]);
		expect(lookConfidence({ first: 6, step: 4, cap: 16 })).toBeCloseTo(1 - 0.05 / 4, 10);
	});
	it('a fixed number of rounds is one look at 95 %', () => {
		expect(lookRounds(fixedRounds(10))).toEqual([10]);
		expect(lookConfidence(fixedRounds(10))).toBeCloseTo(0.95, 10);
		expect(lookRounds(fixedRounds(1))).toEqual([1]);
	});
});

describe('judge', () => {
	const cpu = GOAL.cpu;
	const throughput = GOAL.throughput;

	it('CPU (at most 1.05): met when the interval lies at or below, not met when above, else undecided', () => {
		const below = [0.98, 1.0, 1.01, 0.99, 1.03, 1.02, 0.97, 1.04];
		// 8 values at 99 %: min–max
		expect(judge(below, cpu, 0.99)).toEqual({
			n: 8,
			median: 1.005,
			interval: { low: 0.97, high: 1.04, confidence: 1 - 2 / 256 },
			verdict: 'met',
		});
		expect(judge([...below.slice(1), 1.05], cpu, 0.99).verdict).toBe('met');
		expect(judge([...below.slice(1), 1.06], cpu, 0.99).verdict).toBe('undecided');
		const above = [1.06, 1.1, 1.08, 1.07, 1.2, 1.09, 1.11, 1.12];
		expect(judge(above, cpu, 0.99).verdict).toBe('not met');
	});

	it('events/s (at least 0.95): met at or above, not met below', () => {
		expect(judge([0.95, 0.96, 1, 1.1, 0.99, 0.97, 1.02, 0.98], throughput, 0.99).verdict).toBe(
			'met',
		);
		expect(judge([0.9, 0.8, 0.94, 0.93, 0.7, 0.92, 0.91, 0.85], throughput, 0.99).verdict).toBe(
			'not met',
		);
		expect(judge([0.9, 0.96, 1, 1.1, 0.99, 0.97, 1.02, 0.98], throughput, 0.99).verdict).toBe(
			'undecided',
		);
	});

	it('at 12 values and 99 %, the interval is x(2)–x(11): one outlier at an end does not decide', () => {
		const ratios = [1.0, 1.01, 0.99, 1.02, 0.98, 1.03, 1.0, 1.01, 0.97, 1.02, 1.0, 1.3];
		const judged = judge(ratios, cpu, 0.99);
		expect(judged.interval).toMatchObject({ low: 0.98, high: 1.03 });
		expect(judged.interval!.confidence).toBeCloseTo(1 - 26 / 4096, 10);
		expect(judged.verdict).toBe('met');
	});

	it('too few values for the confidence: no interval, undecided; non-finite values are left out', () => {
		expect(judge([1, 1, 1, 1, 1], cpu, 0.95)).toMatchObject({ n: 5, verdict: 'undecided' });
		expect(judge([1, 1, 1, 1, 1, 1], cpu, 0.99).interval).toBeUndefined();
		expect(judge([1, 1, 1, 1, 1, 1, 1, Number.NaN], cpu, 0.95).n).toBe(7);
	});
});

describe('bothOf', () => {
	it.each([
		['met', 'met', 'met'],
		['met', 'undecided', 'undecided'],
		['undecided', 'met', 'undecided'],
		['undecided', 'undecided', 'undecided'],
		['not met', 'met', 'not met'],
		['met', 'not met', 'not met'],
		['not met', 'undecided', 'not met'],
	] as const)('%s and %s: %s', (a, b, both) => {
		expect(bothOf(a, b)).toBe(both);
	});
});

describe('lookAfter', () => {
	const good = { cpu: Array(12).fill(1), throughput: Array(12).fill(1) };
	it('does not look between looks', () => {
		expect(lookAfter(11, good, DEFAULT_STOP_RULE)).toEqual({ stop: false });
		expect(lookAfter(13, good, DEFAULT_STOP_RULE)).toEqual({ stop: false });
	});
	it('stops at a look that decides, either way', () => {
		const met = lookAfter(12, good, DEFAULT_STOP_RULE);
		expect(met).toMatchObject({ stop: true, decision: { rounds: 12, verdict: 'met' } });
		const slow = { cpu: Array(12).fill(1.2), throughput: Array(12).fill(1) };
		expect(lookAfter(12, slow, DEFAULT_STOP_RULE)).toMatchObject({
			stop: true,
			decision: { verdict: 'not met', cpu: { verdict: 'not met' }, throughput: { verdict: 'met' } },
		});
	});
	it('goes on from an undecided look, and stops at the cap undecided', () => {
		const astride = { cpu: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.1], throughput: Array(12).fill(1) };
		expect(lookAfter(12, astride, DEFAULT_STOP_RULE)).toMatchObject({
			stop: false,
			decision: { verdict: 'undecided' },
		});
		const rule: StopRule = { first: 8, step: 4, cap: 12 };
		const at12 = { cpu: [1, 1, 1, 1, 1, 1, 1, 1.1, 1.1, 1.1, 1, 1.1], throughput: Array(12).fill(1) };
		expect(lookAfter(12, at12, rule)).toMatchObject({
			stop: true,
			decision: { verdict: 'undecided' },
		});
	});
});

/**
 * The stop rule run on a stream of paired CPU ratios (events/s always met): the verdict where it stopped, as
 * run.ts applies it after every round.
 */
function runRule(cpu: readonly number[], rule: StopRule): string {
	for (let round = 1; round <= rule.cap; round++) {
		const look = lookAfter(
			round,
			{ cpu: cpu.slice(0, round), throughput: Array(round).fill(1) },
			rule,
		);
		if (look.stop) return look.decision.verdict;
	}
	throw new Error('the rule never stopped');
}

/**
 * `count` seeded streams of 24 paired ratios: `median` times uniform noise of ±`spread` (integers: fast-check's
 * doubles are uniform over representable values, which crowd near 0).
 */
function streams(median: number, spread: number, count: number, seed: number): number[][] {
	const STEPS = 10_000;
	const noise = fc.array(fc.integer({ min: -STEPS, max: STEPS }), { minLength: 24, maxLength: 24 });
	return fc
		.sample(noise, { seed, numRuns: count })
		.map((xs) => xs.map((x) => median * (1 + (spread * x) / STEPS)));
}

describe('the stop rule over a whole run (simulated)', () => {
	const wrong = (verdicts: string[], bad: string) =>
		verdicts.filter((v) => v === bad).length / verdicts.length;

	it('declares "met" for a trigger 1 % over the CPU goal in less than 5 % of runs', () => {
		const verdicts = streams(1.06, 0.05, 2000, 40).map((s) => runRule(s, DEFAULT_STOP_RULE));
		expect(wrong(verdicts, 'met')).toBeLessThan(0.05);
	});

	it('declares "not met" for a trigger 1 % under it in less than 5 % of runs', () => {
		const verdicts = streams(1.04, 0.05, 2000, 41).map((s) => runRule(s, DEFAULT_STOP_RULE));
		expect(wrong(verdicts, 'not met')).toBeLessThan(0.05);
	});

	it('a 95 % interval looked at after every round from 6 on errs more than 1 time in 20 at the threshold', () => {
		// why the looks share alpha: the naive rule, on a trigger exactly at the goal, stops on the wrong side often
		const naive: StopRule = { first: 6, step: 1, cap: 24 };
		const runNaive = (cpu: number[]) => {
			for (let round = naive.first; round <= naive.cap; round++) {
				const verdict = decide(
					round,
					{ cpu: cpu.slice(0, round), throughput: Array(round).fill(1) },
					fixedRounds(round),
				).verdict;
				if (verdict !== 'undecided') return verdict;
			}
			return 'undecided';
		};
		const verdicts = streams(1.05, 0.05, 2000, 42).map(runNaive);
		expect(wrong(verdicts, 'not met')).toBeGreaterThan(0.05);
	});

	it('decides a trigger clearly within both goals at the first look on a quiet machine', () => {
		const verdicts = streams(1.0, 0.03, 200, 43).map((s) => runRule(s, DEFAULT_STOP_RULE));
		expect(verdicts.every((v) => v === 'met')).toBe(true);
	});
});
