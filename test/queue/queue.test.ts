// The Captioning Trigger in n8n 2.41.1's queue mode (npm run test:queue): Redis and PostgreSQL from
// Debian's packages on private ports, one main process, one `n8n webhook` process behind a readiness-gated
// load balancer, and two `n8n worker`s (test/queue/cluster.ts), the package installed in each as n8n
// installs it, the sandbox in this jest process. Activation from main registers WEBHOOK_URL (the webhook
// process, through the balancer); then a burst of transcriptions, with the webhook process killed (SIGKILL)
// mid-burst and restarted, must end with every event executed exactly once: the sandbox redelivers what
// failed, the trigger drops what already started. Figures go to stdout and to .tmp/queue/report.json.
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { DEFAULT_CLIENT, type Sandbox, type SentEvent, startSandbox } from '../../sandbox/server';
import type { DeliveryAttempt } from '../../sandbox/delivery';
import { type ExecutionSummary, PROJECT_ROOT } from '../e2e/harness/n8n';
import { packProject } from '../e2e/harness/pack';
import { listExecutions, TRIGGER_NODE, triggerWorkflow } from '../e2e/harness/workflows';
import { type QueueCluster, startQueueCluster } from './cluster';
import { type Services, startServices } from './services';

// both event types: each transcription is two events, created at once and transcribed a bit later
const EVENTS = ['transcription.created', 'transcription.transcribed'];
const TRANSCRIPTIONS = Number(process.env.CAPTIONING_QUEUE_TRANSCRIPTIONS ?? 500);
/** The transcriptions start evenly over this time; each is transcribed TRANSCRIBE_AFTER_MS later. */
const BURST_MS = Number(process.env.CAPTIONING_QUEUE_BURST_MS ?? 30_000);
/** CAPTIONING_QUEUE_KILL=0 runs the burst without the crash (to measure the setup's capacity). */
const KILL = process.env.CAPTIONING_QUEUE_KILL !== '0';
/**
 * CAPTIONING_QUEUE_DIRECT=1 registers the webhook process's own port instead of the load balancer in front
 * of it: the service then also reaches it while it restarts, when n8n answers requests itself.
 */
const DIRECT = process.env.CAPTIONING_QUEUE_DIRECT === '1';
const TRANSCRIBE_AFTER_MS = 2_000;
/** The webhook process dies this far into the burst (a share of BURST_MS). */
const KILL_AT_SHARE = 0.4;
// Redeliveries 1, 4, 12, 32 and 72 s after the first attempt. A webhook process restarted after a crash
// waits 10 s (n8n's crash journal) and then boots: ~20-30 s here, well inside the window.
const RETRY_DELAYS_MS = [1_000, 3_000, 8_000, 20_000, 40_000];
const REPORT_DIR = join(PROJECT_ROOT, '.tmp', 'queue');
const REPORT_FILE = join(REPORT_DIR, 'report.json');

let services: Services | undefined;
let sandbox: Sandbox | undefined;
let cluster: QueueCluster | undefined;
let tarball: string | undefined;
let credential = { id: '', name: '' };
const trigger = { workflowId: '', webhookId: '', endpointId: '' };
const report: Record<string, unknown> = { transcriptions: TRANSCRIPTIONS };
const suiteStarted = Date.now();

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (since: number) => Number(((Date.now() - since) / 1000).toFixed(1));
const progress = (message: string) =>
	process.stdout.write(`[queue +${seconds(suiteStarted).toFixed(1)} s] ${message}\n`);

const sb = (): Sandbox => {
	if (!sandbox) throw new Error('the sandbox did not start');
	return sandbox;
};
const n8n = (): QueueCluster => {
	if (!cluster) throw new Error('n8n did not start');
	return cluster;
};

function eventIdOf(execution: ExecutionSummary): string | undefined {
	return execution.data?.resultData?.runData?.[TRIGGER_NODE]?.[0]?.data?.main?.[0]?.[0]?.json
		?.eventId;
}

