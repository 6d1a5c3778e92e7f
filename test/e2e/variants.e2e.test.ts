// The package in a real n8n 2.41.1 (installed from its `npm pack` tarball as n8n installs community packages)
// against the in-process sandbox playing every reading of what the contract leaves "not shown" (issue 12,
// ASSUMPTIONS.md): each non-default variant one at a time, and the harshest mixes. One n8n and one sandbox for
// the whole file; between cases the sandbox's variants are switched through its control API, its endpoints are
// cleared, and every case works on workflows of its own.
import { randomUUID } from 'node:crypto';

import {
	ACTION_TYPE,
	createSandboxCredential,
	type ExecutionSummary,
	linearWorkflow,
	listExecutions,
	type N8nInstance,
	packProject,
	removePacked,
	sandboxCredentialData,
	startN8n,
	TRIGGER_NODE,
	triggerWorkflow,
	webhookNode,
	type WorkflowNode,
} from '../../harness';
import {
	DEFAULT_CLIENT,
	type Sandbox,
	startSandbox,
	VARIANT_DIMENSIONS,
	type VariantDimension,
	type Variants,
} from '../../sandbox/server';
import { startReceiver, type Receiver } from '../helpers/receiver';
import {
	createActiveWorkflow,
	firstItemOf,
	is2xx,
	requireStarted,
	stopAll,
} from '../helpers/suite';

const EVENTS = ['transcription.created', 'transcription.transcribed'];
// Readings of the registration's answers get the full 10 activation cycles. The others register as the default
// does, and 3 cycles show that their reading changes nothing there: with 10 everywhere the file took 5 minutes on
// a loaded 2-core machine.
const REGISTRATION_DIMENSIONS: VariantDimension[] = [
	'create',
	'manage',
	'resource',
	'list',
	'members',
	'endpoint-ids',
];
// Readings of how tokens are refused, limited or revoked do not touch the registration at all: one cycle
const TOKEN_DIMENSIONS: VariantDimension[] = [
	'expired-token',
	'token-rate-limit',
	'earlier-tokens',
	'error-echo',
];
const cyclesFor = (variants: Partial<Variants>) =>
	REGISTRATION_DIMENSIONS.some((dimension) => variants[dimension] !== undefined)
		? 10
		: TOKEN_DIMENSIONS.some((dimension) => variants[dimension] !== undefined)
			? 1
			: 3;
// Refused deliveries (an old token, an inactive workflow, a refused body) are retried within 3 s, not minutes.
const RETRY_DELAYS_MS = [100, 200, 400, 800, 1_600];
// Endpoints of other workflows at the same service account: the trigger must leave them alone, and with
// list=paged (2 a page) they make the list span pages.
const OTHER_ENDPOINTS = 3;
const WRONG_ASSERTION = 'wrong-assertion-value';

type Variant = Partial<Variants>;

/** Every non-default value of every dimension, one at a time, then the harsh mixes. */
const CASES: Array<[string, Variant]> = [
	...(Object.keys(VARIANT_DIMENSIONS) as VariantDimension[]).flatMap((dimension) =>
		VARIANT_DIMENSIONS[dimension]
			.slice(1)
			.map((value): [string, Variant] => [`${dimension}=${value}`, { [dimension]: value }]),
	),
	['create=empty,manage=absent-405', { create: 'empty', manage: 'absent-405' }],
	[
		'create=no-content,manage=absent-404,token-refusal=401',
		{ create: 'no-content', manage: 'absent-404', 'token-refusal': '401' },
	],
	// a refused query route: the trigger logs the service's words, which repeat the request's credentials
	[
		'error-echo=request,callback-query=refuse',
		{ 'error-echo': 'request', 'callback-query': 'refuse' },
	],
];

/**
 * A service client of its own for each test that renews tokens (a refused refresh, the token-answer readings):
 * n8n shares a grant for 10 s between callers with the same credential values, and one obtained just before that
 * test moves the service's clock would be expired.
 */
const REFUSAL_CLIENTS = new Map(
	CASES.filter(
		([, variants]) =>
			variants['token-refusal'] || variants['token-answer'] || variants['expired-token'],
	).map(([name], i) => [
		name,
		{
			clientId: `refusal-client-${i + 1}`,
			clientSecret: `refusal-secret-${randomUUID()}`,
			assertions: [`refusal-assertion-${randomUUID()}`],
		},
	]),
);
/**
 * Three clients for the token endpoint's rate limit (every other request of a client refused 429): one each for
 * the credential test, the trigger's activation and the action, so that each makes a grant of its own (n8n shares
 * a grant for 10 s between callers with the same values).
 */
const RATE_LIMITED_CLIENTS = (['test', 'activation', 'action'] as const).map((use) => ({
	use,
	clientId: `rate-limited-${use}`,
	clientSecret: `rate-limited-secret-${randomUUID()}`,
	assertions: [`rate-limited-assertion-${randomUUID()}`],
}));

let sandbox: Sandbox | undefined;
let n8n: N8nInstance | undefined;
let receiver: Receiver | undefined;
let tarball: string | undefined;
let credential = { id: '', name: '' };
/** Every callback token a registration carried: none may show in n8n's logs. */
const callbackTokens = new Set<string>();
const timings: string[] = [];
const fileStarted = Date.now();

