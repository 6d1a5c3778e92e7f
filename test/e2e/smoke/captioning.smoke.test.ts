// The package itself, quickly, on the n8n version under test (CAPTIONING_N8N_VERSION): its `npm pack` tarball
// loads, the trigger registers its production URL on activation, each event runs once with the caption file
// downloaded, the action node calls the API with the credential, and deactivation removes the endpoint.
// .ci/run runs it on every n8n version README's Compatibility lists; captioning.e2e.test.ts goes deeper.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';

import {
	type ExecutionSummary,
	N8N_VERSION,
	type N8nInstance,
	packProject,
	RECEIVED_NODE,
	startN8n,
	TRIGGER_NODE,
	triggerWorkflow,
} from '../../../harness';
import { DEFAULT_CLIENT, type Sandbox, startSandbox } from '../../../sandbox/server';

const EVENTS = ['transcription.created', 'transcription.transcribed'];

let sandbox: Sandbox | undefined;
let n8n: N8nInstance | undefined;
let tarball: string | undefined;
let credential = { id: '', name: '' };
const trigger = { workflowId: '', endpointId: '' };

const sb = (): Sandbox => {
	if (!sandbox) throw new Error('the sandbox did not start');
	return sandbox;
};
const instance = (): N8nInstance => {
	if (!n8n) throw new Error('n8n did not start');
	return n8n;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function outputOf(execution: ExecutionSummary, node: string): any[] {
	const runs = execution.data?.resultData?.runData?.[node];
	if (!runs) throw new Error(`execution ${execution.id} did not run ${node}`);
	return runs[0].data.main[0];
}

beforeAll(async () => {
	tarball = await packProject();
	sandbox = await startSandbox();
	n8n = await startN8n({ packageTarball: tarball });
	const created = await instance().createCredential('Captioning sandbox', 'captioningApi', {
		baseUrl: sb().url,
		clientId: DEFAULT_CLIENT.clientId,
		clientSecret: DEFAULT_CLIENT.clientSecret,
		assertion: DEFAULT_CLIENT.assertions[0],
		mediaType: sb().mediaType,
	});
	credential = { id: created.id, name: created.name };
}, 300_000);

afterAll(async () => {
	if (n8n) {
		process.stdout.write(
			`n8n ${N8N_VERSION} start-up ${n8n.timings[0]?.totalSeconds.toFixed(1) ?? '?'} s\n`,
		);
	}
	for (const stop of [
		() => n8n?.stop(),
		() => sandbox?.stop(),
		() => (tarball ? rm(dirname(tarball), { recursive: true, force: true }) : undefined),
	]) {
		await Promise.resolve(stop()).catch(() => undefined);
	}
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

	it('lists the endpoints with the Captioning node and its credential', async () => {
		const path = `smoke-${randomUUID()}`;
		const created = await instance().createWorkflow({
			name: 'Smoke: list endpoints',
			nodes: [
				{
					id: randomUUID(),
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2.1,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', options: {} },
				},
				{
					id: randomUUID(),
					name: 'List Endpoints',
					type: 'n8n-nodes-captioning.captioning',
					typeVersion: 1,
					position: [250, 0],
					parameters: { resource: 'webhookEndpoint', operation: 'getAll', returnAll: true },
					credentials: { captioningApi: credential },
				},
			],
			connections: {
				Webhook: { main: [[{ node: 'List Endpoints', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		});
		await instance().activateWorkflow(created.id);
		const res = await instance().request('POST', `${instance().webhookBaseUrl}/${path}`, {
			body: {},
		});
		expect(res.status).toBe(200);
		// Get Many outputs one flat shape whatever the service's answer
		expect(res.body).toMatchObject({ id: trigger.endpointId, enabled_events: expect.any(Array) });
	});

	it('removes its endpoint at the service on deactivation', async () => {
		await instance().deactivateWorkflow(trigger.workflowId);
		const deadline = Date.now() + 30_000;
		while (sb().endpoints.size > 0 && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		expect([...sb().endpoints.keys()]).toEqual([]);
	});
});
