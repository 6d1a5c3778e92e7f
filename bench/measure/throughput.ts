// Item 1: the Captioning Trigger against n8n's own Webhook node in one n8n, closed-loop load, runs interleaved.
import { randomUUID } from 'node:crypto';

import type { N8nInstance } from '../../test/e2e/harness/n8n';
import type { Sandbox } from '../../sandbox/server';
import { SHIPPED_TRIGGER_TYPE, VARIANT_TRIGGER_TYPE } from '../lib/build';
import type { EventTemplate } from '../lib/event';
import { runLoad } from '../lib/load';
import { processGroupCpuSeconds } from '../lib/machine';
import {
	newestExecutionId,
	TRIGGER_NODE_NAME,
	triggerUrl,
	triggerWorkflow,
	waitForFinished,
	webhookWorkflow,
} from '../lib/n8n';

export type TargetKey = 'ours' | 'oursV2' | 'webhook';

export const TARGET_LABELS: Record<TargetKey, string> = {
	ours: 'Captioning Trigger (shipped, typeVersion 1)',
	oursV2: 'Captioning Trigger, experimental typeVersion 2',
	webhook: "n8n's Webhook node (v2, static, onReceived)",
};

export interface Target {
	key: TargetKey;
	workflowId: string;
	url: string;
}

export interface ThroughputRun {
	round: number;
	concurrency: number;
	target: TargetKey;
	eventsPerSecond: number;
	p50Ms: number;
	p99Ms: number;
	/** 2xx answers in the window; all 2xx of the run (each started one execution). */
	requests: number;
	totalOk: number;
	errors: number;
	firstError?: string;
	executionsFinished: number;
	executionsFailed: number;
	/** n8n's process-group CPU (all threads, task runner included) per request, idle rate subtracted. */
	n8nCpuMsPerRequest: number;
	/** Last answer to last execution finished. */
	drainSeconds: number;
}

/** A full de-duplication list (DEDUPE_LIMIT ids): the trigger's steady state under sustained traffic. */
function steadyStateSeenEvents(count = 1000): Array<[string, number]> {
	const now = Math.floor(Date.now() / 1000);
	return Array.from({ length: count }, () => [randomUUID(), now]);
}

export async function createTargets(
	n8n: N8nInstance,
	sandbox: Sandbox,
	credentialId: string,
	keys: TargetKey[],
): Promise<Target[]> {
	const targets: Target[] = [];
	for (const key of keys) {
		if (key === 'webhook') {
			const path = `bench-webhook-${randomUUID()}`;
			const workflow = await n8n.createWorkflow(webhookWorkflow({ name: 'bench: webhook', path }));
			await n8n.activateWorkflow(workflow.id);
			// the same query string as the trigger's URL; the Webhook node ignores it
			targets.push({ key, workflowId: workflow.id, url: `${n8n.webhookBaseUrl}/${path}?token=x` });
			continue;
		}
		const workflow = await n8n.createWorkflow(
			triggerWorkflow({
				name: `bench: ${key}`,
				type: key === 'ours' ? SHIPPED_TRIGGER_TYPE : VARIANT_TRIGGER_TYPE,
				typeVersion: key === 'ours' ? 1 : 2,
				credentialId,
				seenEvents: steadyStateSeenEvents(),
			}),
		);
		await n8n.activateWorkflow(workflow.id);
		const node = (workflow.nodes as { name: string; webhookId: string }[]).find(
			(n) => n.name === TRIGGER_NODE_NAME,
		);
		targets.push({ key, workflowId: workflow.id, url: triggerUrl(sandbox, n8n, node!.webhookId) });
	}
	return targets;
}

/** n8n's CPU rate while nothing is sent (timers, the task runner's heartbeat), in CPU seconds per second. */
export async function idleCpuRate(pid: number, seconds = 5): Promise<number> {
	const cpu0 = processGroupCpuSeconds(pid);
	const t0 = Date.now();
	await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
	return (processGroupCpuSeconds(pid) - cpu0) / ((Date.now() - t0) / 1000);
}

export async function measureRun(
	n8n: N8nInstance,
	pid: number,
	idleRate: number,
	target: Target,
	options: {
		concurrency: number;
		warmupMs: number;
		durationMs: number;
		template: EventTemplate;
		round: number;
	},
): Promise<ThroughputRun> {
	const before = await newestExecutionId(n8n);
	const cpu0 = processGroupCpuSeconds(pid);
	const t0 = Date.now();
	const load = await runLoad({
		url: target.url,
		concurrency: options.concurrency,
		warmupMs: options.warmupMs,
		durationMs: options.durationMs,
		body: options.template.next,
	});
	const executions = await waitForFinished(n8n, target.workflowId, before, load.totalOk);
	const drainedAt = Date.now();
	const cpuSeconds = processGroupCpuSeconds(pid) - cpu0 - idleRate * ((drainedAt - t0) / 1000);
	return {
		round: options.round,
		concurrency: options.concurrency,
		target: target.key,
		eventsPerSecond: load.eventsPerSecond,
		p50Ms: load.latencyMs.p50,
		p99Ms: load.latencyMs.p99,
		requests: load.requests,
		totalOk: load.totalOk,
		errors: load.errors,
		firstError: load.firstError,
		executionsFinished: executions.length,
		executionsFailed: executions.filter((e) => e.status !== 'success').length,
		n8nCpuMsPerRequest: load.totalOk ? (cpuSeconds * 1000) / load.totalOk : Number.NaN,
		drainSeconds: (drainedAt - load.finishedAt) / 1000,
	};
}

/**
 * Rounds of A/B(/C) runs: in each round, for each concurrency, every target once, the order rotating from
 * round to round so that no target always follows the same one.
 */
export async function measureThroughput(
	n8n: N8nInstance,
	pid: number,
	targets: Target[],
	options: {
		concurrencies: number[];
		rounds: number;
		warmupMs: number;
		durationMs: number;
		template: EventTemplate;
		log: (line: string) => void;
	},
): Promise<{ idleCpuRate: number; runs: ThroughputRun[] }> {
	const idleRate = await idleCpuRate(pid);
	const runs: ThroughputRun[] = [];
	for (let round = 1; round <= options.rounds; round++) {
		for (const concurrency of options.concurrencies) {
			const shift = (round - 1) % targets.length;
			const order = [...targets.slice(shift), ...targets.slice(0, shift)];
			for (const target of order) {
				const run = await measureRun(n8n, pid, idleRate, target, {
					...options,
					concurrency,
					round,
				});
				runs.push(run);
				options.log(
					`round ${round} c=${concurrency} ${target.key.padEnd(7)} ${run.eventsPerSecond.toFixed(1)} ev/s ` +
						`p50 ${run.p50Ms.toFixed(0)} ms p99 ${run.p99Ms.toFixed(0)} ms, ` +
						`n8n CPU ${run.n8nCpuMsPerRequest.toFixed(1)} ms/req, errors ${run.errors}, ` +
						`executions ${run.executionsFinished} (${run.executionsFailed} failed)`,
				);
				if (run.errors > 0 || run.executionsFailed > 0) {
					throw new Error(
						`${target.key} answered errors or had failed executions: ${run.firstError ?? ''}`,
					);
				}
			}
		}
	}
	return { idleCpuRate: idleRate, runs };
}
