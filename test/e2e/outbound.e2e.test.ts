// The OWASP SSRF matrix in a real n8n 2.41.1 with its default settings (its own SSRF protection off), against every
// outside fetch of the package: Download, Convert as a node and as an AI agent's tool, and the trigger's downloads.
// A canary on 127.0.0.1 counts what reaches it. test/e2e/netsim.cjs, preloaded into n8n, is the test resolver and
// network: names that resolve to loopback or a private address as a hostile DNS answers them, and connections to
// private, CGNAT, link-local and IPv6 addresses that land on the canary. So a refused URL reaching no server is
// proved for every class of address, and the same URL with its host allowed is fetched from the canary.
// Each group runs as one n8n execution (its URLs as items, tool calls or files of one delivery).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';

import {
	ACTION_TYPE,
	createSandboxCredential,
	type ExecutionSummary,
	linearWorkflow,
	listExecutions,
	N8N_VERSION,
	type N8nInstance,
	packProject,
	removePacked,
	startN8n,
	triggerWorkflow,
	webhookNode,
} from '../../harness';
import { type Sandbox, startSandbox } from '../../sandbox/server';
import { createActiveWorkflow, requireStarted, stopAll } from '../helpers/suite';

const CANARY_BODY = `CANARY-${randomUUID()}`;
const NETSIM = {
	names: {
		'loopback.ssrf.test': ['127.0.0.1'],
		'private.ssrf.test': ['10.11.12.13'],
		'rebind.ssrf.test': ['93.184.216.34', '127.0.0.1'],
	},
	addresses: [
		'10.11.12.13',
		'172.16.5.6',
		'192.168.7.8',
		'100.64.1.2',
		'169.254.169.254',
		'fd00::1',
	],
};

let sandbox: Sandbox | undefined;
let n8n: N8nInstance | undefined;
let tarball: string | undefined;
let canary: { port: number; hits: string[]; server: Server } | undefined;
let model: { url: string; calls: unknown[]; server: Server } | undefined;
const sb = requireStarted('the sandbox', () => sandbox);
const instance = requireStarted('n8n', () => n8n);
const paths = new Map<string, string>();
const workflowIds = new Map<string, string>();

/** The matrix: every spelling and class of internal address, on the canary's port. */
function matrix(port: number): Array<[string, string]> {
	const at = (host: string, path = '/captions.vtt?signature=abc') =>
		`http://${host}:${port}${path}`;
	return [
		['dotted loopback', at('127.0.0.1')],
		['decimal', at('2130706433')],
		['hex', at('0x7f000001')],
		['octal', at('0177.0.0.1')],
		['short', at('127.1')],
		['mixed hex', at('0x7f.1')],
		['[::1]', at('[::1]')],
		['[::]', at('[::]')],
		['0.0.0.0', at('0.0.0.0')],
		['IPv4-mapped', at('[::ffff:127.0.0.1]')],
		['NAT64', at('[64:ff9b::7f00:1]')],
		['localhost', at('localhost')],
		['the machine’s own name', at(hostname())],
		['a name resolving to loopback', at('loopback.ssrf.test')],
		['a name resolving to a private address', at('private.ssrf.test')],
		['a name resolving to public and loopback', at('rebind.ssrf.test')],
		['cloud metadata', at('169.254.169.254', '/latest/meta-data/iam/security-credentials/')],
		['10/8', at('10.11.12.13')],
		['172.16/12', at('172.16.5.6')],
		['192.168/16', at('192.168.7.8')],
		['CGNAT', at('100.64.1.2')],
		['fc00::/7', at('[fd00::1]')],
	];
}

/** Each matrix URL behind a 302 from the service's own origin. */
const redirected = (urls: Array<[string, string]>) =>
	urls.map(([label, url]): [string, string] => [
		`302 to ${label}`,
		`${sb().url}/_sandbox/redirect?to=${encodeURIComponent(url)}`,
	]);

