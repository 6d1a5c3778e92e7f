// Item 1: the Captioning Trigger against the floor (the cheapest community trigger) and n8n's own Webhook node in
// one n8n, closed-loop load, runs interleaved round by round.
import { randomUUID } from 'node:crypto';

import type { N8nInstance } from '../../harness';
import type { Sandbox } from '../../sandbox/server';
import { SHIPPED_TRIGGER_TYPE, type TriggerVersions } from '../lib/build';
import { EARLIER_LIST_FIELD, fullSeenList } from '../lib/earlierList';
import type { EventTemplate } from '../lib/event';
import { FLOOR_BEST_VERSION } from '../lib/floor';
import { runLoad } from '../lib/load';
import {
	cpuSecondsOf,
	groupPids,
	machineBusySeconds,
	ownCpuSeconds,
	sleep,
	waitForQuiet,
} from '../lib/machine';
import {
	executionsAfter,
	floorWorkflow,
	newestExecutionId,
	TRIGGER_NODE_NAME,
	FLOOR_NODE_NAME,
	triggerUrl,
	triggerWorkflow,
	waitForFinished,
	webhookWorkflow,
} from '../lib/n8n';

export type TargetKey =
	| 'ours'
	/** Item 6 only: ours' workflow, delivered to on its token route (`<id>/<id>/<token>`) instead of the query. */
	| 'oursTokenRoute'
	| 'oursFresh'
	| 'oursV1'
	| 'floor'
	| 'floorCred'
	| 'floorCredList'
	| 'floorCredPrimed'
	| 'floorCredNode'
	| 'floorCredDesc'
	| 'webhookCredNode'
	| 'floorV1'
	| 'webhook';

export interface TargetSpec {
	key: TargetKey;
	kind: 'ours' | 'floor' | 'webhook';
	typeVersion: number;
	/**
	 * Ours only. `steady`: one workflow for the whole setting, through which at least the de-duplication limit
	 * of distinct events went before the first run; `fresh`: a new workflow for every run, its state empty.
	 */
	dedupe?: 'steady' | 'fresh';
	/** Floor only: the node carries the credential ours carries. */
	credential?: boolean;
	/**
	 * Floor only: its saved static data holds a full de-duplication list, as earlier versions of ours wrote with
	 * every event (the floor never reads it: what n8n's load and save of the workflow cost for its size alone).
	 */
	list?: boolean;
	/**
	 * Floor only: the events that prime ours go through it first, so that its workflow has the execution history
	 * ours' has when measured.
	 */
	primed?: boolean;
	/**
	 * Floor and Webhook node only: another node of the workflow, connected to nothing, carries the credential
	 * (as a workflow's Slack, S3 or LLM node does); n8n checks it before each execution.
	 */
	credentialNode?: boolean;
	/** Floor only: the floor with the Captioning Trigger's properties and typeVersions (FLOOR_DESC_TRIGGER_TYPE). */
	oursDescription?: boolean;
	/** Measured only when `--targets` names it (a bisection's target, not a figure of the report). */
	optIn?: boolean;
	label: string;
}

/**
 * What item 1 measures: ours at the typeVersion n8n gives a new node (steady state and fresh), at 1 for the
 * record when that is not the default, the floor at its best typeVersion (bare, and carrying a credential as
 * ours does) and at 1, and n8n's Webhook node.
 */
export function targetSpecs(trigger: TriggerVersions & { preview?: boolean }): TargetSpec[] {
	return [...oursSpecs(trigger), ...floorSpecs(trigger.defaultVersion), ...webhookSpecs()];
}

/** Ours at n8n's default typeVersion (steady state and fresh), and at 1 for the record when that is not the default. */
function oursSpecs(trigger: TriggerVersions & { preview?: boolean }): TargetSpec[] {
	const v = trigger.defaultVersion;
	const preview = trigger.preview ? ' (preview build)' : '';
	const specs: TargetSpec[] = [
		{
			key: 'ours',
			kind: 'ours',
			typeVersion: v,
			dedupe: 'steady',
			label: `Captioning Trigger v${v}${preview}, steady state`,
		},
		{
			key: 'oursFresh',
			kind: 'ours',
			typeVersion: v,
			dedupe: 'fresh',
			label: `Captioning Trigger v${v}${preview}, fresh state`,
		},
	];
	if (v !== 1 && trigger.versions.includes(1)) {
		specs.push({
			key: 'oursV1',
			kind: 'ours',
			typeVersion: 1,
			dedupe: 'steady',
			label: 'Captioning Trigger v1, steady state',
		});
	}
	return specs;
}