/** Execution counts of the workflow by status, straight from PostgreSQL. */
async function executionStatuses(): Promise<Record<string, number>> {
	const rows = await services!.sql(
		`SELECT status, count(*) FROM execution_entity WHERE "workflowId" = '${trigger.workflowId}' ` +
			'GROUP BY status ORDER BY status',
	);
	const counts: Record<string, number> = {};
	for (const row of rows.split('\n').filter(Boolean)) {
		const [status, count] = row.split('|');
		counts[status] = Number(count);
	}
	return counts;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/**
 * Waits until no execution is queued or running and the count has not changed for 5 s. Executions left
 * in `new` (created by a process that died before queueing them) count as settled after 30 s.
 */
async function waitForExecutionsToSettle(timeoutMs: number): Promise<Record<string, number>> {
	const deadline = Date.now() + timeoutMs;
	const started = Date.now();
	let last = '';
	let stableSince = Date.now();
	let lastPrinted = 0;
	for (;;) {
		const counts = await executionStatuses();
		const key = JSON.stringify(counts);
		if (key !== last) {
			last = key;
			stableSince = Date.now();
		}
		const busy = (counts.running ?? 0) + (counts.waiting ?? 0);
		const fresh = counts.new ?? 0;
		if (
			busy === 0 &&
			Date.now() - stableSince > 5_000 &&
			(fresh === 0 || Date.now() - started > 30_000)
		) {
			return counts;
		}
		if (Date.now() > deadline) throw new Error(`executions did not settle: ${key}`);
		if (Date.now() - lastPrinted > 5_000) {
			lastPrinted = Date.now();
			progress(`executions: ${total(counts)} ${key}`);
		}
		await delay(500);
	}
}

/** 'status 200', 'status 409', or the error without its address details ('ECONNREFUSED'). */
function outcome(attempt: DeliveryAttempt): string {
	if (attempt.status !== undefined) return `status ${attempt.status}`;
	const error = attempt.error ?? 'unknown';
	if (/ECONNREFUSED/.test(error)) return 'ECONNREFUSED';
	if (/ECONNRESET/.test(error)) return 'ECONNRESET';
	if (/socket hang up/.test(error)) return 'socket hang up';
	if (/no answer within/.test(error)) return 'timeout';
	return error.slice(0, 80);
}

const is2xx = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

beforeAll(async () => {
	progress('starting Redis and PostgreSQL');
	services = await startServices({ log: progress });
	report.services = services.timings;
	progress('building and packing the package');
	tarball = await packProject();
	sandbox = await startSandbox({ retryDelaysMs: RETRY_DELAYS_MS });
	progress('starting n8n in queue mode: main, then a webhook process and two workers');
	const n8nStarted = Date.now();
	cluster = await startQueueCluster({
		packageTarball: tarball,
		services,
		workers: 2,
		balancer: !DIRECT,
		env: {
			...(process.env.CAPTIONING_QUEUE_DB_POOL
				? { DB_POSTGRESDB_POOL_SIZE: process.env.CAPTIONING_QUEUE_DB_POOL }
				: {}),
			...(process.env.CAPTIONING_QUEUE_ENGINE
				? { N8N_EXPRESSION_ENGINE: process.env.CAPTIONING_QUEUE_ENGINE }
				: {}),
		},
		log: progress,
	});
	report.n8nStartSeconds = seconds(n8nStarted);
	const created = await cluster.main.createCredential('Captioning sandbox', 'captioningApi', {
		baseUrl: sb().url,
		clientId: DEFAULT_CLIENT.clientId,
		clientSecret: DEFAULT_CLIENT.clientSecret,
		assertion: DEFAULT_CLIENT.assertions[0],
		mediaType: sb().mediaType,
	});
	credential = { id: created.id, name: created.name };
}, 900_000);

afterAll(async () => {
	report.suiteSeconds = seconds(suiteStarted);
	await mkdir(REPORT_DIR, { recursive: true }).catch(() => undefined);
	await writeFile(REPORT_FILE, JSON.stringify(report, null, 2)).catch(() => undefined);
	if (cluster) await writeFile(join(REPORT_DIR, 'n8n.log'), cluster.logs()).catch(() => undefined);
	progress(`report and n8n's logs written to ${REPORT_DIR}`);
	const stops = [
		() => cluster?.stop(),
		() => sandbox?.stop(),
		() => services?.stop(),
		() => (tarball ? rm(dirname(tarball), { recursive: true, force: true }) : undefined),
	];
	for (const stop of stops) await Promise.resolve(stop()).catch(() => undefined);
	progress('stopped n8n, the sandbox, Redis and PostgreSQL');
}, 120_000);

describe('Captioning Trigger in n8n queue mode (main, webhook process, 2 workers)', () => {
	it('registers exactly one endpoint, with the webhook process URL, when main activates', async () => {
		trigger.webhookId = randomUUID();
		const created = await n8n().main.createWorkflow(
			triggerWorkflow({
				name: 'Captions in queue mode',
				webhookId: trigger.webhookId,
				credential,
				parameters: { registration: 'api', events: EVENTS },
			}),
		);
		trigger.workflowId = created.id;
		expect(sb().endpoints.size).toBe(0);

		await n8n().main.activateWorkflow(trigger.workflowId);

		const endpoints = [...sb().endpoints.values()];
		expect(endpoints).toHaveLength(1);
		const [endpoint] = endpoints;
		const productionUrl = `${n8n().webhookBaseUrl}/${trigger.webhookId}/webhook`;
		expect(endpoint.callbackUri.startsWith(`${productionUrl}?token=`)).toBe(true);
		// WEBHOOK_URL: the webhook process, directly or through the balancer that forwards only to it
		expect(new URL(endpoint.callbackUri).origin).toBe(
			n8n().balancer?.url ?? n8n().webhookProcessUrl,
		);
		expect(new URL(endpoint.callbackUri).port).not.toBe(String(n8n().main.port));
		expect([...endpoint.enabledEvents].sort()).toEqual(EVENTS);
		expect(
			sb().requestLog.filter((r) => r.method === 'POST' && r.path === '/webhook_endpoints'),
		).toEqual([expect.objectContaining({ status: 201 })]);
		trigger.endpointId = endpoint.id;
		report.callbackUrl = productionUrl;
		report.webhookProcessUrl = n8n().webhookProcessUrl;
		report.balancer = Boolean(n8n().balancer);

		// main serves no production webhooks (N8N_DISABLE_PRODUCTION_MAIN_PROCESS)
		const onMain = await n8n().main.request(
			'POST',
			`${n8n().main.baseUrl}/webhook/${trigger.webhookId}/webhook`,
			{ body: {} },
		);
		expect(onMain.status).toBe(404);

		// one transcription end to end: webhook process -> Redis -> a worker -> PostgreSQL
		const warmup = await sb().transcribe({ title: 'Warm-up' });
		await sb().idle();
		for (const event of warmup.events) {
			expect(sb().deliveries.filter((d) => d.eventId === event.id)).toEqual([
				expect.objectContaining({ attempt: 1, status: 200 }),
			]);
		}
		const executions = await n8n().main.waitForExecutions(trigger.workflowId, {
			count: 2,
			timeoutMs: 60_000,
		});
		expect(executions.map(eventIdOf).sort()).toEqual(warmup.events.map((e) => e.id).sort());
		progress(`endpoint registered for ${productionUrl}; warm-up transcription executed`);
	});

	it(`executes each event of ${TRANSCRIPTIONS} transcriptions exactly once, with the webhook process killed mid-burst`, async () => {
		expect(trigger.endpointId).not.toBe('');
		const burstEvents = TRANSCRIPTIONS * EVENTS.length;
		const attemptsBefore = sb().deliveries.length;
		const eventsBefore = sb().events.size;
		const burstStarted = Date.now();
		const chaos: Record<string, number> = {};
		const startupAnswers: { answer: string; firstAtSeconds: number; count: number }[] = [];
		// a delivery without the token: the trigger would answer 401, n8n answers for itself while starting
		const probeWebhookProcess = async (): Promise<string | undefined> => {
			try {
				const res = await fetch(`${n8n().webhookProcessUrl}/webhook/${trigger.webhookId}/webhook`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
					signal: AbortSignal.timeout(2_000),
				});
				const text = (await res.text()).replace(/\s+/g, ' ').trim();
				return `${res.status} ${text.slice(0, 60)}`;
			} catch {
				return undefined;
			}
		};

		// the crash: SIGKILL KILL_AT_SHARE into the burst, then a restart
		const crash = (async () => {
			if (!KILL) return;
			await delay(BURST_MS * KILL_AT_SHARE);
			chaos.killedAtSeconds = seconds(burstStarted);
			chaos.eventsEmittedBeforeKill = sb().events.size - eventsBefore;
			chaos.attemptsAnsweredBeforeKill = sb().deliveries.length - attemptsBefore;
			await n8n().webhook.kill('SIGKILL');
			progress(
				`webhook process killed (SIGKILL) ${chaos.killedAtSeconds} s into the burst: ` +
					`${chaos.eventsEmittedBeforeKill} events emitted, ` +
					`${chaos.attemptsAnsweredBeforeKill} delivery attempts completed; restarting it`,
			);
			const restartStarted = Date.now();
			const restarted = n8n().webhook.restart();
			// what the webhook process itself answers while it starts (the balancer keeps the service away)
			let restarting = true;
			void restarted.finally(() => (restarting = false)).catch(() => undefined);
			while (restarting) {
				const answer = await probeWebhookProcess();
				if (answer) {
					const seen = startupAnswers.find((a) => a.answer === answer);
					if (seen) seen.count++;
					else
						startupAnswers.push({
							answer,
							firstAtSeconds: (Date.now() - restartStarted) / 1000,
							count: 1,
						});
				}
				await delay(10);
			}
			await restarted;
			chaos.restartSeconds = seconds(restartStarted);
			chaos.backAtSeconds = seconds(burstStarted);
			progress(`webhook process back after ${chaos.restartSeconds} s`);
			progress(
				`while starting, the webhook process itself answered a delivery with: ${startupAnswers
					.map((a) => `${a.count} × "${a.answer}" (from ${a.firstAtSeconds} s)`)
					.join('; ')}`,
			);
		})();

		// the burst: TRANSCRIPTIONS transcriptions started evenly over BURST_MS
		const completions: Promise<SentEvent[]>[] = [];
		for (let i = 0; i < TRANSCRIPTIONS; i++) {
			const target = burstStarted + (i * BURST_MS) / TRANSCRIPTIONS;
			if (target > Date.now()) await delay(target - Date.now());
			const started = sb().startTranscription({
				title: `Burst ${i + 1}`,
				transcribeAfterMs: TRANSCRIBE_AFTER_MS,
			});
			completions.push(started.completed);
			if ((i + 1) % 100 === 0) progress(`${i + 1} transcriptions started`);
		}
		await Promise.all(completions);
		progress(`all ${burstEvents} events emitted after ${seconds(burstStarted)} s`);
		await crash;
		await sb().idle();
		const deliveredSeconds = seconds(burstStarted);
		progress(`the sandbox has finished every delivery and redelivery after ${deliveredSeconds} s`);

		const statuses = await waitForExecutionsToSettle(240_000);
		const executedSeconds = seconds(burstStarted);
		progress(`executions settled after ${executedSeconds} s: ${JSON.stringify(statuses)}`);

		// what was sent, what was delivered, what was executed
		const sent = [...sb().events.values()].filter((e) => e.endpointId === trigger.endpointId);
		const sentIds = new Set(sent.map((e) => e.id));
		const executions = await listExecutions(n8n().main, {
			workflowId: trigger.workflowId,
			includeData: true,
		});
		const executedCount = new Map<string, ExecutionSummary[]>();
		for (const execution of executions.filter((e) => e.status === 'success')) {
			const id = eventIdOf(execution) ?? `(no event id: execution ${execution.id})`;
			executedCount.set(id, [...(executedCount.get(id) ?? []), execution]);
		}
		const missing = [...sentIds].filter((id) => !executedCount.has(id));
		const duplicates = [...executedCount].filter(([, list]) => list.length > 1);
		const unexpected = [...executedCount.keys()].filter((id) => !sentIds.has(id));

		const attempts = new Map<string, DeliveryAttempt[]>();
		for (const attempt of sb().deliveries) {
			if (!sentIds.has(attempt.eventId)) continue;
			attempts.set(attempt.eventId, [...(attempts.get(attempt.eventId) ?? []), attempt]);
		}
		const attemptsHistogram: Record<string, number> = {};
		const outcomes: Record<string, number> = {};
		const undelivered: string[] = [];
		for (const id of sentIds) {
			const list = attempts.get(id) ?? [];
			attemptsHistogram[list.length] = (attemptsHistogram[list.length] ?? 0) + 1;
			for (const attempt of list) {
				const key = `attempt ${attempt.attempt}: ${outcome(attempt)}`;
				outcomes[key] = (outcomes[key] ?? 0) + 1;
			}
			if (!is2xx(list.at(-1)?.status)) undelivered.push(id);
		}
		// how long n8n took to answer 2xx: first attempts before the crash, and every answer after it
		const killedAt = burstStarted + (chaos.killedAtSeconds ?? Infinity) * 1000;
		const answerTimes = (before: boolean) => {
			const durations = sb()
				.deliveries.filter(
					(d) =>
						sentIds.has(d.eventId) && is2xx(d.status) && Date.parse(d.at) < killedAt === before,
				)
				.map((d) => d.durationMs)
				.sort((a, b) => a - b);
			const at = (p: number) => durations[Math.floor((durations.length - 1) * p)] ?? 0;
			return { answers: durations.length, p50: at(0.5), p95: at(0.95), max: at(1) };
		};
		// a duplicate the crash explains: an attempt in flight when the process died got no answer, yet the
		// dead process had already queued its execution; the restarted process could not know that
		const backAt = burstStarted + (chaos.backAtSeconds ?? Infinity) * 1000;
		const cutByCrash = (id: string) =>
			(attempts.get(id) ?? []).some(
				(a) =>
					Date.parse(a.at) < killedAt &&
					Date.parse(a.at) + a.durationMs >= killedAt - 1_000 &&
					!is2xx(a.status),
			) && (executedCount.get(id) ?? []).some((e) => Date.parse(e.startedAt) < backAt);
		const evidence = (id: string) => ({
			cutByCrash: cutByCrash(id),
			eventId: id,
			eventType: sb().events.get(id)?.eventType,
			attempts: (attempts.get(id) ?? []).map((a) => ({
				attempt: a.attempt,
				at: a.at,
				durationMs: a.durationMs,
				outcome: outcome(a),
			})),
			executions: (executedCount.get(id) ?? []).map((e) => ({
				id: e.id,
				startedAt: e.startedAt,
				status: e.status,
			})),
		});
		const staticData = JSON.parse(
			(await services!.sql(
				`SELECT "staticData" FROM workflow_entity WHERE id = '${trigger.workflowId}'`,
			)) || '{}',
		) as Record<string, { seenEvents?: unknown[] } | undefined>;
		const seenEvents = staticData[`node:${TRIGGER_NODE}`]?.seenEvents ?? [];
		const webhookLogs = n8n()
			.logs()
			.split('\n')
			.filter((line) => line.startsWith('[webhook]'));
		const logCount = (pattern: RegExp) => webhookLogs.filter((line) => pattern.test(line)).length;

		Object.assign(report, {
			events: {
				sent: sent.length,
				burst: burstEvents,
				byType: Object.fromEntries(
					EVENTS.map((type) => [type, sent.filter((e) => e.eventType === type).length]),
				),
			},
			executions: {
				listed: executions.length,
				byStatus: statuses,
				successful: executions.filter((e) => e.status === 'success').length,
				distinctEventIds: executedCount.size,
			},
			missing: missing.length,
			duplicates: duplicates.length,
			unexpected: unexpected.length,
			undelivered: undelivered.length,
			deliveryAttempts: {
				total: [...attempts.values()].reduce((n, list) => n + list.length, 0),
				eventsByAttemptCount: attemptsHistogram,
				outcomes,
				answeredMsBeforeCrash: answerTimes(true),
				answeredMsAfterCrash: answerTimes(false),
			},
			crash: chaos,
			webhookProcessAnswersWhileStarting: startupAnswers,
			webhookProcessReadySeconds: n8n().webhook.readySeconds,
			timesSeconds: {
				burst: BURST_MS / 1000,
				allDelivered: deliveredSeconds,
				allExecuted: executedSeconds,
			},
			seenEventsInStaticData: seenEvents.length,
			duplicateExecutions: duplicates.reduce((n, [, list]) => n + list.length - 1, 0),
			duplicatesCutByCrash: duplicates.filter(([id]) => cutByCrash(id)).length,
			orphanedNewExecutions: statuses.new ?? 0,
			balancerAnsweredItself: n8n().balancer?.answeredItself,
			webhookProcessLogErrors: {
				failedStaticDataSaves: logCount(/problem saving the workflow/),
				webhookRequestErrors: logCount(/Error in handling webhook request/),
			},
			retryDelaysMs: RETRY_DELAYS_MS,
			evidence: {
				missing: missing.slice(0, 20).map(evidence),
				duplicates: duplicates.slice(0, 20).map(([id]) => evidence(id)),
				undelivered: undelivered.slice(0, 20).map(evidence),
			},
		});
		progress(
			`${sent.length} events sent, ${executedCount.size} executed; missing ${missing.length}, ` +
				`duplicates ${duplicates.length}, unexpected ${unexpected.length}, undelivered ` +
				`${undelivered.length}`,
		);
		if (duplicates.length > 0) {
			progress(
				`${duplicates.filter(([id]) => cutByCrash(id)).length} of the duplicates were in flight ` +
					'when the webhook process died, with their execution already queued',
			);
		}
		progress(
			`seen event ids in the trigger's static data: ${seenEvents.length} (n8n 2.41.1 does not ` +
				'save the static data of a webhook call that starts an execution)',
		);
		progress(`events by number of delivery attempts: ${JSON.stringify(attemptsHistogram)}`);
		progress(`delivery outcomes: ${JSON.stringify(outcomes)}`);
		progress(
			`burst ${BURST_MS / 1000} s; all delivered after ${deliveredSeconds} s, all executed after ` +
				`${executedSeconds} s; webhook process restart ${chaos.restartSeconds} s`,
		);

		expect(sent).toHaveLength(burstEvents + EVENTS.length);
		expect(missing).toEqual([]);
		expect(duplicates.map(([id]) => id)).toEqual([]);
		expect(unexpected).toEqual([]);
		expect(undelivered).toEqual([]);
		// executions the dead process created but never queued stay `new`: reported, not executed
		expect(executions.filter((e) => e.status !== 'success' && e.status !== 'new')).toEqual([]);
	});
});
