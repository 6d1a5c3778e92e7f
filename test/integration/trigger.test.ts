// The Captioning Trigger against the sandbox over real HTTP: its lifecycle (webhookMethods in n8n-core's real
// HookContext) and its receiving side (webhook() in n8n-core's real WebhookContext behind a real HTTP server).
import { WebhookContext } from 'n8n-core';
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { json } from '../helpers/http';
import { CaptioningTrigger } from '../../nodes/Captioning/CaptioningTrigger.node';
import { accountFingerprint } from '../../nodes/Captioning/trigger/registration';
import { hashToken, OPEN_MANUAL_WARNING } from '../../nodes/Captioning/trigger/token';
import { createHarness, type Harness } from '../helpers/n8nContext';
import { createEndpoint, credentialsFor, obtainToken } from '../helpers/sandboxClient';
import {
	startWebhookServer,
	type WebhookServer,
	type WebhookServerOptions,
} from '../helpers/webhookServer';
import {
	DEFAULT_CLIENT,
	type Sandbox,
	type SandboxOptions,
	SECOND_CLIENT,
	startSandbox,
	VARIANT_DIMENSIONS,
	type Variants,
} from '../../sandbox/server';

const EVENTS = ['transcription.created', 'transcription.transcribed'];
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? {}));

let sandbox: Sandbox;
let server: WebhookServer;
let h: Harness;
let node: INode;
const trigger = new CaptioningTrigger();

async function setUp(
	parameters: IDataObject = {},
	sandboxOptions: SandboxOptions = {},
	serverOptions: WebhookServerOptions = {},
) {
	sandbox = await startSandbox({
		rateLimit: null,
		transcribeAfterMs: 0,
		retryDelaysMs: [30, 30, 30, 30, 30],
		...sandboxOptions,
	});
	h = createHarness(credentialsFor(sandbox), { captioningTrigger: trigger });
	node = h.makeNode(
		'captioningTrigger',
		{ registration: 'api', events: EVENTS, manualToken: '', options: {}, ...parameters },
		'Captioning Trigger',
	);
	server = await startWebhookServer(h, trigger, node, {}, 0, serverOptions);
	h.urls.webhookBaseUrl = `${server.baseUrl}/webhook`;
}

afterEach(async () => {
	await server?.close();
	await sandbox?.stop();
});

type Method = 'checkExists' | 'create' | 'delete';

/** Runs a webhook method as n8n does: static data from the database, saved afterwards. */
async function hook(method: Method, mode: 'production' | 'test' = 'production') {
	const wf = h.workflow(node, { [`node:${node.name}`]: clone(server.staticData) });
	const hooks = trigger.getNodeType(node.typeVersion).webhookMethods!.default!;
	const result = await hooks[method].call(h.hookContext(node, wf, mode));
	server.staticData = clone(wf.getStaticData('node', node));
	return result;
}

/** The callback tokens the sandbox holds for any endpoint (those of other workflows included). */
const registeredTokens = () =>
	[...sandbox.endpoints.values()]
		.map((e) => new URL(e.callbackUri).searchParams.get('token'))
		.filter((token): token is string => !!token);

/** n8n's createWebhookIfNotExists; n8n copies the static data into execution records: no token in it. */
async function activate(mode: 'production' | 'test' = 'production') {
	if (!(await hook('checkExists', mode))) await hook('create', mode);
	const saved = JSON.stringify(server.staticData);
	for (const token of registeredTokens()) expect(saved).not.toContain(token);
}

const productionUrl = () => `${server.baseUrl}/webhook/${node.webhookId}/webhook`;
const endpoints = () => [...sandbox.endpoints.values()];
const apiCalls = () =>
	sandbox.requestLog
		.filter((r) => r.path.startsWith('/webhook_endpoints'))
		.map((r) => `${r.method} ${r.status}`);

