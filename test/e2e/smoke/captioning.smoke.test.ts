// The package itself, quickly, on the n8n version under test (CAPTIONING_N8N_VERSION): its `npm pack` tarball
// loads, the trigger registers its production URL on activation, each event runs once with the caption file
// downloaded, the action node calls the API with the credential, and deactivation removes the endpoint.
// .ci/run runs it on every n8n version README's Compatibility lists; captioning.e2e.test.ts goes deeper.
import { randomUUID } from 'node:crypto';

import {
	ACTION_TYPE,
	captioningHttpRequestNode,
	createSandboxCredential,
	linearWorkflow,
	type N8nInstance,
	N8N_VERSION,
	packProject,
	RECEIVED_NODE,
	removePacked,
	startN8n,
	TRIGGER_NODE,
	triggerWorkflow,
	webhookNode,
} from '../../../harness';
import { type Sandbox, startSandbox } from '../../../sandbox/server';
import {
	createActiveWorkflow,
	outputOf,
	requireStarted,
	stopAll,
	waitFor,
} from '../../helpers/suite';

const EVENTS = ['transcription.created', 'transcription.transcribed'];

let sandbox: Sandbox | undefined;
let n8n: N8nInstance | undefined;
let tarball: string | undefined;
let credential = { id: '', name: '' };
const trigger = { workflowId: '', endpointId: '' };

const sb = requireStarted('the sandbox', () => sandbox);
const instance = requireStarted('n8n', () => n8n);

beforeAll(async () => {
	tarball = await packProject();
	sandbox = await startSandbox();
	n8n = await startN8n({ packageTarball: tarball });
	const created = await createSandboxCredential(instance(), sb(), 'Captioning sandbox');
	credential = { id: created.id, name: created.name };
}, 300_000);

afterAll(async () => {
	if (n8n) {
		process.stdout.write(
			`n8n ${N8N_VERSION} start-up ${n8n.timings[0]?.totalSeconds.toFixed(1) ?? '?'} s\n`,
		);
	}
	await stopAll([() => n8n?.stop(), () => sandbox?.stop(), () => removePacked(tarball)]);
});

