// Issue 13, item 5: the mirror image of the faults suite. The packed package inside one real n8n (2.41.1, or
// CAPTIONING_N8N_VERSION=1.123.81, where n8n itself refuses a JSON body with a byte order mark: refusedByN8n)
// against the sandbox; thousands of deliveries that are valid but unusual (real sandbox events varied field
// by field, each with a new event id, a selected event type and the registration's token).
// 1. Deliveries: each answered 2xx, each starting exactly one successful execution whose item carries its id.
// 2. The same with "Download Caption Files" on: odd file names, odd Content-Disposition values, files that
//    404, reset or never answer (then `downloadErrors` on the item, still one successful execution).
// 3. The same with "Raw Body" on (the event as it came, callback URI included, on the item).
// 4. A redelivered sample starts nothing new.
// 5. No callback token, client secret, assertion or issued token in any execution's data or log line.
// The tests build on each other and run in this order.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import {
	createSandboxCredential,
	type ExecutionSummary,
	listExecutions,
	type N8nInstance,
	packProject,
	PROJECT_ROOT,
	removePacked,
	startN8n,
	TRIGGER_NODE,
	triggerWorkflow,
} from '../../harness';
import { N8N_VERSION, n8nProfile } from '../../harness/install';
import { withoutQuery } from '../../nodes/Captioning/trigger/registration';
import { DEFAULT_CLIENT, type Sandbox, startSandbox } from '../../sandbox/server';
import { createSender, mapPool, type RawResponse, type Sender } from '../faults/http';
import { Rng } from '../faults/random';
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
	stopAll,
	table,
} from '../helpers/suite';
import {
	type BenignDelivery,
	type BenignTarget,
	decodeBody,
	DOWNLOAD_FORMATS,
	EVENT_TYPES,
	N8N_1_BOM_REFUSAL,
	planDeliveries,
	planDownloads,
	planProblems,
	refusedByN8n,
	templatesFrom,
} from './deliveries';
import { type FileServer, startFileServer } from './files';

const SEED = Number(process.env.CAPTIONING_BENIGN_SEED ?? 13);
const N8N_MAJOR = n8nProfile(N8N_VERSION).major;
const DELIVERIES = Number(process.env.CAPTIONING_BENIGN_DELIVERIES ?? 1_200);
const DOWNLOADS = Number(process.env.CAPTIONING_BENIGN_DOWNLOADS ?? 200);
const MIN_DELIVERIES = 1_000;
/** Downloads that never answer: each holds its execution until the download's own timeout. */
const TIMEOUTS = 2;
const REDELIVERED = { deliveries: 100, downloads: 20, rawBody: 10 };
const RAW_BODY = Number(process.env.CAPTIONING_BENIGN_RAW_BODY ?? 60);
const CONCURRENCY = 16;
// As in the faults suite: n8n 2.41's default 'vm' expression engine costs a fresh V8 isolate per request
// to a typeVersion-1 trigger (webhook-helpers.js evaluates $parameter["options"]["binaryData"]), capping
// one n8n at ~20 webhook requests/s on 2 cores. Answers and executions are the same on 'legacy';
// CAPTIONING_BENIGN_EXPRESSION_ENGINE=vm runs the default.
const EXPRESSION_ENGINE = process.env.CAPTIONING_BENIGN_EXPRESSION_ENGINE ?? 'legacy';
/** The trigger's typeVersion (a version 2 evaluates no expression per request); unset: the harness's. */
const TRIGGER_VERSION = process.env.CAPTIONING_BENIGN_TRIGGER_VERSION;
const RESULTS = join(PROJECT_ROOT, 'test-results');
const SUMMARY_FILE = join(RESULTS, 'benign-summary.json');
const PROBLEMS_FILE = join(RESULTS, 'benign-problems.json');

let sandbox: Sandbox | undefined;
let n8n: N8nInstance | undefined;
let files: FileServer | undefined;
let tarball: string | undefined;
let sender: Sender | undefined;
const suiteStarted = Date.now();
const summary: Record<string, unknown> = {
	seed: SEED,
	expressionEngine: EXPRESSION_ENGINE,
	triggerVersion: TRIGGER_VERSION ?? 'harness default',
};
const problemLog: Record<string, unknown[]> = {};
const lines: string[] = [];
const AS_SENT = '(as the service sends it)';

