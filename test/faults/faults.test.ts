// Issue 8, "Faults and bad input", under issue 13's liberal receiving: the packed package inside one
// real n8n 2.41.1 against the sandbox.
// 1. Deliveries at the Captioning Trigger's production URL, each answered as deliveries.ts expects from
//    the receiving contract: ≥ 5,000 hostile ones (no or a wrong token, not JSON, no usable event id,
//    an unreadable body; and the deliberate 2xx: unselected types, replays) start no execution; the
//    unusual but valid ones each start exactly one successful execution, or are ignored; n8n stays
//    healthy afterwards.
// 2. Token faults through the Captioning node: recovery, or an error that names the cause.
// 3. Activation/deactivation cycles with restarts: never an orphaned or a second endpoint.
// 4. No client secret, assertion, issued token or trigger callback token in any execution's data or
//    any log line.
// The tests build on each other and run in this order.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import {
	ACTION_TYPE,
	createSandboxCredential,
	type ExecutionSummary,
	linearWorkflow,
	listExecutions,
	type N8nInstance,
	packProject,
	PROJECT_ROOT,
	removePacked,
	startN8n,
	TRIGGER_NODE,
	triggerWorkflow,
	webhookNode,
} from '../../harness';
import { DOWNLOAD_BUDGET_MS } from '../../nodes/Captioning/trigger';
import { readDeliveryBody } from '../../nodes/Captioning/trigger/body';
import { checkIdBytes, validateEvent } from '../../nodes/Captioning/trigger/event';
import { withoutQuery } from '../../nodes/Captioning/trigger/registration';
import { DEFAULT_CLIENT, type Sandbox, startSandbox } from '../../sandbox/server';
import {
	createActiveWorkflow,
	delay,
	firstItemOf,
	histogram,
	is2xx,
	nothingFound,
	requireStarted,
	scanForSecrets,
	seconds,
	secretForms,
	stopAll,
	table,
	waitFor,
} from '../helpers/suite';
import {
	type Delivery,
	type Expectation,
	KNOWN_N8N_EXCEPTIONS,
	N8N_BODY_LIMIT,
	planDeliveries,
	type TriggerTarget,
} from './deliveries';
import { createSender, mapPool, type RawResponse, type Sender } from './http';

const ACTION_NODE = 'Captioning';
const SELECTED = 'transcription.transcribed';
const UNSELECTED = 'transcription.created';
const SEED = Number(process.env.CAPTIONING_FAULTS_SEED ?? 8);
// all generated deliveries are hostile: with the ~280 hand-written hostile ones, over MIN_HOSTILE
const GENERATED = Number(process.env.CAPTIONING_FAULTS_GENERATED ?? 4_800);
const CONCURRENCY = 16;
const MIN_HOSTILE = 5_000;
const CYCLES = 20;
const RESTART_WHILE_ACTIVE = 7;
const RESTART_WHILE_INACTIVE = 14;
const XML_TIMEOUT_MS = 3_000;
// n8n 2.41's default expression engine, 'vm', costs a fresh V8 isolate (~35-50 ms of CPU here) for
// every request to a typeVersion-1 trigger before any node code runs: webhooks/webhook-helpers.js
// parseRequestBody evaluates {{$parameter["options"]["binaryData"]}} for version-1 start nodes, and
// @n8n/expression-runtime's IsolatePool disposes each isolate after use. That caps one n8n at ~20
// webhook requests/s on 2 cores whatever the node answers: the deliveries take ~280 s on 'vm', ~25 s
// on 'legacy', with the same answers. CAPTIONING_FAULTS_EXPRESSION_ENGINE=vm runs the default.
const EXPRESSION_ENGINE = process.env.CAPTIONING_FAULTS_EXPRESSION_ENGINE ?? 'legacy';
const SUMMARY_FILE = join(PROJECT_ROOT, 'test-results', 'faults-summary.json');
const OUTCOMES_FILE = join(PROJECT_ROOT, 'test-results', 'faults-outcomes.json');

// Issue 30 item 3: with Download Caption Files on, the trigger hands the item to n8n only after its files, and n8n
// answers once the execution exists; so a crash while a file is served slowly leaves the event unanswered, the
// service delivers it again, and it runs exactly once, with its file. CRASH_RUNS=20 is the full proof.
const CRASH_RUNS = Number(process.env.CAPTIONING_FAULTS_CRASH_RUNS ?? 1);
// the first download waits this long for the file server: n8n is killed meanwhile
const SLOW_FILE_MS = 2_500;
// redeliveries 4, 12, 24, 84 and 984 s after the first attempt: a restart of n8n (15-20 s on CI, minutes on a
// busy machine) ends before one of them
const CRASH_RETRY_DELAYS_MS = [4_000, 8_000, 12_000, 60_000, 900_000];

let sandbox: Sandbox | undefined;
let n8n: N8nInstance | undefined;
let tarball: string | undefined;
let sender: Sender | undefined;
const suiteStarted = Date.now();
const summary: Record<string, unknown> = { seed: SEED };
const lines: string[] = [];

const sb = requireStarted('the sandbox', () => sandbox);
const instance = requireStarted('n8n', () => n8n);

