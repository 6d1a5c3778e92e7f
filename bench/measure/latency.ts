// Item 5: the sandbox delivers an event (its own HTTP client, a new connection per delivery, as the service
// does); latency is from the delivery's start to the execution's stoppedAt in n8n. One event at a time, the
// targets taking turns, so that each is measured on an otherwise idle n8n.
import { randomUUID } from 'node:crypto';

import type { ExecutionSummary, N8nInstance } from '../../test/e2e/harness/n8n';
import type { ClientConfig } from '../../sandbox/oauth';
import { startSandbox } from '../../sandbox/server';
import { SHIPPED_TRIGGER_TYPE, VARIANT_TRIGGER_TYPE } from '../lib/build';
import {
	createCaptioningCredential,
	deactivate,
	executionsAfter,
	newestExecutionId,
	TRIGGER_NODE_NAME,
	triggerWorkflow,
	waitForFinished,
	WEBHOOK_NODE_NAME,
	webhookWorkflow,
} from '../lib/n8n';
import { percentiles } from '../lib/stats';
import type { TargetKey } from './throughput';

export interface LatencyRound {
	round: number;
	target: TargetKey;
	events: number;
	/** Delivery start -> execution stoppedAt. */
	p50Ms: number;
	p99Ms: number;
	/** Delivery start -> 2xx answer (what the service waits for). */
	answerP50Ms: number;
	answerP99Ms: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function eventIdOf(target: TargetKey, execution: ExecutionSummary): string | undefined {
	const runData = execution.data?.resultData?.runData ?? {};
	const nodeName = target === 'webhook' ? WEBHOOK_NODE_NAME : TRIGGER_NODE_NAME;
	const json = runData[nodeName]?.[0]?.data?.main?.[0]?.[0]?.json;
	return target === 'webhook' ? json?.body?.data?.id : json?.eventId;
}

export async function measureLatency(
	n8n: N8nInstance,
	keys: TargetKey[],
	options: { rounds: number; eventsPerRound: number; gapMs: number; log: (line: string) => void },
): Promise<LatencyRound[]> {
	const clients: Record<string, ClientConfig> = {};
	for (const key of keys) {
		clients[key] = {
			clientId: `bench-${key}`,
			clientSecret: `secret-${key}`,
			assertions: [`assertion-${key}`],
		};
	}
	// no redelivery: a failed delivery shows as a missing sample, not as a late one
	const sandbox = await startSandbox({
		clients: Object.values(clients),
		rateLimit: null,
		retryDelaysMs: [],
	});
	const workflows: Partial<Record<TargetKey, { id: string; endpointId: string }>> = {};
	try {
		for (const key of keys) {
			if (key === 'webhook') {
				const path = `bench-latency-${randomUUID()}`;
				const workflow = await n8n.createWorkflow(
					webhookWorkflow({ name: 'latency: webhook', path }),
				);
				await n8n.activateWorkflow(workflow.id);
				// registered at the service by hand, as a user of the Webhook node would
				const endpointId = randomUUID();
				sandbox.endpoints.set(endpointId, {
					id: endpointId,
					clientId: clients[key].clientId,
					callbackUri: `${n8n.webhookBaseUrl}/${path}`,
					enabledEvents: ['transcription.created'],
					createdAt: new Date().toISOString(),
				});
				workflows[key] = { id: workflow.id, endpointId };
				continue;
			}
			const credentialId = await createCaptioningCredential(
				n8n,
				sandbox,
				`latency ${key}`,
				clients[key],
			);
			const workflow = await n8n.createWorkflow(
				triggerWorkflow({
					name: `latency: ${key}`,
					type: key === 'ours' ? SHIPPED_TRIGGER_TYPE : VARIANT_TRIGGER_TYPE,
					typeVersion: key === 'ours' ? 1 : 2,
					credentialId,
					events: ['transcription.created'],
				}),
			);
			await n8n.activateWorkflow(workflow.id);
			const endpoint = [...sandbox.endpoints.values()].find(
				(e) => e.clientId === clients[key].clientId,
			);
			if (!endpoint) throw new Error(`${key} registered no endpoint`);
			workflows[key] = { id: workflow.id, endpointId: endpoint.id };
		}

		const results: LatencyRound[] = [];
		for (let round = 1; round <= options.rounds; round++) {
			const before = await newestExecutionId(n8n);
			const sentIds = new Map<TargetKey, Set<string>>(keys.map((k) => [k, new Set()]));
			for (let i = 0; i < options.eventsPerRound; i++) {
				const shift = i % keys.length;
				for (const key of [...keys.slice(shift), ...keys.slice(0, shift)]) {
					const { created } = sandbox.startTranscription({
						clientId: clients[key].clientId,
						transcribeAfterMs: 1,
					});
					for (const event of created) sentIds.get(key)!.add(event.id);
					await sleep(options.gapMs);
				}
			}
			await sandbox.idle();
			for (const key of keys) {
				const { id, endpointId } = workflows[key]!;
				const ids = sentIds.get(key)!;
				await waitForFinished(n8n, id, before, ids.size);
				const executions = await executionsAfter(n8n, id, before, true);
				const stoppedAt = new Map<string, number>();
				for (const execution of executions) {
					const eventId = eventIdOf(key, execution);
					if (eventId && execution.stoppedAt) {
						stoppedAt.set(eventId, Date.parse(execution.stoppedAt));
					}
				}
				const deliveries = sandbox.deliveries.filter(
					(d) => d.endpointId === endpointId && ids.has(d.eventId),
				);
				const failed = deliveries.filter((d) => !(d.status && d.status < 300));
				if (failed.length || deliveries.length !== ids.size) {
					throw new Error(
						`${key}: ${failed.length} failed deliveries of ${ids.size} (${failed[0]?.error ?? failed[0]?.status})`,
					);
				}
				const total = deliveries.map((d) => {
					const stopped = stoppedAt.get(d.eventId);
					if (stopped === undefined) throw new Error(`${key}: no execution for event ${d.eventId}`);
					return stopped - Date.parse(d.at);
				});
				const answered = percentiles(deliveries.map((d) => d.durationMs));
				const finished = percentiles(total);
				results.push({
					round,
					target: key,
					events: total.length,
					p50Ms: finished.p50,
					p99Ms: finished.p99,
					answerP50Ms: answered.p50,
					answerP99Ms: answered.p99,
				});
				options.log(
					`latency round ${round} ${key.padEnd(7)} send->finished p50 ${finished.p50.toFixed(0)} ms ` +
						`p99 ${finished.p99.toFixed(0)} ms; send->2xx p50 ${answered.p50.toFixed(0)} ms (${total.length} events)`,
				);
			}
		}
		for (const key of keys) await deactivate(n8n, workflows[key]!.id);
		return results;
	} finally {
		await sandbox.stop();
	}
}