/** The do-nothing floor at its best typeVersion (bare, carrying a credential, and the opt-in bisections) and at 1. */
function floorSpecs(oursVersion: number): TargetSpec[] {
	const best = FLOOR_BEST_VERSION;
	return [
		{
			key: 'floor',
			kind: 'floor',
			typeVersion: best,
			label: `floor: do-nothing community trigger v${best}`,
		},
		{
			key: 'floorCred',
			kind: 'floor',
			typeVersion: best,
			credential: true,
			label: `floor v${best} carrying a credential (checked by n8n before each execution)`,
		},
		{
			key: 'floorCredList',
			kind: 'floor',
			typeVersion: best,
			credential: true,
			list: true,
			optIn: true,
			label: `floor v${best} carrying a credential and a full de-duplication list in its static data`,
		},
		{
			key: 'floorCredPrimed',
			kind: 'floor',
			typeVersion: best,
			credential: true,
			primed: true,
			optIn: true,
			label: `floor v${best} carrying a credential, after the events that prime ours`,
		},
		{
			key: 'floorCredNode',
			kind: 'floor',
			typeVersion: best,
			credentialNode: true,
			optIn: true,
			label: `floor v${best} in a workflow where another node carries a credential`,
		},
		{
			key: 'floorCredDesc',
			kind: 'floor',
			typeVersion: oursVersion,
			credential: true,
			oursDescription: true,
			optIn: true,
			label: `floor v${oursVersion} carrying a credential, with the Captioning Trigger's properties and parameters`,
		},
		{
			key: 'floorV1',
			kind: 'floor',
			typeVersion: 1,
			label: 'floor: do-nothing community trigger v1',
		},
	];
}

/** n8n's Webhook node v2, bare and (opt-in) beside a node that carries a credential. */
function webhookSpecs(): TargetSpec[] {
	return [
		{ key: 'webhook', kind: 'webhook', typeVersion: 2, label: "n8n's Webhook node v2" },
		{
			key: 'webhookCredNode',
			kind: 'webhook',
			typeVersion: 2,
			credentialNode: true,
			optIn: true,
			label: "n8n's Webhook node v2 in a workflow where another node carries a credential",
		},
	];
}

/** Whether distinct events go through the target before its first run: ours in its steady state, a primed floor. */
export function isPrimed(spec: Pick<TargetSpec, 'dedupe' | 'primed'>): boolean {
	return spec.dedupe === 'steady' || spec.primed === true;
}

/**
 * The specs named in `list` (comma-separated keys); without a list, all but the opt-in ones. An unknown key is
 * an error.
 */
export function selectTargets(specs: TargetSpec[], list: string | undefined): TargetSpec[] {
	if (list === undefined) return specs.filter((s) => !s.optIn);
	const keys = list.split(',').map((k) => k.trim());
	const unknown = keys.filter((k) => !specs.some((s) => s.key === k));
	if (unknown.length) {
		throw new Error(
			`unknown --targets ${unknown.join(', ')}: choose from ${specs.map((s) => s.key).join(', ')}`,
		);
	}
	return specs.filter((s) => keys.includes(s.key));
}

export interface Target {
	key: TargetKey;
	workflowId: string;
	url: string;
}

/** Creates and activates the workflow of one target. */
export async function createTarget(
	n8n: N8nInstance,
	sandbox: Sandbox,
	credentialId: string,
	spec: TargetSpec,
): Promise<Target> {
	const name = `bench: ${spec.key} ${randomUUID().slice(0, 8)}`;
	if (spec.kind === 'webhook') {
		const path = `bench-webhook-${randomUUID()}`;
		const workflow = await n8n.createWorkflow(
			webhookWorkflow({
				name,
				path,
				otherNodeCredentialId: spec.credentialNode ? credentialId : undefined,
			}),
		);
		await n8n.activateWorkflow(workflow.id);
		// the same query string as the trigger's URL; the Webhook node ignores it
		return {
			key: spec.key,
			workflowId: workflow.id,
			url: `${n8n.webhookBaseUrl}/${path}?token=x`,
		};
	}
	const floor = spec.kind === 'floor';
	const workflow = await n8n.createWorkflow(
		floor
			? floorWorkflow({
					name,
					typeVersion: spec.typeVersion,
					credentialId: spec.credential ? credentialId : undefined,
					otherNodeCredentialId: spec.credentialNode ? credentialId : undefined,
					oursDescription: spec.oursDescription,
					nodeStaticData: spec.list
						? { [EARLIER_LIST_FIELD]: fullSeenList(Date.now()) }
						: undefined,
				})
			: triggerWorkflow({
					name,
					type: SHIPPED_TRIGGER_TYPE,
					typeVersion: spec.typeVersion,
					credentialId,
				}),
	);
	await n8n.activateWorkflow(workflow.id);
	const nodeName = floor ? FLOOR_NODE_NAME : TRIGGER_NODE_NAME;
	const { webhookId } = (workflow.nodes as { name: string; webhookId: string }[]).find(
		(n) => n.name === nodeName,
	)!;
	return {
		key: spec.key,
		workflowId: workflow.id,
		url: floor
			? `${n8n.webhookBaseUrl}/${webhookId}/webhook?token=x`
			: triggerUrl(sandbox, n8n, webhookId),
	};
}