describe('registration', () => {
	test('activation registers exactly one endpoint: the production URL with a secret token, and the selected events', async () => {
		await setUp({ events: ['transcription.transcribed'] });
		await activate();
		expect(endpoints()).toHaveLength(1);
		const [endpoint] = endpoints();
		expect(endpoint.callbackUri).toMatch(
			new RegExp(`^${productionUrl().replace(/[.?]/g, '\\$&')}\\?token=[\\w-]{32}$`),
		);
		expect(endpoint.enabledEvents).toEqual(['transcription.transcribed']);
		const token = new URL(endpoint.callbackUri).searchParams.get('token')!;
		expect(server.staticData.registration).toEqual({
			endpointId: endpoint.id,
			webhookUrl: productionUrl(),
			events: ['transcription.transcribed'],
			tokenHash: hashToken(token),
			// the account it was made with, as a hash of the Base URL and Client ID
			account: accountFingerprint({ baseUrl: sandbox.url, clientId: DEFAULT_CLIENT.clientId }),
		});
		// only the hash: the static data n8n copies into execution records never holds the token
		expect(JSON.stringify(server.staticData)).not.toContain(token);
	});

	test('a registration saved with the plain token (0.1.0) is verified, kept and rewritten with its hash', async () => {
		await setUp();
		await activate();
		const [endpoint] = endpoints();
		const token = new URL(endpoint.callbackUri).searchParams.get('token')!;
		const { tokenHash, ...rest } = server.staticData.registration as IDataObject;
		expect(tokenHash).toBe(hashToken(token));
		server.staticData = { ...server.staticData, registration: { ...rest, token } };
		// a delivery before the next activation is accepted against the plain token's hash
		await sandbox.transcribe();
		await sandbox.idle();
		expect(server.executions.map((e) => e.items[0].json.eventType).sort()).toEqual(EVENTS);
		expect(JSON.stringify(server.executions)).not.toContain(token);
		server.staticData = { ...server.staticData, registration: { ...rest, token } };
		await activate();
		expect(endpoints()).toEqual([endpoint]);
		expect(server.staticData.registration).toEqual({ ...rest, tokenHash: hashToken(token) });
		expect(apiCalls()).toEqual(['GET 200', 'POST 201', 'GET 200']);
	});

	test('each registration gets a new token', async () => {
		await setUp();
		await activate();
		const first = endpoints()[0].callbackUri;
		await hook('delete');
		await activate();
		expect(endpoints()[0].callbackUri).not.toBe(first);
	});

	test('a restart with the workflow active verifies the endpoint and registers nothing new', async () => {
		await setUp();
		await activate();
		const before = endpoints()[0];
		await activate();
		expect(endpoints()).toEqual([before]);
		expect(apiCalls()).toEqual(['GET 200', 'POST 201', 'GET 200']);
	});

	test('an endpoint deleted at the service is noticed and registered again', async () => {
		await setUp();
		await activate();
		sandbox.endpoints.clear();
		await activate();
		expect(endpoints()).toHaveLength(1);
		expect(server.staticData.registration).toMatchObject({ endpointId: endpoints()[0].id });
	});

	test('a changed WEBHOOK_URL replaces the registration: the old endpoint is deleted', async () => {
		await setUp();
		await activate();
		h.urls.webhookBaseUrl = `${server.baseUrl.replace('127.0.0.1', 'localhost')}/webhook`;
		await activate();
		expect(endpoints()).toHaveLength(1);
		expect(endpoints()[0].callbackUri).toMatch(/^http:\/\/localhost:\d+\/webhook\//);
	});

	test('changed events replace the registration', async () => {
		await setUp();
		await activate();
		node.parameters.events = ['transcription.created'];
		await activate();
		expect(endpoints().map((e) => e.enabledEvents)).toEqual([['transcription.created']]);
	});

	test('an earlier registration whose state was lost is removed, never leaving two endpoints', async () => {
		await setUp();
		await activate();
		server.staticData = {};
		await activate();
		expect(endpoints()).toHaveLength(1);
		expect(apiCalls()).toEqual(['GET 200', 'POST 201', 'GET 200', 'DELETE 204', 'POST 201']);
	});

	describe('an endpoint is deleted only where it delivers to this trigger, whatever id is stored', () => {
		const ours = () => endpoints().filter((e) => e.callbackUri.startsWith(`${productionUrl()}?`));
		/** Our endpoint gone, and its id now another integration's (a service that reuses ids). */
		function reuseId() {
			const [endpoint] = ours();
			sandbox.endpoints.set(endpoint.id, {
				...endpoint,
				callbackUri: 'https://elsewhere.example.com/hooks/crm?token=theirs',
			});
			return endpoint.id;
		}

		test('deactivation', async () => {
			await setUp();
			await activate();
			const id = reuseId();
			await expect(hook('delete')).resolves.toBe(true);
			expect(sandbox.endpoints.get(id)?.callbackUri).toBe(
				'https://elsewhere.example.com/hooks/crm?token=theirs',
			);
			expect(sandbox.requestLog.filter((r) => r.method === 'DELETE')).toEqual([]);
		});

		test('a registration replaced for other events', async () => {
			await setUp();
			await activate();
			const id = reuseId();
			node.parameters.events = ['transcription.created'];
			await activate();
			expect(sandbox.endpoints.get(id)?.callbackUri).toMatch(/^https:\/\/elsewhere/);
			expect(ours()).toHaveLength(1);
		});

		test('a re-activation that finds another endpoint under the stored id', async () => {
			await setUp();
			await activate();
			const id = reuseId();
			await activate();
			expect(sandbox.endpoints.get(id)?.callbackUri).toMatch(/^https:\/\/elsewhere/);
			// registered afresh instead
			expect(ours()).toHaveLength(1);
			expect(server.staticData.registration).toMatchObject({ endpointId: ours()[0].id });
		});
	});

	test('a registration saved before it kept its account is verified, then knows it', async () => {
		await setUp();
		await activate();
		const { account, ...before } = server.staticData.registration as IDataObject;
		expect(account).toEqual(expect.any(String));
		server.staticData = { ...server.staticData, registration: before };
		await activate();
		expect(server.staticData.registration).toEqual({ ...before, account });
		expect(endpoints()).toHaveLength(1);
	});

	test('another trigger’s endpoints are left alone', async () => {
		await setUp();
		const token = (await (
			await fetch(
				`${sandbox.url}/oauth/token?${new URLSearchParams({ grant_type: 'assertion', provider: 'dashboard', assertion: DEFAULT_CLIENT.assertions[0], client_id: DEFAULT_CLIENT.clientId, client_secret: DEFAULT_CLIENT.clientSecret, scope: 'write_transcriptions write_media' })}`,
				{ method: 'POST' },
			)
		).json()) as { access_token: string };
		await fetch(`${sandbox.url}/webhook_endpoints`, {
			method: 'POST',
			headers: {
				accept: sandbox.mediaType,
				authorization: `Bearer ${token.access_token}`,
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: 'callback_uri=http%3A%2F%2F127.0.0.1%3A1%2Fwebhook%2Fother%2Fwebhook&enabled_events%5B%5D=transcription.created',
		});
		await activate();
		await hook('delete');
		expect(endpoints().map((e) => e.callbackUri)).toEqual([
			'http://127.0.0.1:1/webhook/other/webhook',
		]);
	});

	test('deactivation deletes the endpoint and clears the state', async () => {
		await setUp();
		await activate();
		await hook('delete');
		expect(endpoints()).toEqual([]);
		expect(server.staticData.registration).toBeUndefined();
	});

	test('deactivation tolerates an endpoint already gone', async () => {
		await setUp();
		await activate();
		sandbox.endpoints.clear();
		await expect(hook('delete')).resolves.toBe(true);
	});

	test('activation with no event selected names the fix, as the user’s error, and registers nothing', async () => {
		await setUp({ events: [] });
		const error = await hook('create').catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as Error).message).toBe(
			'Select at least one event for the Captioning Trigger to listen to',
		);
		expect(endpoints()).toEqual([]);
		expect(apiCalls()).toEqual([]);
	});

	test('a failed deactivation is reported, not swallowed', async () => {
		await setUp();
		await activate();
		await sandbox.stop();
		await expect(hook('delete')).rejects.toThrow(
			/Could not unregister the webhook endpoint at the captioning service/,
		);
		expect(server.staticData.registration).toBeDefined();
	});

	test('Listen for test event registers the test URL and cleans up without touching production', async () => {
		await setUp();
		await activate();
		const production = endpoints()[0];
		const saved = clone(server.staticData);
		server.staticData = {};
		await activate('test');
		const test = endpoints().find((e) => e.id !== production.id)!;
		expect(test.callbackUri).toContain(`/webhook-test/${node.webhookId}/webhook?token=`);
		await hook('delete', 'test');
		expect(endpoints()).toEqual([production]);
		server.staticData = saved;
	});

	test('manual registration makes no API call at all', async () => {
		await setUp({ registration: 'manual' });
		await activate();
		await hook('delete');
		expect(sandbox.requestLog).toEqual([]);
	});
});

