// CaptioningTrigger.webhook() wired into n8n-core's real WebhookContext behind a real HTTP server
// (test/helpers/webhookServer.ts does around it what n8n's webhook handler does), with manual registration so
// that no service is needed, and a local file server for Download Caption Files. The pipeline's branches are in
// trigger.pipeline.test.ts; this proves the wiring a user meets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INode } from 'n8n-workflow';

import { CaptioningTrigger } from '../../nodes/Captioning/CaptioningTrigger.node';
import { hashToken } from '../../nodes/Captioning/trigger/token';
import { json } from '../helpers/http';
import { createHarness } from '../helpers/n8nContext';
import {
	startWebhookServer,
	type WebhookServer,
	type WebhookServerOptions,
} from '../helpers/webhookServer';

const TOKEN = 'manual-secret-token';
const trigger = new CaptioningTrigger();

let server: WebhookServer;
let files: Server;
let filesUrl: string;
let node: INode;
let ids = 0;

async function setUp(
	options: Record<string, string | string[] | boolean> = {},
	{
		registration = 'manual',
		staticData = {} as IDataObject,
		line = '2.x' as WebhookServerOptions['line'],
	} = {},
) {
	const h = createHarness({});
	node = h.makeNode(
		'captioningTrigger',
		{
			registration,
			manualToken: registration === 'manual' ? TOKEN : '',
			events: ['transcription.transcribed'],
			options,
		},
		'Captioning Trigger',
	);
	h.nodeTypes.getByName = () => trigger;
	h.nodeTypes.getByNameAndVersion = (_type, version) => trigger.getNodeType(version);
	server = await startWebhookServer(h, trigger, node, staticData, 0, { line });
}

beforeAll(async () => {
	files = createServer((req, res) => {
		if (req.url?.startsWith('/q3.vtt')) {
			res.writeHead(200, {
				'content-type': 'text/vtt',
				'content-disposition': 'attachment; filename="Q3 50% update.vtt"',
			});
			res.end('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nRevenue is up.\n');
		} else {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ errors: [{ detail: 'no such file' }] }));
		}
	});
	await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
	filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => files.close(() => resolve())));
afterEach(() => server?.close());

function event(change: (e: IDataObject & { data: IDataObject }) => void = () => undefined) {
	const e = {
		data: {
			id: `evt-${++ids}`,
			type: 'webhook_event',
			attributes: {
				created_at: '2026-11-22T10:00:00.123Z',
				event_type: 'transcription.transcribed',
				uri: `http://n8n.example.com/webhook/x/webhook?token=${TOKEN}`,
			},
			relationships: { subject: { data: { id: 't1', type: 'transcription' } } },
		},
		included: [
			{
				id: 't1',
				type: 'transcription',
				attributes: {
					title: 'Q3 50% update',
					duration: '12.5',
					average_confidence: '0.91',
					transcriptions: [
						{ format: 'vtt', url: `${filesUrl}/q3.vtt?signature=s` },
						{ format: 'google_stt', url: `${filesUrl}/missing.json?signature=s` },
					],
				},
			},
		],
	};
	change(e);
	return e;
}

const url = (test = false, token = TOKEN) =>
	`${server.baseUrl}/${test ? 'webhook-test' : 'webhook'}/${node.webhookId}/webhook?token=${token}`;

const post = (body: unknown, { type = 'application/json', test = false, token = TOKEN } = {}) =>
	fetch(url(test, token), {
		method: 'POST',
		headers: type ? { 'content-type': type } : {},
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});