/** Sends `count` distinct events through the target (4 connections) and waits until all have run. */
export async function primeTarget(
	n8n: N8nInstance,
	target: Target,
	count: number,
	template: EventTemplate,
): Promise<{ events: number; seconds: number }> {
	const before = await newestExecutionId(n8n);
	const t0 = Date.now();
	const load = await runLoad({
		url: target.url,
		concurrency: 4,
		warmupMs: 0,
		durationMs: 3_600_000,
		maxRequests: count,
		body: template.next,
	});
	if (load.errors > 0 || load.totalOk !== count) {
		throw new Error(
			`priming ${target.key}: ${load.totalOk}/${count} 2xx, ${load.firstError ?? ''}`,
		);
	}
	const executions = await waitForFinished(n8n, target.workflowId, before, count, {
		timeoutMs: 600_000,
	});
	const failed = executions.filter((e) => e.status !== 'success').length;
	if (failed) throw new Error(`priming ${target.key}: ${failed} failed executions`);
	return { events: count, seconds: (Date.now() - t0) / 1000 };
}

/** Bytes of the workflow's static data as n8n has saved it (public API). */
export async function savedStaticDataBytes(n8n: N8nInstance, workflowId: string): Promise<number> {
	const workflow = await n8n.api<{ staticData?: unknown }>('GET', `/workflows/${workflowId}`);
	return workflow.staticData ? Buffer.byteLength(JSON.stringify(workflow.staticData)) : 0;
}

export interface ThroughputRun {
	round: number;
	concurrency: number;
	target: TargetKey;
	/** The measured requests' 2xx answers over the time they took. */
	eventsPerSecond: number;
	p50Ms: number;
	p99Ms: number;
	/** 2xx answers in the measured window (every run of a setting sends the same number); all 2xx of the run. */
	requests: number;
	totalOk: number;
	errors: number;
	firstError?: string;
	/** Executions the measured requests started that finished (all must, and succeed). */
	executionsFinished: number;
	executionsFailed: number;
	/** Of those, the ones not yet finished when the CPU window closed (their rest is not counted). */
	unfinishedAtClose: number;
	/** n8n's process-group CPU (all threads, task runner included) per measured request, idle rate subtracted. */
	n8nCpuMsPerRequest: number;
	/** First request to n8n quiet again, and last answer to quiet: the window the CPU is read over. */
	windowSeconds: number;
	drainSeconds: number;
	/**
	 * CPU seconds per second the rest of the machine used during the window (other work: the neighbours'), from
	 * /proc/stat less n8n and this benchmark; 2 means both cores were busy with it.
	 */
	othersCpuPerSecond?: number;
	/** 1-minute load average when the run ended. */
	load1?: number;
}

/**
 * n8n's CPU rate while nothing is sent (timers, the task runner's heartbeat), in CPU seconds per second: read
 * over `seconds` once what came before has settled.
 */
export async function idleCpuRate(pid: number, seconds = 5, settleMs = 3000): Promise<number> {
	await sleep(settleMs);
	const pids = groupPids(pid);
	const cpu0 = cpuSecondsOf(pids);
	const t0 = Date.now();
	await sleep(seconds * 1000);
	return (cpuSecondsOf(pids) - cpu0) / ((Date.now() - t0) / 1000);
}

/** The CPU rate below which n8n counts as quiet: its idle rate with a margin, and at least a tick per sample. */
export function quietRate(idleRate: number): number {
	return Math.max(0.1, 1.5 * idleRate + 0.05);
}

export interface RunOptions {
	concurrency: number;
	/** The measured requests: every run of a setting sends the same number, so fixed costs weigh alike. */
	requests: number;
	/** Quiet before the run, outside the measurement. */
	pauseMs?: number;
	/** Load before the measured requests, not counted (connections, JIT, pools); drained before they start. */
	warmupMs: number;
	template: EventTemplate;
	round: number;
}