describe('a re-publish while a delivery is in flight (n8n saves each request’s whole copy of the static data)', () => {
	const until = async (what: string, done: () => boolean) => {
		for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
		if (!done()) throw new Error(`timed out waiting for ${what}`);
	};

	test.each(['2.x', '1.x'] as const)(
		'n8n %s: the delivery’s late save brings back the old registration, and the new token is still accepted',
		async (line) => {
			// the transcribed event's files are served 1.5 s late: its request holds its copy all that time
			await setUp(
				{ options: { downloadFormats: ['vtt'] } },
				{ fileDelayMs: 1500, retryDelaysMs: [30, 30, 30, 30, 30] },
				{ line },
			);
			await activate();
			const first = endpoints()[0].callbackUri;
			const inFlight = sandbox.transcribe();
			await until('the download to begin', () => sandbox.fileRequestsReceived > 0);
			// n8n re-publishes: delete (deactivation), then checkExists and create, each saving the static data
			await hook('delete');
			await activate();
			expect(endpoints().map((e) => e.callbackUri)).not.toContain(first);
			await inFlight;
			await sandbox.idle();
			// the request in flight has answered and saved the copy it read before the re-publish
			expect(sandbox.deliveries.map((d) => d.status)).toEqual([200, 200]);
			const before = server.executions.length;
			await sandbox.transcribe();
			await sandbox.idle();
			// the service now delivers with the new registration's token: both events start, at the first attempt
			expect(sandbox.deliveries.slice(2).map((d) => d.status)).toEqual([200, 200]);
			expect(server.executions.slice(before).map((e) => e.items[0].json.eventType)).toEqual(EVENTS);
		},
	);
});