/** n8n records an execution after the answer when the trigger answered itself. */
async function executions(count: number) {
	for (let i = 0; i < 100 && server.executions.length < count; i++) {
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return server.executions;
}

describe('webhook() in n8n-core’s WebhookContext', () => {
	test('a delivery with an id and a selected type starts one execution, however it is typed', async () => {
		await setUp();
		for (const type of ['application/json', 'application/vnd.api+json', 'text/plain', '']) {
			const res = await post(event(), { type });
			expect([type, res.status, await json(res)]).toEqual([
				type,
				200,
				{ message: 'Workflow was started' },
			]);
		}
		expect(server.executions).toHaveLength(4);
		expect(server.executions[0].items[0].json).toMatchObject({
			title: 'Q3 50% update',
			duration: 12.5,
			averageConfidence: 0.91,
		});
	});

	test('hostile deliveries are refused and start nothing', async () => {
		await setUp();
		const answers = [
			await post(event(), { token: 'guess' }),
			await post('hello', { type: 'text/plain' }),
			await post({ data: { attributes: { event_type: 'transcription.transcribed' } } }),
			await post('--b\r\nContent-Disposition: form-data; name="e"\r\n\r\n{}\r\n--b--\r\n', {
				type: 'multipart/form-data; boundary=b',
			}),
		];
		expect(answers.map((res) => res.status)).toEqual([401, 400, 400, 415]);
		for (const res of answers) expect(typeof (await json(res)).error).toBe('string');
		expect(server.executions).toHaveLength(0);
	});

	test('an unselected type is acknowledged', async () => {
		await setUp();
		const res = await post(
			event((e) => ((e.data.attributes as IDataObject).event_type = 'transcription.created')),
		);
		expect(await json(res)).toEqual({
			received: true,
			ignored: 'event type "transcription.created" is not selected',
		});
		expect(server.executions).toHaveLength(0);
	});

	test('the test URL and the production URL each start an event id once', async () => {
		await setUp();
		const e = event();
		const statuses = [];
		for (const test of [false, true, false, true]) {
			const res = await post(e, { test });
			statuses.push(`${test ? 'test' : 'production'}:${JSON.stringify(await json(res))}`);
		}
		expect(statuses).toEqual([
			'production:{"message":"Workflow was started"}',
			'test:{"message":"Workflow was started"}',
			'production:{"received":true,"duplicate":true}',
			'test:{"received":true,"duplicate":true}',
		]);
		expect(server.executions.map((x) => x.mode)).toEqual(['production', 'test']);
	});

	test('Raw Body: the event as it came, without the callback token', async () => {
		await setUp({ rawBody: true });
		const e = event();
		await post(e);
		const [execution] = await executions(1);
		expect(JSON.stringify(execution.items)).not.toContain(TOKEN);
		expect(execution.items[0].json).toEqual({
			...e,
			data: {
				...e.data,
				attributes: {
					...(e.data.attributes as IDataObject),
					uri: 'http://n8n.example.com/webhook/x/webhook',
				},
			},
		});
	});

	test('Download Caption Files: a failed file and an awkward name end up on the item', async () => {
		// the file server runs on this machine: allowed by the user, as the policy asks
		await setUp({ downloadFormats: ['vtt', 'google_stt'], allowedHosts: new URL(filesUrl).host });
		const res = await post(event());
		// the item goes to n8n with its files, and n8n answers: the trigger did not answer before them
		expect(await json(res)).toEqual({ message: 'Workflow was started' });
		const [execution] = await executions(1);
		const [item] = execution.items;
		expect(item.binary?.vtt).toMatchObject({ fileName: 'Q3 50% update.vtt', mimeType: 'text/vtt' });
		expect(item.json.transcript).toBe('Revenue is up.');
		expect(item.json.downloadErrors).toEqual([
			{ format: 'google_stt', message: expect.stringMatching(/no file at .*HTTP 404/) },
		]);
		// the files map keeps the signed URLs (they are the event's); messages never show a signature
		expect(JSON.stringify(item.json.downloadErrors)).not.toMatch(/signature=s/);
	});

	test('Download Caption Files: a file on this machine is refused unless allowed; the item says how to allow it', async () => {
		await setUp({ downloadFormats: ['vtt'] });
		await post(event());
		const [execution] = await executions(1);
		const [item] = execution.items;
		expect(item.binary).toBeUndefined();
		expect(item.json.downloadErrors).toEqual([
			{
				format: 'vtt',
				message: `${filesUrl}/q3.vtt?[redacted] was not fetched: 127.0.0.1 is a loopback address (n8n’s own machine). Only public addresses are fetched unless allowed: if this file server is trusted, add ${new URL(filesUrl).host} to Allowed File Hosts under the trigger's Options.`,
			},
		]);
	});

	test('Allowed File Hosts as an expression is not used, and the item says so', async () => {
		// a lone $fromAI() keeps its "=" in n8n (any other expression loses it in a noDataExpression field)
		await setUp({ downloadFormats: ['vtt'], allowedHosts: "={{ $fromAI('hosts') }}" });
		await post(event());
		const [execution] = await executions(1);
		const [item] = execution.items;
		expect(item.binary).toBeUndefined();
		expect(item.json.warnings).toEqual([
			"Allowed File Hosts under the trigger's Options is not used: Allowed File Hosts takes a fixed list, not an expression: a value from an item or an AI agent must not widen where files are fetched from.",
		]);
	});
});

describe('webhook() with an automatic registration: only the token’s hash is stored', () => {
	const stored = (token: Record<string, string>) => ({
		registration: {
			endpointId: 'ep-1',
			webhookUrl: 'http://n8n.example.com/webhook/x/webhook',
			events: ['transcription.transcribed'],
			...token,
		},
	});

	test('the hash matches: one execution without the token; the static data never gets it', async () => {
		await setUp(
			{ rawBody: true },
			{ registration: 'api', staticData: stored({ tokenHash: hashToken(TOKEN) }) },
		);
		const res = await post(event());
		expect(res.status).toBe(200);
		const [execution] = await executions(1);
		expect(execution.items[0].json).toMatchObject({
			data: { attributes: { uri: 'http://n8n.example.com/webhook/x/webhook' } },
		});
		expect(JSON.stringify(execution.items)).not.toContain(TOKEN);
		expect(server.staticData.registration).toEqual(
			stored({ tokenHash: hashToken(TOKEN) }).registration,
		);
		expect(JSON.stringify(server.staticData)).not.toContain(TOKEN);
	});

	test('the hash does not match, or no token: 401 and nothing starts', async () => {
		await setUp({}, { registration: 'api', staticData: stored({ tokenHash: hashToken(TOKEN) }) });
		const wrong = await post(event(), { token: 'guess' });
		const hash = await post(event(), { token: hashToken(TOKEN) });
		const none = await fetch(`${server.baseUrl}/webhook/${node.webhookId}/webhook`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(event()),
		});
		expect([wrong.status, hash.status, none.status]).toEqual([401, 401, 401]);
		expect((await json(wrong)).error).toMatch(/does not match/);
		expect((await json(hash)).error).toMatch(/does not match/);
		expect((await json(none)).error).toMatch(/no token/);
		expect(server.executions).toHaveLength(0);
	});

	test('a registration saved with the plain token (0.1.0) keeps working; activation, not a delivery, rewrites it', async () => {
		await setUp({ rawBody: true }, { registration: 'api', staticData: stored({ token: TOKEN }) });
		const refused = await post(event(), { token: 'guess' });
		expect(refused.status).toBe(401);
		const res = await post(event());
		expect(res.status).toBe(200);
		const [execution] = await executions(1);
		expect(JSON.stringify(execution.items)).not.toContain(TOKEN);
		expect((await post(event())).status).toBe(200);
		expect(await executions(2)).toHaveLength(2);
		expect(server.staticData).toEqual(stored({ token: TOKEN }));
	});

	test('a request that is not authenticated writes nothing into the static data, not even to a 0.1.0 registration', async () => {
		const saved = stored({ token: TOKEN });
		await setUp({}, { registration: 'api', staticData: saved });
		for (const token of ['guess', hashToken(TOKEN), '']) {
			expect((await post(event(), { token })).status).toBe(401);
		}
		// n8n saves a request's copy only when something changed it
		expect(server.staticData).toEqual(saved);
		expect(server.executions).toHaveLength(0);
	});

	test.each(['2.x', '1.x'] as const)(
		'n8n %s: an event that starts writes nothing into the static data either, with files or without',
		async (line) => {
			const saved = stored({ tokenHash: hashToken(TOKEN) });
			await setUp({ downloadFormats: ['vtt'] }, { registration: 'api', staticData: saved, line });
			expect((await post(event())).status).toBe(200);
			const withoutFiles = event((e) => {
				((e.included as IDataObject[])[0].attributes as IDataObject).transcriptions = [];
			});
			expect((await post(withoutFiles)).status).toBe(200);
			await executions(2);
			// n8n 1.x saves every changed copy, 2.x those changed after the start (the trigger answers files itself)
			expect(server.staticSaves).toBe(0);
			expect(server.staticData).toEqual(saved);
		},
	);

	test('no registration: 401 naming the fix', async () => {
		await setUp({}, { registration: 'api' });
		const res = await post(event());
		expect(res.status).toBe(401);
		expect((await json(res)).error).toMatch(/no registration.*deactivate and activate/);
		expect(server.executions).toHaveLength(0);
	});
});
