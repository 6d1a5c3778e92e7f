// The transport's edges (issue 22, item 5) through n8n-core's real request helpers, against the sandbox or a
// small loopback service that answers what the sandbox does not: the service's words quoting the callback token,
// a Base URL typed with spaces and slashes, and an execution cancelled while its request is in flight.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ExecuteContext } from 'n8n-core';
import { createRunExecutionData, type IDataObject, type INode } from 'n8n-workflow';

import { Captioning } from '../../nodes/Captioning/Captioning.node';
import { CaptioningTrigger } from '../../nodes/Captioning/CaptioningTrigger.node';
import { captioningApiCall } from '../../nodes/Captioning/transport';
import { createHarness, type Harness } from '../helpers/n8nContext';
import { credentialsFor } from '../helpers/sandboxClient';
import { type Sandbox, startSandbox } from '../../sandbox/server';

interface Loopback {
	url: string;
	seen: Array<{ method: string; path: string }>;
	close(): Promise<void>;
}

/** A service on 127.0.0.1 answering each request with `reply`, recording what it was asked. */
async function loopback(
	reply: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<Loopback> {
	const seen: Loopback['seen'] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			seen.push({ method: req.method ?? 'GET', path: (req.url ?? '').split('?')[0] });
			reply(req, Buffer.concat(chunks).toString('utf8'), res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		seen,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

const json = (res: ServerResponse, status: number, body: unknown) => {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
};

/** The token endpoint of a service that grants whatever it is asked. */
function grants(req: IncomingMessage, res: ServerResponse): boolean {
	if (!req.url?.startsWith('/oauth/token')) return false;
	// the token answer as the contract shows it (2.1): these tests are about what comes after it
	json(res, 200, {
		access_token: 'loopback-access-token',
		token_type: 'Bearer',
		expires_in: 7200,
		refresh_token: 'loopback-refresh-token',
		scope: 'write_transcriptions write_media',
		created_at: 1_767_225_600,
	});
	return true;
}

const values = (baseUrl: string) => ({
	baseUrl,
	clientId: 'loopback-client',
	clientSecret: 'loopback-secret-value',
	assertion: 'loopback-assertion-value',
	mediaType: 'application/vnd.service.v1',
});

let service: Loopback | undefined;
let sandbox: Sandbox | undefined;
afterEach(async () => {
	await service?.close();
	await sandbox?.stop();
	service = undefined;
	sandbox = undefined;
});

describe("the service's words never carry the callback token into an error or a log", () => {
	test('a refused registration that quotes the callback URI and the token itself', async () => {
		// a 422 makes the trigger try once more with the token as the last path segment: both are quoted back
		const tokens: string[] = [];
		service = await loopback((req, body, res) => {
			if (grants(req, res)) return;
			if (req.method === 'GET') return json(res, 200, { data: [] });
			const callbackUri = new URLSearchParams(body).get('callback_uri') ?? '';
			const url = new URL(callbackUri);
			const token = url.searchParams.get('token') ?? url.pathname.split('/').pop() ?? '';
			tokens.push(token);
			json(res, 422, {
				errors: [
					{
						status: '422',
						code: 'taken',
						title: 'Unprocessable',
						detail: `callback_uri ${callbackUri} is already registered; token ${token} is in use (see ${encodeURIComponent(callbackUri)})`,
						source: { pointer: '/data/attributes/callback_uri', value: callbackUri },
					},
				],
			});
		});
		const trigger = new CaptioningTrigger();
		const h = createHarness(values(service.url), { captioningTrigger: trigger });
		const node = h.makeNode(
			'captioningTrigger',
			{ registration: 'api', events: ['transcription.transcribed'], options: {} },
			'Captioning Trigger',
		);
		const ctx = h.hookContext(node, h.workflow(node));
		const logged: string[] = [];
		jest.spyOn(ctx.logger, 'warn').mockImplementation((m: string) => void logged.push(m));
		jest.spyOn(ctx.logger, 'error').mockImplementation((m: string) => void logged.push(m));
		const error = (await trigger
			.getNodeType(node.typeVersion)
			.webhookMethods!.default!.create.call(ctx)
			.catch((e: unknown) => e)) as
			| (Error & { description?: string; errorResponse?: unknown; messages?: string[] })
			| undefined;
		expect(tokens.map((token) => token.length)).toEqual([32, 32]);
		expect(error).toBeInstanceOf(Error);
		// the service's own words are kept, only the token is out
		expect(error!.message).toMatch(/The service rejected POST \/webhook_endpoints \(HTTP 422\): /);
		expect(error!.message).toContain('is already registered');
		const everything = JSON.stringify({
			message: error!.message,
			description: error!.description,
			response: error!.errorResponse,
			messages: error!.messages,
			logged,
		});
		expect(everything).toContain('[redacted]');
		for (const token of tokens) {
			expect(everything).not.toContain(token);
			expect(everything).not.toContain(encodeURIComponent(token));
		}
		jest.restoreAllMocks();
	});
});

describe('a service that echoes the request: no credential value in any form reaches an error', () => {
	/** Every form of a value a scan looks for: as it is, URL-encoded, base64 and hex, and inside decoded base64. */
	const holds = (text: string, value: string) => {
		const decoded = (text.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? []).map((run) =>
			Buffer.from(run, 'base64').toString('latin1'),
		);
		return [text, ...decoded].some(
			(t) =>
				t.includes(value) ||
				t.includes(encodeURIComponent(value)) ||
				t.includes(Buffer.from(value).toString('hex')),
		);
	};

	test('a 422 that repeats the Authorization header and the form, in detail, meta and message', async () => {
		service = await loopback((req, body, res) => {
			if (grants(req, res)) return;
			const auth = req.headers.authorization ?? '';
			const echo = `Authorization: ${auth} (base64 ${Buffer.from(auth).toString('base64')}, hex ${Buffer.from(auth).toString('hex')}); body: ${body}; ${'padding '.repeat(60)}`;
			json(res, 422, {
				errors: [
					{ status: '422', title: 'Unprocessable', detail: echo, meta: { authorization: auth } },
				],
				message: echo,
				error: echo,
				description: echo,
			});
		});
		const h = createHarness(values(service.url));
		const ctx = h.executeContext(h.makeNode('credentialProbe'), [{ json: {} }]);
		const error = (await captioningApiCall
			.call(ctx, {
				method: 'POST',
				path: '/webhook_endpoints',
				form: [['callback_uri', 'https://n8n.example.com/x?token=cb-token-0123456789']],
			})
			.catch((e: unknown) => e)) as Error & {
			description?: string;
			messages?: string[];
			errorResponse?: unknown;
			context?: unknown;
		};
		const everything = JSON.stringify({
			message: error.message,
			description: error.description,
			messages: error.messages,
			response: error.errorResponse,
			context: error.context,
			json: (error as unknown as { toJSON(): unknown }).toJSON(),
		});
		for (const value of [
			'loopback-access-token',
			'loopback-secret-value',
			'loopback-assertion-value',
			'loopback-refresh-token',
			'cb-token-0123456789',
		]) {
			expect({ value, shown: holds(everything, value) }).toEqual({ value, shown: false });
		}
		// the service's own words, bounded, after redaction
		expect(error.message).toMatch(
			/^The service rejected POST \/webhook_endpoints \(HTTP 422\): Authorization: Bearer \[redacted\]/,
		);
		expect(error.description!.length).toBeLessThanOrEqual(300);
		expect(everything).not.toContain(
			'padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding',
		);
	});
});

describe('one Base URL rule for every caller', () => {
	test('a Base URL typed with spaces and trailing slashes works for the action node, its paging and the trigger', async () => {
		sandbox = await startSandbox({ rateLimit: null, variants: { list: 'paged' } });
		const typed = `  ${sandbox.url}//  `;
		const captioning = new Captioning();
		const trigger = new CaptioningTrigger();
		const h: Harness = createHarness(credentialsFor(sandbox, { baseUrl: typed }), {
			captioning,
			trigger,
		});
		const run = async (parameters: IDataObject) => {
			const ctx = h.executeContext(h.makeNode('captioning', parameters as INode['parameters']), [
				{ json: {} },
			]);
			return (await captioning.execute.call(ctx))[0];
		};
		for (const n of [1, 2, 3]) {
			await run({
				resource: 'webhookEndpoint',
				operation: 'create',
				callbackUri: `https://example.com/hooks/${n}`,
				events: ['transcription.created'],
			});
		}
		// three on pages of two: the next-page link is followed below the same Base URL
		const listed = await run({ resource: 'webhookEndpoint', operation: 'getAll', returnAll: true });
		expect(listed.map((i) => i.json.callback_uri)).toEqual(
			[1, 2, 3].map((n) => `https://example.com/hooks/${n}`),
		);
		// the trigger registers and removes its endpoint with the same credential
		const node = h.makeNode(
			'trigger',
			{ registration: 'api', events: ['transcription.created'], options: {} },
			'Captioning Trigger',
		);
		const workflow = h.workflow(node);
		const hooks = trigger.getNodeType(node.typeVersion).webhookMethods!.default!;
		expect(await hooks.checkExists.call(h.hookContext(node, workflow))).toBe(false);
		await hooks.create.call(h.hookContext(node, workflow));
		expect(sandbox.endpoints.size).toBe(4);
		await hooks.delete.call(h.hookContext(node, workflow));
		expect(sandbox.endpoints.size).toBe(3);
		expect(sandbox.requestLog.every((r) => r.status < 400)).toBe(true);
	});
});

describe('a cancelled execution', () => {
	test('aborts the request in flight at once, and says it was cancelled during the request', async () => {
		let closed = false;
		service = await loopback((req, _body, res) => {
			if (grants(req, res)) return;
			// never answers: the request is in flight until the execution is cancelled
			res.on('close', () => (closed = true));
		});
		const h = createHarness(values(service.url));
		const node = h.makeNode('credentialProbe');
		const controller = new AbortController();
		const ctx = new ExecuteContext(
			h.workflow(node),
			node,
			h.additionalData(),
			'manual',
			createRunExecutionData(),
			0,
			[{ json: {} }],
			{ main: [[{ json: {} }]] },
			{ node, data: { main: [[{ json: {} }]] }, source: { main: [{ previousNode: 'Start' }] } },
			[],
			controller.signal,
		);
		const started = Date.now();
		const call = captioningApiCall
			.call(ctx, { method: 'GET', path: '/webhook_endpoints' })
			.catch((e: unknown) => e);
		setTimeout(() => controller.abort(), 300);
		const error = (await call) as Error;
		expect(Date.now() - started).toBeLessThan(2_000);
		expect(error.message).toBe(
			'The execution was cancelled during GET /webhook_endpoints (after 0 s): the request was aborted.',
		);
		// the connection was closed, and nothing was sent again
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(closed).toBe(true);
		expect(service.seen.filter((r) => r.path === '/webhook_endpoints')).toHaveLength(1);
	});
});