describe('receiving', () => {
	const deliveriesTo = () => sandbox.deliveries.map((d) => `${d.eventType}:${d.status}`);

	test('each event becomes one flattened item, answered 2xx', async () => {
		await setUp();
		await activate();
		const { transcription } = await sandbox.transcribe({ title: 'Board meeting' });
		await sandbox.idle();
		expect(deliveriesTo()).toEqual(['transcription.created:200', 'transcription.transcribed:200']);
		expect(server.executions.map((e) => e.items.map((i) => i.json.eventType))).toEqual([
			['transcription.created'],
			['transcription.transcribed'],
		]);
		const item = server.executions[1].items[0].json;
		expect(item).toMatchObject({
			transcriptionId: transcription.id,
			title: 'Board meeting',
			formats: ['vtt', 'google_stt'],
		});
		expect((item.files as IDataObject).vtt).toMatch(/signature=/);
		expect(item.averageConfidence).toBeGreaterThan(0.8);
	});

	test('an automatic trigger of typeVersion 3 asks n8n for no credential while it receives', async () => {
		await setUp();
		// from 3 on, a manual trigger's Secret Token is a credential: an automatic one has none to ask for
		node.typeVersion = 3;
		await activate();
		const asked = jest.spyOn(WebhookContext.prototype, 'getCredentials');
		try {
			await sandbox.transcribe();
			await sandbox.idle();
			expect(server.executions).toHaveLength(2);
			expect(asked).not.toHaveBeenCalled();
		} finally {
			asked.mockRestore();
		}
	});

	test('JSON:API bodies (application/vnd.api+json) are read from the raw body', async () => {
		await setUp({}, { deliveryContentType: 'application/vnd.api+json' });
		await activate();
		await sandbox.transcribe();
		await sandbox.idle();
		expect(server.executions).toHaveLength(2);
	});

	test('a redelivered event (same id) answers 2xx and starts no second execution', async () => {
		await setUp();
		await activate();
		const { events } = await sandbox.transcribe();
		await sandbox.idle();
		for (const event of events) sandbox.redeliver(event.id);
		sandbox.redeliver(events[1].id);
		await sandbox.idle();
		expect(sandbox.deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200, 200]);
		expect(server.executions).toHaveLength(2);
	});

	test('deliveries that fail while the receiver is down are executed once when it is back', async () => {
		await setUp({}, { retryDelaysMs: [150, 150, 150, 150, 150] });
		await activate();
		const port = Number(new URL(server.baseUrl).port);
		const saved = clone(server.staticData);
		await server.close();
		const done = sandbox.transcribe();
		await new Promise((resolve) => setTimeout(resolve, 200));
		server = await startWebhookServer(h, trigger, node, saved, port);
		await done;
		await sandbox.idle();
		const statuses = sandbox.deliveries.map((d) => d.status ?? 'refused');
		expect(statuses.filter((s) => s === 'refused').length).toBeGreaterThanOrEqual(2);
		expect(statuses.filter((s) => s === 200)).toHaveLength(2);
		expect(server.executions.map((e) => e.items[0].json.eventType).sort()).toEqual(EVENTS);
	});

	test('requests without the token, or with a wrong one, get 401 and start nothing', async () => {
		await setUp();
		await activate();
		const body = JSON.stringify({ data: {} });
		const headers = { 'content-type': 'application/json' };
		const none = await fetch(productionUrl(), { method: 'POST', headers, body });
		const wrong = await fetch(`${productionUrl()}?token=guess`, { method: 'POST', headers, body });
		expect([none.status, wrong.status]).toEqual([401, 401]);
		expect((await json(none)).error).toMatch(/no token/);
		expect(server.executions).toHaveLength(0);
	});

	test('hostile bodies are refused (not JSON 400, no event id 400, unreadable 415), with nothing started', async () => {
		await setUp();
		await activate();
		const url = endpoints()[0].callbackUri;
		const post = (body: string, type = 'application/json') =>
			fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
		const bad = await post('{"data":');
		expect(bad.status).toBe(400);
		expect((await json(bad)).error).toMatch(/not valid JSON/);
		const noId = await post(
			JSON.stringify({ data: { attributes: { event_type: 'transcription.transcribed' } } }),
		);
		expect(noId.status).toBe(400);
		expect((await json(noId)).error).toMatch(/data\.id/);
		// an event the user did not select is acknowledged before the rest of it is checked
		const unselectedNoId = await post(
			JSON.stringify({ data: { attributes: { event_type: 'transcription.deleted' } } }),
		);
		expect(unselectedNoId.status).toBe(200);
		expect((await post('hello', 'text/plain')).status).toBe(400);
		const multipart = await fetch(url, { method: 'POST', body: new FormData() });
		expect(multipart.status).toBe(415);
		// an event id without an event type cannot be acted on: acknowledged, so the service stops retrying
		const noType = await post(JSON.stringify({ data: { id: 'x', type: 'webhook_event' } }));
		expect(noType.status).toBe(200);
		expect((await json(noType)).ignored).toBeDefined();
		expect(server.executions).toHaveLength(0);
	});

	test('events not selected are acknowledged and start nothing', async () => {
		await setUp({ events: ['transcription.transcribed'] });
		await activate();
		const url = endpoints()[0].callbackUri;
		const event = {
			data: {
				id: '11111111-2222-4333-8444-555555555555',
				type: 'webhook_event',
				attributes: {
					created_at: new Date().toISOString(),
					event_type: 'transcription.created',
					uri: url,
				},
				relationships: { subject: { data: { id: 'x', type: 'transcription' } } },
			},
			included: [],
		};
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(event),
		});
		expect(res.status).toBe(200);
		expect((await json(res)).ignored).toMatch(/not selected/);
		expect(server.executions).toHaveLength(0);
	});

	test('Raw Body outputs the event as the service sent it, without the callback token', async () => {
		await setUp({ events: ['transcription.transcribed'], options: { rawBody: true } });
		await activate();
		const { events } = await sandbox.transcribe();
		await sandbox.idle();
		const sent = JSON.parse(events[0].body) as { data: { attributes: { uri: string } } };
		const output = server.executions[0].items[0].json as typeof sent;
		// everything as the service sent it, except the callback token, which never reaches execution data
		const token = new URL(sent.data.attributes.uri).searchParams.get('token')!;
		expect(JSON.stringify(output)).not.toContain(token);
		const uri = new URL(sent.data.attributes.uri);
		uri.searchParams.delete('token');
		expect(output.data.attributes.uri).toBe(uri.toString());
		output.data.attributes.uri = sent.data.attributes.uri;
		expect(output).toEqual(sent);
	});

	test('Download Caption Files: binary files and transcript text on the item, and the 2xx once the execution has them', async () => {
		await setUp(
			{
				events: ['transcription.transcribed'],
				options: { downloadFormats: ['vtt', 'google_stt'] },
			},
			{ fileDelayMs: 400 },
		);
		await activate();
		await sandbox.transcribe({
			title: 'Board meeting',
			text: 'Hello there. Café ünïcode 日本語 works.',
		});
		await sandbox.idle();
		// answered after the files (served 400 ms late), and only once the execution existed: one attempt
		expect(sandbox.deliveries.map((d) => d.status)).toEqual([200]);
		expect(sandbox.deliveries[0].durationMs).toBeGreaterThanOrEqual(400);
		expect(server.executions).toHaveLength(1);
		const [item] = server.executions[0].items;
		expect(item.binary?.vtt).toMatchObject({
			mimeType: 'text/vtt',
			fileName: 'board-meeting.vtt',
			fileExtension: 'vtt',
		});
		expect(item.binary?.google_stt).toMatchObject({
			mimeType: 'application/json',
			fileName: 'board-meeting.google_stt.json',
		});
		expect(Buffer.from(item.binary!.vtt.data, 'base64').toString('utf8')).toMatch(/^WEBVTT/);
		expect(item.json.transcript).toMatch(/^Hello there\. Café ünïcode ?日本語 ?works\.$/);
		expect(item.json.downloadErrors).toBeUndefined();
	});

	test('a download that fails keeps the event and says why on the item', async () => {
		await setUp(
			{ events: ['transcription.transcribed'], options: { downloadFormats: ['vtt'] } },
			{ signedUrlTtlSeconds: -1 },
		);
		await activate();
		await sandbox.transcribe();
		await sandbox.idle();
		for (let i = 0; i < 50 && server.executions.length === 0; i++)
			await new Promise((r) => setTimeout(r, 50));
		const [item] = server.executions[0].items;
		expect(item.binary?.vtt).toBeUndefined();
		expect(item.json.downloadErrors).toEqual([
			{ format: 'vtt', message: expect.stringMatching(/signed URL .* has expired/) },
		]);
		expect(JSON.stringify(item.json.downloadErrors)).not.toMatch(/signature=/);
	});

	test('Listen for test event: the test URL receives the event', async () => {
		await setUp();
		await activate('test');
		await sandbox.transcribe();
		await sandbox.idle();
		expect(server.executions.map((e) => e.mode)).toEqual(['test', 'test']);
		await hook('delete', 'test');
		expect(endpoints()).toEqual([]);
	});
});

// ---- the lifecycle under every reading of what the contract leaves unshown (sandbox variants, issue 12) ----

type Variant = Partial<Variants>;