const sb = requireStarted('the sandbox', () => sandbox);
const instance = requireStarted('n8n', () => n8n);

interface Trigger {
	name: string;
	workflowId: string;
	webhookId: string;
	productionUrl: string;
	target?: BenignTarget;
	/** Ids of the real events the sandbox delivered: they start executions too. */
	realEventIds: string[];
}

const main: Trigger = {
	name: 'Benign: trigger',
	workflowId: '',
	webhookId: '',
	productionUrl: '',
	realEventIds: [],
};
const downloads: Trigger = {
	name: 'Benign: downloads',
	workflowId: '',
	webhookId: '',
	productionUrl: '',
	realEventIds: [],
};
// Raw Body puts data.attributes.uri, the callback URI, into the item: the secret scan's hardest case
const raw: Trigger = {
	name: 'Benign: raw body',
	workflowId: '',
	webhookId: '',
	productionUrl: '',
	realEventIds: [],
};
const TRIGGERS = [main, downloads, raw];
const targetOf = (trigger: Trigger): BenignTarget => {
	if (!trigger.target) throw new Error(`${trigger.name} has no registration`);
	return trigger.target;
};

/** Every callback token registered, for redaction and the secret scan. */
const tokens = () => TRIGGERS.map((t) => t.target?.token).filter((t): t is string => !!t);
const redact = (text: string) =>
	tokens().reduce(
		(out, token) =>
			out.split(token).join('[token]').split(encodeURIComponent(token)).join('[token]'),
		text,
	);

async function createTrigger(
	trigger: Trigger,
	credential: { id: string; name: string },
	options: Record<string, unknown>,
) {
	trigger.webhookId = randomUUID();
	trigger.productionUrl = `${instance().webhookBaseUrl}/${trigger.webhookId}/webhook`;
	const workflow = triggerWorkflow({
		name: trigger.name,
		webhookId: trigger.webhookId,
		credential,
		parameters: { registration: 'api', events: [...EVENT_TYPES], options },
	});
	if (TRIGGER_VERSION) {
		for (const node of workflow.nodes as Array<{ name: string; typeVersion: number }>) {
			if (node.name === TRIGGER_NODE) node.typeVersion = Number(TRIGGER_VERSION);
		}
	}
	trigger.workflowId = await createActiveWorkflow(instance(), workflow);
}

function registrationOf(trigger: Trigger) {
	const endpoints = [...sb().endpoints.values()].filter(
		(e) => withoutQuery(e.callbackUri) === trigger.productionUrl,
	);
	if (endpoints.length !== 1)
		throw new Error(`${trigger.name} has ${endpoints.length} endpoints at the sandbox`);
	const [endpoint] = endpoints;
	const url = new URL(endpoint.callbackUri);
	return { endpoint, path: url.pathname, token: url.searchParams.get('token') ?? '' };
}