async function startCanary() {
	const hits: string[] = [];
	const server = createServer((req, res) => {
		hits.push(`${req.method} ${req.headers.host} ${req.url}`);
		res.writeHead(200, { 'content-type': 'text/vtt' });
		res.end(`WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${CANARY_BODY}\n`);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { port: (server.address() as AddressInfo).port, hits, server };
}

/** A stand-in OpenAI model: its first answer calls the captions tool once per URL the prompt lists, then it stops. */
async function startModel() {
	const calls: unknown[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const chat = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
				messages: Array<{ role: string; content: string | null }>;
				tools?: Array<{ function: { name: string } }>;
			};
			calls.push(chat);
			const asked = chat.messages.find((m) => m.role === 'user')?.content ?? '';
			const urls = asked.split('\n').filter((line) => line.startsWith('http'));
			const tool = chat.tools?.find((t) => /caption/i.test(t.function.name))?.function.name;
			const answered = chat.messages.some((m) => m.role === 'tool');
			const message =
				answered || !tool
					? { role: 'assistant', content: 'done' }
					: {
							role: 'assistant',
							content: null,
							tool_calls: urls.map((url, i) => ({
								id: `call_${i}`,
								type: 'function',
								function: { name: tool, arguments: JSON.stringify({ url }) },
							})),
						};
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					id: `chatcmpl-${calls.length}`,
					object: 'chat.completion',
					created: Math.floor(Date.now() / 1000),
					model: 'gpt-4o-mini',
					choices: [
						{ index: 0, message, finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop' },
					],
					usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
				}),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, server };
}

const captioning = (name: string, parameters: Record<string, unknown>) => ({
	id: randomUUID(),
	name,
	type: ACTION_TYPE,
	typeVersion: 1,
	// each URL an item: its error is its output, and the execution goes on
	onError: 'continueRegularOutput',
	parameters: { resource: 'captionFile', ...parameters },
});

/** Webhook (body.urls) → one item per URL → `node`, answering with every item. */
function perUrl(key: string, node: Record<string, unknown> & { name: string }) {
	const path = `outbound-${key}-${randomUUID()}`;
	paths.set(key, path);
	return linearWorkflow(`Outbound: ${key}`, [
		webhookNode(path, { parameters: { responseData: 'allEntries' } }),
		{
			id: randomUUID(),
			name: 'One per URL',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: 'body.urls', options: { destinationFieldName: 'url' } },
		},
		node,
	]);
}

const download = (options: Record<string, unknown> = {}) =>
	captioning('Download', {
		operation: 'download',
		source: 'url',
		url: '={{ $json.url }}',
		format: 'vtt',
		binaryPropertyName: 'data',
		options,
	});

const convert = (allowedHosts = '') =>
	captioning('Convert', {
		operation: 'convert',
		inputSource: 'url',
		url: '={{ $json.url }}',
		allowedHosts,
		from: 'vtt',
		to: 'text',
		options: {},
	});