const sb = requireStarted('the sandbox', () => sandbox);
const instance = requireStarted('n8n', () => n8n);

const withoutQuery = (uri: string) => uri.split('?')[0];
/** The callback token of a URI: its query parameter, or the token route's last path segment. */
const tokenOf = (uri: string) =>
	new URL(uri).searchParams.get('token') ??
	decodeURIComponent(withoutQuery(uri).split('/').pop() ?? '');

/** The sandbox's endpoints that deliver to `url` (whatever their token). */
function endpointsTo(url: string) {
	return [...sb().endpoints.values()].filter((e) => withoutQuery(e.callbackUri) === url);
}
/** The sandbox's endpoints that deliver to a trigger workflow: its URL with any query, or its token route. */
function endpointsOf(workflow: TriggerWorkflow) {
	return [...sb().endpoints.values()].filter(
		(e) => withoutQuery(e.callbackUri) === workflow.url || e.callbackUri.startsWith(workflow.route),
	);
}
const othersLeft = () =>
	[...sb().endpoints.values()].filter((e) => e.callbackUri.startsWith(`${receiver!.url}/other-`));

/** The sandbox's control API, as a suite driving a sandbox in another process would use it. */
async function control(path: string, body: Record<string, unknown>): Promise<unknown> {
	const res = await fetch(`${sb().url}/_sandbox/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const answer: unknown = await res.json();
	if (res.status !== 200)
		throw new Error(`/_sandbox/${path}: ${res.status} ${JSON.stringify(answer)}`);
	return answer;
}

/** The trigger's item in an execution: what the workflow saw of the event. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function triggerJson(execution: ExecutionSummary): Record<string, any> {
	const json = firstItemOf(execution, TRIGGER_NODE)?.json;
	if (!json) throw new Error(`execution ${execution.id} has no item from ${TRIGGER_NODE}`);
	return json;
}

/** Which event an execution ran, as its trigger's item says. */
function triggerItem(execution: ExecutionSummary): { eventId: string; eventType: string } {
	const { eventId, eventType } = triggerJson(execution);
	return { eventId, eventType };
}

const byType = <T extends { eventType: string }>(items: T[]) =>
	[...items].sort((a, b) => a.eventType.localeCompare(b.eventType));

/** Every execution of a workflow, finished or not, with what its trigger output. */
async function executionsOf(workflowId: string) {
	return await listExecutions(instance(), { workflowId, includeData: true });
}

/** Simulates a transcription and waits until the sandbox has delivered (and retried) all it caused. */
async function transcribe(title: string) {
	const done = await sb().transcribe({ title });
	await sb().idle();
	return done;
}

const attemptsOf = (eventId: string, endpointId: string) =>
	sb().deliveries.filter((d) => d.eventId === eventId && d.endpointId === endpointId);

interface TriggerWorkflow {
	id: string;
	webhookId: string;
	/** Its production webhook URL: what its endpoint at the service must deliver to. */
	url: string;
	/** Its token route, up to the token: where the token travels when the service keeps no query. */
	route: string;
}

/** Download Caption Files for the delivery readings: what the trigger read of the event decides what it fetches. */
const FORMATS = ['vtt', 'google_stt'];

async function createTriggerWorkflow(name: string, downloads = false): Promise<TriggerWorkflow> {
	const webhookId = randomUUID();
	const created = await instance().createWorkflow(
		triggerWorkflow({
			name,
			webhookId,
			credential,
			parameters: {
				registration: 'api',
				events: EVENTS,
				options: downloads ? { downloadFormats: FORMATS } : {},
			},
			alone: true,
		}),
	);
	const base = `${instance().webhookBaseUrl}/${webhookId}`;
	return { id: created.id, webhookId, url: `${base}/webhook`, route: `${base}/${webhookId}/` };
}

/** Webhook -> the given Captioning nodes in a line, answering with the last node's output; activated. */
async function createActionWorkflow(
	name: string,
	nodes: WorkflowNode[],
): Promise<{ id: string; call: (body: unknown) => Promise<{ status: number; body: unknown }> }> {
	const path = `variants-${randomUUID()}`;
	const id = await createActiveWorkflow(
		instance(),
		linearWorkflow(name, [webhookNode(path), ...nodes]),
	);
	return {
		id,
		call: async (body) =>
			await instance().request('POST', `${instance().webhookBaseUrl}/${path}`, { body }),
	};
}

function createNode(name: string, callbackUri: string, credentialRef = credential) {
	return {
		id: randomUUID(),
		name,
		type: ACTION_TYPE,
		typeVersion: 2,
		parameters: {
			resource: 'webhookEndpoint',
			operation: 'create',
			callbackUri,
			events: ['transcription.transcribed'],
		},
		credentials: { captioningApi: credentialRef },
	};
}

const validValues = () => sandboxCredentialData(sb());

/** What the editor's "Test" button asks n8n: POST /rest/credentials/test with the form's values. */
async function credentialTest(data: Record<string, unknown>) {
	return await instance().rest<{ status: string; message: string }>('POST', '/credentials/test', {
		credentials: { id: credential.id, name: credential.name, type: 'captioningApi', data },
	});
}

const newLogSince = (from: number) => instance().logs().slice(from);

beforeAll(async () => {
	tarball = await packProject();
	sandbox = await startSandbox({
		transcribeAfterMs: 0,
		retryDelaysMs: RETRY_DELAYS_MS,
		clients: [DEFAULT_CLIENT, ...REFUSAL_CLIENTS.values(), ...RATE_LIMITED_CLIENTS],
	});
	receiver = await startReceiver();
	n8n = await startN8n({
		packageTarball: tarball,
		// n8n 2.41's default engine ('vm') spends a fresh V8 isolate on every delivery to a typeVersion-1
		// trigger (see test/faults); 'legacy' gives the same answers in a fraction of the time on 2 cores
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
	});
	const created = await createSandboxCredential(instance(), sb(), 'Captioning sandbox');
	credential = { id: created.id, name: created.name };
}, 300_000);

afterAll(async () => {
	process.stdout.write(
		[
			`variants e2e: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s in all; n8n start-up ${
				n8n?.timings.map((t) => `${t.totalSeconds.toFixed(1)} s`).join(', ') ?? '-'
			}`,
			...timings,
			'',
		].join('\n'),
	);
	await stopAll([
		() => n8n?.stop(),
		() => sandbox?.stop(),
		() => receiver?.close(),
		() => removePacked(tarball),
	]);
});

describe.each(CASES)('sandbox variant %s, in a real n8n', (name, variants) => {
	const manages = (variants.manage ?? 'full') === 'full';
	const refusal = variants['token-refusal'];
	const retryAfter = variants['retry-after'];
	const absentStatus = variants.manage === 'absent-405' ? 405 : 404;
	const cycles = cyclesFor(variants);
	// the readings of a delivery's resources: the item must be the same as with the contract's, files included
	const deliveryReading =
		variants['resource-types'] !== undefined || variants.included !== undefined;
	const withoutSubject = variants.included === 'without-subject';
	// a service that strips or refuses the callback URI's query gets the token on the token route, after one
	// more POST (the stripped endpoint's, deleted, or the refused one) at a workflow's first registration
	const onPath = (variants['callback-query'] ?? 'keep') !== 'keep';
	const extraPost = onPath ? 1 : 0;
	let started = 0;
	/** The workflow the activation and deactivation tests share. */
	let main: TriggerWorkflow;

	beforeAll(async () => {
		started = Date.now();
		await sb().idle();
		sb().endpoints.clear();
		const answer = (await control('variants', { reset: true, ...variants })) as {
			variants: Variants;
		};
		expect(answer.variants).toMatchObject(variants);
		for (let n = 1; n <= OTHER_ENDPOINTS; n++) {
			const id = randomUUID();
			sb().endpoints.set(id, {
				id,
				clientId: DEFAULT_CLIENT.clientId,
				callbackUri: `${receiver!.url}/other-${n}`,
				enabledEvents: ['transcription.created', 'transcription.transcribed'],
				createdAt: new Date(sb().now()).toISOString(),
			});
		}
	});

	afterAll(() => {
		timings.push(`  ${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
	});

	test('the credential test passes with valid values and names a wrong assertion', async () => {
		const from = sb().requestLog.length;
		expect(await credentialTest(validValues())).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		// the test read GET /webhook_endpoints under this variant: a missing route is no failure
		const reads = sb()
			.requestLog.slice(from)
			.filter((r) => r.path === '/webhook_endpoints')
			.map((r) => `${r.method} ${r.status}`);
		// n8n shares a grant for 10 s: one from before a refused-refresh test moved the service's clock two
		// hours on is expired there, and n8n renews it after the 401 and retries once
		expect(reads.slice(-1)).toEqual([`GET ${manages ? 200 : absentStatus}`]);
		expect(reads.slice(0, -1)).toEqual(reads.length > 1 ? ['GET 401'] : []);

		const wrong = await credentialTest({ ...validValues(), assertion: WRONG_ASSERTION });
		expect(wrong).toEqual({
			status: 'Error',
			message: expect.stringMatching(/rejected the Assertion Token \(invalid_grant\)/),
		});
		expect(wrong.message).not.toContain(WRONG_ASSERTION);
		const grants = sb()
			.requestLog.slice(from)
			.filter((r) => r.path === '/oauth/token');
		expect(grants[grants.length - 1]).toMatchObject({
			grantType: 'assertion',
			status: refusal === '401' ? 401 : 400,
		});
	});

	test('activation registers exactly one endpoint for the production URL; both events run once; a redelivery starts nothing', async () => {
		main = await createTriggerWorkflow(`Variant ${name}`, deliveryReading);
		// with one id shared by every endpoint, a second workflow hearing the same event runs it too
		const second = variants['event-id'] === 'shared' ? await createTriggerWorkflow('Second') : null;
		const from = sb().requestLog.length;
		await instance().activateWorkflow(main.id);
		if (second) await instance().activateWorkflow(second.id);

		const [endpoint, ...more] = endpointsOf(main);
		expect(more).toEqual([]);
		expect(endpoint.callbackUri).toMatch(
			onPath
				? new RegExp(`^${main.route.replace(/[.?]/g, '\\$&')}[\\w-]{32}$`)
				: new RegExp(`^${main.url.replace(/[.?]/g, '\\$&')}\\?token=[\\w-]{32}$`),
		);
		expect([...endpoint.enabledEvents].sort()).toEqual(EVENTS);
		callbackTokens.add(tokenOf(endpoint.callbackUri));
		expect(othersLeft()).toHaveLength(OTHER_ENDPOINTS);
		expect(
			sb()
				.requestLog.slice(from)
				.filter((r) => r.method === 'POST' && r.path === '/webhook_endpoints'),
		).toHaveLength((second ? 2 : 1) + extraPost);

		const { transcription, events } = await transcribe(`Transcription for ${name}`);
		const sent = byType(events.filter((e) => e.endpointId === endpoint.id));
		expect(sent.map((e) => e.eventType)).toEqual(EVENTS);
		// each delivered once and acknowledged 2xx: a refused one would be retried and lost
		for (const event of sent) {
			expect(attemptsOf(event.id, endpoint.id).map((a) => a.status ?? a.error)).toEqual([200]);
		}
		await instance().waitForExecutions(main.id, { count: 2 });
		const executions = await executionsOf(main.id);
		expect(executions.every((e) => e.status === 'success')).toBe(true);
		const seen = byType(executions.map(triggerItem));
		expect(seen).toEqual(sent.map((e) => ({ eventId: e.id, eventType: e.eventType })));
		// $json.duration and $json.averageConfidence are numbers, however the service wrote them; the resource
		// types and the order of included change nothing; a subject missing from included is said
		const items = byType(
			executions.map(triggerJson) as Array<{
				eventType: string;
				title?: unknown;
				warnings?: unknown;
			}>,
		);
		const read = (averageConfidence: number | null) =>
			withoutSubject
				? {
						transcriptionId: transcription.id,
						title: null,
						duration: null,
						files: {},
						warnings: [
							`The event's transcription (id "${transcription.id}") is not among its included resources (included[0] is of type "media_object"): title, duration and files are empty. Raw Body shows the event as it came.`,
						],
					}
				: {
						transcriptionId: transcription.id,
						duration: transcription.durationSeconds,
						averageConfidence,
					};
		expect(items).toEqual([
			expect.objectContaining(read(null)),
			expect.objectContaining(read(transcription.averageConfidence)),
		]);
		expect(typeof transcription.averageConfidence).toBe('number');
		if (deliveryReading) {
			const transcribed = executions.find((e) => triggerItem(e).eventType === EVENTS[1])!;
			const item = firstItemOf(transcribed, TRIGGER_NODE);
			const files = Object.keys(transcription.files);
			expect([...files].sort()).toEqual([...FORMATS].sort());
			if (withoutSubject) {
				expect(item.binary).toBeUndefined();
			} else {
				expect(items.map((i) => [i.title, i.warnings])).toEqual([
					[transcription.title, undefined],
					[transcription.title, undefined],
				]);
				expect(item.json.formats).toEqual(files);
				expect(item.json.downloadErrors).toBeUndefined();
				expect(Object.keys(item.binary ?? {}).sort()).toEqual([...FORMATS].sort());
				expect(item.binary.vtt).toMatchObject({ mimeType: 'text/vtt' });
			}
		}

		if (second) {
			const [secondEndpoint] = endpointsOf(second);
			const secondSent = byType(events.filter((e) => e.endpointId === secondEndpoint.id));
			// the same ids, delivered to both endpoints
			expect(secondSent.map((e) => e.id)).toEqual(sent.map((e) => e.id));
			await instance().waitForExecutions(second.id, { count: 2 });
			expect(byType((await executionsOf(second.id)).map(triggerItem))).toEqual(seen);
		}

		// the service delivers both again (same ids, same bodies): acknowledged, nothing started
		for (const event of sent) expect(sb().redeliver(event.id, endpoint.id)).toBe(true);
		await sb().idle();
		for (const event of sent) {
			expect(attemptsOf(event.id, endpoint.id).map((a) => a.status)).toEqual([200, 200]);
		}
		expect(await executionsOf(main.id)).toHaveLength(2);

		if (second) {
			await instance().deactivateWorkflow(second.id);
			expect(await executionsOf(second.id)).toHaveLength(2);
		}
	});

	test(
		manages
			? 'deactivation removes the endpoint at the service'
			: 'deactivation succeeds, keeps the endpoint the service cannot delete, and the log says what to do',
		async () => {
			const [before] = endpointsOf(main);
			expect(before).toBeDefined();
			const logFrom = instance().logs().length;
			const from = sb().requestLog.length;
			await instance().deactivateWorkflow(main.id);

			const workflow = await instance().api<{ active: boolean }>('GET', `/workflows/${main.id}`);
			expect(workflow.active).toBe(false);
			const log = newLogSince(logFrom);
			expect(log).not.toContain('Could not unregister');
			expect(othersLeft()).toHaveLength(OTHER_ENDPOINTS);
			if (manages) {
				expect(endpointsOf(main)).toEqual([]);
				expect(
					sb()
						.requestLog.slice(from)
						.filter((r) => r.method === 'DELETE'),
				).toEqual([
					expect.objectContaining({ path: `/webhook_endpoints/${before.id}`, status: 204 }),
				]);
				return;
			}
			expect(endpointsOf(main)).toEqual([before]);
			const warnings = log.split('\n').filter((line) => line.includes('stays registered'));
			expect(warnings).toHaveLength(1);
			expect(warnings[0]).toContain(`delivers to ${main.url} stays registered`);
			expect(warnings[0]).toContain(
				`delete the endpoint for ${main.url} in the service's developers dashboard`,
			);
			expect(warnings[0]).not.toContain(tokenOf(before.callbackUri));
		},
	);

	test(`${cycles} activation cycles leave at most one endpoint for the workflow, with a token the trigger accepts`, async () => {
		const workflow = await createTriggerWorkflow(`Cycles ${name}`);
		const from = sb().requestLog.length;
		for (let cycle = 1; cycle <= cycles; cycle++) {
			await instance().activateWorkflow(workflow.id);
			expect(endpointsOf(workflow)).toHaveLength(1);
			for (const e of endpointsOf(workflow)) callbackTokens.add(tokenOf(e.callbackUri));
			await instance().deactivateWorkflow(workflow.id);
			expect(endpointsOf(workflow)).toHaveLength(manages ? 0 : 1);
		}
		await instance().activateWorkflow(workflow.id);
		const remaining = endpointsOf(workflow);
		expect(remaining).toHaveLength(1);
		// where the service can delete, every activation registers anew; elsewhere the first one is reused
		expect(
			sb()
				.requestLog.slice(from)
				.filter((r) => r.method === 'POST' && r.path === '/webhook_endpoints'),
		).toHaveLength((manages ? cycles + 1 : 1) + extraPost);
		expect(othersLeft()).toHaveLength(OTHER_ENDPOINTS);

		// the service delivers to every remaining endpoint: the ones the trigger accepts each start a run
		const { events } = await transcribe(`After ${cycles} cycles, ${name}`);
		const accepted = remaining.filter((endpoint) => {
			const mine = events.filter((e) => e.endpointId === endpoint.id);
			expect(mine).toHaveLength(2);
			return mine.every((e) => attemptsOf(e.id, endpoint.id).some((a) => is2xx(a.status)));
		});
		expect(accepted).toHaveLength(1);
		await instance().waitForExecutions(workflow.id, { count: 2 });
		expect(byType((await executionsOf(workflow.id)).map(triggerItem))).toEqual(
			byType(events.filter((e) => e.endpointId === accepted[0].id)).map((e) => ({
				eventId: e.id,
				eventType: e.eventType,
			})),
		);
		await instance().deactivateWorkflow(workflow.id);
	});

	if (variants.create) {
		test("the action's Create returns the id the service gave, or says it gave none", async () => {
			const flow = await createActionWorkflow(`Create, ${name}`, [
				createNode('Create Endpoint', `${receiver!.url}/create-${variants.create}`),
			]);
			const res = await flow.call({});
			expect(res.status).toBe(200);
			const [endpoint, ...more] = endpointsTo(`${receiver!.url}/create-${variants.create}`);
			expect(more).toEqual([]);
			const givesId = !['empty', 'no-content'].includes(variants.create!);
			expect(res.body).toMatchObject({
				id: givesId ? endpoint.id : null,
				callback_uri: endpoint.callbackUri,
				enabled_events: ['transcription.transcribed'],
			});
			// a body that describes the endpoint needs no note; an empty one (Location alone included) says what it lacks
			const describes = givesId && variants.create !== 'location';
			expect(Object.hasOwn(res.body as object, 'note')).toBe(!describes);
			if (!describes) {
				const note = (res.body as { note: string }).note;
				expect(note.includes('did not include the endpoint’s ID')).toBe(!givesId);
				expect(note).toContain('callback_uri is the one sent');
			}
			await instance().deactivateWorkflow(flow.id);
		});
	}

	if (variants['error-echo']) {
		test('errors of a service that echoes the request hold none of the credential’s values', async () => {
			const flow = await createActionWorkflow(`Echo, ${name}`, [
				{
					id: randomUUID(),
					name: 'Get Missing',
					type: ACTION_TYPE,
					typeVersion: 1,
					parameters: {
						resource: 'webhookEndpoint',
						operation: 'get',
						endpointId: { __rl: true, mode: 'id', value: 'no-such-endpoint' },
					},
					credentials: { captioningApi: credential },
				},
			]);
			// the Get fails, with the service's echo in its answer: the final scan reads this execution and the log
			await flow.call({});
			const [execution] = await listExecutions(instance(), {
				workflowId: flow.id,
				includeData: true,
			});
			const text = JSON.stringify(execution);
			expect(text).toContain('no-such-endpoint');
			expect(text).not.toMatch(/request had Authorization: Bearer [^[]/);
			await instance().deactivateWorkflow(flow.id);
		});
	}

	if (variants['endpoint-ids']) {
		test('Create, Get and Delete keep the id as the service wrote it: past 2^32, or with its zeros', async () => {
			const uri = `${receiver!.url}/ids-${variants['endpoint-ids']}`;
			const byId = (nodeName: string, operation: 'get' | 'delete') => ({
				id: randomUUID(),
				name: nodeName,
				type: ACTION_TYPE,
				typeVersion: 2,
				parameters: {
					resource: 'webhookEndpoint',
					operation,
					endpointId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				},
				credentials: { captioningApi: credential },
			});
			const flow = await createActionWorkflow(`Ids, ${name}`, [
				createNode('Create Endpoint', uri),
				byId('Get Endpoint', 'get'),
				byId('Delete Endpoint', 'delete'),
			]);
			const from = sb().requestLog.length;
			const [endpoint] = endpointsTo(uri);
			expect(endpoint).toBeUndefined();
			const res = await flow.call({});
			expect(res.status).toBe(200);
			const created = sb()
				.requestLog.slice(from)
				.filter((r) => r.path.startsWith('/webhook_endpoints'))
				.map((r) => `${r.method} ${r.path} ${r.status}`);
			const [execution] = await instance().waitForExecutions(flow.id, { count: 1 });
			const id = firstItemOf(execution, 'Create Endpoint').json.id as string;
			if (variants['endpoint-ids'] === 'bigint') {
				expect(id).toMatch(/^\d{10}$/);
				expect(BigInt(id) > 2n ** 32n).toBe(true);
			} else {
				expect(id).toMatch(/^0{9}\d{3}$/);
			}
			// the id went back to the service exactly as it came: the read and the delete found the endpoint
			expect(created).toEqual([
				'POST /webhook_endpoints 201',
				`GET /webhook_endpoints/${id} 200`,
				`DELETE /webhook_endpoints/${id} 204`,
			]);
			expect(firstItemOf(execution, 'Get Endpoint').json).toMatchObject({ id, callback_uri: uri });
			expect(res.body).toEqual({ id, deleted: true });
			expect(endpointsTo(uri)).toEqual([]);
			await instance().deactivateWorkflow(flow.id);
		});
	}

	/** What reached the service since `from`: one line per request, token requests by grant. */
	const wireSince = (from: number) =>
		sb()
			.requestLog.slice(from)
			.map((r) =>
				r.path === '/oauth/token'
					? `token ${r.grantType} ${r.status}`
					: `${r.method} ${r.path} ${r.status}`,
			);

	/**
	 * A Create workflow on a credential (and client) of its own, so that nothing else spends, renews or shares its
	 * tokens; `call(n)` creates the endpoint `<receiver>/<prefix>-<n>` and expects it in the answer.
	 */
	async function ownCreateFlow(label: string, prefix: string) {
		const client = REFUSAL_CLIENTS.get(name)!;
		const own = await createSandboxCredential(instance(), sb(), label, { client });
		const flow = await createActionWorkflow(`Create, ${label}`, [
			createNode('Create Endpoint', '={{ $json.body.callbackUri }}', {
				id: own.id,
				name: own.name,
			}),
		]);
		const call = async (n: number) => {
			const res = await flow.call({ callbackUri: `${receiver!.url}/${prefix}-${n}` });
			expect(res.status).toBe(200);
			expect(res.body).toMatchObject({ callback_uri: `${receiver!.url}/${prefix}-${n}` });
		};
		return { flow, call };
	}

	if (onPath) {
		test('the log says where the token went; a delivery without it, or with another, is refused (401) on both routes', async () => {
			const workflow = await createTriggerWorkflow(`Token route ${name}`);
			const logFrom = instance().logs().length;
			await instance().activateWorkflow(workflow.id);
			const [endpoint] = endpointsOf(workflow);
			callbackTokens.add(tokenOf(endpoint.callbackUri));
			const said = newLogSince(logFrom)
				.split('\n')
				.filter((line) => line.includes('so the token now travels'));
			expect(said).toEqual([
				expect.stringContaining(
					variants['callback-query'] === 'strip'
						? 'The captioning service stored the callback URI without its query string'
						: // an echoing service's words follow its own, redacted
							`The captioning service refused a callback URI with a query string (HTTP 422: callback_uri must not contain a query string${variants['error-echo'] ? ' (request had Authorization: Bearer [redacted]' : ')'}`,
				),
			]);
			const body = {
				data: { id: `forged-${randomUUID()}`, attributes: { event_type: EVENTS[0] } },
			};
			for (const url of [workflow.url, `${workflow.url}?token=guess`, `${workflow.route}guess`]) {
				expect((await instance().request('POST', url, { body })).status).toBe(401);
			}
			expect(await executionsOf(workflow.id)).toEqual([]);
			await instance().deactivateWorkflow(workflow.id);
		});
	}

	if (refusal) {
		test(`a refused refresh (${refusal}) ends in one new assertion grant and a working Create`, async () => {
			const { flow, call } = await ownCreateFlow(`Refusal ${name}`, 'refusal');
			await call(1);

			// an administrator revokes the refresh tokens, and two hours pass: the access token has expired
			const { revoked } = (await control('revoke', { tokens: 'refresh' })) as { revoked: number };
			expect(revoked).toBeGreaterThanOrEqual(1);
			await control('clock', { advanceSeconds: 7_200 + 60 });
			const from = sb().requestLog.length;
			await call(2);

			const created = variants.create === 'no-content' ? 204 : 201;
			expect(wireSince(from)).toEqual([
				'POST /webhook_endpoints 401',
				`token refresh_token ${refusal}`,
				'token assertion 200',
				`POST /webhook_endpoints ${created}`,
			]);
			const executions = await instance().waitForExecutions(flow.id, { count: 2 });
			expect(executions.map((e) => e.status)).toEqual(['success', 'success']);
			await instance().deactivateWorkflow(flow.id);
			// the service's clock back: tokens n8n obtained before the jump (and may still share for a few
			// seconds with a caller that has none) are valid again for the next case
			await control('clock', { advanceSeconds: -(7_200 + 60) });
		});
	}

	if (variants['token-answer']) {
		test('the credential test passes, and two renewals in a row use the refresh grant with the kept refresh token', async () => {
			const client = REFUSAL_CLIENTS.get(name)!;
			const own = await createSandboxCredential(instance(), sb(), `Token answer ${name}`, {
				client,
			});
			const ownRef = { id: own.id, name: own.name };
			const from = sb().requestLog.length;
			expect(
				await instance().rest<{ status: string; message: string }>('POST', '/credentials/test', {
					credentials: {
						...ownRef,
						type: 'captioningApi',
						data: sandboxCredentialData(sb(), client),
					},
				}),
			).toEqual({ status: 'OK', message: 'Connection successful!' });
			const flow = await createActionWorkflow(`Renewals, ${name}`, [
				createNode('Create Endpoint', '={{ $json.body.callbackUri }}', ownRef),
			]);
			const call = async (n: number) => {
				const res = await flow.call({ callbackUri: `${receiver!.url}/renewal-${n}` });
				expect(res.status).toBe(200);
				expect(res.body).toMatchObject({ callback_uri: `${receiver!.url}/renewal-${n}` });
			};
			await call(1);
			for (const n of [2, 3]) {
				// the access token expires: n8n renews it after the service's 401
				await control('clock', { advanceSeconds: 7_200 + 60 });
				await call(n);
			}
			const grants = sb()
				.requestLog.slice(from)
				.filter((r) => r.path === '/oauth/token')
				.map((r) => [r.grantType, r.status, r.refreshSerial ?? null]);
			const issued = sb()
				.requestLog.slice(from)
				.find((r) => r.path === '/oauth/token' && r.grantType === 'assertion')?.issuedRefreshSerial;
			expect(issued).toEqual(expect.any(Number));
			// one assertion grant (the credential test's, or shared with it), then two refreshes with its refresh token
			expect(grants.filter(([grant]) => grant === 'refresh_token')).toEqual([
				['refresh_token', 200, issued],
				['refresh_token', 200, issued],
			]);
			const executions = await instance().waitForExecutions(flow.id, { count: 3 });
			expect(executions.map((e) => e.status)).toEqual(['success', 'success', 'success']);
			await instance().deactivateWorkflow(flow.id);
			await control('clock', { advanceSeconds: -2 * (7_200 + 60) });
		});
	}

	const expiredToken = variants['expired-token'];
	if (expiredToken) {
		test(`an expired token refused with ${expiredToken} invalid_token: the credential renews it and the Create succeeds`, async () => {
			const { flow, call } = await ownCreateFlow(`Expired token ${name}`, 'expired');
			await call(1);
			// two hours pass on the service's side: the token n8n holds (for another 2 h by its clock) has expired
			await control('clock', { advanceSeconds: 7_200 + 60 });
			const from = sb().requestLog.length;
			await call(2);
			expect(wireSince(from)).toEqual([
				`POST /webhook_endpoints ${expiredToken}`,
				'token refresh_token 200',
				'POST /webhook_endpoints 201',
			]);
			expect(endpointsTo(`${receiver!.url}/expired-2`)).toHaveLength(1);
			const executions = await instance().waitForExecutions(flow.id, { count: 2 });
			expect(executions.map((e) => e.status)).toEqual(['success', 'success']);
			await instance().deactivateWorkflow(flow.id);
			await control('clock', { advanceSeconds: -(7_200 + 60) });
		});
	}

	if (variants['token-rate-limit']) {
		test('the token endpoint answers 429 Retry-After: 1 to every first request: the credential test, the activation and the action succeed', async () => {
			const credentialOf = async ({ use, ...client }: (typeof RATE_LIMITED_CLIENTS)[number]) => {
				const created = await createSandboxCredential(instance(), sb(), `Rate limited ${use}`, {
					client,
				});
				return { ref: { id: created.id, name: created.name }, client };
			};
			const [test, activation, action] = await Promise.all(RATE_LIMITED_CLIENTS.map(credentialOf));
			const grantsOf = (clientId: string, from: number) =>
				sb()
					.requestLog.slice(from)
					.filter((r) => r.path === '/oauth/token' && r.clientId === clientId);
			const waitedOnce = (clientId: string, from: number) => {
				const grants = grantsOf(clientId, from);
				expect(grants.map((r) => r.status)).toEqual([429, 200]);
				// the 200 came after the second Retry-After asked for, not at once
				expect(grants[1].at - grants[0].at).toBeGreaterThanOrEqual(950);
			};

			let from = sb().requestLog.length;
			expect(
				await instance().rest<{ status: string; message: string }>('POST', '/credentials/test', {
					credentials: {
						...test.ref,
						type: 'captioningApi',
						data: sandboxCredentialData(sb(), test.client),
					},
				}),
			).toEqual({ status: 'OK', message: 'Connection successful!' });
			waitedOnce(test.client.clientId, from);

			from = sb().requestLog.length;
			const webhookId = randomUUID();
			const triggerFlow = await instance().createWorkflow(
				triggerWorkflow({
					name: `Rate-limited activation, ${name}`,
					webhookId,
					credential: activation.ref,
					parameters: { registration: 'api', events: EVENTS, options: {} },
					alone: true,
				}),
			);
			await instance().activateWorkflow(triggerFlow.id);
			const url = `${instance().webhookBaseUrl}/${webhookId}/webhook`;
			expect(endpointsTo(url)).toHaveLength(1);
			waitedOnce(activation.client.clientId, from);

			from = sb().requestLog.length;
			const flow = await createActionWorkflow(`Rate-limited action, ${name}`, [
				createNode('Create Endpoint', `${receiver!.url}/rate-limited`, action.ref),
			]);
			const res = await flow.call({});
			expect(res.status).toBe(200);
			expect(res.body).toMatchObject({ callback_uri: `${receiver!.url}/rate-limited` });
			waitedOnce(action.client.clientId, from);

			await instance().deactivateWorkflow(flow.id);
			await instance().deactivateWorkflow(triggerFlow.id);
			expect(endpointsTo(url)).toEqual([]);
		});
	}

	if (retryAfter) {
		test(`a Captioning run over the rate limit (Retry-After ${retryAfter}) succeeds within the 60 s it may wait`, async () => {
			const flow = await createActionWorkflow(`Rate limit, ${name}`, [
				createNode('Create 1', `${receiver!.url}/limited-1`),
				createNode('Create 2', `${receiver!.url}/limited-2`),
				createNode('Create 3', `${receiver!.url}/limited-3`),
			]);
			// one request per 2 s window, unannounced: three calls in a row must meet a 429 and wait it out
			const settings = sb().options;
			const saved = { rateLimit: settings.rateLimit, announce: settings.announceRateLimit };
			settings.rateLimit = { limit: 1, windowMs: 2_000 };
			settings.announceRateLimit = false;
			const from = sb().requestLog.length;
			const began = Date.now();
			let res: { status: number; body: unknown };
			try {
				res = await flow.call({});
			} finally {
				settings.rateLimit = saved.rateLimit;
				settings.announceRateLimit = saved.announce;
			}
			const seconds = (Date.now() - began) / 1000;
			expect(res.status).toBe(200);
			expect(seconds).toBeLessThan(60);
			const posts = sb()
				.requestLog.slice(from)
				.filter((r) => r.method === 'POST' && r.path === '/webhook_endpoints')
				.map((r) => r.status);
			expect(posts.filter((s) => s === 201)).toHaveLength(3);
			const limited = posts.filter((s) => s === 429).length;
			expect(limited).toBeGreaterThanOrEqual(1);
			// each retry waited (at least 1 s, even for "Retry-After: 0"): no burst of re-sends
			expect(limited).toBeLessThanOrEqual(6);
			// each POST applied once, although some were sent again
			for (let n = 1; n <= 3; n++)
				expect(endpointsTo(`${receiver!.url}/limited-${n}`)).toHaveLength(1);
			const [execution] = await instance().waitForExecutions(flow.id);
			expect(execution.status).toBe('success');
			timings.push(`  ${name}: rate-limited run ${seconds.toFixed(1)} s, ${limited} × 429`);
			await instance().deactivateWorkflow(flow.id);
		});
	}
});

