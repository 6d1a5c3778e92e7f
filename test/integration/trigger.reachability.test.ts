// The trigger's reachability check where it runs: create() in n8n-core's real HookContext. A service at a public
// https address is refused a localhost callback before any request leaves (none could: no such service is
// running); the sandbox on the loopback registers as always.
import type { INode } from 'n8n-workflow';
import { WebhookPathTakenError } from 'n8n-workflow';

import { CaptioningTrigger } from '../../nodes/Captioning/CaptioningTrigger.node';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { createHarness, type Harness } from '../helpers/n8nContext';
import { credentialsFor } from '../helpers/sandboxClient';

const trigger = new CaptioningTrigger();
const EVENTS = ['transcription.transcribed'];

let sandbox: Sandbox | undefined;

afterEach(async () => {
	await sandbox?.stop();
	sandbox = undefined;
});

function setUp(baseUrl: string | undefined, webhookBaseUrl = 'http://localhost:5678/webhook') {
	const credentials = sandbox ? credentialsFor(sandbox) : {};
	const h: Harness = createHarness(
		{ ...credentials, ...(baseUrl ? { baseUrl } : {}) },
		{ captioningTrigger: trigger },
	);
	h.urls.webhookBaseUrl = webhookBaseUrl;
	const node: INode = h.makeNode(
		'captioningTrigger',
		{ registration: 'api', events: EVENTS, manualToken: '', options: {} },
		'Captioning Trigger',
	);
	const staticData = {};
	const wf = h.workflow(node, { [`node:${node.name}`]: staticData });
	const run = (method: 'create' | 'delete', mode: 'production' | 'test' = 'production') =>
		trigger
			.getNodeType(node.typeVersion)
			.webhookMethods!.default![method].call(h.hookContext(node, wf, mode));
	return { run, staticData: () => wf.getStaticData('node', node) };
}

describe('the reachability check in create()', () => {
	it('refuses a localhost callback for a public https service, naming N8N_WEBHOOK_URL, and registers nothing', async () => {
		const { run, staticData } = setUp('https://captions.example.com');
		const error = await run('create').catch((e: unknown) => e);
		// the one error n8n 2.41 does not retry (1 + 2 + 4 + 8 s): a URL does not become reachable by waiting
		expect(error).toBeInstanceOf(WebhookPathTakenError);
		const { message, description } = error as WebhookPathTakenError;
		expect(message).toMatch(
			/^The captioning service cannot reach http:\/\/localhost:5678\/webhook\/[0-9a-f-]+\/webhook \(localhost is n8n's own machine\): set N8N_WEBHOOK_URL \(in n8n 1\.x: WEBHOOK_URL\) to n8n's public https address and restart n8n\.$/,
		);
		expect(description).toContain('so nothing was registered');
		expect(staticData()).toEqual({});
		// what n8n runs after a failed create(): nothing to look for at the service, no error of its own
		await expect(run('delete')).resolves.toBe(true);
	});

	it('refuses the test URL the same way while the editor listens for a test event', async () => {
		const { run } = setUp('https://captions.example.com');
		await expect(run('create', 'test')).rejects.toThrow(
			/cannot reach http:\/\/localhost:5678\/webhook-test\//,
		);
		await expect(run('delete', 'test')).resolves.toBe(true);
	});

	it('stays quiet for the sandbox on the loopback: the endpoint is registered', async () => {
		sandbox = await startSandbox({ rateLimit: null });
		const { run, staticData } = setUp(undefined);
		await expect(run('create')).resolves.toBe(true);
		const [endpoint] = [...sandbox.endpoints.values()];
		expect(endpoint.callbackUri).toMatch(
			/^http:\/\/localhost:5678\/webhook\/[0-9a-f-]+\/webhook\?token=/,
		);
		expect(staticData()).toHaveProperty('registration');
		await run('delete');
		expect(sandbox.endpoints.size).toBe(0);
	});

	it.each([['http://n8n.lan:5678'], ['http://n8n:5678'], ['http://192.168.1.20:5678']])(
		'registers %s: plain http and names only some networks know are for the service to reach',
		async (webhookUrl) => {
			sandbox = await startSandbox({ rateLimit: null });
			const { run } = setUp(undefined, `${webhookUrl}/webhook`);
			await expect(run('create')).resolves.toBe(true);
			expect(
				[...sandbox.endpoints.values()].map((e) => e.callbackUri.split('/webhook/')[0]),
			).toEqual([webhookUrl]);
			await run('delete');
			expect(sandbox.endpoints.size).toBe(0);
		},
	);
});