beforeAll(async () => {
	tarball = await packProject();
	sandbox = await startSandbox({
		transcribeAfterMs: 0,
		retryDelaysMs: [500, 1_000, 2_000, 4_000, 8_000],
	});
	n8n = await startN8n({
		packageTarball: tarball,
		logLevel: 'debug',
		env: { N8N_EXPRESSION_ENGINE: EXPRESSION_ENGINE },
	});
	sender = createSender(instance().port, CONCURRENCY);
	const credential = await createSandboxCredential(instance(), sb(), 'Captioning sandbox');
	await createTrigger(main, credential, {});
	// its file servers run on this machine (./files.ts, and failing ones on port 9): trusted, as a user lists them
	await createTrigger(downloads, credential, {
		downloadFormats: [...DOWNLOAD_FORMATS],
		allowedHosts: '127.0.0.1',
	});
	await createTrigger(raw, credential, { rawBody: true });

	// one real transcription: its events are the templates every delivery is varied from
	const { events } = await sb().transcribe({ title: 'Quarterly product update' });
	await sb().idle();
	for (const trigger of TRIGGERS) {
		const { endpoint, path, token } = registrationOf(trigger);
		trigger.realEventIds = events.filter((e) => e.endpointId === endpoint.id).map((e) => e.id);
		trigger.target = {
			path,
			token,
			callbackUri: endpoint.callbackUri,
			templates: templatesFrom(sb().events.values(), endpoint.id),
		};
	}
	const attempts = sb().deliveries.map((d) => d.status);
	if (
		attempts.length !== 2 * TRIGGERS.length ||
		!attempts.every((s) => s !== undefined && is2xx(s))
	) {
		throw new Error(`the real events were answered ${JSON.stringify(attempts)}, not 2xx`);
	}

	// the file server serves the sandbox's own caption files
	const transcribed = main.target!.templates['transcription.transcribed'];
	const refs = (
		transcribed.included as Array<{
			attributes: { transcriptions: Array<{ format: string; url: string }> };
		}>
	)[0].attributes.transcriptions;
	const content: Record<string, string> = {};
	for (const { format, url } of refs) content[format] = await (await fetch(url)).text();
	files = await startFileServer(content);
}, 300_000);

afterAll(async () => {
	summary.totalSeconds = Number(((Date.now() - suiteStarted) / 1000).toFixed(1));
	summary.n8nStartSeconds = n8n?.timings.map((t) => t.totalSeconds);
	lines.push(
		`benign suite: ${seconds(Date.now() - suiteStarted)} in all, seed ${SEED}, n8n expression engine ${EXPRESSION_ENGINE}, trigger typeVersion ${TRIGGER_VERSION ?? 'as the harness builds it'}`,
	);
	process.stdout.write(`\n${lines.join('\n')}\n`);
	await mkdir(RESULTS, { recursive: true }).catch(() => undefined);
	await writeFile(SUMMARY_FILE, JSON.stringify(summary, null, 2)).catch(() => undefined);
	await writeFile(PROBLEMS_FILE, JSON.stringify(problemLog, null, 1)).catch(() => undefined);
	sender?.close();
	await stopAll([
		() => files?.close(),
		() => n8n?.stop(),
		() => sandbox?.stop(),
		() => removePacked(tarball),
	]);
});

// ---------------------------------------------------------------------------------------------------

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Item = { json: any; binary?: Record<string, { fileName?: string; mimeType?: string }> };

const itemOf = (execution: ExecutionSummary): Item | undefined =>
	firstItemOf(execution, TRIGGER_NODE);

/** The event id on the execution's item: flattened (`eventId`) or raw (`data.id`). */
function eventIdOf(execution: ExecutionSummary): string | undefined {
	const json = itemOf(execution)?.json;
	const id = json?.eventId ?? json?.data?.id;
	return id === undefined || id === null ? undefined : String(id);
}

const errorOf = (execution: ExecutionSummary): string | undefined =>
	execution.data?.resultData?.error?.message;

/** A name that is safe to write to disk as it is: no path, no control characters. */
const safeFileName = (name: unknown) =>
	typeof name === 'string' &&
	name.trim() !== '' &&
	!/[/\\]/.test(name) &&
	![...name].some((c) => c.charCodeAt(0) < 0x20) &&
	name !== '.' &&
	name !== '..';

/**
 * Waits until `expected` executions of the workflow beyond `known` have finished, or none has finished for
 * `quietMs` (the rest will never come), or `maxMs` have passed.
 */
async function settle(
	workflowId: string,
	known: Set<string>,
	expected: number,
	quietMs: number,
	maxMs: number,
) {
	const started = Date.now();
	let finished = -1;
	let changed = Date.now();
	for (;;) {
		const now = (await listExecutions(instance(), { workflowId })).filter((e) => !known.has(e.id));
		const done = now.filter((e) => e.stoppedAt !== null && e.stoppedAt !== undefined).length;
		if (done !== finished) [finished, changed] = [done, Date.now()];
		if (done >= expected) break;
		if (Date.now() - changed > quietMs || Date.now() - started > maxMs) break;
		await delay(500);
	}
	// an execution a delivery should not have started would be listed by now
	await delay(2_000);
	return (await listExecutions(instance(), { workflowId, includeData: true })).filter(
		(e) => !known.has(e.id),
	);
}