/** Every value of create, manage, resource and list one at a time (the defaults once), and the harsh mixes. */
const MATRIX: Array<[string, Variant]> = [
	...(['create', 'manage', 'resource', 'list', 'members', 'endpoint-ids'] as const).flatMap(
		(dimension) =>
			VARIANT_DIMENSIONS[dimension]
				.filter((_value, index) => index > 0 || dimension === 'create')
				.map((value): [string, Variant] => [`${dimension}=${value}`, { [dimension]: value }]),
	),
	['create=empty manage=absent-405', { create: 'empty', manage: 'absent-405' }],
	['create=no-content manage=absent-404', { create: 'no-content', manage: 'absent-404' }],
	['create=empty resource=flat list=paged', { create: 'empty', resource: 'flat', list: 'paged' }],
];

const tokenOf = (uri: string) => new URL(uri).searchParams.get('token');
/** The hash the trigger stores for the token of this callback URI. */
const hashOf = (uri: string) => hashToken(tokenOf(uri)!);
const withoutQuery = (uri: string) => uri.split('?')[0];

describe.each(MATRIX)('lifecycle with %s', (_name, variants) => {
	const manages = (variants.manage ?? 'full') === 'full';
	const givesId = !['empty', 'no-content'].includes(variants.create ?? 'jsonapi');
	let warnings: string[];

	/** This workflow's endpoints at the service (any token); `test` for the "Listen for test event" URL. */
	const mine = (url = productionUrl()) =>
		endpoints().filter((e) => withoutQuery(e.callbackUri) === url);
	const testUrl = () => `${server.baseUrl}/webhook-test/${node.webhookId}/webhook`;
	const posts = () =>
		sandbox.requestLog.filter((r) => r.method === 'POST' && r.path === '/webhook_endpoints').length;
	const registration = () => server.staticData.registration as IDataObject | undefined;

	/** Endpoints of other workflows, so that a paged list has more than one page. */
	async function otherEndpoints(count: number) {
		const { access_token } = await obtainToken(sandbox);
		for (let n = 0; n < count; n++) {
			const res = await createEndpoint(
				sandbox,
				access_token,
				`http://127.0.0.1:1/webhook/other-${n}/webhook`,
				['transcription.created'],
			);
			expect(res.status).toBeLessThan(300);
		}
	}

	async function setUpVariant(parameters: IDataObject = {}) {
		await setUp(parameters, { variants });
		await otherEndpoints(3);
		const logger = h.hookContext(node, h.workflow(node)).logger;
		warnings = [];
		jest.spyOn(logger, 'warn').mockImplementation((message: string, meta?: object) => {
			warnings.push(`${message} ${JSON.stringify(meta ?? {})}`);
		});
	}

	/** Both events of one transcription, as executions of this workflow. */
	async function deliverOne() {
		const before = server.executions.length;
		await sandbox.transcribe();
		await sandbox.idle();
		return server.executions.slice(before).map((e) => e.items[0].json.eventType);
	}

	afterEach(() => jest.restoreAllMocks());

	test('activation registers exactly one endpoint, with a token the trigger accepts; both events run once', async () => {
		await setUpVariant();
		await activate();
		expect(mine()).toHaveLength(1);
		const [endpoint] = mine();
		expect(registration()).toEqual({
			webhookUrl: productionUrl(),
			events: EVENTS,
			tokenHash: hashOf(endpoint.callbackUri),
			// the id from the answer, or found through the list; none where the service offers neither
			...(givesId || manages ? { endpointId: endpoint.id } : {}),
			...(manages ? {} : { manageable: false }),
			account: accountFingerprint({ baseUrl: sandbox.url, clientId: DEFAULT_CLIENT.clientId }),
		});
		expect((await deliverOne()).sort()).toEqual(EVENTS);
		expect(endpoints()).toHaveLength(4);
		expect(warnings).toEqual([]);
	});

	test('restart (activation with the saved static data) and re-activation keep one endpoint', async () => {
		await setUpVariant();
		await activate();
		const first = mine()[0];
		await activate();
		expect(mine()).toEqual([first]);
		await hook('delete');
		await activate();
		expect(mine()).toHaveLength(1);
		const [now] = mine();
		if (manages) {
			// deleted on deactivation, registered anew with a new token
			expect(now.id).not.toBe(first.id);
			expect(tokenOf(now.callbackUri)).not.toBe(tokenOf(first.callbackUri));
			expect(posts()).toBe(3 + 2);
		} else {
			// the stored registration is reused: the same endpoint, the same token, no second POST
			expect(now).toEqual(first);
			expect(posts()).toBe(3 + 1);
		}
		expect(registration()?.tokenHash).toBe(hashOf(now.callbackUri));
		expect((await deliverOne()).sort()).toEqual(EVENTS);
	});

	test('deactivation deletes the endpoint where the service can; elsewhere keeps it and says what to do', async () => {
		await setUpVariant();
		await activate();
		const token = tokenOf(mine()[0].callbackUri)!;
		const tokenHash = registration()!.tokenHash;
		await expect(hook('delete')).resolves.toBe(true);
		if (manages) {
			expect(mine()).toEqual([]);
			expect(registration()).toBeUndefined();
			expect(warnings).toEqual([]);
			return;
		}
		expect(mine()).toHaveLength(1);
		expect(registration()).toMatchObject({ tokenHash, manageable: false });
		expect(JSON.stringify(server.staticData)).not.toContain(token);
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toContain(
			`so the webhook endpoint that delivers to ${productionUrl()} stays registered`,
		);
		expect(warnings[0]).toContain(
			`delete the endpoint for ${productionUrl()} in the service's developers dashboard`,
		);
		// the refused DELETE's status, where there was an id to send one for
		if (givesId)
			expect(warnings[0]).toContain(`(HTTP ${variants.manage === 'absent-404' ? 404 : 405})`);
		expect(warnings[0]).not.toContain(token);
		expect(endpoints()).toHaveLength(4);
	});

	test('10 activation cycles leave at most one endpoint, and it delivers with the token the trigger holds', async () => {
		await setUpVariant();
		for (let cycle = 1; cycle <= 10; cycle++) {
			await activate();
			expect(mine()).toHaveLength(1);
			await hook('delete');
			expect(mine()).toHaveLength(manages ? 0 : 1);
		}
		await activate();
		expect(mine()).toHaveLength(1);
		expect(hashOf(mine()[0].callbackUri)).toBe(registration()?.tokenHash);
		expect(posts()).toBe(3 + (manages ? 11 : 1));
		expect((await deliverOne()).sort()).toEqual(EVENTS);
		const toWorkflow = sandbox.deliveries.filter(
			(d) => withoutQuery(d.callbackUri) === productionUrl(),
		);
		expect(toWorkflow.map((d) => d.status)).toEqual([200, 200]);
	});

	test('an activation that fails after registering and is retried, as n8n does, leaves one endpoint', async () => {
		await setUpVariant();
		// n8n's register: checkExists, create, then (another step failed) delete on the same static data, again
		await activate();
		await hook('delete');
		await activate();
		expect(mine()).toHaveLength(1);
		expect(hashOf(mine()[0].callbackUri)).toBe(registration()?.tokenHash);
	});

	test('changed events replace the registration; an old endpoint that cannot be deleted is reported', async () => {
		await setUpVariant();
		await activate();
		const old = mine()[0];
		node.parameters.events = ['transcription.transcribed'];
		await activate();
		const current = mine().find((e) => hashOf(e.callbackUri) === registration()?.tokenHash)!;
		expect(current.enabledEvents).toEqual(['transcription.transcribed']);
		if (manages) {
			expect(mine()).toEqual([current]);
			expect(warnings).toEqual([]);
		} else {
			expect(mine().map((e) => e.id)).toEqual([old.id, current.id]);
			expect(warnings).toEqual([
				expect.stringContaining(
					`the previous webhook endpoint for ${productionUrl()} (registered with other settings) could not be deleted`,
				),
			]);
		}
		// the old endpoint's deliveries carry a token that is no longer valid: one execution, not two
		expect(await deliverOne()).toEqual(['transcription.transcribed']);
	});

	test('the credential switched to another account: re-activation registers one endpoint there, deletes nothing at the old, whose deliveries are refused', async () => {
		await setUpVariant();
		await activate();
		const [old] = mine();
		const oldRegistration = registration()!;
		// the user points the credential at another account; n8n keeps the hidden token fields as they were
		Object.assign(h.store.data, {
			clientId: SECOND_CLIENT.clientId,
			clientSecret: SECOND_CLIENT.clientSecret,
			assertion: SECOND_CLIENT.assertions[0],
		});
		const from = sandbox.requestLog.length;
		// n8n deactivates and activates the workflow
		await hook('delete');
		await activate();

		const [current, ...more] = mine().filter((e) => e.id !== old.id);
		expect(more).toEqual([]);
		expect(current.clientId).toBe(SECOND_CLIENT.clientId);
		expect(registration()).toMatchObject({
			tokenHash: hashOf(current.callbackUri),
			account: accountFingerprint({ baseUrl: sandbox.url, clientId: SECOND_CLIENT.clientId }),
		});
		// nothing deleted anywhere; the old account's endpoint is as it was
		expect(sandbox.requestLog.slice(from).filter((r) => r.method === 'DELETE')).toEqual([]);
		expect(sandbox.endpoints.get(old.id)).toEqual(old);
		expect(endpoints()).toHaveLength(3 + 2);
		// the new account's tokens came before any call, not after a refusal
		const calls = sandbox.requestLog.slice(from);
		expect(calls[0]).toMatchObject({ path: '/oauth/token', grantType: 'assertion', status: 200 });
		expect(calls.filter((r) => r.status === 401)).toEqual([]);
		// the log says which endpoint to delete, and where; no token
		const said = warnings.filter((w) => w.includes('another account'));
		expect(said).toHaveLength(1);
		expect(said[0]).toContain(
			`The webhook endpoint ${oldRegistration.endpointId ? `${String(oldRegistration.endpointId)} ` : ''}that delivers to ${productionUrl()} was registered with another account`,
		);
		expect(said[0]).toContain("delete it in that account's developers dashboard");
		expect(said[0]).not.toContain(tokenOf(old.callbackUri)!);

		// both endpoints deliver: the old one's token is no longer this trigger's
		expect((await deliverOne()).sort()).toEqual(EVENTS);
		const to = (id: string) =>
			sandbox.deliveries.filter((d) => d.endpointId === id).map((d) => d.status);
		expect(new Set(to(old.id))).toEqual(new Set([401]));
		expect(to(current.id)).toEqual([200, 200]);
	});

	test('Listen for test event, twice: at most one endpoint for the test URL, production untouched', async () => {
		await setUpVariant();
		await activate();
		const production = mine()[0];
		const saved = clone(server.staticData);
		for (let round = 1; round <= 2; round++) {
			// n8n starts every listen with empty static data and never saves it
			server.staticData = {};
			await activate('test');
			expect(mine(testUrl())).toHaveLength(1);
			expect(hashOf(mine(testUrl())[0].callbackUri)).toBe(registration()?.tokenHash);
			await hook('delete', 'test');
			expect(mine(testUrl())).toHaveLength(manages ? 0 : 1);
		}
		expect(posts()).toBe(3 + (manages ? 3 : 2));
		server.staticData = saved;
		expect(mine()).toEqual([production]);
	});
});