/**
 * One run: the warm-up, drained until n8n is quiet; then the measured requests, n8n's CPU read from /proc from the
 * first of them until n8n is quiet again (no call to n8n's API inside that window: polling it costs n8n CPU too);
 * then the executions checked through the API.
 */
export async function measureRun(
	n8n: N8nInstance,
	pid: number,
	idleRate: number,
	target: Target,
	options: RunOptions,
): Promise<ThroughputRun> {
	if (options.pauseMs) await sleep(options.pauseMs);
	const quiet = { quietRate: quietRate(idleRate) };
	if (options.warmupMs > 0) {
		await runLoad({
			url: target.url,
			concurrency: options.concurrency,
			warmupMs: 0,
			durationMs: options.warmupMs,
			body: options.template.next,
		});
	}
	const pids = groupPids(pid);
	// the warm-up's last requests (cut off by its end) have started their executions once n8n is quiet: the
	// measured ones are newer; asking n8n costs CPU, so the window opens at the next quiet
	await waitForQuiet(pids, quiet);
	const before = await newestExecutionId(n8n);
	const start = await waitForQuiet(pids, quiet);
	const machine0 = machineSample(pids);
	const load = await runLoad({
		url: target.url,
		concurrency: options.concurrency,
		warmupMs: 0,
		durationMs: 3_600_000,
		maxRequests: options.requests,
		body: options.template.next,
	});
	const end = await waitForQuiet(pids, quiet);
	const othersCpuPerSecond = othersRate(machine0, machineSample(pids));
	const finishedAtClose = (await executionsAfter(n8n, target.workflowId, before)).filter(
		(e) => e.stoppedAt,
	).length;
	const executions = await waitForFinished(n8n, target.workflowId, before, load.totalOk);
	const windowSeconds = (end.atMs - start.atMs) / 1000;
	const cpuSeconds = end.cpuSeconds - start.cpuSeconds - idleRate * windowSeconds;
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
		unfinishedAtClose: Math.max(0, executions.length - finishedAtClose),
		n8nCpuMsPerRequest: executions.length ? (cpuSeconds * 1000) / executions.length : Number.NaN,
		windowSeconds,
		drainSeconds: (end.atMs - load.finishedAt) / 1000,
		othersCpuPerSecond,
	};
}

interface MachineSample {
	atMs: number;
	machine: number;
	n8n: number;
	own: number;
}

const machineSample = (pids: readonly number[]): MachineSample => ({
	atMs: Date.now(),
	machine: machineBusySeconds(),
	n8n: cpuSecondsOf(pids),
	own: ownCpuSeconds(),
});

/** CPU seconds per second the rest of the machine used between two samples: neither n8n nor this benchmark. */
export function othersRate(a: MachineSample, b: MachineSample): number {
	const seconds = (b.atMs - a.atMs) / 1000;
	const others = b.machine - a.machine - (b.n8n - a.n8n) - (b.own - a.own);
	return seconds > 0 ? Math.max(0, others / seconds) : Number.NaN;
}

/** The measured requests per run for a setting: what the target answers in `seconds` at its warm-up's rate. */
export async function requestsPerRun(
	target: Target,
	options: { concurrency: number; seconds: number; warmupMs: number; template: EventTemplate },
): Promise<number> {
	const load = await runLoad({
		url: target.url,
		concurrency: options.concurrency,
		warmupMs: 0,
		durationMs: Math.max(options.warmupMs, 3000),
		body: options.template.next,
	});
	return Math.max(50, Math.round(load.eventsPerSecond * options.seconds));
}

/**
 * The order item 1 runs its targets in (odd rounds; even rounds reverse it): each target beside what its ratio
 * is read against (docs/development.md, "The benchmark").
 */
export const MEASURING_SEQUENCE: readonly TargetKey[] = [
	'oursV1',
	'floorV1',
	'webhookCredNode',
	'floorCredNode',
	'floorCred',
	'ours',
	'floorCredDesc',
	'floorCredPrimed',
	'floorCredList',
	'floor',
	'webhook',
	'oursFresh',
];

/** `specs` in `MEASURING_SEQUENCE` order. */
export function measuringOrder<T extends { key: TargetKey }>(specs: readonly T[]): T[] {
	const rank = (key: TargetKey) => MEASURING_SEQUENCE.indexOf(key);
	return [...specs].sort((a, b) => rank(a.key) - rank(b.key));
}

/**
 * Round `round`'s order: as given in odd rounds, reversed in even ones, so that neighbours run back to back
 * in alternating order and a drift of the machine favours neither (docs/development.md, "The benchmark").
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
	return round % 2 === 1 ? [...items] : [...items].reverse();
}
