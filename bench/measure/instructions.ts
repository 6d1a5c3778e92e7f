// Item 8: the instructions n8n executes per request, ours against floorCred, counted by callgrind in an n8n whose
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
import type { Target, TargetKey } from './throughput';

export interface InstructionRun {
	round: number;
	target: TargetKey;
	requests: number;
	/** All threads of n8n's main process (the task runner, a process of its own, is not counted), idle subtracted. */
	instructionsPerRequest: number;
	/** The main thread alone (the event loop, which bounds events/s), idle subtracted. */
	mainThreadInstructionsPerRequest: number;
	/** The window's instructions as counted, before the idle rate is subtracted. */
	counted: Counted;
	windowSeconds: number;
}

/** n8n's instructions per second while nothing is sent (its timers), over `seconds`. */
export async function idleInstructionRate(callgrind: Callgrind, seconds: number): Promise<Counted> {
	await callgrind.dump();
	const t0 = Date.now();
	await sleep(seconds * 1000);
	const counted = await callgrind.dump();
	const elapsed = (Date.now() - t0) / 1000;
	return { all: counted.all / elapsed, main: counted.main / elapsed };
}

export interface InstructionRunOptions {
	round: number;
	requests: number;
	warmupRequests: number;
	concurrency: number;
	template: EventTemplate;
	idleRate: Counted;
	/** Before the window (a full garbage collection: none of the earlier runs' garbage is collected in it). */
	beforeWindow?: () => Promise<void>;
}

/** The rate below which n8n under callgrind counts as quiet (CPU seconds per second). */
const QUIET_RATE = 0.25;

/**
 * One run: warm-up requests (not counted), n8n quiet, the counters dumped; the measured requests and their
 * executions to the end (n8n quiet again); the counters dumped. Executions are checked through the API after the
 * window closed (the API's own work is not counted in it).
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
		});
	const pids = groupPids(pid);
	const quiet = { quietRate: QUIET_RATE };
	if (options.warmupRequests > 0) await load(options.warmupRequests);
	await waitForQuiet(pids, quiet);
	await options.beforeWindow?.();
	const before = await newestExecutionId(n8n);
	await waitForQuiet(pids, quiet);
	await callgrind.dump();
	const t0 = Date.now();
	const result = await load(options.requests);
	await waitForQuiet(pids, quiet);
	const counted = await callgrind.dump();
	const windowSeconds = (Date.now() - t0) / 1000;
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
	const perRequest = (count: number, idle: number) =>
		(count - idle * windowSeconds) / options.requests;
	return {
		round: options.round,
		target: target.key,
		requests: options.requests,
		instructionsPerRequest: perRequest(counted.all, options.idleRate.all),
		mainThreadInstructionsPerRequest: perRequest(counted.main, options.idleRate.main),
		counted,
		windowSeconds,
	};
}

/** Item 8 in one setting, as bench/results.json keeps it. */
export interface InstructionSetting {
	runs: InstructionRun[];
	/** The goal at each look of the stop rule (bench/lib/goal.ts), in instructions. */
	decisions: Decision[];
	stopRule: StopRule;
	idleRate?: Counted;
	priming?: unknown[];
}

/**
 * The goal's paired ratios in instructions, one per round in which both ran: CPU, ours ÷ floorCred over all
 * threads; events/s, the event loop's capacity (one over the main thread's instructions per request), ours ÷
 * floorCred, that is floorCred's main-thread instructions ÷ ours'.
 */
export function instructionRatios(runs: readonly InstructionRun[]): {
	cpu: number[];
	throughput: number[];
} {
	const cpu: number[] = [];
	const throughput: number[] = [];
	for (const ours of runs.filter((r) => r.target === GOAL.numerator)) {
		const floor = runs.find((r) => r.target === GOAL.denominator && r.round === ours.round);
		if (!floor) continue;
		cpu.push(ours.instructionsPerRequest / floor.instructionsPerRequest);
		throughput.push(floor.mainThreadInstructionsPerRequest / ours.mainThreadInstructionsPerRequest);
	}
	return { cpu, throughput };
}
