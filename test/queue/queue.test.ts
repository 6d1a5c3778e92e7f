// The Captioning Trigger in n8n 2.41.1's queue mode (npm run test:queue): Redis and PostgreSQL from
// Debian's packages on private ports, one main process, `n8n webhook` processes (two by default) behind
// a readiness-gated load balancer, and two `n8n worker`s (test/queue/cluster.ts), the package installed
// in each as n8n installs it, the sandbox and a collector in this jest process. The workflow is the example
// examples/exactly-once-queue-mode.json as a user sets it up: its first step after the trigger claims the
// event id in a PostgreSQL table, and only the first claim goes on to "Post Event", which posts to the
// collector. A burst of transcriptions, with a process killed (SIGKILL) mid-burst and restarted, must reach
// the collector exactly once per event: the service redelivers what got no 2xx, the claim stops what had
// already started. Settings: test/queue/tally.ts (runSettings). Figures go to stdout and .tmp/queue/.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import {
	createSandboxCredential,
	type ExecutionSummary,
	findNode,
	inLine,
	listExecutions,
	loadExample,
	packProject,
	PROJECT_ROOT,
	removePacked,
	setAssignment,
	toPublicApiBody,
	TRIGGER_NODE,
	useCredential,
} from '../../harness';
import type { DeliveryAttempt } from '../../sandbox/delivery';
import { type Sandbox, type SentEvent, startSandbox } from '../../sandbox/server';
import { delay, firstItemOf, is2xx, requireStarted, stopAll } from '../helpers/suite';
import { type QueueCluster, startQueueCluster } from './cluster';
import { type Collector, startCollector } from './collector';
import { measureRenewal, type RenewalResult } from './renewal';
import { type Services, startServices } from './services';
import {
	busiestWorker,
	countOf,
	explainMissing,
	histogram,
	renewalSettings,
	retryMargin,
	runningInLog,
	runSettings,
	tallyDeliveries,
	tallyDownstream,
	timeline,
} from './tally';

const RUN = runSettings(process.env);
const RENEWAL = renewalSettings(process.env);
// both event types: each transcription is two events, created at once and transcribed a bit later
const EVENTS = ['transcription.created', 'transcription.transcribed'];
/**
 * CAPTIONING_QUEUE_DIRECT=1 registers the webhook process's own port instead of the load balancer in front
 * of it: the service then also reaches it while it restarts, when n8n answers requests itself.
 */
const DIRECT = process.env.CAPTIONING_QUEUE_DIRECT === '1';
/** CAPTIONING_QUEUE_PROBE_STORE=1 also measures n8n's own de-duplication store (Remove Duplicates). */
const PROBE_STORE = process.env.CAPTIONING_QUEUE_PROBE_STORE === '1';
const TRANSCRIBE_AFTER_MS = 2_000;
// Redeliveries 1, 4, 12, 32 and 72 s after the first attempt. A webhook process restarted after a crash
// waits 10 s (n8n's crash journal) and then boots: ~20-30 s here, well inside the window.
const RETRY_DELAYS_MS = [1_000, 3_000, 8_000, 20_000, 40_000];
const EXAMPLE = 'exactly-once-queue-mode.json';
const CLAIMS_DATABASE = 'captioning';
const REPORT_DIR = join(PROJECT_ROOT, '.tmp', 'queue');
const REPORT_FILE = join(REPORT_DIR, 'report.json');

let services: Services | undefined;
let sandbox: Sandbox | undefined;
let collector: Collector | undefined;
let cluster: QueueCluster | undefined;
let tarball: string | undefined;
const credentials = { captioning: { id: '', name: '' }, postgres: { id: '', name: '' } };
const trigger = { workflowId: '', webhookId: '', endpointId: '' };
const suiteStarted = Date.now();
const report: Record<string, unknown> = {
	startedAt: new Date(suiteStarted).toISOString(),
	run: RUN,
	renewalMode: RENEWAL.mode,
	example: `examples/${EXAMPLE}`,
};
const phases: Record<string, number> = {};

const seconds = (since: number) => Number(((Date.now() - since) / 1000).toFixed(1));
const progress = (message: string) =>
	process.stdout.write(`[queue +${seconds(suiteStarted).toFixed(1)} s] ${message}\n`);

const sb = requireStarted('the sandbox', () => sandbox);
const n8n = requireStarted('n8n', () => cluster);
const db = requireStarted('PostgreSQL and Redis', () => services);