describe(`the package in n8n ${N8N_VERSION}`, () => {
	it('loads both nodes and the credential without an error', () => {
		expect(instance().installedPackages.map((p) => p.name)).toEqual(['n8n-nodes-captioning']);
		expect(instance().logs()).not.toMatch(
			/Failed to load package|Skipping package|n8n-nodes-captioning.*error/i,
		);
	});

	it('registers its production URL on activation and runs each event once', async () => {
		const webhookId = randomUUID();
		const created = await instance().createWorkflow(
			triggerWorkflow({
				name: 'Smoke: captions arrive',
				webhookId,
				credential,
				parameters: { registration: 'api', events: EVENTS, options: { downloadFormats: ['vtt'] } },
			}),
		);
		trigger.workflowId = created.id;
		await instance().activateWorkflow(trigger.workflowId);

		const endpoints = [...sb().endpoints.values()];
		expect(endpoints).toHaveLength(1);
		const productionUrl = `${instance().webhookBaseUrl}/${webhookId}/webhook`;
		expect(endpoints[0].callbackUri.startsWith(`${productionUrl}?token=`)).toBe(true);
		trigger.endpointId = endpoints[0].id;

		const { transcription, events } = await sb().transcribe({ title: 'Smoke test' });
		await sb().idle();
		expect(events.map((e) => e.eventType)).toEqual(EVENTS);
		const executions = await instance().waitForExecutions(trigger.workflowId, { count: 2 });
		expect(executions).toHaveLength(2);
		expect(executions.every((e) => e.status === 'success')).toBe(true);
		const items = executions.map((e) => outputOf(e, RECEIVED_NODE)[0]);
		expect(items.map((item) => item.json.eventType).sort()).toEqual(EVENTS);
		const transcribed = items.find((item) => item.json.eventType === 'transcription.transcribed');
		expect(transcribed.json.transcriptionId).toBe(transcription.id);
		expect(transcribed.binary.vtt).toMatchObject({
			mimeType: 'text/vtt',
			fileName: 'smoke-test.vtt',
		});
		expect(outputOf(executions[0], TRIGGER_NODE)).toHaveLength(1);
	});

	it('lists the endpoints with the Captioning node and its credential: flat at version 2, as 0.1.0 at 1', async () => {
		const listed: Record<number, unknown> = {};
		for (const typeVersion of [1, 2]) {
			const path = `smoke-${randomUUID()}`;
			await createActiveWorkflow(
				instance(),
				linearWorkflow(`Smoke: list endpoints, version ${typeVersion}`, [
					webhookNode(path),
					{
						id: randomUUID(),
						name: 'List Endpoints',
						type: ACTION_TYPE,
						typeVersion,
						parameters: { resource: 'webhookEndpoint', operation: 'getAll', returnAll: true },
						credentials: { captioningApi: credential },
					},
				]),
			);
			const res = await instance().request('POST', `${instance().webhookBaseUrl}/${path}`, {
				body: {},
			});
			expect(res.status).toBe(200);
			listed[typeVersion] = res.body;
		}
		const { id, enabledEvents, createdAt } = sb().endpoints.get(trigger.endpointId)!;
		// Get Many outputs one flat shape whatever the service's answer (the trigger's token redacted) …
		const { callback_uri: uri } = listed[2] as { callback_uri: string };
		expect(uri).toContain('[redacted]');
		const attributes = { callback_uri: uri, enabled_events: enabledEvents, created_at: createdAt };
		expect(listed[2]).toEqual({ id, ...attributes });
		// … and workflows saved by 0.1.0 (version 1) get the JSON:API resource it output
		expect(listed[1]).toEqual({
			id,
			type: 'webhook_endpoint',
			attributes,
			links: { self: `${sb().url}/webhook_endpoints/${id}` },
		});
	});

	it("offers the credential to n8n's HTTP Request node, which calls the API with it", async () => {
		// the editor lists a predefined credential type that has `authenticate`, serialised as {}
		const types = await instance().requestAsOwner('GET', '/types/credentials.json');
		expect(
			(types.body as Array<Record<string, unknown>>).find((t) => t.name === 'captioningApi'),
		).toMatchObject({ authenticate: {} });
		const path = `smoke-http-${randomUUID()}`;
		await createActiveWorkflow(
			instance(),
			linearWorkflow('Smoke: HTTP Request with the credential', [
				webhookNode(path),
				captioningHttpRequestNode('HTTP Request', `${sb().url}/webhook_endpoints`, credential),
			]),
		);
		const from = sb().requestLog.length;
		const res = await instance().request('POST', `${instance().webhookBaseUrl}/${path}`, {
			body: {},
		});
		expect(res.status).toBe(200);
		// the service answers only a call with its Accept header and a valid bearer token (contract 5.3)
		expect(
			sb()
				.requestLog.slice(from)
				.map((r) => `${r.method} ${r.path} ${r.status}`),
		).toEqual(['GET /webhook_endpoints 200']);
		expect(res.body).toMatchObject({ data: [{ id: trigger.endpointId }] });
	});

	it('removes its endpoint at the service on deactivation', async () => {
		await instance().deactivateWorkflow(trigger.workflowId);
		await waitFor('the endpoint to be deleted', () => sb().endpoints.size === 0);
		expect([...sb().endpoints.keys()]).toEqual([]);
	});

	it('puts the token on its token route for a service that refuses a query: each event once, none without the token', async () => {
		sb().setVariants({ 'callback-query': 'refuse' });
		const webhookId = randomUUID();
		const created = await instance().createWorkflow(
			triggerWorkflow({
				name: 'Smoke: token route',
				webhookId,
				credential,
				parameters: { registration: 'api', events: EVENTS, options: {} },
				alone: true,
			}),
		);
		await instance().activateWorkflow(created.id);
		const route = `${instance().webhookBaseUrl}/${webhookId}/${webhookId}/`;
		const [endpoint, ...more] = [...sb().endpoints.values()];
		expect(more).toEqual([]);
		expect(endpoint.callbackUri).toMatch(new RegExp(`^${route.replace(/[.]/g, '\\.')}[\\w-]{32}$`));

		const { events } = await sb().transcribe({ title: 'Smoke test, token route' });
		await sb().idle();
		const executions = await instance().waitForExecutions(created.id, { count: 2 });
		expect(executions.map((e) => outputOf(e, TRIGGER_NODE)[0].json.eventId).sort()).toEqual(
			events.map((e) => e.id).sort(),
		);
		for (const url of [`${instance().webhookBaseUrl}/${webhookId}/webhook`, `${route}guess`]) {
			const res = await instance().request('POST', url, { body: { data: { id: 'forged' } } });
			expect(res.status).toBe(401);
		}
		await instance().deactivateWorkflow(created.id);
		expect(sb().endpoints.size).toBe(0);
		sb().setVariants({ 'callback-query': 'keep' });
	});
});