interface Outcome {
	delivery: BenignDelivery;
	res: RawResponse;
	executions: ExecutionSummary[];
	problems: string[];
}

/** What the item must show for the delivery's files (downloads phase). */
function fileProblems(delivery: BenignDelivery, item: Item | undefined): string[] {
	const problems: string[] = [];
	const binary = item?.binary ?? {};
	const errors: unknown[] = Array.isArray(item?.json?.downloadErrors)
		? item!.json.downloadErrors
		: [];
	for (const [key, file] of Object.entries(binary)) {
		if (!safeFileName(file.fileName))
			problems.push(`binary ${key}: unsafe file name ${JSON.stringify(file.fileName)}`);
	}
	for (const [format, expect] of Object.entries(delivery.files ?? {})) {
		const hasError = errors.some((e) => JSON.stringify(e).includes(format));
		if (expect === 'binary' && !binary[format]) {
			problems.push(
				`${format}: no binary (downloadErrors ${JSON.stringify(errors).slice(0, 300)})`,
			);
		}
		if (expect === 'error' && (binary[format] || !hasError)) {
			problems.push(
				`${format}: expected an entry in downloadErrors, got ${binary[format] ? 'a binary' : JSON.stringify(errors).slice(0, 200)}`,
			);
		}
	}
	return problems;
}

interface PhaseResult {
	outcomes: Outcome[];
	extra: ExecutionSummary[];
	realExecutions: ExecutionSummary[];
}