/** Webhook (body.prompt) → an AI agent with the stand-in model and Convert as its tool, the URL from the model. */
function agentWorkflow(openAi: { id: string; name: string }) {
	const path = `outbound-tool-${randomUUID()}`;
	paths.set('tool', path);
	return {
		name: 'Outbound: Convert as a tool',
		nodes: [
			{ ...webhookNode(path, { parameters: { responseData: 'allEntries' } }), position: [0, 0] },
			{
				id: randomUUID(),
				name: 'Agent',
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: 2.2,
				position: [250, 0],
				parameters: { promptType: 'define', text: '={{ $json.body.prompt }}', options: {} },
			},
			{
				id: randomUUID(),
				name: 'Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.2,
				position: [250, 200],
				parameters: {
					model: {
						__rl: true,
						mode: 'list',
						value: 'gpt-4o-mini',
						cachedResultName: 'gpt-4o-mini',
					},
					options: {},
				},
				credentials: { openAiApi: openAi },
			},
			{
				id: randomUUID(),
				name: 'Read Captions',
				type: 'n8n-nodes-captioning.captioningTool',
				typeVersion: 1,
				position: [450, 200],
				parameters: {
					descriptionType: 'manual',
					toolDescription: 'Reads the captions at a URL.',
					resource: 'captionFile',
					operation: 'convert',
					inputSource: 'url',
					url: "={{ $fromAI('url', 'The URL of the caption file', 'string') }}",
					from: 'vtt',
					to: 'text',
					options: {},
				},
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
			Model: { ai_languageModel: [[{ node: 'Agent', type: 'ai_languageModel', index: 0 }]] },
			'Read Captions': { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

const trigger = { workflowId: '', url: '' };

beforeAll(async () => {
	tarball = await packProject();
	sandbox = await startSandbox({ rateLimit: null, transcribeAfterMs: 0 });
	canary = await startCanary();
	model = await startModel();
	n8n = await startN8n({
		packageTarball: tarball,
		env: {
			NODE_OPTIONS: `--require ${join(__dirname, 'netsim.cjs')}`,
			CAPTIONING_NETSIM: JSON.stringify(NETSIM),
		},
	});
	const openAi = await instance().createCredential('OpenAI account', 'openAiApi', {
		apiKey: 'sk-local-test',
		url: `${model.url}/v1`,
		header: false,
	});
	const sandboxHost = new URL(sb().url).host;
	const allowed = [
		`127.0.0.1:${canary.port}`,
		'10.11.12.13',
		'100.64.0.0/10',
		'fd00::/8',
		`loopback.ssrf.test:${canary.port}`,
	].join(', ');
	for (const [key, workflow] of [
		['download', perUrl('download', download())],
		['convert', perUrl('convert', convert())],
		// the service's origin allowed as a user would: the first hop is fetched, each redirect judged
		['via', perUrl('download via the service', download({ allowedHosts: sandboxHost }))],
		['allowed', perUrl('download allowed', download({ allowedHosts: allowed }))],
		['convert allowed', perUrl('convert allowed', convert(allowed))],
		['tool', agentWorkflow(openAi)],
	] as const) {
		workflowIds.set(key, await createActiveWorkflow(instance(), workflow));
	}
	const credential = await createSandboxCredential(instance(), sb(), 'Captioning account');
	const webhookId = randomUUID();
	const formats = Array.from({ length: 2 * matrix(1).length }, (_, i) => `f${i}`);
	trigger.workflowId = await createActiveWorkflow(
		instance(),
		triggerWorkflow({
			name: 'Outbound: the trigger’s downloads',
			webhookId,
			credential,
			parameters: {
				registration: 'api',
				events: ['transcription.transcribed'],
				// one file per URL of the matrix: any format name is a file to download
				options: { downloadFormats: ['vtt', ...formats] },
			},
		}),
	);
	const endpoint = [...sb().endpoints.values()].find((e) => e.callbackUri.includes(webhookId));
	trigger.url = endpoint!.callbackUri;
}, 300_000);

afterAll(async () => {
	await stopAll([
		() => n8n?.stop(),
		() => sandbox?.stop(),
		() => new Promise((resolve) => canary?.server.close(resolve)),
		() => new Promise((resolve) => model?.server.close(resolve)),
		() => removePacked(tarball),
	]);
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(key: string, body: Record<string, unknown>): Promise<any[]> {
	const res = await instance().request('POST', `${instance().webhookBaseUrl}/${paths.get(key)}`, {
		body,
	});
	if (res.status !== 200)
		throw new Error(`${key} answered ${res.status}: ${JSON.stringify(res.body)}`);
	return res.body as unknown[];
}

/** A delivery of a transcription whose files are `urls`, as the service sends it, to the trigger. */
async function deliver(urls: string[]): Promise<ExecutionSummary> {
	const before = (await listExecutions(instance(), { workflowId: trigger.workflowId })).length;
	const id = randomUUID();
	const event = {
		data: {
			id,
			type: 'webhook_event',
			attributes: {
				created_at: new Date().toISOString(),
				event_type: 'transcription.transcribed',
				uri: trigger.url,
			},
			relationships: { subject: { data: { id: 't-ssrf', type: 'transcription' } } },
		},
		included: [
			{
				id: 't-ssrf',
				type: 'transcription',
				attributes: {
					title: 'SSRF matrix',
					duration: 1,
					transcriptions: urls.map((url, i) => ({ format: `f${i}`, url })),
				},
			},
		],
	};
	const res = await instance().request('POST', trigger.url, { body: event });
	expect(res.status).toBe(200);
	const executions = await instance().waitForExecutions(trigger.workflowId, { count: before + 1 });
	return executions.find((e) => JSON.stringify(e.data).includes(id)) ?? executions[0];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const triggerItem = (execution: ExecutionSummary): any =>
	execution.data.resultData.runData['Captioning Trigger'][0].data.main[0][0];

/** Every refusal names the host's kind of address and the setting that allows it; nothing else came back. */
function expectRefused(label: string, said: unknown, setting: RegExp) {
	expect({ label, said }).toEqual({
		label,
		said: expect.stringMatching(/(was not fetched|was not read): /),
	});
	expect({ label, said }).toEqual({ label, said: expect.stringMatching(setting) });
}

// n8n 1.x gives a node no resolver: a name is judged by the address that answered, after its request
const RESOLVES = Number(N8N_VERSION.split('.')[0]) >= 2;
const onN8n2 = RESOLVES ? describe : describe.skip;
const onN8n1 = RESOLVES ? describe.skip : describe;

onN8n1('n8n 1.x: a name is judged by the address that answered, before its body is read', () => {
	test('literals and localhost reach no server; the machine’s own name gets its GET, not one byte of its body', async () => {
		const port = canary!.port;
		const literals = await call('download', {
			urls: [
				`http://2130706433:${port}/a.vtt`,
				`http://[::1]:${port}/b.vtt`,
				`http://localhost:${port}/c.vtt`,
			],
		});
		for (const item of literals) expect(item.error).toMatch(/was not fetched: /);
		expect(canary!.hits).toEqual([]);
		const [named] = await call('download', { urls: [`http://${hostname()}:${port}/d.vtt`] });
		expect(named.error).toMatch(/was not read: .* resolves to 127\.0\.0\.1, a loopback address/);
		expect(canary!.hits).toHaveLength(1);
		const executions = JSON.stringify(await listExecutions(instance(), { includeData: true }));
		expect(executions).not.toContain(CANARY_BODY);
		canary!.hits.length = 0;
	});
});

onN8n2('the SSRF matrix reaches no server, whatever fetches it', () => {
	test('Download: every spelling and class, directly and behind a 302 from the service’s origin', async () => {
		const direct = matrix(canary!.port);
		const items = await call('download', { urls: direct.map(([, url]) => url) });
		expect(items).toHaveLength(direct.length);
		direct.forEach(([label], i) => {
			expectRefused(label, items[i].error, /add .* to Allowed File Hosts under Options\.$/);
			expect(items[i]).not.toHaveProperty('data');
		});
		const via = redirected(direct);
		const hops = await call('download via the service', { urls: via.map(([, url]) => url) });
		via.forEach(([label], i) => {
			expectRefused(
				label,
				hops[i].error,
				/redirected \(HTTP 302\) to a URL that was not fetched: /,
			);
		});
		expect(canary!.hits).toEqual([]);
	});

	test('Convert as a node: the same, and no body quoted', async () => {
		const direct = matrix(canary!.port);
		const items = await call('convert', { urls: direct.map(([, url]) => url) });
		direct.forEach(([label], i) => {
			expectRefused(label, items[i].error, /Allowed File Hosts \(below the URL\)\.$/);
		});
		expect(canary!.hits).toEqual([]);
	});

	test('Convert as an AI agent’s tool: every URL the model asks for is refused', async () => {
		const direct = matrix(canary!.port);
		const prompt = ['Read these:', ...direct.map(([, url]) => url)].join('\n');
		await call('tool', { prompt });
		const calls = model!.calls as Array<{ messages: Array<{ role: string; content: string }> }>;
		const answers = calls
			.at(-1)!
			.messages.filter((m) => m.role === 'tool')
			.map((m) => m.content);
		expect(answers).toHaveLength(direct.length);
		// n8n's agent hands the model an empty answer for a tool that failed: the tool's runs say why
		const [execution] = await listExecutions(instance(), {
			workflowId: workflowIds.get('tool'),
			includeData: true,
		});
		const runs = execution.data.resultData.runData['Read Captions'] as Array<{
			error?: { message: string };
			data?: unknown;
		}>;
		expect(runs).toHaveLength(direct.length);
		direct.forEach(([label], i) => {
			expectRefused(label, runs[i].error?.message, /Allowed File Hosts \(below the URL\)\.$/);
		});
		expect(answers).toEqual(direct.map(() => ''));
		expect(canary!.hits).toEqual([]);
	});

	test('the trigger’s downloads: each file of one delivery, directly and behind a 302 from the service', async () => {
		const direct = matrix(canary!.port);
		const via = redirected(direct);
		const execution = await deliver([...direct, ...via].map(([, url]) => url));
		const item = triggerItem(execution);
		expect(item.binary ?? {}).toEqual({});
		const errors = item.json.downloadErrors as Array<{ format: string; message: string }>;
		expect(errors).toHaveLength(direct.length + via.length);
		[...direct, ...via].forEach(([label], i) => {
			const error = errors.find((e) => e.format === `f${i}`);
			expectRefused(label, error?.message, /Allowed File Hosts under the trigger's Options\.$/);
		});
		// another port of the Base URL's host is not the service's origin
		expect(errors[0].message).toMatch(/127\.0\.0\.1 is a loopback address/);
		expect(canary!.hits).toEqual([]);
	});

	test('the canary’s body appears in no execution and no log line', async () => {
		const executions = JSON.stringify(await listExecutions(instance(), { includeData: true }));
		expect(executions).toContain('was not fetched');
		expect(executions).not.toContain(CANARY_BODY);
		expect(instance().logs()).not.toContain(CANARY_BODY);
	});
});

onN8n2('allowed, the same URLs are fetched; the sandbox’s own files still download', () => {
	test('listed hosts, addresses and ranges reach the canary, through the simulated network too', async () => {
		const port = canary!.port;
		const urls = [
			`http://127.0.0.1:${port}/a.vtt`,
			`http://10.11.12.13:${port}/b.vtt`,
			`http://100.64.1.2:${port}/c.vtt`,
			`http://[fd00::1]:${port}/d.vtt`,
			`http://loopback.ssrf.test:${port}/e.vtt`,
		];
		const items = await call('download allowed', { urls });
		expect(items.map((item) => item.error)).toEqual(urls.map(() => undefined));
		expect(canary!.hits.map((hit) => hit.split(' ')[2])).toEqual([
			'/a.vtt',
			'/b.vtt',
			'/c.vtt',
			'/d.vtt',
			'/e.vtt',
		]);
		// the name is kept in Host where the checked address was connected to
		expect(canary!.hits[4]).toBe(`GET loopback.ssrf.test:${port} /e.vtt`);
		const read = await call('convert allowed', { urls: [urls[1]] });
		expect(read[0].text).toBe(CANARY_BODY);
		// still refused: a port not listed
		const other = await call('download allowed', {
			urls: [`http://127.0.0.1:${new URL(sb().url).port}/x.vtt`],
		});
		expect(other[0].error).toMatch(/was not fetched: 127\.0\.0\.1 is a loopback address/);
		canary!.hits.length = 0;
	});

	test('the trigger downloads the sandbox’s files: the Base URL’s origin is the service’s', async () => {
		const before = (await listExecutions(instance(), { workflowId: trigger.workflowId })).length;
		await sb().transcribe({ title: 'Still downloads' });
		const executions = await instance().waitForExecutions(trigger.workflowId, {
			count: before + 1,
		});
		const item = executions
			.map(triggerItem)
			.find((candidate) => candidate.json.title === 'Still downloads');
		expect(item.binary?.vtt).toMatchObject({ mimeType: 'text/vtt' });
		expect(item.json.downloadErrors).toBeUndefined();
		expect(canary!.hits).toEqual([]);
	});
});
