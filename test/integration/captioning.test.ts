// The Captioning node's operations through n8n-core's real ExecuteContext, against the sandbox over real HTTP.
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { Captioning } from '../../nodes/Captioning/Captioning.node';
import { allowingHost } from '../helpers/allowedHost';
import { createHarness, type Harness } from '../helpers/n8nContext';
import {
	type Sandbox,
	type SandboxOptions,
	startSandbox,
	VARIANT_DIMENSIONS,
	type Variants,
} from '../../sandbox/server';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { createEndpoint, credentialsFor, obtainToken } from '../helpers/sandboxClient';

const captioning = new Captioning();
let sandbox: Sandbox;
let h: Harness;

async function setUp(options: SandboxOptions = {}) {
	sandbox = await startSandbox({ rateLimit: null, transcribeAfterMs: 0, ...options });
	h = createHarness(credentialsFor(sandbox), { captioning });
}

afterEach(async () => {
	await sandbox?.stop();
});

/** Runs the node once over the items, as n8n does; `settings.continueOnFail` as the node setting. */
async function run(
	parameters: IDataObject,
	items: INodeExecutionData[] = [{ json: {} }],
	settings: { continueOnFail?: boolean } = {},
) {
	const node = {
		...h.makeNode('captioning', allowingHost(parameters, sandbox.url) as INodeParameters),
		...(settings.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
	const ctx = h.executeContext(node, items);
	const [output] = await captioning.execute.call(ctx);
	return output;
}

async function transcribedItem(title = 'Board meeting'): Promise<INodeExecutionData> {
	const receiver: Receiver = await startReceiver();
	try {
		const { access_token } = await obtainToken(sandbox);
		await createEndpoint(sandbox, access_token, `${receiver.url}/hook`, [
			'transcription.transcribed',
		]);
		await sandbox.transcribe({
			title,
			text: 'Hello world. This is a caption test with ünïcode and 日本語.',
		});
		await sandbox.idle();
		const event = JSON.parse(receiver.received[0].body);
		const attributes = event.included[0].attributes;
		const files: IDataObject = {};
		for (const file of attributes.transcriptions) files[file.format] = file.url;
		return { json: { title, files, transcriptionId: event.included[0].id } };
	} finally {
		await receiver.close();
	}
}

const binaryText = (item: INodeExecutionData, key: string) =>
	Buffer.from(item.binary![key].data, 'base64').toString('utf8');

describe('Webhook Endpoint', () => {
	test('Create sends callback_uri and repeated enabled_events[] form-encoded, and outputs the endpoint flat', async () => {
		await setUp();
		const [item] = await run({
			resource: 'webhookEndpoint',
			operation: 'create',
			callbackUri: 'https://example.com/hooks/captions',
			events: ['transcription.created', 'transcription.transcribed'],
		});
		const [endpoint] = sandbox.endpoints.values();
		expect(endpoint.enabledEvents).toEqual(['transcription.created', 'transcription.transcribed']);
		expect(item.json).toEqual({
			id: endpoint.id,
			callback_uri: 'https://example.com/hooks/captions',
			enabled_events: endpoint.enabledEvents,
			created_at: endpoint.createdAt,
		});
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	test('Get Many honours Limit; Get and Delete work by ID', async () => {
		await setUp();
		for (const n of [1, 2, 3]) {
			await run({
				resource: 'webhookEndpoint',
				operation: 'create',
				callbackUri: `https://example.com/${n}`,
				events: ['transcription.created'],
			});
		}
		expect(
			await run({ resource: 'webhookEndpoint', operation: 'getAll', returnAll: false, limit: 2 }),
		).toHaveLength(2);
		const all = await run({ resource: 'webhookEndpoint', operation: 'getAll', returnAll: true });
		expect(all.map((i) => i.json.callback_uri)).toEqual([
			'https://example.com/1',
			'https://example.com/2',
			'https://example.com/3',
		]);
		const id = all[1].json.id as string;
		const [got] = await run({ resource: 'webhookEndpoint', operation: 'get', endpointId: id });
		expect(got.json.id).toBe(id);
		const [deleted] = await run({
			resource: 'webhookEndpoint',
			operation: 'delete',
			endpointId: id,
		});
		expect(deleted.json).toEqual({ id, deleted: true });
		expect(sandbox.endpoints.has(id)).toBe(false);
		await expect(
			run({ resource: 'webhookEndpoint', operation: 'get', endpointId: id }),
		).rejects.toThrow(`There is no webhook endpoint with ID "${id}" at the service (HTTP 404)`);
	});

	test('a bad callback URI is the user’s error (NodeOperationError with itemIndex), and nothing is sent', async () => {
		await setUp();
		const items = [
			{ json: { uri: 'https://ok.example.com' } },
			{ json: { uri: 'ftp://files.example.com' } },
		];
		const error = await run(
			{
				resource: 'webhookEndpoint',
				operation: 'create',
				callbackUri: 'ftp://files.example.com',
				events: ['transcription.created'],
			},
			items,
		).catch((e) => e);
		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toBe('The callback URI must use http or https, not ftp.');
		expect(error.context.itemIndex).toBe(0);
		expect(sandbox.requestLog.filter((r) => r.path === '/webhook_endpoints')).toEqual([]);
	});

	test("n8n's Custom API Call (which the editor answers with its notice) says where the call is made, and sends nothing", async () => {
		await setUp();
		for (const parameters of [
			{ resource: '__CUSTOM_API_CALL__' },
			{ resource: 'webhookEndpoint', operation: '__CUSTOM_API_CALL__' },
		]) {
			const error = await run(parameters).catch((e) => e);
			expect(error.name).toBe('NodeOperationError');
			expect(error.message).toBe('A Custom API Call runs in an HTTP Request node');
			expect(error.description).toBe(
				'Add an HTTP Request node with Authentication: Predefined Credential Type, Credential Type: Captioning API, and the full URL of the call: the credential adds the token and the Accept header.',
			);
		}
		expect(sandbox.requestLog).toEqual([]);
	});

	test('Continue On Fail turns a failing item into an error item and keeps going, with pairedItem', async () => {
		await setUp();
		const items = [{ json: {} }, { json: {} }];
		const output = await run(
			{
				resource: 'webhookEndpoint',
				operation: 'create',
				callbackUri: 'not a uri',
				events: ['transcription.created'],
			},
			items,
			{ continueOnFail: true },
		);
		expect(output).toEqual([
			{
				json: {
					error:
						'"not a uri" is not an absolute URI. Use the full address, starting with https://.',
				},
				pairedItem: { item: 0 },
			},
			{
				json: {
					error:
						'"not a uri" is not an absolute URI. Use the full address, starting with https://.',
				},
				pairedItem: { item: 1 },
			},
		]);
	});

	test('many items share one token and are paced within the rate limit: no 429 reaches the user', async () => {
		await setUp({ rateLimit: { limit: 5, windowMs: 1000 } });
		const items = Array.from({ length: 12 }, (_, n) => ({ json: { n } }));
		const started = Date.now();
		const output = await run(
			{
				resource: 'webhookEndpoint',
				operation: 'create',
				callbackUri: 'https://example.com/hook',
				events: ['transcription.created'],
			},
			items,
		);
		expect(output).toHaveLength(12);
		expect(sandbox.endpoints.size).toBe(12);
		expect(sandbox.stats.assertionGrants).toBe(1);
		expect(sandbox.stats.rateLimited).toBe(0);
		// 12 requests at 5 per second need at least two window changes
		expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
	});

	test('without announced limits, a 429 is retried after Retry-After and every item succeeds', async () => {
		await setUp({ rateLimit: { limit: 3, windowMs: 1000 }, announceRateLimit: false });
		const items = Array.from({ length: 5 }, (_, n) => ({ json: { n } }));
		const output = await run(
			{ resource: 'webhookEndpoint', operation: 'getAll', returnAll: true },
			items,
		);
		expect(output).toEqual([]);
		expect(sandbox.stats.rateLimited).toBeGreaterThanOrEqual(1);
		expect(
			sandbox.requestLog.filter((r) => r.path === '/webhook_endpoints' && r.status === 200),
		).toHaveLength(5);
	});

	test('a rate limit that would need a longer wait than allowed ends in a clear error, without waiting it out', async () => {
		await setUp({ rateLimit: { limit: 1, windowMs: 3_600_000 }, announceRateLimit: false });
		const started = Date.now();
		const error = await run({ resource: 'webhookEndpoint', operation: 'getAll', returnAll: true }, [
			{ json: {} },
			{ json: {} },
		]).catch((e) => e);
		expect(error.message).toMatch(
			/rate limit is used up for GET \/webhook_endpoints: it asks to wait \d+ s, longer than the 60 s a call may take in all\. Process fewer items/,
		);
		expect(error.httpCode).toBe('429');
		expect(Date.now() - started).toBeLessThan(5000);
	});
});

// ---- Webhook Endpoint under every reading of what the contract leaves unshown (sandbox variants, issue 12) ----

/** Every value of create, manage, resource and list one at a time (the defaults once), and the harsh mixes. */
const MATRIX: Array<[string, Partial<Variants>]> = [
	...(['create', 'manage', 'resource', 'list', 'members', 'endpoint-ids'] as const).flatMap(
		(dimension) =>
			VARIANT_DIMENSIONS[dimension]
				.filter((_value, index) => index > 0 || dimension === 'create')
				.map((value): [string, Partial<Variants>] => [
					`${dimension}=${value}`,
					{ [dimension]: value },
				]),
	),
	['create=empty manage=absent-405', { create: 'empty', manage: 'absent-405' }],
	['create=no-content manage=absent-404', { create: 'no-content', manage: 'absent-404' }],
	['resource=flat list=paged', { resource: 'flat', list: 'paged' }],
];

describe.each(MATRIX)('Webhook Endpoint with %s', (_name, variants) => {
	const manages = (variants.manage ?? 'full') === 'full';
	const givesId = !['empty', 'no-content'].includes(variants.create ?? 'jsonapi');
	const status = variants.manage === 'absent-404' ? 404 : 405;
	/** What the service said of an endpoint besides its id, URI and events: passed through as it came. */
	const said = (createdAt: string) =>
		variants.members === 'loose'
			? {
					Created_At: createdAt,
					description: null,
					disabled_at: null,
					metadata: { source: 'api', tags: [], retries: 5 },
				}
			: { created_at: createdAt };
	const create = (n: number) =>
		run({
			resource: 'webhookEndpoint',
			operation: 'create',
			callbackUri: `https://example.com/hooks/${n}?token=secret-${n}&keep=a+b`,
			events: ['transcription.transcribed'],
		});

	test('Create outputs the endpoint in one shape, the token redacted; the id, or null with a note', async () => {
		await setUp({ variants });
		const [item] = await create(1);
		const [endpoint] = sandbox.endpoints.values();
		const whole = ['jsonapi', 'flat', 'root-key'].includes(variants.create ?? 'jsonapi');
		expect(endpoint.callbackUri).toBe('https://example.com/hooks/1?token=secret-1&keep=a+b');
		expect(item.json).toEqual({
			id: givesId ? endpoint.id : null,
			callback_uri: 'https://example.com/hooks/1?token=[redacted]&keep=a+b',
			enabled_events: ['transcription.transcribed'],
			// only a whole resource in the answer says when it was created, and what was stored
			...(whole ? said(endpoint.createdAt) : {}),
			...(givesId && whole
				? {}
				: {
						note: [
							givesId
								? ''
								: 'The service created the endpoint but its answer did not include the endpoint’s ID. Get Many lists the endpoints with their IDs where the service offers it; otherwise find it in the service’s developers dashboard. ',
							'The service’s answer did not show the callback URI it stored: callback_uri is the one sent. The service’s answer did not show the enabled_events it stored: enabled_events are the ones sent.',
						].join(''),
					}),
		});
		expect(JSON.stringify(item.json)).not.toContain('secret-1');
	});

	test('Get Many follows every page (Return All) or stops at the Limit; tokens redacted', async () => {
		await setUp({ variants });
		for (const n of [1, 2, 3, 4, 5]) await create(n);
		const all = run({ resource: 'webhookEndpoint', operation: 'getAll', returnAll: true });
		if (!manages) {
			const error = await all.catch((e) => e);
			expect(error.name).toBe('NodeApiError');
			expect(error.message).toBe(
				`The captioning service does not offer listing webhook endpoints (GET /webhook_endpoints answered HTTP ${status})`,
			);
			expect(error.description).toBe(
				'Its published API only creates webhook endpoints. See the endpoints in the service’s developers dashboard.',
			);
			return;
		}
		const items = await all;
		expect(items.map((i) => i.json)).toEqual(
			[...sandbox.endpoints.values()].map((e, n) => ({
				id: e.id,
				callback_uri: `https://example.com/hooks/${n + 1}?token=[redacted]&keep=a+b`,
				enabled_events: ['transcription.transcribed'],
				...said(e.createdAt),
			})),
		);
		const before = sandbox.requestLog.length;
		const limited = await run({
			resource: 'webhookEndpoint',
			operation: 'getAll',
			returnAll: false,
			limit: 3,
		});
		expect(limited.map((i) => i.json.id)).toEqual(items.slice(0, 3).map((i) => i.json.id));
		// paged by 2: the Limit of 3 needs two pages, not three
		const pages = sandbox.requestLog.slice(before).filter((r) => r.method === 'GET');
		expect(pages).toHaveLength(variants.list === 'paged' ? 2 : 1);
	});

	test('Get and Delete by ID where the service has them; elsewhere a NodeApiError that says to use the dashboard', async () => {
		await setUp({ variants });
		await create(1);
		const [endpoint] = sandbox.endpoints.values();
		const get = run({ resource: 'webhookEndpoint', operation: 'get', endpointId: endpoint.id });
		const del = () =>
			run({ resource: 'webhookEndpoint', operation: 'delete', endpointId: endpoint.id });
		if (!manages) {
			const [getError, deleteError] = [await get.catch((e) => e), await del().catch((e) => e)];
			expect([getError.name, deleteError.name]).toEqual(['NodeApiError', 'NodeApiError']);
			expect(getError.message).toBe(
				`The captioning service does not offer reading webhook endpoints (GET /webhook_endpoints/{id} answered HTTP ${status})`,
			);
			expect(getError.description).toMatch(
				/See the endpoint in the service’s developers dashboard/,
			);
			expect(deleteError.message).toBe(
				`The captioning service does not offer deleting webhook endpoints (DELETE /webhook_endpoints/{id} answered HTTP ${status})`,
			);
			expect(deleteError.description).toMatch(
				/Delete the endpoint in the service’s developers dashboard/,
			);
			expect(sandbox.endpoints.size).toBe(1);
			return;
		}
		const [got] = await get;
		expect(got.json).toEqual({
			id: endpoint.id,
			callback_uri: 'https://example.com/hooks/1?token=[redacted]&keep=a+b',
			enabled_events: ['transcription.transcribed'],
			...said(endpoint.createdAt),
		});
		expect((await del())[0].json).toEqual({ id: endpoint.id, deleted: true });
		expect(sandbox.endpoints.size).toBe(0);
		await expect(del()).rejects.toThrow(
			`There is no webhook endpoint with ID "${endpoint.id}" at the service (HTTP 404)`,
		);
	});
});

describe('Caption File', () => {
	test('Download from a Captioning Trigger item puts the chosen format in a binary field with its MIME type and name', async () => {
		await setUp();
		const item = await transcribedItem();
		const [vtt] = await run(
			{
				resource: 'captionFile',
				operation: 'download',
				source: 'triggerItem',
				format: 'vtt',
				binaryPropertyName: 'captions',
			},
			[item],
		);
		expect(vtt.binary!.captions).toMatchObject({
			mimeType: 'text/vtt',
			fileName: 'board-meeting.vtt',
			fileExtension: 'vtt',
		});
		expect(binaryText(vtt, 'captions')).toMatch(/^WEBVTT\n/);
		expect(vtt.json).toEqual(item.json);
		const [stt] = await run(
			{
				resource: 'captionFile',
				operation: 'download',
				source: 'url',
				url: (item.json.files as IDataObject).google_stt,
				format: 'google_stt',
				binaryPropertyName: 'data',
			},
			[item],
		);
		expect(stt.binary!.data).toMatchObject({
			mimeType: 'application/json',
			fileName: 'board-meeting.google_stt.json',
		});
		expect(JSON.parse(binaryText(stt, 'data')).results.length).toBeGreaterThan(0);
		// signed URLs are fetched without the credential: nothing went to the API
		expect(sandbox.requestLog.filter((r) => r.path === '/oauth/token')).toHaveLength(1);
	});

	test('an expired signed URL says so and what to do; a forged one says it was refused', async () => {
		await setUp();
		const item = await transcribedItem();
		sandbox.advanceClock(3601);
		const expired = await run(
			{
				resource: 'captionFile',
				operation: 'download',
				source: 'triggerItem',
				format: 'vtt',
				binaryPropertyName: 'data',
			},
			[item],
		).catch((e) => e);
		expect(expired.message).toMatch(
			/signed URL of .* has expired.*turn on "Download Caption Files" in the Captioning Trigger/,
		);
		expect(expired.message).not.toMatch(/signature=/);
		expect(expired.httpCode).toBe('403');
		const forged = (item.json.files as IDataObject).vtt as string;
		const refused = await run({
			resource: 'captionFile',
			operation: 'download',
			source: 'url',
			url: forged.replace(/signature=\w{6}/, 'signature=abcdef'),
			format: 'vtt',
			binaryPropertyName: 'data',
		}).catch((e) => e);
		expect(refused.message).toMatch(/was refused \(HTTP 403\): it was altered or has expired/);
	});

	test('an item without the chosen format names what it has', async () => {
		await setUp();
		const error = await run(
			{
				resource: 'captionFile',
				operation: 'download',
				source: 'triggerItem',
				format: 'google_stt',
				binaryPropertyName: 'data',
			},
			[{ json: { files: { vtt: 'https://x' } } }],
		).catch((e) => e);
		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toBe('The input item has no google_stt file URL');
		expect(error.description).toBe('It has: vtt. Choose one of those formats.');
	});

	test('Convert: VTT → SRT file, text and segments; Google STT → words and VTT; formats detected', async () => {
		await setUp();
		const item = await transcribedItem('Weekly sync');
		const [withVtt] = await run(
			{
				resource: 'captionFile',
				operation: 'download',
				source: 'triggerItem',
				format: 'vtt',
				binaryPropertyName: 'vtt',
			},
			[item],
		);
		const [srt] = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				binaryPropertyName: 'vtt',
				from: 'auto',
				to: 'srt',
				outputBinaryPropertyName: 'srt',
				options: {},
			},
			[withVtt],
		);
		expect(srt.binary!.srt).toMatchObject({
			mimeType: 'application/x-subrip',
			fileName: 'weekly-sync.srt',
		});
		expect(binaryText(srt, 'srt')).toMatch(/^1\n00:00:00,\d{3} --> 00:00:0\d,\d{3}\nHello world\./);
		const [text] = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				binaryPropertyName: 'vtt',
				from: 'vtt',
				to: 'text',
				options: {},
			},
			[withVtt],
		);
		expect(text.json.text).toBe('Hello world. This is a caption test with ünïcode and 日本語.');
		const [segments] = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				binaryPropertyName: 'vtt',
				from: 'auto',
				to: 'segments',
				options: {},
			},
			[withVtt],
		);
		expect((segments.json.segments as IDataObject[])[0]).toMatchObject({
			start: expect.any(Number),
			end: expect.any(Number),
			text: 'Hello world.',
		});

		const [withStt] = await run(
			{
				resource: 'captionFile',
				operation: 'download',
				source: 'triggerItem',
				format: 'google_stt',
				binaryPropertyName: 'stt',
			},
			[item],
		);
		const [words] = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				binaryPropertyName: 'stt',
				from: 'auto',
				to: 'words',
				options: {},
			},
			[withStt],
		);
		expect((words.json.words as IDataObject[]).map((w) => w.text).slice(0, 2)).toEqual([
			'Hello',
			'world.',
		]);
		const [vtt] = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				binaryPropertyName: 'stt',
				from: 'google_stt',
				to: 'vtt',
				outputBinaryPropertyName: 'out',
				options: { maxCueSeconds: 2 },
			},
			[withStt],
		);
		expect(binaryText(vtt, 'out')).toMatch(/^WEBVTT\n/);
		expect(vtt.binary!.out.fileName).toBe('weekly-sync.vtt');
	});

	test('Convert reads text or a URL too: what an AI agent tool has, since tools get no input files', async () => {
		await setUp();
		const item = await transcribedItem('Tool call');
		const [fromUrl] = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				inputSource: 'url',
				url: (item.json.files as IDataObject).vtt,
				from: 'auto',
				to: 'text',
				options: {},
			},
			[{ json: {} }],
		);
		expect(fromUrl.json.text).toBe('Hello world. This is a caption test with ünïcode and 日本語.');
		const vtt =
			'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nFirst line\n\n00:00:03.000 --> 00:00:04.000\nSecond\n';
		const [fromText] = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				inputSource: 'text',
				content: vtt,
				from: 'auto',
				to: 'srt',
				outputBinaryPropertyName: 'srt',
				options: {},
			},
			[{ json: {} }],
		);
		expect(binaryText(fromText, 'srt')).toBe(
			'1\n00:00:01,000 --> 00:00:02,500\nFirst line\n\n2\n00:00:03,000 --> 00:00:04,000\nSecond\n',
		);
		expect(fromText.binary!.srt.fileName).toBe('captions.srt');
		sandbox.advanceClock(3601);
		const expired = await run({
			resource: 'captionFile',
			operation: 'convert',
			inputSource: 'url',
			url: (item.json.files as IDataObject).vtt,
			from: 'vtt',
			to: 'text',
			options: {},
		}).catch((e) => e);
		expect(expired.message).toMatch(/has expired/);
		const empty = await run({
			resource: 'captionFile',
			operation: 'convert',
			inputSource: 'text',
			content: ' ',
			from: 'auto',
			to: 'text',
			options: {},
		}).catch((e) => e);
		expect(empty.message).toBe('Caption Text is empty');
	});

	test('Convert refuses what cannot be done, saying what can', async () => {
		await setUp();
		const vttItem: INodeExecutionData = {
			json: {},
			binary: {
				data: {
					data: Buffer.from('WEBVTT\n\n00:00.000 --> 00:01.000\nHi\n').toString('base64'),
					mimeType: 'text/vtt',
				},
			},
		};
		const words = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				binaryPropertyName: 'data',
				from: 'auto',
				to: 'words',
				options: {},
			},
			[vttItem],
		).catch((e) => e);
		expect(words.message).toBe('Cannot convert WebVTT to Words JSON');
		expect(words.description).toMatch(
			/^Words JSON needs word timings, which only Google Speech-to-Text JSON files have\. From WebVTT this node can produce: .*srt/,
		);
		const garbage: INodeExecutionData = {
			json: {},
			binary: { data: { data: Buffer.from('hello').toString('base64'), mimeType: 'text/plain' } },
		};
		const unknown = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				binaryPropertyName: 'data',
				from: 'auto',
				to: 'srt',
				options: {},
			},
			[garbage],
		).catch((e) => e);
		expect(unknown.message).toBe('The file in "data" is not a caption file this node reads');
		expect(unknown.description).toMatch(
			/^It reads Google Speech-to-Text JSON, SBV .*, SRT, WebVTT\. Choose/,
		);
		const broken = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				binaryPropertyName: 'data',
				from: 'vtt',
				to: 'srt',
				options: {},
			},
			[garbage],
		).catch((e) => e);
		expect(broken.message).toMatch(/The WebVTT file in "data" cannot be read: .*WEBVTT/);
		const missing = await run(
			{
				resource: 'captionFile',
				operation: 'convert',
				binaryPropertyName: 'nope',
				from: 'vtt',
				to: 'srt',
				options: {},
			},
			[vttItem],
		).catch((e) => e);
		expect(missing.message).toBe('The input item has no binary field "nope"');
		expect(missing.description).toBe('It has: data.');
	});
});