// ---- where the token travels: services that strip or refuse a callback URI's query (issue 32) ----

/** A service that strips or refuses the query, under each shape of creation answer, with and without reads. */
const QUERY_MATRIX: Array<[string, Variant]> = (['strip', 'refuse'] as const).flatMap((query) =>
	(
		[
			{},
			{ create: 'location' },
			{ create: 'empty' },
			{ manage: 'absent-404' },
			{ create: 'flat', manage: 'absent-405' },
		] as Variant[]
	).map((more): [string, Variant] => [
		Object.entries({ 'callback-query': query, ...more })
			.map(([d, v]) => `${d}=${v}`)
			.join(' '),
		{ 'callback-query': query, ...more },
	]),
);

/** The token of a callback URI on either route: its query parameter, or the token route's last segment. */
const anyTokenOf = (uri: string) =>
	new URL(uri).searchParams.get('token') ?? decodeURIComponent(uri.split('?')[0].split('/').pop()!);

describe.each(QUERY_MATRIX)('the token route with %s', (_name, variants) => {
	const manages = (variants.manage ?? 'full') === 'full';
	const strips = variants['callback-query'] === 'strip';
	let warnings: string[];
	const tokenRoute = () => `${server.baseUrl}/webhook/${node.webhookId}/${node.webhookId}/`;
	/** This workflow's endpoints at the service, on either route. */
	const mine = () =>
		endpoints().filter(
			(e) =>
				e.callbackUri.startsWith(tokenRoute()) || withoutQuery(e.callbackUri) === productionUrl(),
		);
	const onPath = () => mine().filter((e) => e.callbackUri.startsWith(tokenRoute()));
	const posts = () =>
		sandbox.requestLog
			.filter((r) => r.method === 'POST' && r.path === '/webhook_endpoints')
			.map((r) => r.status);

	async function setUpVariant() {
		await setUp({}, { variants });
		const logger = h.hookContext(node, h.workflow(node)).logger;
		warnings = [];
		jest.spyOn(logger, 'warn').mockImplementation((message: string) => {
			warnings.push(message);
		});
	}

	afterEach(() => jest.restoreAllMocks());

	test('activation registers the token as the last path segment; both events run once; nothing without it', async () => {
		await setUpVariant();
		await activate();
		const [endpoint, ...more] = onPath();
		expect(more).toEqual([]);
		expect(endpoint.callbackUri).toMatch(
			new RegExp(`^${tokenRoute().replace(/[.?]/g, '\\$&')}[\\w-]{32}$`),
		);
		const token = anyTokenOf(endpoint.callbackUri);
		const account = accountFingerprint({ baseUrl: sandbox.url, clientId: DEFAULT_CLIENT.clientId });
		expect(server.staticData).toMatchObject({
			registration: {
				webhookUrl: productionUrl(),
				tokenRoute: 'path',
				pathUrl: `${tokenRoute()}:token`,
				tokenHash: hashToken(token),
				account,
				...(manages ? {} : { manageable: false }),
			},
			// the next registration for this account goes to the token route at once
			tokenRouteFor: account,
		});
		expect(JSON.stringify(server.staticData)).not.toContain(token);
		// a refused query is one 422 more; a stripped one an endpoint more, deleted where the service can
		expect(posts()).toEqual(strips ? [201, 201] : [422, 201]);
		const stripped = mine().filter((e) => !e.callbackUri.startsWith(tokenRoute()));
		expect(stripped).toHaveLength(strips && !manages ? 1 : 0);
		expect(warnings[0]).toMatch(
			strips
				? /^Captioning Trigger "Captioning Trigger": The captioning service stored the callback URI without its query string, which carries the trigger’s token, so the token now travels as the callback URI’s last path segment\./
				: /^Captioning Trigger "Captioning Trigger": The captioning service refused a callback URI with a query string \(HTTP 422: callback_uri must not contain a query string\), so the token now travels/,
		);
		expect(warnings.slice(1)).toEqual(
			strips && !manages
				? [
						expect.stringContaining(
							`the endpoint that delivers to ${productionUrl()} without the token stays registered`,
						),
					]
				: [],
		);
		for (const warning of warnings) expect(warning).not.toContain(token);

		const { events } = await sandbox.transcribe();
		await sandbox.idle();
		expect(server.executions.map((e) => e.items[0].json.eventType).sort()).toEqual(EVENTS);
		const to = (id: string) => sandbox.deliveries.filter((d) => d.endpointId === id);
		expect(to(endpoint.id).map((d) => d.status)).toEqual([200, 200]);
		// a stripped endpoint the service would not delete delivers without the token: refused, every time
		for (const e of stripped)
			expect(new Set(to(e.id).map((d) => d.status))).toEqual(new Set([401]));
		expect(JSON.stringify(server.executions)).not.toContain(token);
		expect(events).toHaveLength(2 + stripped.length * 2);

		const headers = { 'content-type': 'application/json' };
		const body = JSON.stringify(events[0].body);
		for (const url of [productionUrl(), `${tokenRoute()}guess`, `${productionUrl()}?token=guess`]) {
			expect((await fetch(url, { method: 'POST', headers, body })).status).toBe(401);
		}
		expect(server.executions).toHaveLength(2);
	});

	test('the next activations go to the token route at once; deactivation removes it where the service can', async () => {
		await setUpVariant();
		await activate();
		await hook('delete');
		expect(onPath()).toHaveLength(manages ? 0 : 1);
		await activate();
		expect(onPath()).toHaveLength(1);
		// where the service deletes, the second registration is one POST, on the token route
		expect(posts()).toEqual([...(strips ? [201, 201] : [422, 201]), ...(manages ? [201] : [])]);
		const before = server.executions.length;
		await sandbox.transcribe();
		await sandbox.idle();
		expect(
			server.executions
				.slice(before)
				.map((e) => e.items[0].json.eventType)
				.sort(),
		).toEqual(EVENTS);
		await hook('delete');
		expect(onPath()).toHaveLength(manages ? 0 : 1);
	});
});