const trigger = { workflowId: '', webhookId: '', productionUrl: '' };
let credential = { id: '', name: '' };

const captioningCredential = (name: string, overrides: Record<string, string> = {}) =>
	createSandboxCredential(instance(), sb(), name, { overrides });

/** Endpoints at the sandbox that deliver to the trigger's production URL. */
const triggerEndpoints = () =>
	[...sb().endpoints.values()].filter((e) => withoutQuery(e.callbackUri) === trigger.productionUrl);

/** Every callback token the trigger registered: the log scan looks for them too. */
const triggerTokens = new Set<string>();

function currentTarget(): TriggerTarget {
	const [endpoint] = triggerEndpoints();
	if (!endpoint) throw new Error('the trigger has no endpoint at the sandbox');
	const url = new URL(endpoint.callbackUri);
	const token = url.searchParams.get('token') ?? '';
	triggerTokens.add(token);
	return {
		path: url.pathname,
		token,
		callbackUri: endpoint.callbackUri,
		selectedEvent: SELECTED,
		unselectedEvent: UNSELECTED,
	};
}

/** Simulates a transcription; resolves with the delivery attempts of its events once all are done. */
async function deliverRealEvent() {
	const { events } = await sb().transcribe({ title: 'Faults suite health check' });
	await sb().idle();
	return events.map((event) => ({
		event,
		attempts: sb().deliveries.filter((d) => d.eventId === event.id),
	}));
}

// n8n 2.41.1 answers a started execution of a trigger whose webhook description sets no responseData
// with the literal text "firstEntryJson": webhooks/webhook-helpers.js evaluates responseData with that
// default, and webhook-on-received-response-extractor.js returns any truthy responseData as the body
// (its {"message":"Workflow was started"} is only for an empty one). Either is a 200 to the service.
const STARTED_ANSWER = /^(firstEntryJson|\{"message":"Workflow was started"\})$/;

const eventIdOf = (execution: ExecutionSummary): string | undefined =>
	firstItemOf(execution, TRIGGER_NODE)?.json?.eventId;

beforeAll(async () => {
	tarball = await packProject();
	sandbox = await startSandbox({
		transcribeAfterMs: 0,
		// redeliveries 0.5 to 15.5 s after the first attempt: a restart fits inside
		retryDelaysMs: [500, 1_000, 2_000, 4_000, 8_000],
	});
	n8n = await startN8n({
		packageTarball: tarball,
		logLevel: 'debug',
		// the crash runs restart n8n again and again: on a busy machine a start can take minutes
		...(CRASH_RUNS > 1 ? { readyTimeoutMs: 600_000 } : {}),
		// the limit the huge-body cases are built around, stated rather than assumed
		env: {
			N8N_PAYLOAD_SIZE_MAX: String(N8N_BODY_LIMIT / 1024 / 1024),
			N8N_EXPRESSION_ENGINE: EXPRESSION_ENGINE,
		},
	});
	sender = createSender(instance().port, CONCURRENCY);
	credential = await captioningCredential('Captioning sandbox');

	trigger.webhookId = randomUUID();
	trigger.productionUrl = `${instance().webhookBaseUrl}/${trigger.webhookId}/webhook`;
	const created = await instance().createWorkflow(
		triggerWorkflow({
			name: 'Faults: trigger',
			webhookId: trigger.webhookId,
			credential,
			parameters: { registration: 'api', events: [SELECTED], options: {} },
			alone: true,
		}),
	);
	trigger.workflowId = created.id;
	await instance().activateWorkflow(trigger.workflowId);
}, 300_000);

afterAll(async () => {
	summary.totalSeconds = Number(((Date.now() - suiteStarted) / 1000).toFixed(1));
	summary.n8nStarts = n8n?.timings.map((t) => ({ restart: t.restart, seconds: t.totalSeconds }));
	lines.push(`faults suite: ${seconds(Date.now() - suiteStarted)} in all, seed ${SEED}`);
	process.stdout.write(`\n${lines.join('\n')}\n`);
	await mkdir(dirname(SUMMARY_FILE), { recursive: true }).catch(() => undefined);
	await writeFile(SUMMARY_FILE, JSON.stringify(summary, null, 2)).catch(() => undefined);
	sender?.close();
	await stopAll([() => n8n?.stop(), () => sandbox?.stop(), () => removePacked(tarball)]);
});

// ---------------------------------------------------------------------------------------------------

/** What went wrong with one answer, or undefined when it is the expected one. */
function mismatch(expect: Expectation, res: RawResponse): string | undefined {
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	const body = res.json as any;
	const got = `${res.status}${res.error ? ` (${res.error})` : ''} ${res.text.slice(0, 160)}`;
	switch (expect.kind) {
		case 'rejected':
			if (res.status !== expect.status) return `expected ${expect.status}, got ${got}`;
			if (expect.by === 'trigger' && typeof body?.error !== 'string') {
				return `expected the trigger's { error } body, got ${got}`;
			}
			return undefined;
		case 'ignored':
			return res.status === 200 && body?.received === true && /is not selected/.test(body?.ignored)
				? undefined
				: `expected 200 ignored, got ${got}`;
		case 'duplicate':
			return res.status === 200 && body?.received === true && body?.duplicate === true
				? undefined
				: `expected 200 duplicate, got ${got}`;
		case 'started':
			return res.status === 200 && STARTED_ANSWER.test(res.text)
				? undefined
				: `expected 200 "Workflow was started", got ${got}`;
		case 'n8n-exception':
			return expect.statuses.includes(res.status)
				? undefined
				: `expected ${expect.statuses.join(' or ')} (${expect.exception}), got ${got}`;
	}
}

