// Follow-up probe to item 1, not part of `npm run bench`: with no isolate in play (lazy acquisition, the trigger
// at typeVersion 2) the trigger still costs n8n more CPU per request than the Webhook node. This separates the
// two things the trigger adds that n8n itself pays for: the de-duplication list n8n saves and reloads as the
// node's static data on every request, and the credential on the node (a permission check per execution).
//
//   bash scripts/run.sh exec tsx bench/probe-dedupe.ts [--rounds 3] [--duration 10]
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import { startN8n } from '../test/e2e/harness/n8n';
import type { N8nInstance } from '../test/e2e/harness/n8n';
import { type Sandbox, startSandbox } from '../sandbox/server';
import { buildPackages, VARIANT_TRIGGER_TYPE } from './lib/build';
import { eventTemplate } from './lib/event';
import { findPidByCommandLine, loadSample } from './lib/machine';
import {
	createCaptioningCredential,
	TRIGGER_NODE_NAME,
	triggerUrl,
	triggerWorkflow,
} from './lib/n8n';
import { summarize } from './lib/stats';
import { createTargets, idleCpuRate, measureRun, type Target } from './measure/throughput';

const { values } = parseArgs({
	options: {
		rounds: { type: 'string', default: '3' },
		duration: { type: 'string', default: '10' },
		concurrency: { type: 'string', default: '4' },
	},
});

const MANUAL_TOKEN = 'probe-token';

function fullList(): Array<[string, number]> {
	const now = Math.floor(Date.now() / 1000);
	return Array.from({ length: 1000 }, () => [randomUUID(), now]);
}

/** The v2 trigger; `manual`: registered by hand with a token parameter, so the node has no credential. */
async function trigger(
	n8n: N8nInstance,
	sandbox: Sandbox,
	credentialId: string,
	options: { manual: boolean; seenEvents?: Array<[string, number]> },
): Promise<Target> {
	const workflow = triggerWorkflow({
		name: `probe: ${options.manual ? 'manual' : 'api'}`,
		type: VARIANT_TRIGGER_TYPE,
		typeVersion: 2,
		credentialId,
		seenEvents: options.seenEvents,
	});
	const node = workflow.nodes[0] as Record<string, unknown> & { webhookId: string };
	if (options.manual) {
		node.parameters = {
			registration: 'manual',
			manualToken: MANUAL_TOKEN,
			events: ['transcription.created', 'transcription.transcribed'],
			options: {},
		};
		delete node.credentials;
	}
	const created = await n8n.createWorkflow(workflow);
	await n8n.activateWorkflow(created.id);
	const webhookId = (created.nodes as { name: string; webhookId: string }[]).find(
		(n) => n.name === TRIGGER_NODE_NAME,
	)!.webhookId;
	return {
		key: 'oursV2',
		workflowId: created.id,
		url: options.manual
			? `${n8n.webhookBaseUrl}/${webhookId}/webhook?token=${MANUAL_TOKEN}`
			: triggerUrl(sandbox, n8n, webhookId),
	};
}

async function main() {
	const packages = await buildPackages();
	const template = await eventTemplate();
	const sandbox = await startSandbox({ rateLimit: null });
	const n8n = await startN8n({
		packageTarball: [packages.shipped, packages.variant],
		env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	});
	try {
		const pid = findPidByCommandLine(`${n8n.userFolder}/.captioning-watchdog.cjs`)!;
		const credentialId = await createCaptioningCredential(n8n, sandbox, 'probe');
		const apiFull = await trigger(n8n, sandbox, credentialId, {
			manual: false,
			seenEvents: fullList(),
		});
		const manualFull = await trigger(n8n, sandbox, credentialId, {
			manual: true,
			seenEvents: fullList(),
		});
		const [webhook] = await createTargets(n8n, sandbox, credentialId, ['webhook']);
		// "empty list": a new workflow for every run, so its list starts empty and grows by one per request
		const variants: Array<[string, () => Promise<Target>]> = [
			['trigger v2, credential, full list (1,000 ids)', async () => apiFull],
			[
				'trigger v2, credential, list starting empty',
				() => trigger(n8n, sandbox, credentialId, { manual: false }),
			],
			['trigger v2, no credential, full list', async () => manualFull],
			[
				'trigger v2, no credential, list starting empty',
				() => trigger(n8n, sandbox, credentialId, { manual: true }),
			],
			["n8n's Webhook node", async () => webhook],
		];
		const idle = await idleCpuRate(pid);
		const figures = new Map<string, { eventsPerSecond: number[]; cpuMs: number[] }>();
		const loads: number[] = [];
		for (let round = 1; round <= Number(values.rounds); round++) {
			for (const [label, target] of variants) {
				const run = await measureRun(n8n, pid, idle, await target(), {
					concurrency: Number(values.concurrency),
					warmupMs: 2000,
					durationMs: Number(values.duration) * 1000,
					template,
					round,
				});
				if (run.errors || run.executionsFailed) throw new Error(`${label}: ${run.firstError}`);
				const entry = figures.get(label) ?? { eventsPerSecond: [], cpuMs: [] };
				entry.eventsPerSecond.push(run.eventsPerSecond);
				entry.cpuMs.push(run.n8nCpuMsPerRequest);
				figures.set(label, entry);
				loads.push(loadSample().load[0]);
				process.stderr.write(
					`round ${round} ${label}: ${run.eventsPerSecond.toFixed(1)} ev/s, ` +
						`${run.n8nCpuMsPerRequest.toFixed(1)} ms CPU/req\n`,
				);
			}
		}
		const lines = [
			'',
			`lazy acquisition, ${values.concurrency} connections, ${values.rounds} rounds; ` +
				`1-minute load ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}; median (min–max)`,
		];
		for (const [label, entry] of figures) {
			const e = summarize(entry.eventsPerSecond);
			const c = summarize(entry.cpuMs);
			lines.push(
				`${label.padEnd(48)} ${e.median.toFixed(1)} (${e.min.toFixed(1)}–${e.max.toFixed(1)}) ev/s  ` +
					`${c.median.toFixed(1)} (${c.min.toFixed(1)}–${c.max.toFixed(1)}) ms n8n CPU/req`,
			);
		}
		process.stdout.write(lines.join('\n') + '\n');
	} finally {
		await n8n.stop();
		await sandbox.stop();
		await packages.remove();
	}
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