describe('the token route, Listen for test event, and services that keep the query', () => {
	test('a test registration on a refusing service uses the test URL’s token route', async () => {
		await setUp({}, { variants: { 'callback-query': 'refuse' } });
		await activate('test');
		const [endpoint] = endpoints();
		expect(endpoint.callbackUri).toMatch(
			new RegExp(`/webhook-test/${node.webhookId}/${node.webhookId}/[\\w-]{32}$`),
		);
		await hook('delete', 'test');
		expect(endpoints()).toEqual([]);
	});

	test('a delivery on the token route with the token of a query registration is accepted', async () => {
		await setUp();
		await activate();
		const token = anyTokenOf(endpoints()[0].callbackUri);
		const { events } = await sandbox.transcribe();
		await sandbox.idle();
		const res = await fetch(
			`${server.baseUrl}/webhook/${node.webhookId}/${node.webhookId}/${token}`,
			{
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: typeof events[0].body === 'string' ? events[0].body : JSON.stringify(events[0].body),
			},
		);
		// the same event again: acknowledged as a duplicate, so the route and the token were accepted
		expect(res.status).toBe(200);
		expect(await json(res)).toEqual({ received: true, duplicate: true });
	});
});

describe('a token-route registration saved by the release before (its path the expression `={{$webhookId}}/:token`)', () => {
	test('is verified and kept at the next publication (no new endpoint), receives, and is deleted at unpublishing', async () => {
		await setUp({}, { variants: { 'callback-query': 'refuse' } });
		await activate();
		const [endpoint, ...more] = endpoints();
		expect(more).toEqual([]);
		const token = anyTokenOf(endpoint.callbackUri);
		const account = accountFingerprint({ baseUrl: sandbox.url, clientId: DEFAULT_CLIENT.clientId });
		// what that release wrote, spelled out: the URL n8n rendered for its expression path
		const route = `${server.baseUrl}/webhook/${node.webhookId}/${node.webhookId}`;
		expect(endpoint.callbackUri).toBe(`${route}/${token}`);
		server.staticData = {
			registration: {
				webhookUrl: productionUrl(),
				events: EVENTS,
				tokenHash: hashToken(token),
				account,
				tokenRoute: 'path',
				pathUrl: `${route}/:token`,
				endpointId: endpoint.id,
			},
			tokenRouteFor: account,
		};
		const before = apiCalls().length;
		await activate();
		expect(apiCalls().slice(before)).toEqual(['GET 200']);
		expect(endpoints()).toEqual([endpoint]);
		await sandbox.transcribe();
		await sandbox.idle();
		expect(server.executions.map((e) => e.items[0].json.eventType).sort()).toEqual(EVENTS);
		await hook('delete');
		expect(endpoints()).toEqual([]);
	});
});