interface Outcome {
	delivery: Delivery;
	res: RawResponse;
	problem?: string;
}

const answers = (outcomes: Outcome[]) => histogram(outcomes.map((o) => o.res.status || 'reset'));

/** Whether the package reads an event id from the bytes: readable JSON, `data.id`, and its bytes UTF-8. */
function hasEventId(body: Buffer): boolean {
	const read = readDeliveryBody('application/json', body);
	if (!read.ok) return false;
	const head = validateEvent(read.body);
	return head.ok && checkIdBytes(head.event.id, read.lossy) === undefined;
}

/**
 * The generator checked against the package's own reading before anything is sent: a delivery meant to
 * carry an event id must (so that its 401 is about the token, its start or ignore about the rest), one
 * meant not to must not (so that its 400 is about the id). The expectations themselves come from the
 * contract in deliveries.ts; this only catches a generator that builds something else than it says.
 */
function miscast(deliveries: Delivery[]): string[] {
	return deliveries
		.filter((d) => d.meant && hasEventId(d.meant.body) !== (d.meant.is === 'event'))
		.map((d) => `${d.category}: ${d.label}`);
}

const isFinished = (e: ExecutionSummary) => e.stoppedAt !== null && e.stoppedAt !== undefined;

/** Waits until the workflow has `count` finished executions; every page of them is read. */
async function waitForFinished(workflowId: string, count: number, timeoutMs = 30_000) {
	await waitFor(
		`${count} finished executions`,
		async () =>
			(await listExecutions(instance(), { workflowId })).filter(isFinished).length >= count,
		timeoutMs,
	);
}

/** The executions beyond one per wanted id: what something other than a valid event started. */
function unaccounted(executions: ExecutionSummary[], wanted: string[]): ExecutionSummary[] {
	const left = new Map<string, number>();
	for (const id of wanted) left.set(id, (left.get(id) ?? 0) + 1);
	return executions.filter((e) => {
		const id = eventIdOf(e) ?? '';
		const n = left.get(id) ?? 0;
		left.set(id, n - 1);
		return n <= 0;
	});
}

/** Per category: sent, the answers, how many as expected; for the printed table and the summary. */
function perCategory(outcomes: Outcome[]) {
	const rows = [['category', 'sent', 'answers (status×count)', 'as expected']];
	const summary: Record<string, { sent: number; answers: string }> = {};
	for (const category of [...new Set(outcomes.map((o) => o.delivery.category))].sort()) {
		const mine = outcomes.filter((o) => o.delivery.category === category);
		summary[category] = { sent: mine.length, answers: answers(mine) };
		rows.push([
			category,
			String(mine.length),
			answers(mine),
			String(mine.filter((o) => !o.problem).length),
		]);
	}
	return { rows, summary };
}