test('no secret, token or callback token shows in n8n logs or in execution data', async () => {
	const secrets = [
		DEFAULT_CLIENT.clientSecret,
		DEFAULT_CLIENT.assertions[0],
		WRONG_ASSERTION,
		...[...REFUSAL_CLIENTS.values(), ...RATE_LIMITED_CLIENTS].flatMap((c) => [
			c.clientSecret,
			...c.assertions,
		]),
		...callbackTokens,
		...sb().tokens.issuedSecrets(),
	].filter((s) => s !== '');
	expect(callbackTokens.size).toBeGreaterThan(CASES.length);
	const logs = instance().logs();
	const executionText = JSON.stringify(await listExecutions(instance(), { includeData: true }));
	// the scan reads the right material
	expect(logs).toContain('stays registered');
	expect(executionText).toContain('transcription.transcribed');
	// as it is, URL-encoded, in hex, and inside any run of base64 (an echoed Basic or Bearer header)
	const decodedRuns = (text: string) =>
		(text.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? []).map((run) =>
			Buffer.from(run, 'base64').toString('latin1'),
		);
	const found = (text: string) => {
		const decoded = decodedRuns(text);
		return secrets.filter(
			(secret) =>
				text.includes(secret) ||
				text.includes(encodeURIComponent(secret)) ||
				text.includes(Buffer.from(secret).toString('hex')) ||
				decoded.some((run) => run.includes(secret)),
		);
	};
	expect(found(logs)).toEqual([]);
	expect(found(executionText)).toEqual([]);
});