describe('manual registration and its Secret Token', () => {
	const SECRET = 'manual-secret-value-0123456789';

	/** A manual trigger of this typeVersion: its Secret Token a parameter before 3, a credential from 3. */
	async function manual(typeVersion: number, secret: string | undefined) {
		await setUp({
			registration: 'manual',
			...(typeVersion < 3 ? { manualToken: secret ?? '' } : {}),
		});
		node.typeVersion = typeVersion;
		if (typeVersion < 3) return;
		// the harness's store answers every credential type: this one holds the Secret Token
		node.credentials =
			secret === undefined
				? {}
				: { captioningWebhookSecretApi: { id: 'cred-secret', name: 'Webhook Secret' } };
		h.store.data = { secretToken: secret ?? '' };
	}

	let eventId = '';
	beforeEach(() => {
		// the in-process claims outlive a test: each test's event is its own
		eventId = `evt-manual-${Math.random().toString(36).slice(2)}`;
	});
	const post = (url: string) =>
		fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				data: {
					id: eventId,
					type: 'webhook_event',
					attributes: { event_type: 'transcription.created', uri: 'https://x/1' },
				},
			}),
		});

	test('typeVersion 3 without a Webhook Secret credential cannot be published, and refuses every delivery', async () => {
		await manual(3, undefined);
		await expect(activate()).rejects.toThrow(
			'This trigger has no Secret Token. Create a Captioning Webhook Secret API credential',
		);
		const res = await post(productionUrl());
		expect(res.status).toBe(401);
		expect((await json(res)).error).toMatch(/^This trigger has no Secret Token\./);
		expect(server.executions).toEqual([]);
		expect(sandbox.requestLog).toEqual([]);
	});

	test('typeVersion 3 with an empty or unusable Secret Token cannot be published: it says why', async () => {
		await manual(3, '');
		await expect(activate()).rejects.toThrow('This trigger has no Secret Token.');
		await server.close();
		await sandbox.stop();
		await manual(3, 'too-short');
		await expect(activate()).rejects.toThrow(
			'The Secret Token has 9 characters: use at least 24, so that it cannot be guessed. Give the trigger’s Captioning Webhook Secret API credential another Secret Token',
		);
	});

	test('with its Webhook Secret: 401 without it or with another, a start with it, in the query or the path', async () => {
		await manual(3, SECRET);
		await activate();
		expect((await post(productionUrl())).status).toBe(401);
		expect((await post(`${productionUrl()}?token=guess`)).status).toBe(401);
		expect(server.executions).toEqual([]);
		expect((await post(`${productionUrl()}?token=${SECRET}`)).status).toBe(200);
		const onPath = await post(
			`${server.baseUrl}/webhook/${node.webhookId}/${node.webhookId}/${SECRET}`,
		);
		expect(await json(onPath)).toEqual({ received: true, duplicate: true });
		expect(server.executions).toHaveLength(1);
		expect(JSON.stringify(server.executions)).not.toContain(SECRET);
		expect(sandbox.requestLog).toEqual([]);
	});

	test('typeVersion 1 or 2 with its Secret Token parameter (as 0.1.0 saved it) checks it', async () => {
		await manual(2, SECRET);
		await activate();
		expect((await post(productionUrl())).status).toBe(401);
		expect((await post(`${productionUrl()}?token=${SECRET}`)).status).toBe(200);
		expect(server.executions).toHaveLength(1);
	});

	test('typeVersion 1 or 2 without a Secret Token (as 0.1.0 saved it) runs, and warns at every publication', async () => {
		for (const typeVersion of [1, 2]) {
			eventId = `evt-open-${typeVersion}-${Math.random().toString(36).slice(2)}`;
			await manual(typeVersion, '');
			const logger = h.hookContext(node, h.workflow(node)).logger;
			const warnings: string[] = [];
			jest.spyOn(logger, 'warn').mockImplementation((message: string) => {
				warnings.push(message);
			});
			await activate();
			await activate();
			expect(warnings).toEqual([
				`Captioning Trigger "Captioning Trigger": ${OPEN_MANUAL_WARNING}`,
				`Captioning Trigger "Captioning Trigger": ${OPEN_MANUAL_WARNING}`,
			]);
			jest.restoreAllMocks();
			expect((await post(productionUrl())).status).toBe(200);
			expect(server.executions).toHaveLength(1);
			await server.close();
			await sandbox.stop();
		}
	});
});