describe('deliveries at the production URL', () => {
	it(`answers ≥ ${MIN_HOSTILE} hostile ones with a 4xx or a deliberate 2xx and starts nothing for them; each unusual but valid one starts exactly once`, async () => {
		const plan = planDeliveries(currentTarget(), {
			seed: SEED,
			generated: GENERATED,
			burstSize: CONCURRENCY,
		});
		expect(miscast([...plan.valid, ...plan.unusual, ...plan.hostile, ...plan.xml])).toEqual([]);
		// every delivery meant to start has an id of its own: one execution each, none a duplicate
		const starting = [...plan.valid, ...plan.unusual.filter((d) => d.expect.kind === 'started')];
		const startIds = starting.map((d) => d.eventId);
		expect(startIds.filter((id) => id === undefined)).toEqual([]);
		expect(new Set(startIds).size).toBe(startIds.length);
		expect(plan.hostile.filter((d) => d.expect.kind === 'started')).toEqual([]);
		// planning kept the event loop busy for seconds: let undici notice the keep-alive sockets n8n
		// closed meanwhile, or the next fetch goes out on one of them ("other side closed")
		await delay(100);

		const before = await listExecutions(instance(), { workflowId: trigger.workflowId });
		const started = Date.now();
		const send =
			(timeoutMs?: number) =>
			async (delivery: Delivery): Promise<Outcome> => {
				const res = await sender!.send(delivery, timeoutMs);
				return { delivery, res, problem: mismatch(delivery.expect, res) };
			};
		// the valid ones first and one by one: the replays among the hostile ones find their ids seen
		const valid = await mapPool(plan.valid, 1, send());
		const unusualStarted = Date.now();
		const unusual = await mapPool(plan.unusual, CONCURRENCY, send());
		const hostileStarted = Date.now();
		const hostile = [
			...(await mapPool(plan.hostile, CONCURRENCY, send())),
			// n8n never answers some of these (see 'shared-xml-parser'): a short wait shows it
			...(await mapPool(plan.xml, CONCURRENCY, send(XML_TIMEOUT_MS))),
		];
		// one new event, all copies at once: exactly one starts the workflow
		const burst = await mapPool(plan.burst, plan.burst.length, send());
		const done = Date.now();
		const outcomes = [...valid, ...unusual, ...hostile];
		const groupOf = new Map<Delivery, string>([
			...plan.valid.map((d): [Delivery, string] => [d, 'valid']),
			...plan.unusual.map((d): [Delivery, string] => [d, 'unusual']),
		]);
		await mkdir(dirname(OUTCOMES_FILE), { recursive: true });
		await writeFile(
			OUTCOMES_FILE,
			JSON.stringify(
				[...outcomes, ...burst].map(({ delivery, res, problem }) => ({
					group: groupOf.get(delivery) ?? 'hostile',
					category: delivery.category,
					label: delivery.label,
					expected: delivery.expect,
					status: res.status,
					ms: res.ms,
					answer: res.text.slice(0, 200),
					problem,
				})),
				null,
				1,
			),
		);

		const burstStarted = burst.filter((o) => STARTED_ANSWER.test(o.res.text)).length;
		const burstDuplicates = burst.filter((o) => !o.problem).length;
		expect({ burstStarted, burstDuplicates }).toEqual({
			burstStarted: 1,
			burstDuplicates: plan.burst.length - 1,
		});

		// every execution since `before` is one of the valid events, each once, each successful
		const wanted = [...startIds, plan.burst[0].eventId].map((id) => id ?? '').sort();
		await waitForFinished(trigger.workflowId, before.length + wanted.length, 120_000);
		// anything a hostile delivery had started would be listed by now
		await delay(2_000);
		const after = await listExecutions(instance(), {
			workflowId: trigger.workflowId,
			includeData: true,
		});
		const known = new Set(before.map((e) => e.id));
		const fresh = after.filter((e) => !known.has(e.id));
		const extra = unaccounted(fresh, wanted);
		const failed = fresh.filter((e) => e.status !== 'success');

		const hostileCount = hostile.length + burstDuplicates;
		const rejected = hostile.filter((o) => o.res.status >= 400 && o.res.status < 500).length;
		const deliberate2xx =
			hostile.filter((o) => ['ignored', 'duplicate'].includes(o.delivery.expect.kind) && !o.problem)
				.length + burstDuplicates;
		const hostileTable = perCategory(hostile);
		hostileTable.rows.push([
			'replay: burst',
			String(burst.length),
			answers(burst),
			`${burstStarted} started, ${burstDuplicates} duplicates`,
		]);
		const unusualTable = perCategory(unusual);
		const unusualStarts = unusual.filter((o) => o.delivery.expect.kind === 'started');
		const unusualIgnored = unusual.filter((o) => o.delivery.expect.kind === 'ignored');
		const exceptions = Object.keys(KNOWN_N8N_EXCEPTIONS).map((name) => {
			const hits = outcomes.filter(
				(o) => o.delivery.expect.kind === 'n8n-exception' && o.delivery.expect.exception === name,
			);
			return { name, count: hits.length, answers: answers(hits) };
		});
		lines.push(
			`hostile deliveries: ${hostileCount} in ${seconds(done - hostileStarted)}, ` +
				`${CONCURRENCY} in flight, n8n expression engine ${EXPRESSION_ENGINE}`,
			table(hostileTable.rows),
			`4xx: ${rejected}; deliberate 2xx (duplicate or ignored): ${deliberate2xx}; known n8n exceptions: ` +
				exceptions.map((e) => `${e.name} ${e.count} (${e.answers})`).join(', '),
			`unusual but valid deliveries: ${unusual.length} in ${seconds(hostileStarted - unusualStarted)} ` +
				`(${unusualStarts.length} to start, ${unusualIgnored.length} to ignore: no selected event type)`,
			table(unusualTable.rows),
			`executions: ${fresh.length} new (${valid.length + 1} deliberately valid, ${unusualStarts.length} ` +
				`unusual but valid), ${failed.length} not successful; ${extra.length} from hostile deliveries`,
		);
		Object.assign(summary, {
			hostile: {
				count: hostileCount,
				rejected4xx: rejected,
				deliberate2xx,
				knownN8nExceptions: exceptions,
				executions: extra.length,
				sendSeconds: (done - hostileStarted) / 1000,
				concurrency: CONCURRENCY,
				expressionEngine: EXPRESSION_ENGINE,
				perCategory: hostileTable.summary,
			},
			unusualValid: {
				count: unusual.length,
				started: unusualStarts.filter((o) => !o.problem).length,
				ignored: unusualIgnored.filter((o) => !o.problem).length,
				sendSeconds: (hostileStarted - unusualStarted) / 1000,
				perCategory: unusualTable.summary,
			},
			valid: { count: valid.length + 1 },
			executions: { new: fresh.length, wanted: wanted.length, notSuccessful: failed.length },
			sendSeconds: (done - started) / 1000,
		});

		expect(
			outcomes
				.filter((o) => o.problem)
				.map((o) => `${o.delivery.category} / ${o.delivery.label}: ${o.problem}`),
		).toEqual([]);
		expect(extra.map((e) => ({ id: e.id, eventId: eventIdOf(e), status: e.status }))).toEqual([]);
		expect(fresh.map(eventIdOf).sort()).toEqual(wanted);
		expect(failed.map((e) => ({ id: e.id, eventId: eventIdOf(e), status: e.status }))).toEqual([]);
		expect(hostileCount).toBeGreaterThanOrEqual(MIN_HOSTILE);
	});

	it('is healthy afterwards: /healthz answers and a real event still executes', async () => {
		const health = await instance().request('GET', '/healthz');
		expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
		const before = (await listExecutions(instance(), { workflowId: trigger.workflowId })).length;
		const [delivered] = await deliverRealEvent();
		expect(delivered.attempts.map((a) => a.status)).toEqual([200]);
		// its redeliveries are answered 2xx without a second execution
		sb().redeliver(delivered.event.id);
		sb().redeliver(delivered.event.id);
		await sb().idle();
		const attempts = sb().deliveries.filter((d) => d.eventId === delivered.event.id);
		expect(attempts.map((d) => d.status)).toEqual([200, 200, 200]);
		await waitForFinished(trigger.workflowId, before + 1);
		await delay(1_000);
		const after = await listExecutions(instance(), {
			workflowId: trigger.workflowId,
			includeData: true,
		});
		expect(after.length).toBe(before + 1);
		const mine = after.filter((e) => eventIdOf(e) === delivered.event.id);
		expect(mine.map((e) => e.status)).toEqual(['success']);
	});
});

