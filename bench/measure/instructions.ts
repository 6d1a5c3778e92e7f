// Item 9: the instructions n8n executes per request, ours against floorCred, counted by callgrind in an n8n whose
// main process runs under valgrind (bench/lib/callgrind.ts). What item 1's n8n CPU per request measures, in a unit
// that does not move with the machine: the same work counts the same whatever the neighbours do, so rounds of a
// few requests decide the goal that runs of thousands could not.
import type { N8nInstance } from '../../harness';
import type { Callgrind, Counted } from '../lib/callgrind';
import type { EventTemplate } from '../lib/event';
import { type Decision, GOAL, type StopRule } from '../lib/goal';
import { runLoad } from '../lib/load';
import { groupPids, sleep, waitForQuiet } from '../lib/machine';
import { newestExecutionId, waitForFinished } from '../lib/n8n';
import { summarize } from '../lib/stats';
import type { Target, TargetKey } from './throughput';

export interface InstructionRun {
	round: number;
	target: TargetKey;
	requests: number;
	/** The window's instructions as counted: all threads of n8n's main process, and its main thread. */
	counted: Counted;
	windowSeconds: number;
	/**
	 * The instructions of a quiet stretch right after the window (n8n's timers, nothing sent): the setting's
	 * median rate of these is what the windows' counts are reduced by, for the time each window lasted.
	 */
	idleSample: Counted & { seconds: number };
}

/**
 * n8n's instructions per second when nothing is sent: the median over the runs' idle samples (a sample can catch
 * a periodic task or the tail of the run before it; the median of many does not).
 */
export function medianIdleRate(runs: readonly InstructionRun[]): Counted {
	const median = (values: number[]) => (values.length ? summarize(values).median : 0);
	const rates = runs.filter((r) => r.idleSample.seconds > 0);
	return {
		all: median(rates.map((r) => r.idleSample.all / r.idleSample.seconds)),
		main: median(rates.map((r) => r.idleSample.main / r.idleSample.seconds)),
	};
}

/** A run's instructions per request, the idle rate's share of its window taken off (all threads, main thread). */
export function perRequest(run: InstructionRun, idle: Counted): Counted {
	return {
		all: (run.counted.all - idle.all * run.windowSeconds) / run.requests,
		main: (run.counted.main - idle.main * run.windowSeconds) / run.requests,
	};
}

export interface InstructionRunOptions {
	round: number;
	requests: number;
	warmupRequests: number;
	concurrency: number;
	template: EventTemplate;
	/** Seconds of the quiet stretch counted after the window. */
	idleSeconds: number;
	/** Before the window (a full garbage collection: none of the earlier runs' garbage is collected in it). */
	beforeWindow?: () => Promise<void>;
}

/** The rate below which n8n under callgrind counts as quiet (CPU seconds per second), read every 500 ms. */
const QUIET = { quietRate: 0.25, sampleMs: 500, quietSamples: 2, timeoutMs: 600_000 };

/**
 * One run: warm-up requests (not counted), n8n quiet, the counters dumped; the measured requests and their
 * executions to the end (n8n quiet again), the counters dumped; a quiet stretch, dumped (the idle sample).
 * Executions are checked through the API afterwards (the API's own work is counted in neither).
 */
export async function measureInstructions(
	n8n: N8nInstance,
	pid: number,
	callgrind: Callgrind,
	target: Target,
	options: InstructionRunOptions,
): Promise<InstructionRun> {
	const load = (requests: number) =>
		runLoad({
			url: target.url,
			concurrency: options.concurrency,
			warmupMs: 0,
			durationMs: 3_600_000,
			maxRequests: requests,
			body: options.template.next,
			// under callgrind a request takes seconds, and the first after instrumentation goes on far longer
			// (valgrind translates the code again)
			timeoutMs: 300_000,
		});
	const pids = groupPids(pid);
	if (options.warmupRequests > 0) await load(options.warmupRequests);
	await waitForQuiet(pids, QUIET);
	await options.beforeWindow?.();
	const before = await newestExecutionId(n8n);
	await waitForQuiet(pids, QUIET);
	await callgrind.dump();
	const t0 = Date.now();
	const result = await load(options.requests);
	await waitForQuiet(pids, QUIET);
	const counted = await callgrind.dump();
	const t1 = Date.now();
	await sleep(options.idleSeconds * 1000);
	const idle = await callgrind.dump();
	const idleSample = { ...idle, seconds: (Date.now() - t1) / 1000 };
	if (result.errors > 0 || result.totalOk !== options.requests) {
		throw new Error(
			`${target.key}: ${result.totalOk}/${options.requests} 2xx under callgrind, ${result.firstError ?? ''}`,
		);
	}
	const executions = await waitForFinished(n8n, target.workflowId, before, options.requests, {
		timeoutMs: 600_000,
	});
	const failed = executions.filter((e) => e.status !== 'success').length;
	if (failed) throw new Error(`${target.key}: ${failed} failed executions under callgrind`);
	return {
		round: options.round,
		target: target.key,
		requests: options.requests,
		counted,
		windowSeconds: (t1 - t0) / 1000,
		idleSample,
	};
}

/** Item 9 in one setting, as bench/results.json keeps it. */
export interface InstructionSetting {
	runs: InstructionRun[];
	/** The goal at each look of the stop rule (bench/lib/goal.ts), in instructions. */
	decisions: Decision[];
	stopRule: StopRule;
	priming?: unknown[];
}

/**
 * The goal's paired ratios in instructions (the setting's median idle rate taken off), one per round in which both
 * ran: CPU, ours ÷ floorCred over all
 * threads; events/s, the event loop's capacity (one over the main thread's instructions per request), ours ÷
 * floorCred, that is floorCred's main-thread instructions ÷ ours'.
 */
export function instructionRatios(runs: readonly InstructionRun[]): {
	cpu: number[];
	throughput: number[];
} {
	const idle = medianIdleRate(runs);
	const cpu: number[] = [];
	const throughput: number[] = [];
	for (const run of runs.filter((r) => r.target === GOAL.numerator)) {
		const partner = runs.find((r) => r.target === GOAL.denominator && r.round === run.round);
		if (!partner) continue;
		const ours = perRequest(run, idle);
		const floor = perRequest(partner, idle);
		cpu.push(ours.all / floor.all);
		throughput.push(floor.main / ours.main);
	}
	return { cpu, throughput };
}