/** Sends the deliveries, waits for their executions and judges each delivery. */
async function runPhase(
	phase: string,
	trigger: Trigger,
	deliveries: BenignDelivery[],
	wait: { quietMs: number; maxMs: number },
): Promise<PhaseResult> {
	expect(planProblems(deliveries, targetOf(trigger))).toEqual([]);
	// the real events' executions were started in beforeAll: they are judged with this phase
	const existing = await listExecutions(instance(), {
		workflowId: trigger.workflowId,
		includeData: true,
	});
	const known = new Set(existing.map((e) => e.id));
	const real = existing.filter((e) => trigger.realEventIds.includes(eventIdOf(e) ?? ''));
	await delay(100);
	const started = Date.now();
	const responses = await mapPool(deliveries, CONCURRENCY, (d) => sender!.send(d));
	const sendMs = Date.now() - started;
	const answered = responses.filter((r) => is2xx(r.status)).length;
	const fresh = await settle(trigger.workflowId, known, answered, wait.quietMs, wait.maxMs);
	const totalMs = Date.now() - started;

	const byId = new Map<string, ExecutionSummary[]>();
	for (const execution of fresh) {
		const id = eventIdOf(execution) ?? '(none)';
		byId.set(id, [...(byId.get(id) ?? []), execution]);
	}
	const ids = new Set(deliveries.map((d) => d.eventId));
	const extra = fresh.filter((e) => !ids.has(eventIdOf(e) ?? '(none)'));
	const outcomes: Outcome[] = deliveries.map((delivery, i) => {
		const res = responses[i];
		const executions = byId.get(delivery.eventId) ?? [];
		const problems: string[] = [];
		// n8n 1.x answers these itself, before any node runs: its 422, and nothing started
		if (refusedByN8n(delivery, N8N_MAJOR)) {
			if (res.status !== 422 || !N8N_1_BOM_REFUSAL.test(res.text))
				problems.push(
					`n8n 1.x should refuse it 422, answered ${res.status}: ${res.text.slice(0, 200)}`,
				);
			if (executions.length) problems.push(`${executions.length} executions`);
			return { delivery, res, executions, problems };
		}
		if (!is2xx(res.status))
			problems.push(`answered ${res.status || res.error}: ${res.text.slice(0, 300)}`);
		if (executions.length !== 1) problems.push(`${executions.length} executions`);
		for (const e of executions.filter((x) => x.status !== 'success')) {
			problems.push(`execution ${e.id} ${e.status}: ${errorOf(e) ?? '(no error message)'}`);
		}
		if (delivery.files && executions.length === 1)
			problems.push(...fileProblems(delivery, itemOf(executions[0])));
		return { delivery, res, executions, problems };
	});
	const realProblems = trigger.realEventIds.filter(
		(id) => real.filter((e) => eventIdOf(e) === id && e.status === 'success').length !== 1,
	);

	const errors = fresh.filter((e) => e.status !== 'success').length;
	const failed = outcomes.filter((o) => o.problems.length > 0);
	const byN8n = deliveries.filter((d) => refusedByN8n(d, N8N_MAJOR)).length;
	if (byN8n)
		lines.push(
			`${phase}: ${byN8n} deliveries with a UTF-8 BOM and Content-Type application/json refused 422 by n8n ${N8N_VERSION} itself, before the trigger ran (n8n 2.x strips the BOM)`,
		);
	lines.push(
		`${phase}: ${deliveries.length} deliveries, ${answered} answered 2xx (${histogram(responses.map((r) => r.status || 'reset'))}), ` +
			`${fresh.length} executions, ${errors} error executions, ${extra.length} unexpected, ${failed.length} deliveries with a problem; ` +
			`sent in ${seconds(sendMs)}, executions settled after ${seconds(totalMs)}`,
	);

	// per variation: how many carried it and had a problem; the catalogue delivery has it alone
	const labelsOf = (d: BenignDelivery) => (d.variations.length ? d.variations : [AS_SENT]);
	const names = [...new Set(deliveries.flatMap(labelsOf))].sort();
	const perVariation = names.map((name) => {
		const mine = outcomes.filter((o) => labelsOf(o.delivery).includes(name));
		const alone = mine
			.filter((o) => o.delivery.kind === 'catalogue')
			.sort((a, b) => a.delivery.eventType.localeCompare(b.delivery.eventType));
		return {
			name,
			sent: mine.length,
			withProblem: mine.filter((o) => o.problems.length).length,
			alone: alone.map((o) => ({
				eventType: o.delivery.eventType.replace('transcription.', ''),
				status: o.res.status,
				problems: o.problems.map(redact),
			})),
		};
	});
	const refusedAlone = perVariation.filter((v) => v.alone.some((a) => a.problems.length));
	const aloneFine = new Set(
		perVariation
			.filter((v) => v.alone.length && !v.alone.some((a) => a.problems.length))
			.map((v) => v.name),
	);
	// a combination that fails although each of its variations passes alone
	const interactions = failed.filter(
		(o) => o.delivery.kind === 'random' && labelsOf(o.delivery).every((n) => aloneFine.has(n)),
	);
	if (refusedAlone.length) {
		lines.push(
			`${phase}: ${refusedAlone.length} of ${perVariation.length} variations fail alone (the catalogue delivery with only that variation):`,
			table([
				['variation', 'alone', 'carried by', 'first problem'],
				...refusedAlone.map((v) => [
					v.name.slice(0, 60),
					v.alone
						.map((a) => `${a.eventType} ${a.status}${a.problems.length ? ' ✗' : ' ✓'}`)
						.join(', '),
					`${v.withProblem}/${v.sent} ✗`,
					(v.alone.find((a) => a.problems.length)?.problems[0] ?? '')
						.replace(/^answered /, '')
						.slice(0, 150),
				]),
			]),
		);
	}
	if (interactions.length) {
		lines.push(
			`${phase}: ${interactions.length} combinations fail although each of their variations passes alone:`,
			...interactions
				.slice(0, 10)
				.map(
					(o) =>
						`  ${o.delivery.variations.join(' + ').slice(0, 200)}: ${redact(o.problems.join('; ')).slice(0, 200)}`,
				),
		);
	}
	// error executions a failure left without the event on their item
	const orphanErrors = histogram(
		extra.map((e) => `${e.status}: ${(errorOf(e) ?? '(no message)').slice(0, 120)}`),
	);
	if (extra.length)
		lines.push(`${phase}: executions without a delivery's event id: ${orphanErrors}`);

	summary[phase] = {
		deliveries: deliveries.length,
		answered2xx: answered,
		answers: histogram(responses.map((r) => r.status || 'reset')),
		executions: fresh.length,
		errorExecutions: errors,
		unexpectedExecutions: extra.length,
		deliveriesWithProblems: failed.length,
		realEvents: { ids: trigger.realEventIds.length, problems: realProblems.length },
		sendSeconds: sendMs / 1000,
		settledSeconds: totalMs / 1000,
		concurrency: CONCURRENCY,
		interactions: interactions.length,
		executionsWithoutEventId: orphanErrors,
		perVariation: perVariation.map(({ alone, ...v }) => ({
			...v,
			alone: alone.map((a) => `${a.eventType} ${a.status}${a.problems.length ? ' ✗' : ' ✓'}`),
		})),
	};
	problemLog[phase] = failed.map((o) => ({
		eventId: o.delivery.eventId,
		eventType: o.delivery.eventType,
		kind: o.delivery.kind,
		variations: o.delivery.variations,
		request: {
			path: redact(o.delivery.path),
			headers: o.delivery.headers,
			body: redact(decodeBody(o.delivery)).slice(0, 4000),
		},
		answer: { status: o.res.status, body: redact(o.res.text.slice(0, 1000)) },
		problems: o.problems.map(redact),
	}));
	return { outcomes, extra, realExecutions: real };
}