/** The event an execution carries: from the trigger's output, or (not run yet) from its input stack. */
function eventIdOf(execution: ExecutionSummary): string | undefined {
	const data = execution.data;
	return (
		firstItemOf(execution, TRIGGER_NODE)?.json?.eventId ??
		data?.executionData?.nodeExecutionStack?.find(
			(entry: { node?: { name?: string } }) => entry.node?.name === TRIGGER_NODE,
		)?.data?.main?.[0]?.[0]?.json?.eventId
	);
}

const ran = (execution: ExecutionSummary, node: string): boolean =>
	Boolean(execution.data?.resultData?.runData?.[node]);

/** Execution counts of a workflow by status, straight from PostgreSQL. */
async function executionStatuses(workflowId: string): Promise<Record<string, number>> {
	const rows = await db().sql(
		`SELECT status, count(*) FROM execution_entity WHERE "workflowId" = '${workflowId}' ` +
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
 * Waits until no execution of the workflow is queued or running and the count has not changed for 5 s.
 * Executions left in `new` (created by a webhook process that died before queueing them) count as
 * settled after `orphansAfterMs`. After a worker's death, its executions stay `new` or `running` until
 * Bull finds their lock expired (60 s, then its next stalled check) and n8n fails them: pass Infinity to
 * wait for that.
 */
async function waitForExecutionsToSettle(
	workflowId: string,
	timeoutMs: number,
	orphansAfterMs = 30_000,
): Promise<Record<string, number>> {
	const deadline = Date.now() + timeoutMs;
	const started = Date.now();
	let last = '';
	let stableSince = Date.now();
	let lastPrinted = 0;
	for (;;) {
		const counts = await executionStatuses(workflowId);
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
			(fresh === 0 || Date.now() - started > orphansAfterMs)
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

/** 'status 200', 'status 503', or the error without its address details ('ECONNREFUSED'). */
function outcome(attempt: DeliveryAttempt): string {
	if (attempt.status !== undefined) return `status ${attempt.status}`;
	const error = attempt.error ?? 'unknown';
	if (/ECONNREFUSED/.test(error)) return 'ECONNREFUSED';
	if (/ECONNRESET/.test(error)) return 'ECONNRESET';
	if (/socket hang up/.test(error)) return 'socket hang up';
	if (/no answer within/.test(error)) return 'timeout';
	return error.slice(0, 80);
}

/** The claims table's rows for the workflow: event id -> execution id. */
async function claims(workflowId: string): Promise<Map<string, string>> {
	const rows = await db().sqlIn(
		CLAIMS_DATABASE,
		`SELECT event_id, execution_id FROM captioning_events WHERE workflow_id = '${workflowId}'`,
	);
	return new Map(
		rows
			.split('\n')
			.filter(Boolean)
			.map((row) => row.split('|') as [string, string]),
	);
}

/** The ids the user's downstream step ("Post Event") posted for this workflow's events. */
function postedEventIds(): string[] {
	return (collector?.received ?? [])
		.filter((r) => r.path === '/events')
		.map((r) => String(r.body.eventId));
}

/**
 * What an operator would try for executions a dead worker held: n8n's retry (POST
 * /api/v1/executions/<id>/retry). Their claims stay: whether the downstream step ran for them cannot be told
 * from the claim. Returns n8n's answers by status and message, and the retries' outcomes.
 */
async function retryInterrupted(interrupted: readonly ExecutionSummary[]) {
	const answers: Record<string, number> = {};
	const retryIds: string[] = [];
	for (const execution of interrupted) {
		const res = await n8n().main.request(
			'POST',
			`${n8n().main.baseUrl}/api/v1/executions/${execution.id}/retry`,
			{ body: { loadWorkflow: true }, headers: { 'x-n8n-api-key': n8n().main.apiKey } },
		);
		const body = res.body as { id?: string; message?: string } | undefined;
		if (body?.id) retryIds.push(String(body.id));
		const key = `${res.status}${body?.message ? ` ${body.message.slice(0, 100)}` : ''}`;
		answers[key] = (answers[key] ?? 0) + 1;
	}
	if (interrupted.length > 0) await waitForExecutionsToSettle(trigger.workflowId, 180_000);
	const retries = (await listExecutions(n8n().main, { workflowId: trigger.workflowId })).filter(
		(e) => retryIds.includes(String(e.id)),
	);
	return {
		executions: interrupted.length,
		answers,
		retriesByStatus: Object.fromEntries(countOf(retries.map((e) => e.status))),
	};
}

type ProbeNode = Record<string, unknown> & { name: string };

/**
 * A workflow of a Webhook node, the given nodes (ending in an item `{ eventId, round }` on their first
 * output) and a post to the collector. RUN.probeIds ids are each sent twice at the same moment (round 1), then once
 * more after every execution has ended (round 2): what the de-duplication in between lets through twice is
 * a duplicate downstream.
 */
async function probeConcurrentCopies(label: string, steps: ProbeNode[]) {
	const path = randomUUID();
	const names = ['Webhook', ...steps.map((step) => step.name), 'Post'];
	const workflow = {
		name: `Concurrent copies probe: ${label}`,
		nodes: [
			{
				id: randomUUID(),
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: path,
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
			...steps,
			{
				id: randomUUID(),
				name: 'Post',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [240 * (steps.length + 1), 0],
				parameters: {
					method: 'POST',
					url: `${collector!.url}/probe/${label}`,
					sendBody: true,
					specifyBody: 'json',
					jsonBody:
						"={{ JSON.stringify({ id: $('Event').item.json.eventId, round: $('Event').item.json.round }) }}",
					options: {},
				},
			},
		],
		connections: inLine(names),
		settings: { executionOrder: 'v1' },
	};
	const created = await n8n().main.createWorkflow(workflow);
	await n8n().main.activateWorkflow(created.id);
	const url = `${n8n().webhookBaseUrl}/${path}`;
	const post = async (id: string, round: number): Promise<number> => {
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ id, round }),
		});
		await res.arrayBuffer();
		return res.status;
	};
	const ids = Array.from({ length: RUN.probeIds }, () => randomUUID());
	const statuses: number[] = [];
	const started = Date.now();
	for (let i = 0; i < ids.length; i += 20) {
		const batch = ids.slice(i, i + 20).flatMap((id) => [post(id, 1), post(id, 1)]);
		statuses.push(...(await Promise.all(batch)));
	}
	await waitForExecutionsToSettle(created.id, 180_000);
	for (let i = 0; i < ids.length; i += 20) {
		statuses.push(...(await Promise.all(ids.slice(i, i + 20).map((id) => post(id, 2)))));
	}
	const settled = await waitForExecutionsToSettle(created.id, 180_000);
	const posts = (collector?.received ?? []).filter((r) => r.path === `/probe/${label}`);
	const byId = countOf(posts.map((r) => String(r.body.id)));
	const inRound = (round: number) =>
		countOf(posts.filter((r) => r.body.round === round).map((r) => String(r.body.id)));
	const round1 = inRound(1);
	const round2 = inRound(2);
	const probe = {
		workflowId: String(created.id),
		ids: ids.length,
		requests: statuses.length,
		answeredNon2xx: statuses.filter((s) => !is2xx(s)).length,
		executions: settled,
		failedExecutions: total(settled) - (settled.success ?? 0),
		postedPerId: histogram(ids.map((id) => byId.get(id) ?? 0)),
		// both copies of round 1 went on: two executions read "not seen" before either recorded it
		passedTwiceInRound1: ids.filter((id) => (round1.get(id) ?? 0) > 1).length,
		// round 2 went on: the id's record had been lost (another execution's write replaced it)
		passedAgainInRound2: ids.filter((id) => round2.has(id)).length,
		neverPosted: ids.filter((id) => !byId.has(id)).length,
		seconds: seconds(started),
	};
	progress(`concurrent copies through ${label}: ${JSON.stringify(probe)}`);
	await n8n().main.deactivateWorkflow(created.id);
	return probe;
}

beforeAll(async () => {
	let started = Date.now();
	progress('starting Redis and PostgreSQL');
	services = await startServices({ log: progress });
	report.services = services.timings;
	phases.servicesSeconds = seconds(started);
	started = Date.now();
	progress('building and packing the package');
	tarball = await packProject();
	phases.packSeconds = seconds(started);
	sandbox = await startSandbox({ retryDelaysMs: RETRY_DELAYS_MS });
	collector = await startCollector();
	progress(
		`starting n8n in queue mode: main, then ${RUN.webhooks} webhook process(es) and ${RUN.workers} workers`,
	);
	started = Date.now();
	cluster = await startQueueCluster({
		packageTarball: tarball,
		services,
		workers: RUN.workers,
		webhooks: RUN.webhooks,
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
	phases.n8nStartSeconds = seconds(started);

	// what the example's sticky note asks of a user: a database for the claims, a Postgres credential,
	// and one run of "Create Claims Table" (its query, run here with psql)
	await services.sqlIn('postgres', `CREATE DATABASE ${CLAIMS_DATABASE}`);
	const createTable = findNode(loadExample(EXAMPLE), 'Create Claims Table').parameters
		.query as string;
	await services.sqlIn(CLAIMS_DATABASE, createTable);
	const { postgres } = services;
	credentials.postgres = await cluster.main.createCredential('Postgres account', 'postgres', {
		host: postgres.host,
		port: postgres.port,
		database: CLAIMS_DATABASE,
		user: postgres.user,
		password: postgres.password,
		ssl: 'disable',
		allowUnauthorizedCerts: false,
		maxConnections: 20,
		sshTunnel: false,
	});
	credentials.captioning = await createSandboxCredential(cluster.main, sb(), 'Captioning account');
}, 900_000);

afterAll(async () => {
	report.phases = { ...phases, suiteSeconds: seconds(suiteStarted) };
	await mkdir(join(REPORT_DIR, 'runs'), { recursive: true }).catch(() => undefined);
	const text = JSON.stringify(report, null, 2);
	await writeFile(REPORT_FILE, text).catch(() => undefined);
	const stamp = new Date(suiteStarted).toISOString().replace(/[:.]/g, '-');
	await writeFile(join(REPORT_DIR, 'runs', `${stamp}-${RUN.profile}-${RUN.kill}.json`), text).catch(
		() => undefined,
	);
	if (cluster) await writeFile(join(REPORT_DIR, 'n8n.log'), cluster.logs()).catch(() => undefined);
	progress(`report and n8n's logs written to ${REPORT_DIR}`);
	await stopAll([
		() => cluster?.stop(),
		() => sandbox?.stop(),
		() => collector?.stop(),
		() => services?.stop(),
		() => removePacked(tarball),
	]);
	progress('stopped n8n, the sandbox, the collector, Redis and PostgreSQL');
}, 120_000);

describe(`Captioning Trigger in n8n queue mode (main, ${RUN.webhooks} webhook process${RUN.webhooks > 1 ? 'es' : ''}, ${RUN.workers} workers)`, () => {
	it('registers exactly one endpoint, with the webhook process URL, when main activates the example', async () => {
		trigger.webhookId = randomUUID();
		const workflow = loadExample(EXAMPLE);
		// a fixed webhook path, so that the test knows the callback URL; n8n derives one otherwise
		findNode(workflow, TRIGGER_NODE).webhookId = trigger.webhookId;
		setAssignment(workflow, 'Settings', 'notifyUrl', `${collector!.url}/events`);
		useCredential(workflow, 'captioningApi', credentials.captioning);
		useCredential(workflow, 'postgres', credentials.postgres);
		const created = await n8n().main.createWorkflow(toPublicApiBody(workflow));
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

		// one transcription end to end: webhook process -> Redis -> a worker -> claim -> collector
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
		const warmupIds = warmup.events.map((e) => e.id).sort();
		expect(executions.map(eventIdOf).sort()).toEqual(warmupIds);
		expect(executions.map((e) => [e.status, ran(e, 'Post Event')])).toEqual([
			['success', true],
			['success', true],
		]);
		expect(postedEventIds().sort()).toEqual(warmupIds);
		expect([...(await claims(trigger.workflowId)).keys()].sort()).toEqual(warmupIds);
		progress(`endpoint registered for ${productionUrl}; warm-up transcription posted once`);
	});

	const title =
		`posts each event of ${RUN.transcriptions} transcriptions exactly once` +
		(RUN.kill === 'none' ? '' : `, with the ${RUN.kill} process killed mid-burst`);
	it(title, async () => {
		expect(trigger.endpointId).not.toBe('');
		const burstEvents = RUN.transcriptions * EVENTS.length;
		const attemptsBefore = sb().deliveries.length;
		const eventsBefore = sb().events.size;
		const burstStarted = Date.now();
		const chaos: Record<string, number | string> = { kill: RUN.kill };
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

		// after a webhook process restart: events answered before the kill, delivered again
		const replay = { ids: [] as string[], startedAt: Infinity };
		// the crash: SIGKILL killAtShare into the burst, then a restart
		const crash = (async () => {
			if (RUN.kill === 'none') return;
			await delay(RUN.burstMs * RUN.killAtShare);
			// a worker: the one running the most (Bull may have given every job to one of them so far)
			const workerIndex = busiestWorker(n8n().workers.map((w) => w.logs()));
			const victim = RUN.kill === 'webhook' ? n8n().webhook : n8n().workers[workerIndex];
			if (RUN.kill === 'worker') {
				chaos.worker = workerIndex + 1;
				chaos.executionsRunningOnItAtKill = runningInLog(victim.logs()).length;
			}
			chaos.killedAtSeconds = seconds(burstStarted);
			chaos.eventsEmittedBeforeKill = sb().events.size - eventsBefore;
			chaos.attemptsAnsweredBeforeKill = sb().deliveries.length - attemptsBefore;
			await victim.kill('SIGKILL');
			progress(
				`${RUN.kill} process killed (SIGKILL) ${chaos.killedAtSeconds} s into the burst: ` +
					`${chaos.eventsEmittedBeforeKill} events emitted, ` +
					`${chaos.attemptsAnsweredBeforeKill} delivery attempts completed; restarting it`,
			);
			const restartStarted = Date.now();
			const restarted = victim.restart();
			// what the webhook process itself answers while it starts (the balancer keeps the service away)
			let restarting = RUN.kill === 'webhook';
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
			progress(`${RUN.kill} process back after ${chaos.restartSeconds} s`);
			if (RUN.kill === 'webhook' && RUN.replays > 0) {
				// the answer lost in a crash, made certain: the restarted process has no memory of these ids
				const killedAtMs = burstStarted + Number(chaos.killedAtSeconds) * 1000;
				const answered = sb().deliveries.filter(
					(d) =>
						d.endpointId === trigger.endpointId &&
						is2xx(d.status) &&
						Date.parse(d.at) + d.durationMs < killedAtMs,
				);
				replay.ids = [...new Set(answered.map((d) => d.eventId))]
					.filter((id) => sb().events.get(id)?.body.includes('Burst'))
					.slice(0, RUN.replays);
				replay.startedAt = Date.now();
				for (const id of replay.ids) sb().redeliver(id);
				progress(`${replay.ids.length} events answered before the kill delivered again`);
			}
			if (startupAnswers.length > 0) {
				progress(
					`while starting, the webhook process itself answered a delivery with: ${startupAnswers
						.map((a) => `${a.count} × "${a.answer}" (from ${a.firstAtSeconds} s)`)
						.join('; ')}`,
				);
			}
		})();

		// the burst: transcriptions started evenly over burstMs
		const completions: Promise<SentEvent[]>[] = [];
		for (let i = 0; i < RUN.transcriptions; i++) {
			const target = burstStarted + (i * RUN.burstMs) / RUN.transcriptions;
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

		const statuses = await waitForExecutionsToSettle(
			trigger.workflowId,
			300_000,
			RUN.kill === 'worker' ? Infinity : 30_000,
		);
		const executedSeconds = seconds(burstStarted);
		progress(`executions settled after ${executedSeconds} s: ${JSON.stringify(statuses)}`);

		// what was sent, what the downstream step saw, what n8n executed, what was claimed
		const sent = [...sb().events.values()].filter((e) => e.endpointId === trigger.endpointId);
		const sentIds = sent.map((e) => e.id);
		const downstream = tallyDownstream(sentIds, postedEventIds());
		const executions = await listExecutions(n8n().main, {
			workflowId: trigger.workflowId,
			includeData: true,
		});
		const executionsPerEvent = countOf(
			executions.map((e) => eventIdOf(e) ?? `(no event id: execution ${e.id})`),
		);
		const claimed = await claims(trigger.workflowId);
		const explained = explainMissing(
			downstream.missing,
			executions.map((e) => ({ eventId: eventIdOf(e), status: e.status })),
		);

		const sentSet = new Set(sentIds);
		const replayed = new Set(replay.ids);
		const isReplay = (d: DeliveryAttempt) =>
			replayed.has(d.eventId) && Date.parse(d.at) >= replay.startedAt;
		// the service's own deliveries; the replays are counted apart
		const attempts = sb().deliveries.filter((d) => sentSet.has(d.eventId) && !isReplay(d));
		const replayAttempts = sb().deliveries.filter(isReplay);
		const replayOutcome = replay.ids.map((id) => {
			const own = executions.filter((e) => eventIdOf(e) === id);
			return {
				answered2xx: replayAttempts.some((a) => a.eventId === id && is2xx(a.status)),
				executions: own.length,
				stoppedAtClaim: own.filter((e) => ran(e, 'Already Handled')).length,
			};
		});
		const deliveries = tallyDeliveries(sentIds, attempts);
		const margin = retryMargin(RETRY_DELAYS_MS, deliveries.mostAttemptsNeeded);
		const outcomes: Record<string, number> = {};
		for (const attempt of attempts) {
			const key = `attempt ${attempt.attempt}: ${outcome(attempt)}`;
			outcomes[key] = (outcomes[key] ?? 0) + 1;
		}
		// how long n8n took to answer 2xx: before the crash, and after it
		const killedAt = burstStarted + Number(chaos.killedAtSeconds ?? Infinity) * 1000;
		const answerTimes = (before: boolean) => {
			const durations = attempts
				.filter((d) => is2xx(d.status) && Date.parse(d.at) < killedAt === before)
				.map((d) => d.durationMs)
				.sort((a, b) => a - b);
			const at = (p: number) => durations[Math.floor((durations.length - 1) * p)] ?? 0;
			return { answers: durations.length, p50: at(0.5), p95: at(0.95), max: at(1) };
		};
		const evidence = (id: string) => ({
			eventId: id,
			eventType: sb().events.get(id)?.eventType,
			claimedBy: claimed.get(id) ?? null,
			posted: postedEventIds().filter((posted) => posted === id).length,
			attempts: attempts
				.filter((a) => a.eventId === id)
				.map((a) => ({
					attempt: a.attempt,
					at: a.at,
					durationMs: a.durationMs,
					outcome: outcome(a),
				})),
			executions: executions
				.filter((e) => eventIdOf(e) === id)
				.map((e) => ({
					id: e.id,
					startedAt: e.startedAt,
					status: e.status,
					stoppedAtClaim: ran(e, 'Already Handled'),
					posted: ran(e, 'Post Event'),
				})),
		});
		const interruptedExecutions = executions.filter(
			(e) => e.status === 'error' || e.status === 'crashed',
		);

		Object.assign(report, {
			events: {
				sent: sent.length,
				burst: burstEvents,
				byType: Object.fromEntries(
					EVENTS.map((type) => [type, sent.filter((e) => e.eventType === type).length]),
				),
			},
			downstream: {
				posts: postedEventIds().length,
				eventsByPostCount: downstream.perEvent,
				missing: downstream.missing.length,
				missingInterrupted: explained.interrupted.length,
				missingUntraced: explained.untraced.length,
				missingUnexplained: explained.unexplained.length,
				duplicated: downstream.duplicated.length,
				unexpected: downstream.unexpected.length,
				unreadableBodies: collector!.unreadable.length,
			},
			executions: {
				total: executions.length,
				byStatus: statuses,
				eventsByExecutionCount: histogram(sentIds.map((id) => executionsPerEvent.get(id) ?? 0)),
				// second executions of an event that the claim stopped before "Post Event"
				stoppedAtClaim: executions.filter((e) => ran(e, 'Already Handled')).length,
				posted: executions.filter((e) => ran(e, 'Post Event')).length,
				interrupted: interruptedExecutions.length,
				orphanedNew: statuses.new ?? 0,
			},
			claims: { rows: claimed.size, forSentEvents: sentIds.filter((id) => claimed.has(id)).length },
			replays: {
				events: replay.ids.length,
				answered2xx: replayOutcome.filter((r) => r.answered2xx).length,
				// the receiving process's trigger answered "duplicate" itself: it had started the id (nothing is stored)
				recognisedByTrigger: replayOutcome.filter((r) => r.executions === 1).length,
				startedASecondExecution: replayOutcome.filter((r) => r.executions > 1).length,
				stoppedAtClaim: replayOutcome.filter((r) => r.stoppedAtClaim > 0).length,
			},
			deliveryAttempts: {
				total: attempts.length,
				eventsByAttemptCount: deliveries.attemptsPerEvent,
				eventsByFirst2xxAttempt: deliveries.deliveredAtAttempt,
				mostAttemptsNeeded: deliveries.mostAttemptsNeeded,
				margin,
				undelivered: deliveries.undelivered.length,
				outcomes,
				answeredMsBeforeCrash: answerTimes(true),
				answeredMsAfterCrash: answerTimes(false),
			},
			crash: chaos,
			// the service's attempts per 2 s since the burst started, by outcome
			deliveryTimeline: timeline(
				attempts.map((a) => ({ at: a.at, outcome: is2xx(a.status) ? '2xx' : outcome(a) })),
				burstStarted,
				2,
			),
			webhookProcessAnswersWhileStarting: startupAnswers,
			readySeconds: {
				webhooks: n8n().webhooks.map((w) => w.readySeconds),
				workers: n8n().workers.map((w) => w.readySeconds),
			},
			timesSeconds: {
				burst: RUN.burstMs / 1000,
				allDelivered: deliveredSeconds,
				allExecuted: executedSeconds,
			},
			balancerAnsweredItself: n8n().balancer?.answeredItself,
			balancerBackendErrors: n8n().balancer?.backendErrors,
			balancerForwarded: n8n().balancer?.forwarded,
			retryDelaysMs: RETRY_DELAYS_MS,
			evidence: {
				missing: downstream.missing.slice(0, 20).map(evidence),
				duplicated: downstream.duplicated.slice(0, 20).map(([id]) => evidence(id)),
				stoppedAtClaim: executions
					.filter((e) => ran(e, 'Already Handled'))
					.slice(0, 5)
					.map((e) => evidence(eventIdOf(e) ?? '')),
				interrupted: interruptedExecutions.slice(0, 10).map((e) => ({
					id: e.id,
					status: e.status,
					eventId: eventIdOf(e) ?? null,
					error: String(e.data?.resultData?.error?.message ?? '').slice(0, 200),
				})),
				undelivered: deliveries.undelivered.slice(0, 20).map(evidence),
			},
		});
		progress(
			`${sent.length} events sent; the downstream step posted ${postedEventIds().length} times: ` +
				`missing ${downstream.missing.length} (${explained.interrupted.length} in interrupted ` +
				`executions, ${explained.untraced.length} without a trace in n8n), ` +
				`duplicated ${downstream.duplicated.length}, unexpected ${downstream.unexpected.length}`,
		);
		progress(
			`${executions.length} executions ${JSON.stringify(statuses)}; the claim stopped ` +
				`${executions.filter((e) => ran(e, 'Already Handled')).length} second executions of an event`,
		);
		progress(
			`events by delivery attempts: ${JSON.stringify(deliveries.attemptsPerEvent)}; by the attempt ` +
				`that got the first 2xx: ${JSON.stringify(deliveries.deliveredAtAttempt)}; the worst needed ` +
				`${deliveries.mostAttemptsNeeded} of ${margin.attemptsAllowed}, leaving ` +
				`${margin.spareAttempts} (${margin.spareSeconds} s)`,
		);
		progress(`delivery outcomes: ${JSON.stringify(outcomes)}`);
		if (deliveries.undelivered.length > 0) {
			progress(
				`${deliveries.undelivered.length} events got no 2xx in ${margin.attemptsAllowed} attempts: ` +
					"the service's retry budget ran out for them",
			);
		}
		progress(
			`burst ${RUN.burstMs / 1000} s; all delivered after ${deliveredSeconds} s, all executed ` +
				`after ${executedSeconds} s; restart ${chaos.restartSeconds ?? '-'} s`,
		);

		expect(sent).toHaveLength(burstEvents + EVENTS.length);
		expect(collector!.unreadable).toEqual([]);
		// the claim's primary key: never a second post, whatever was killed
		expect({
			duplicated: downstream.duplicated,
			unexpected: downstream.unexpected,
		}).toEqual({ duplicated: [], unexpected: [] });
		// every event reached the downstream step (a killed worker's losses are checked below). Events the
		// service never got a 2xx for are reported, not failed on: n8n may have run them all the same (it
		// answered after the service stopped waiting), and whether it did is what `missing` says.
		if (RUN.kill !== 'worker') expect(downstream.missing).toEqual([]);
		// one claim per event that reached the claim step, never one for an id the service did not send
		expect([...claimed.keys()].filter((id) => !sentSet.has(id))).toEqual([]);
		if (RUN.kill === 'worker') {
			// n8n does not re-run what a killed worker held (Bull's maxStalledCount is 0) and replaces those
			// executions' data with the error: their events may be missing, but no more than it held
			expect(explained.unexplained).toEqual([]);
			expect(downstream.missing.length).toBeLessThanOrEqual(interruptedExecutions.length);
			// what n8n's own retry makes of such an execution (docs/queue-mode.md): measured, not relied on
			const recovery = await retryInterrupted(interruptedExecutions);
			const after = tallyDownstream(sentIds, postedEventIds());
			report.retryOfInterrupted = {
				...recovery,
				missingAfter: after.missing.length,
				duplicatedAfter: after.duplicated.length,
			};
			progress(
				`n8n's retry of the interrupted executions: ${JSON.stringify(report.retryOfInterrupted)}`,
			);
			expect(after.duplicated).toEqual([]);
		} else {
			expect(interruptedExecutions.map((e) => e.id)).toEqual([]);
		}
		if (RUN.kill === 'webhook' && RUN.replays > 0) {
			// each replay got its 2xx; the process it reached had started the id itself (one execution: the trigger
			// stores nothing, so a restarted process never knows it), or the claim stopped the second execution
			expect(replay.ids.length).toBeGreaterThan(0);
			expect(replayOutcome.filter((r) => !r.answered2xx)).toEqual([]);
			expect(
				replayOutcome.filter(
					(r) => !(r.executions === 1 || (r.executions === 2 && r.stoppedAtClaim === 1)),
				),
			).toEqual([]);
		}
	});

	it('lets exactly one of two executions of the same event through the claim when both run at once', async () => {
		// the example's Claim Event and First Delivery? nodes as they are, behind a Webhook node: each id is
		// sent twice at the same moment, so that two executions (on two workers) claim it together
		const example = loadExample(EXAMPLE);
		useCredential(example, 'postgres', credentials.postgres);
		const claim = findNode(example, 'Claim Event');
		const first = findNode(example, 'First Delivery?');
		const probe = await probeConcurrentCopies('claim', [
			{
				id: randomUUID(),
				name: 'Event',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [240, 0],
				parameters: {
					mode: 'raw',
					jsonOutput: '={{ JSON.stringify({ eventId: $json.body.id, round: $json.body.round }) }}',
					options: {},
				},
			},
			{ ...claim, position: [480, 0] },
			{ ...first, position: [720, 0] },
		]);
		report.claimProbe = probe;
		expect(probe.answeredNon2xx).toBe(0);
		expect(probe.failedExecutions).toBe(0);
		expect(probe.passedTwiceInRound1).toBe(0);
		expect(probe.passedAgainInRound2).toBe(0);
		expect(probe.neverPosted).toBe(0);
	});

	(PROBE_STORE ? it : it.skip)(
		"measures n8n's own de-duplication store (Remove Duplicates across executions) the same way",
		async () => {
			const probe = await probeConcurrentCopies('removeDuplicates', [
				{
					id: randomUUID(),
					name: 'Remove Duplicates',
					type: 'n8n-nodes-base.removeDuplicates',
					typeVersion: 2,
					position: [240, 0],
					parameters: {
						operation: 'removeItemsSeenInPreviousExecutions',
						dedupeValue: '={{ $json.body.id }}',
						options: {},
					},
				},
				{
					id: randomUUID(),
					name: 'Event',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [480, 0],
					parameters: {
						mode: 'raw',
						jsonOutput:
							'={{ JSON.stringify({ eventId: $json.body.id, round: $json.body.round }) }}',
						options: {},
					},
				},
			]);
			const stored = await db().sql(
				`SELECT value FROM processed_data WHERE "workflowId" = '${probe.workflowId}'`,
			);
			const hashesStored = (JSON.parse(stored || '{}') as { data?: unknown[] }).data?.length ?? 0;
			report.removeDuplicatesProbe = { ...probe, hashesStored };
			progress(`n8n's store kept ${hashesStored} of ${probe.ids} ids`);
			// a measurement, valid only if every request reached n8n and every id got through at least once
			expect(probe.answeredNon2xx).toBe(0);
			expect(probe.neverPosted).toBe(0);
		},
	);
});

describe(`renewal of the access token across ${RUN.workers} workers (CAPTIONING_QUEUE_RENEWAL=${RENEWAL.mode})`, () => {
	const results: RenewalResult[] = [];
	afterAll(() => {
		report.renewal = results;
	});

	const runs = RENEWAL.runs.length > 0 ? RENEWAL.runs : renewalSettings({}).runs;
	describe.each(
		runs.map((run) => [`${run.expiry} expiry, earlier tokens ${run.earlierTokens}`, run]),
	)('%s', (_label, run) => {
		(RENEWAL.mode === 'off' ? it.skip : it)(
			RENEWAL.mode === 'check'
				? 'no execution fails, and the expiry costs one refresh grant and no assertion grant'
				: 'measured: failed executions and the token requests of each expiry',
			async () => {
				const result = await measureRenewal(
					{ main: n8n().main, webhookBaseUrl: n8n().webhookBaseUrl, workers: RUN.workers },
					run,
					progress,
				);
				results.push(result);
				const { tally } = result;
				progress(
					`renewal (${run.expiry}, earlier tokens ${run.earlierTokens}, ${RUN.workers} workers): ` +
						`${result.failed} of ${run.executions} executions failed ${JSON.stringify(result.executions)}; ` +
						`${tally.expiries} expiries, ${tally.oneRefreshOnly} of them one refresh and nothing else; ` +
						`per expiry ${JSON.stringify(tally.perExpiry)}; refused calls ${JSON.stringify(result.refusedCalls)}`,
				);
				if (result.errors.length > 0) progress(`first errors: ${JSON.stringify(result.errors)}`);
				progress(`token log:\n${result.tokenLog.slice(0, 80).join('\n')}`);
				if (RENEWAL.mode !== 'check') return;
				expect(result.failed).toBe(0);
				expect(tally.expiries).toBe(run.expiries);
				expect(tally.assertionGrants).toBe(0);
				expect(tally.refreshesGranted).toBe(run.expiries);
			},
		);
	});
});
