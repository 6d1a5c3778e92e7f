// Item 5: latency of one delivery at a time, as the service delivers (a new connection per delivery), on the
// same targets as item 1 in the same n8n: from sending to the 2xx (what the service waits for) and to the
// execution's stoppedAt (what the workflow's user waits for). The targets take turns, one event at a time,
// `gapMs` apart, so each event meets an otherwise idle n8n.
import type { N8nInstance } from '../../harness';
import type { EventTemplate } from '../lib/event';
import { postOnce } from '../lib/load';
import { sleep } from '../lib/machine';
import { executionsAfter, newestExecutionId, waitForFinished } from '../lib/n8n';
import { percentiles } from '../lib/stats';
import { roundOrder, type Target, type TargetKey } from './throughput';

export interface LatencyRound {
	round: number;
	target: TargetKey;
	events: number;
	/** Send -> execution stoppedAt. */
	p50Ms: number;
	p99Ms: number;
	/** Send -> 2xx answer (what the service waits for). */
	answerP50Ms: number;
	answerP99Ms: number;
}

export async function measureLatency(
	n8n: N8nInstance,
	targets: Target[],
	template: EventTemplate,
	options: { round: number; events: number; gapMs: number; log: (line: string) => void },
): Promise<LatencyRound[]> {
	const before = await newestExecutionId(n8n);
	const sent = new Map<TargetKey, Array<{ at: number; answerMs: number }>>(
		targets.map((t) => [t.key, []]),
	);
	for (let i = 0; i < options.events; i++) {
		for (const target of roundOrder(targets, i + 1)) {
			const at = Date.now();
			const t0 = performance.now();
			const answer = await postOnce(target.url, template.next());
			const answerMs = performance.now() - t0;
			if (answer.status < 200 || answer.status >= 300) {
				throw new Error(
					`latency ${target.key}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`,
				);
			}
			sent.get(target.key)!.push({ at, answerMs });
			await sleep(options.gapMs);
		}
	}
	const rounds: LatencyRound[] = [];
	for (const target of targets) {
		const requests = sent.get(target.key)!;
		await waitForFinished(n8n, target.workflowId, before, requests.length);
		// one request at a time, each starting one execution: executions in id order are the requests in order
		const executions = (await executionsAfter(n8n, target.workflowId, before)).sort(
			(a, b) => Number(a.id) - Number(b.id),
		);
		if (executions.length !== requests.length || executions.some((e) => e.status !== 'success')) {
			throw new Error(
				`latency ${target.key}: ${executions.length} executions (${executions.filter((e) => e.status !== 'success').length} not successful) for ${requests.length} requests`,
			);
		}
		const finished = percentiles(
			executions.map((e, i) => Date.parse(e.stoppedAt!) - requests[i].at),
		);
		const answered = percentiles(requests.map((r) => r.answerMs));
		rounds.push({
			round: options.round,
			target: target.key,
			events: requests.length,
			p50Ms: finished.p50,
			p99Ms: finished.p99,
			answerP50Ms: answered.p50,
			answerP99Ms: answered.p99,
		});
		options.log(
			`latency round ${options.round} ${target.key.padEnd(9)} send->finished p50 ${finished.p50.toFixed(0)} ms ` +
				`p99 ${finished.p99.toFixed(0)} ms; send->2xx p50 ${answered.p50.toFixed(0)} ms (${requests.length} events)`,
		);
	}
	return rounds;
}