/** At most 25 entries, then how many more: a failing run stays readable. */
const capped = (list: string[]) =>
	list.length > 25 ? [...list.slice(0, 25), `… and ${list.length - 25} more`] : list;

function expectClean(result: PhaseResult, trigger: Trigger) {
	expect(
		capped(
			result.outcomes
				.filter((o) => o.problems.length)
				.map((o) =>
					`${o.delivery.variations.join(', ') || AS_SENT}: ${redact(o.problems.join('; '))}`.slice(
						0,
						400,
					),
				),
		),
	).toEqual([]);
	expect(
		capped(
			result.extra.map(
				(e) => `execution ${e.id} (${e.status}) for event ${eventIdOf(e)}: ${errorOf(e) ?? ''}`,
			),
		),
	).toEqual([]);
	expect(result.realExecutions.map((e) => e.status).sort()).toEqual(
		trigger.realEventIds.map(() => 'success'),
	);
}

const phases: Record<string, PhaseResult> = {};

describe('benign deliveries', () => {
	it(`≥ ${MIN_DELIVERIES} valid but unusual deliveries: each answered 2xx and executed exactly once, successfully`, async () => {
		const deliveries = planDeliveries(targetOf(main), { seed: SEED, total: DELIVERIES });
		expect(deliveries.length).toBeGreaterThanOrEqual(MIN_DELIVERIES);
		phases.deliveries = await runPhase('deliveries', main, deliveries, {
			quietMs: 10_000,
			maxMs: 120_000,
		});
		expectClean(phases.deliveries, main);
	});

	it(`with Download Caption Files on (both formats): each executed once, failed downloads in downloadErrors`, async () => {
		const deliveries = planDownloads(targetOf(downloads), files!, {
			seed: SEED + 1,
			total: DOWNLOADS,
			timeouts: TIMEOUTS,
		});
		// a download that never answers holds its execution until the download's timeout (30 s today)
		phases.downloads = await runPhase('downloads', downloads, deliveries, {
			quietMs: 40_000,
			maxMs: 120_000,
		});
		summary.fileServerHits = { ...files!.hits };
		expect(files!.hits.hang).toBeGreaterThanOrEqual(TIMEOUTS);
		expectClean(phases.downloads, downloads);
	});

	it('with Raw Body on: each executed once, the event as it came on the item', async () => {
		const deliveries = planDeliveries(targetOf(raw), {
			seed: SEED + 3,
			total: RAW_BODY,
			randomOnly: true,
		});
		phases.rawBody = await runPhase('rawBody', raw, deliveries, { quietMs: 10_000, maxMs: 60_000 });
		expectClean(phases.rawBody, raw);
	});

	it('starts nothing new when a sample is delivered again', async () => {
		const rng = new Rng(SEED + 2);
		const pick = (phase: string, count: number) =>
			rng
				.sample(
					(phases[phase]?.outcomes ?? []).filter(
						(o) => is2xx(o.res.status) && o.executions.length === 1 && !o.delivery.slow,
					),
					count,
				)
				.map((o) => o.delivery);
		const sample = [
			...pick('deliveries', REDELIVERED.deliveries),
			...pick('downloads', REDELIVERED.downloads),
			...pick('rawBody', REDELIVERED.rawBody),
		];
		const executionsOfBoth = async (includeData = false) =>
			(
				await Promise.all(
					TRIGGERS.map((t) =>
						listExecutions(instance(), { workflowId: t.workflowId, includeData }),
					),
				)
			).flat();
		const before = new Set((await executionsOfBoth()).map((e) => e.id));
		const started = Date.now();
		const responses = await mapPool(sample, CONCURRENCY, (d) => sender!.send(d));
		// and the sandbox's own redelivery of the real events
		const attemptsBefore = sb().deliveries.length;
		for (const id of TRIGGERS.flatMap((t) => t.realEventIds)) sb().redeliver(id);
		await sb().idle();
		const sandboxAnswers = sb()
			.deliveries.slice(attemptsBefore)
			.map((d) => d.status ?? 0);
		await delay(3_000);
		const fresh = (await executionsOfBoth(true)).filter((e) => !before.has(e.id));
		const redelivered = new Set([
			...sample.map((d) => d.eventId),
			...TRIGGERS.flatMap((t) => t.realEventIds),
		]);
		// another event's new execution means an earlier phase was still running (it timed out)
		const newExecutions = fresh.filter((e) => redelivered.has(eventIdOf(e) ?? ''));
		const answers = [...responses.map((r) => r.status), ...sandboxAnswers];
		lines.push(
			`redelivery: ${answers.length} deliveries (${sample.length} sent again, ${sandboxAnswers.length} by the sandbox), ` +
				`${answers.filter(is2xx).length} answered 2xx (${histogram(answers.map((s) => s || 'reset'))}), ${newExecutions.length} new executions of them (${fresh.length} new in all), in ${seconds(Date.now() - started)}`,
		);
		summary.redelivery = {
			deliveries: answers.length,
			answered2xx: answers.filter(is2xx).length,
			newExecutions: newExecutions.length,
			newExecutionsInAll: fresh.length,
		};
		expect(sample.length).toBeGreaterThan(0);
		expect(answers.filter((s) => !is2xx(s))).toEqual([]);
		expect(newExecutions.map((e) => `execution ${e.id} for event ${eventIdOf(e)}`)).toEqual([]);
		expect(fresh.map((e) => `execution ${e.id} for event ${eventIdOf(e)}`)).toEqual([]);
	});
});