// ---------------------------------------------------------------------------------------------------

interface ActionWorkflow {
	id: string;
	path: string;
}

/** Webhook -> Captioning (Webhook Endpoint: Get Many), activated; called over HTTP. */
async function createActionWorkflow(name: string, cred: { id: string; name: string }) {
	const path = `faults-${randomUUID()}`;
	const id = await createActiveWorkflow(
		instance(),
		linearWorkflow(name, [
			webhookNode(path),
			{
				id: randomUUID(),
				name: ACTION_NODE,
				type: ACTION_TYPE,
				typeVersion: 1,
				parameters: { resource: 'webhookEndpoint', operation: 'getAll', returnAll: true },
				credentials: { captioningApi: { id: cred.id, name: cred.name } },
			},
		]),
	);
	return { id, path };
}

/** Runs the workflow once; its execution, and what reached the sandbox meanwhile. */
async function runAction(workflow: ActionWorkflow) {
	const before = await listExecutions(instance(), { workflowId: workflow.id });
	const logFrom = sb().requestLog.length;
	const res = await instance().request('POST', `${instance().webhookBaseUrl}/${workflow.path}`, {
		body: {},
	});
	const finished = await instance().waitForExecutions(workflow.id, { count: before.length + 1 });
	const [latest] = finished.sort((a, b) => Number(b.id) - Number(a.id));
	const wire = sb()
		.requestLog.slice(logFrom)
		.map((r) => `${r.grantType ? `token ${r.grantType}` : `${r.method} ${r.path}`} ${r.status}`);
	return {
		httpStatus: res.status,
		status: latest.status,
		error: latest.data?.resultData?.error?.message as string | undefined,
		wire,
	};
}

const action = {
	good: { id: '', path: '' },
	badAssertion: { id: '', path: '' },
	badSecret: { id: '', path: '' },
};
const BAD_ASSERTION = `wrong-assertion-${randomUUID()}`;
const BAD_SECRET = `wrong-client-secret-${randomUUID()}`;
const tokenFaults: Array<Record<string, unknown>> = [];
/** On the wire: the expired access token refused, renewed with the refresh token, the call repeated. */
const RENEWED_WITH_REFRESH = [
	'GET /webhook_endpoints 401',
	'token refresh_token 200',
	'GET /webhook_endpoints 200',
];
/** The same when the refresh token is refused: a new grant from the assertion. */
const RENEWED_WITH_ASSERTION = [
	'GET /webhook_endpoints 401',
	'token refresh_token 400',
	'token assertion 200',
	'GET /webhook_endpoints 200',
];

