// Item 1, the cause: how many expression isolates n8n takes per request for each target, read from n8n's
// own expression-engine counters (an n8n started with N8N_METRICS=true only for this count, never for timing).
import type { N8nInstance } from '../../harness';
import type { EventTemplate } from '../lib/event';
import { postOnce } from '../lib/load';
import { sleep } from '../lib/machine';
import { newestExecutionId, waitForFinished } from '../lib/n8n';
import type { Target, TargetKey } from './throughput';

const COUNTERS = {
	acquired: 'n8n_expression_pool_acquired_total',
	coldStartSync: 'n8n_expression_pool_cold_start_sync_total',
	evaluations: 'n8n_expression_evaluation_duration_seconds_count',
} as const;

type Counts = Record<keyof typeof COUNTERS, number>;

async function readCounters(n8n: N8nInstance): Promise<Counts> {
	const res = await n8n.request('GET', '/metrics');
	if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
	const text = String(res.body);
	const sum = (name: string) =>
		text
			.split('\n')
			.filter((line) => line.startsWith(name) && !line.startsWith('#'))
			.reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
	return {
		acquired: sum(COUNTERS.acquired),
		coldStartSync: sum(COUNTERS.coldStartSync),
		evaluations: sum(COUNTERS.evaluations),
	};
}

export interface IsolateCount {
	target: TargetKey;
	requests: number;
	/** Isolates taken from the pool (or built because it was empty) per request, webhook phase and execution. */
	isolatesPerRequest: number;
	/** Of those, built synchronously on the request path (lazy acquisition, empty pool). */
	syncColdStartsPerRequest: number;
	evaluationsPerRequest: number;
}

/** One request at a time, so that the pool is warm for each: counts, not timings. */
export async function countIsolates(
	n8n: N8nInstance,
	targets: Target[],
	template: EventTemplate,
	requests: number,
): Promise<IsolateCount[]> {
	const counts: IsolateCount[] = [];
	for (const target of targets) {
		const before = await newestExecutionId(n8n);
		const start = await readCounters(n8n);
		let sent = 0;
		for (let i = 0; i < requests; i++) {
			const answer = await postOnce(target.url, template.next());
			if (answer.status !== 200) throw new Error(`${target.key}: ${answer.status} ${answer.text}`);
			sent++;
			await sleep(150);
		}
		await waitForFinished(n8n, target.workflowId, before, sent);
		await sleep(500);
		const end = await readCounters(n8n);
		counts.push({
			target: target.key,
			requests: sent,
			isolatesPerRequest: (end.acquired - start.acquired) / sent,
			syncColdStartsPerRequest: (end.coldStartSync - start.coldStartSync) / sent,
			evaluationsPerRequest: (end.evaluations - start.evaluations) / sent,
		});
	}
	return counts;
}