describe('secrets', () => {
	it('appear in no execution’s data and no log line', async () => {
		const started = Date.now();
		const secrets: Record<string, string[]> = {
			'trigger callback token': tokens(),
			'client secret': [DEFAULT_CLIENT.clientSecret],
			assertion: [DEFAULT_CLIENT.assertions[0]],
			'issued access/refresh token': sb().tokens.issuedSecrets(),
		};
		const {
			executions,
			logLines,
			found,
			rows,
			summary: scanned,
		} = await scanForSecrets(instance(), secrets);
		const leaks = executions
			.filter((e) => tokens().some((t) => JSON.stringify(e).includes(t)))
			.slice(0, 3);
		for (const e of leaks)
			lines.push(
				`  execution ${e.id} carries a callback token: ${redact(JSON.stringify(itemOf(e)?.json ?? {})).slice(0, 300)}`,
			);
		lines.push(
			`secrets: ${executions.length} executions (${(scanned.dataBytes / 1024 / 1024).toFixed(1)} MiB of data), ${logLines.length} log lines, in ${seconds(Date.now() - started)}`,
			table(rows),
		);
		summary.secretScan = scanned;
		expect(executions.length).toBeGreaterThan(0);
		expect(tokens()).toHaveLength(TRIGGERS.length);
		expect(found).toEqual(nothingFound(found));
	});
});