describe('token faults through the Captioning node', () => {
	const record = (fault: string, outcome: Awaited<ReturnType<typeof runAction>>) => {
		tokenFaults.push({
			fault,
			status: outcome.status,
			error: outcome.error,
			wire: outcome.wire.join(', '),
		});
		return outcome;
	};

	beforeAll(async () => {
		action.good = await createActionWorkflow(
			'Faults: list endpoints',
			await captioningCredential('Faults: action'),
		);
		action.badAssertion = await createActionWorkflow(
			'Faults: wrong assertion',
			await captioningCredential('Faults: wrong assertion', { assertion: BAD_ASSERTION }),
		);
		action.badSecret = await createActionWorkflow(
			'Faults: wrong client secret',
			await captioningCredential('Faults: wrong client secret', { clientSecret: BAD_SECRET }),
		);
	});

	afterAll(() => {
		const rows = [
			['fault', 'execution', 'on the wire', 'error message'],
			...tokenFaults.map((f) => [
				String(f.fault),
				String(f.status),
				String(f.wire),
				String(f.error ?? '').slice(0, 90),
			]),
		];
		lines.push('token faults (Captioning node, Webhook Endpoint: Get Many):', table(rows));
		summary.tokenFaults = tokenFaults;
	});

	it('gets its first token with the assertion grant', async () => {
		const run = record('first call', await runAction(action.good));
		expect(run).toMatchObject({ httpStatus: 200, status: 'success' });
		expect(run.wire).toEqual(['token assertion 200', 'GET /webhook_endpoints 200']);
	});

	it('renews an expired access token with the refresh token', async () => {
		sb().advanceClock(7_201);
		const run = record('access token expired', await runAction(action.good));
		expect(run).toMatchObject({ httpStatus: 200, status: 'success' });
		expect(run.wire).toEqual(RENEWED_WITH_REFRESH);
	});

	it('starts again from the assertion when the refresh token was revoked', async () => {
		sb().tokens.revoke('all');
		const run = record('all tokens revoked', await runAction(action.good));
		expect(run).toMatchObject({ httpStatus: 200, status: 'success' });
		expect(run.wire).toEqual(RENEWED_WITH_ASSERTION);
	});

	it('starts again from the assertion when someone else rotated the refresh token', async () => {
		// another copy of the credential renews first: every refresh token n8n holds is used up
		let rotated = 0;
		for (const token of sb().tokens.issuedSecrets()) {
			const query = new URLSearchParams({
				grant_type: 'refresh_token',
				refresh_token: token,
				client_id: DEFAULT_CLIENT.clientId,
				client_secret: DEFAULT_CLIENT.clientSecret,
			});
			const res = await fetch(`${sb().url}/oauth/token?${query}`, { method: 'POST' });
			await res.arrayBuffer();
			if (res.status === 200) rotated++;
		}
		expect(rotated).toBeGreaterThan(0);
		sb().tokens.revoke('access');
		const run = record('refresh token rotated elsewhere', await runAction(action.good));
		expect(run).toMatchObject({ httpStatus: 200, status: 'success' });
		expect(run.wire).toEqual(RENEWED_WITH_ASSERTION);
	});

	it.each([
		['http500', /token endpoint failed with HTTP 500.*try again later/, 500],
		['html', /answered HTTP 200 with text\/html instead of a JSON token response/, 200],
		['garbage', /JSON that is not a valid token response \(access_token: /, 200],
	] as const)(
		'token endpoint fault "%s": one assertion grant after the refresh, a clear error, then recovery',
		async (fault, message, status) => {
			sb().tokens.revoke('access');
			sb().tokenFault = fault;
			let run: Awaited<ReturnType<typeof runAction>>;
			try {
				run = record(`token endpoint ${fault}`, await runAction(action.good));
			} finally {
				sb().tokenFault = null;
			}
			expect(run).toMatchObject({ status: 'error', error: expect.stringMatching(message) });
			// a refresh that yields no token is dropped, and the assertion is asked once
			expect(run.wire).toEqual([
				'GET /webhook_endpoints 401',
				`token refresh_token ${status}`,
				`token assertion ${status}`,
			]);

			// the dropped refresh token is not sent again: the assertion grant, at once
			const recovered = record(`after ${fault}, fault cleared`, await runAction(action.good));
			expect(recovered).toMatchObject({ httpStatus: 200, status: 'success' });
			expect(recovered.wire).toEqual([
				'GET /webhook_endpoints 401',
				'token assertion 200',
				'GET /webhook_endpoints 200',
			]);
		},
	);

	it('names a wrong assertion as the cause', async () => {
		const run = record('wrong assertion', await runAction(action.badAssertion));
		expect(run).toMatchObject({
			status: 'error',
			error: expect.stringMatching(/rejected the Assertion Token \(invalid_grant\)/),
		});
		expect(run.wire).toEqual(['token assertion 400']);
	});

	it('names a wrong client secret as the cause', async () => {
		const run = record('wrong client secret', await runAction(action.badSecret));
		expect(run).toMatchObject({
			status: 'error',
			error: expect.stringMatching(/rejected the Client ID or Client Secret \(invalid_client\)/),
		});
		expect(run.wire).toEqual(['token assertion 401']);
	});
});

// ---------------------------------------------------------------------------------------------------

describe('activation cycles', () => {
	it(`${CYCLES} deactivations and activations, with restarts, leave exactly one endpoint`, async () => {
		const started = Date.now();
		const tokens = [currentTarget().token];
		const restarts: string[] = [];
		for (let cycle = 1; cycle <= CYCLES; cycle++) {
			await instance().deactivateWorkflow(trigger.workflowId);
			expect(sb().endpoints.size).toBe(0);
			if (cycle === RESTART_WHILE_INACTIVE) {
				await instance().restart();
				restarts.push(`inactive, before activation ${cycle}`);
				expect(sb().endpoints.size).toBe(0);
			}

			await instance().activateWorkflow(trigger.workflowId);
			const [endpoint, ...more] = [...sb().endpoints.values()];
			expect(more).toEqual([]);
			expect(triggerEndpoints()).toEqual([endpoint]);
			const { token } = currentTarget();
			expect(tokens).not.toContain(token);
			tokens.push(token);
			if (cycle === RESTART_WHILE_ACTIVE) {
				await instance().restart();
				restarts.push(`active, after activation ${cycle}`);
				// the restart verified the registration at the service and kept it
				expect([...sb().endpoints.values()]).toEqual([endpoint]);
			}

			// the previous registration's token is dead, and the endpoint reaches this activation
			const stale = await sender!.send({
				method: 'POST',
				path: `${currentTarget().path}?token=${tokens.at(-2)}`,
				headers: [['content-type', 'application/json']],
				body: Buffer.from(JSON.stringify({ data: {} })),
			});
			expect(stale.status).toBe(401);
			const delivered = await deliverRealEvent();
			expect(delivered.map((d) => d.attempts.at(-1)?.status)).toEqual([200]);
		}
		await instance().deactivateWorkflow(trigger.workflowId);
		expect(sb().endpoints.size).toBe(0);

		const attempts = sb().deliveries.length;
		lines.push(
			`activation cycles: ${CYCLES} (restarts: ${restarts.join('; ')}) in ${seconds(Date.now() - started)}; ` +
				`endpoints after each: 1 while active, 0 after deactivation; orphaned 0, duplicates 0`,
		);
		summary.cycles = {
			cycles: CYCLES,
			restarts,
			seconds: (Date.now() - started) / 1000,
			deliveryAttempts: attempts,
			orphaned: 0,
			duplicates: 0,
		};
	});
});

// ---------------------------------------------------------------------------------------------------

describe('a crash while a file downloads', () => {
	const downloads = { workflowId: '', productionUrl: '' };
	const crashRuns: Array<Record<string, unknown>> = [];
	let defaultRetryDelays: number[] = [];

	beforeAll(async () => {
		const webhookId = randomUUID();
		downloads.productionUrl = `${instance().webhookBaseUrl}/${webhookId}/webhook`;
		downloads.workflowId = await createActiveWorkflow(
			instance(),
			triggerWorkflow({
				name: 'Faults: downloads',
				webhookId,
				credential,
				parameters: {
					registration: 'api',
					events: [SELECTED],
					options: { downloadFormats: ['vtt'] },
				},
				alone: true,
			}),
		);
		defaultRetryDelays = sb().options.retryDelaysMs;
		sb().deliverer.configure({ retryDelaysMs: CRASH_RETRY_DELAYS_MS });
	}, 120_000);

	afterAll(() => {
		sb().deliverer.configure({ retryDelaysMs: defaultRetryDelays });
		sb().options.fileDelayMs = 0;
		summary.crashDuringDownload = crashRuns;
	});

	/** This trigger's endpoint at the sandbox, its token noted for the secret scan. */
	function noteToken() {
		for (const endpoint of sb().endpoints.values()) {
			if (withoutQuery(endpoint.callbackUri) !== downloads.productionUrl) continue;
			triggerTokens.add(new URL(endpoint.callbackUri).searchParams.get('token') ?? '');
		}
	}

	/** The selected event of a transcription as sent to this trigger (another active trigger gets its own). */
	function eventFor(events: Array<{ id: string; eventType: string; endpointId: string }>) {
		const endpoint = [...sb().endpoints.values()].find(
			(e) => withoutQuery(e.callbackUri) === downloads.productionUrl,
		);
		const event = events.find((e) => e.eventType === SELECTED && e.endpointId === endpoint?.id);
		if (!event) throw new Error('the transcription sent this trigger no event');
		return event;
	}

	/** The executions of the downloads workflow that carry the event, with their data. */
	async function executionsOf(eventId: string) {
		const all = await listExecutions(instance(), {
			workflowId: downloads.workflowId,
			includeData: true,
		});
		return all.filter((e) => eventIdOf(e) === eventId);
	}

	it(`answers a delivery once the file is on the item, or with downloadErrors once the ${DOWNLOAD_BUDGET_MS / 1000} s budget is spent`, async () => {
		noteToken();
		const timed: Record<string, number> = {};
		for (const [label, delayMs] of [
			['file served at once', 0],
			[`file served after ${SLOW_FILE_MS / 1000} s`, SLOW_FILE_MS],
			['file server that does not answer in time', 30_000],
		] as const) {
			sb().options.fileDelayMs = delayMs;
			const { events } = await sb().transcribe({ title: `Faults: ${label}` });
			const event = eventFor(events);
			await waitFor(`the answer to ${label}`, () =>
				sb().deliveries.some((d) => d.eventId === event.id),
			);
			const [attempt] = sb().deliveries.filter((d) => d.eventId === event.id);
			expect(attempt.status).toBe(200);
			timed[label] = attempt.durationMs;
			await waitFor('its execution', async () => (await executionsOf(event.id)).some(isFinished));
			const [execution] = await executionsOf(event.id);
			const item = firstItemOf(execution, TRIGGER_NODE);
			if (delayMs < DOWNLOAD_BUDGET_MS) {
				expect(item.binary?.vtt?.fileName).toMatch(/\.vtt$/);
				expect(item.json.downloadErrors).toBeUndefined();
			} else {
				expect(item.binary?.vtt).toBeUndefined();
				expect(item.json.downloadErrors).toEqual([
					{
						format: 'vtt',
						message: expect.stringMatching(/^The vtt file was not downloaded within 5 s/),
					},
				]);
			}
		}
		sb().options.fileDelayMs = 0;
		lines.push(
			`answer times with Download Caption Files (one delivery each, sandbox timeout ${sb().options.deliveryTimeoutMs / 1000} s): ` +
				Object.entries(timed)
					.map(([label, ms]) => `${label} ${seconds(ms)}`)
					.join('; '),
		);
		summary.downloadAnswerMs = timed;
		// within the budget and n8n's start of the execution, well inside the service's timeout
		expect(timed['file server that does not answer in time']).toBeLessThan(
			sb().options.deliveryTimeoutMs,
		);
	}, 120_000);

	it(
		`${CRASH_RUNS} run(s): n8n killed (SIGKILL) while the file is served slowly, restarted; the redelivery runs exactly once, with the file`,
		async () => {
			for (let run = 1; run <= CRASH_RUNS; run++) {
				const started = Date.now();
				sb().options.fileDelayMs = SLOW_FILE_MS;
				const filesBefore = sb().fileRequestsReceived;
				const { events } = await sb().transcribe({ title: `Faults: crash ${run}` });
				const event = eventFor(events);
				// the trigger has asked for the file, which the sandbox holds back: kill n8n now
				await waitFor('the download to begin', () => sb().fileRequestsReceived > filesBefore);
				await instance().restart({ crash: true });
				const restartedAfterMs = Date.now() - started;
				await waitFor(
					'a delivery answered 2xx',
					() => sb().deliveries.some((d) => d.eventId === event.id && is2xx(d.status)),
					CRASH_RETRY_DELAYS_MS.reduce((a, b) => a + b) + 60_000,
				);
				await waitFor(
					'its execution to finish',
					async () => (await executionsOf(event.id)).some(isFinished),
					60_000,
				);
				// give a second execution, were there one, the time to show up
				await delay(1_000);
				const executions = await executionsOf(event.id);
				const attempts = sb().deliveries.filter((d) => d.eventId === event.id);
				const outcome = {
					run,
					attempts: attempts.map((a) => a.status ?? 'no answer'),
					attemptDetails: attempts.map((a) => `${a.at} ${a.durationMs} ms ${a.status ?? a.error}`),
					executions: executions.map((e) => e.status),
					withFile: executions.filter((e) => firstItemOf(e, TRIGGER_NODE)?.binary?.vtt).length,
					restartSeconds: Number((restartedAfterMs / 1000).toFixed(1)),
					seconds: Number(((Date.now() - started) / 1000).toFixed(1)),
				};
				// exactly one execution, with the file; the killed delivery got no 2xx, and only one attempt did
				const ok =
					outcome.executions.length === 1 &&
					outcome.executions[0] === 'success' &&
					outcome.withFile === 1 &&
					attempts[0].status === undefined &&
					attempts.filter((a) => is2xx(a.status)).length === 1;
				crashRuns.push({ ...outcome, ok });
			}
			sb().options.fileDelayMs = 0;
			noteToken();
			const passed = crashRuns.filter((r) => r.ok);
			lines.push(
				`crash during a download: ${passed.length} of ${CRASH_RUNS} runs with exactly one execution carrying the file ` +
					`(attempts per run: ${crashRuns.map((r) => (r.attempts as unknown[]).join('/')).join(', ')})`,
			);
			expect(crashRuns.filter((r) => !r.ok)).toEqual([]);
		},
		CRASH_RUNS * 1_200_000,
	);
});

// ---------------------------------------------------------------------------------------------------

describe('secrets', () => {
	it('appear in no execution’s data and no log line', async () => {
		const secrets: Record<string, string[]> = {
			'client secret': [DEFAULT_CLIENT.clientSecret, BAD_SECRET],
			assertion: [DEFAULT_CLIENT.assertions[0], BAD_ASSERTION],
			'issued access/refresh token': sb().tokens.issuedSecrets(),
			// every registration's: in every delivery's data.attributes.uri, and in Get Many's callback URIs
			'trigger callback token': [...triggerTokens],
		};
		const {
			executions,
			data,
			logLines,
			found,
			rows,
			summary: scanned,
		} = await scanForSecrets(instance(), secrets);
		for (const [kind, values] of Object.entries(secrets)) {
			// where a secret is found, show where (masked), so that a failure names its source
			const forms = secretForms(values);
			const mask = (text: string) => forms.reduce((t, f) => t.split(f).join(`[${kind}]`), text);
			const hits = [...data, ...logLines].filter((text) => forms.some((f) => text.includes(f)));
			for (const hit of hits.slice(0, 5).map(mask)) {
				const at = hit.indexOf(`[${kind}]`);
				lines.push(`  ${kind} found: …${hit.slice(Math.max(0, at - 150), at + 150)}…`);
			}
		}
		expect(triggerTokens.size).toBeGreaterThan(CYCLES);
		lines.push(
			`secret scan: ${executions.length} executions (${(scanned.dataBytes / 1024 / 1024).toFixed(1)} MiB of data), ${logLines.length} log lines`,
			table(rows),
		);
		summary.secretScan = scanned;
		expect(executions.length).toBeGreaterThan(0);
		expect(found).toEqual(nothingFound(found));
	});
});
