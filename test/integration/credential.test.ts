// The captioningApi credential through n8n-core's real request helpers, against the sandbox over real HTTP.
// Where a test needs to see the wire (which assertion a grant sent, whether a bearer arrived) or an answer the
// sandbox does not give (a redirect, an endpoint it lacks), a small recording front stands before the sandbox.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ExecuteContext, RoutingNode } from 'n8n-core';
import {
	createRunExecutionData,
	type ICredentialDataDecryptedObject,
	type IHttpRequestOptions,
	type INode,
	type INodeType,
	type INodeTypes,
	Workflow,
} from 'n8n-workflow';

import { CREDENTIAL_ID, createHarness, type Harness } from '../helpers/n8nContext';
import { waitFor } from '../helpers/suite';
import { credentialsFor, obtainToken } from '../helpers/sandboxClient';
import {
	DEFAULT_CLIENT,
	type Sandbox,
	type SandboxOptions,
	startSandbox,
} from '../../sandbox/server';
import { CaptioningApi } from '../../credentials/CaptioningApi.credentials';
import {
	type ApiRequest,
	captioningApiCall,
	type CaptioningContext,
} from '../../nodes/Captioning/transport';
import { z } from 'zod';

// the sandbox's default reading (JSON:API documents): these tests are about the credential, not endpoint shapes
const webhookEndpointDocumentSchema = z.object({
	data: z.object({ id: z.string() }).passthrough(),
});
const webhookEndpointListSchema = z.object({
	data: z.array(z.object({ id: z.string() }).passthrough()),
});

let sandbox: Sandbox;

/** One call through the transport as the nodes make it, its answer read with `schema`. */
async function callParsed(
	ctx: CaptioningContext,
	request: ApiRequest,
	schema: z.ZodTypeAny,
): Promise<z.infer<z.ZodTypeAny>> {
	return schema.parse((await captioningApiCall.call(ctx, request)).body);
}

const tokenCalls = (s: Sandbox) => s.requestLog.filter((r) => r.path === '/oauth/token');
const grants = (s: Sandbox) => tokenCalls(s).map((r) => `${r.grantType}:${r.status}`);

/** A refresh grant with the credential's refresh token, made elsewhere (another worker): rotation spends it. */
async function spendRefreshToken(h: Harness) {
	return await fetch(
		`${sandbox.url}/oauth/token?${new URLSearchParams({
			grant_type: 'refresh_token',
			refresh_token: String(h.store.data.refreshToken),
			client_id: DEFAULT_CLIENT.clientId,
			client_secret: DEFAULT_CLIENT.clientSecret,
		})}`,
		{ method: 'POST' },
	);
}

/** GET /webhook_endpoints through the package's transport, from an execute context of a fresh "execution". */
async function listEndpoints(h: Harness) {
	const node = h.makeNode('credentialProbe');
	const ctx = h.executeContext(node, [{ json: {} }]);
	return callParsed(ctx, { method: 'GET', path: '/webhook_endpoints' }, webhookEndpointListSchema);
}

async function createEndpoint(h: Harness, callbackUri: string) {
	const ctx = h.executeContext(h.makeNode('credentialProbe'), [{ json: {} }]);
	return callParsed(
		ctx,
		{
			method: 'POST',
			path: '/webhook_endpoints',
			form: [
				['callback_uri', callbackUri],
				['enabled_events[]', 'transcription.created'],
				['enabled_events[]', 'transcription.transcribed'],
			],
		},
		webhookEndpointDocumentSchema,
	);
}

beforeEach(async () => {
	sandbox = await startSandbox({ rateLimit: null });
});
afterEach(() => sandbox.stop());

describe('token economy', () => {
	test('a fresh credential makes exactly one assertion grant, and the headers of 5.3 go on the call', async () => {
		const h = createHarness(credentialsFor(sandbox));
		const result = await listEndpoints(h);
		expect(result.data).toEqual([]);
		expect(grants(sandbox)).toEqual(['assertion:200']);
		expect(h.store.data.accessToken).toEqual(expect.any(String));
		expect(h.store.data.refreshToken).toEqual(expect.any(String));
		expect(Number(h.store.data.expiresAt)).toBeGreaterThan(Date.now() + 7000 * 1000);
		expect(
			sandbox.requestLog.filter((r) => r.path === '/webhook_endpoints').map((r) => r.status),
		).toEqual([200]);
	});

	test('100 items in one execution and 20 further executions within the lifetime: one token request', async () => {
		const h = createHarness(credentialsFor(sandbox));
		const node = h.makeNode('credentialProbe');
		const ctx = h.executeContext(node, [{ json: {} }]);
		for (let i = 0; i < 100; i++) {
			await callParsed(
				ctx,
				{ method: 'GET', path: '/webhook_endpoints', itemIndex: i },
				webhookEndpointListSchema,
			);
		}
		for (let execution = 0; execution < 20; execution++) await listEndpoints(h);
		expect(tokenCalls(sandbox)).toHaveLength(1);
		expect(sandbox.stats.apiRequests).toBe(120);
	});
});

describe('executions that start together on a cold credential', () => {
	test('share one assertion grant (within a process) instead of one each', async () => {
		const h = createHarness(credentialsFor(sandbox));
		const results = await Promise.all(
			Array.from({ length: 20 }, async () => await listEndpoints(h)),
		);
		expect(results).toHaveLength(20);
		expect(grants(sandbox)).toEqual(['assertion:200']);
		expect(sandbox.stats.apiRequests).toBe(20);
	});

	test('a failed grant is not shared: fixing the credential works at once', async () => {
		const h = createHarness(credentialsFor(sandbox, { assertion: 'wrong-assertion-value' }));
		await expect(listEndpoints(h)).rejects.toThrow(/rejected the Assertion Token/);
		h.store.data.assertion = DEFAULT_CLIENT.assertions[0];
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(grants(sandbox)).toEqual(['assertion:400', 'assertion:200']);
	});
});

describe('renewal', () => {
	test('an expired access token: one refresh grant, and the POST is applied exactly once', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await listEndpoints(h);
		sandbox.advanceClock(7201);
		const created = await createEndpoint(h, 'http://127.0.0.1:1/hook');
		expect(created.data.attributes.callback_uri).toBe('http://127.0.0.1:1/hook');
		expect(grants(sandbox)).toEqual(['assertion:200', 'refresh_token:200']);
		const posts = sandbox.requestLog.filter(
			(r) => r.method === 'POST' && r.path === '/webhook_endpoints',
		);
		expect(posts.map((r) => r.status)).toEqual([401, 201]);
		expect(sandbox.endpoints.size).toBe(1);
	});

	test('a refresh token rotated away by another execution: falls back to the assertion and succeeds', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await listEndpoints(h);
		// another worker refreshed with the same refresh token and saved elsewhere: ours is now spent
		const staleRefresh = String(h.store.data.refreshToken);
		await fetch(
			`${sandbox.url}/oauth/token?${new URLSearchParams({
				grant_type: 'refresh_token',
				refresh_token: staleRefresh,
				client_id: DEFAULT_CLIENT.clientId,
				client_secret: DEFAULT_CLIENT.clientSecret,
			})}`,
			{ method: 'POST' },
		);
		sandbox.advanceClock(7201);
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(grants(sandbox)).toEqual([
			'assertion:200',
			'refresh_token:200',
			'refresh_token:400',
			'assertion:200',
		]);
	});

	test('all tokens revoked: the 401 leads to a refused refresh, then the assertion, and the call succeeds', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await listEndpoints(h);
		sandbox.tokens.revoke('all');
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(grants(sandbox)).toEqual(['assertion:200', 'refresh_token:400', 'assertion:200']);
	});
});

describe('failures name the cause and leak no secret', () => {
	const SECRET_VALUES = [
		DEFAULT_CLIENT.clientSecret,
		DEFAULT_CLIENT.assertions[0],
		'wrong-secret-value',
		'wrong-assertion-value',
	];

	async function failureOf(h: Harness) {
		try {
			await listEndpoints(h);
		} catch (error) {
			return error as Error & { description?: string };
		}
		throw new Error('expected the call to fail');
	}

	function expectNoSecret(error: Error & { description?: string }, extra: string[] = []) {
		const text =
			JSON.stringify({ ...error, text: error.message, about: error.description }) +
			String(error.stack);
		for (const secret of [...SECRET_VALUES, ...extra, ...sandbox.tokens.issuedSecrets()]) {
			expect(text).not.toContain(secret);
		}
	}

	test.each([
		[
			'a wrong assertion',
			{ assertion: 'wrong-assertion-value' },
			/rejected the Assertion Token \(invalid_grant\)/,
		],
		[
			'a wrong client secret',
			{ clientSecret: 'wrong-secret-value' },
			/rejected the Client ID or Client Secret \(invalid_client\)/,
		],
		[
			'a base URL with no service',
			{ baseUrl: 'http://127.0.0.1:9' },
			/Could not reach the captioning service at http:\/\/127\.0\.0\.1:9 \(connection refused\)/,
		],
		[
			'a base URL with a path that does not exist',
			{ baseUrl: '' },
			/no token endpoint at .*\/nowhere\/oauth\/token \(HTTP 404\)/,
		],
	])('%s', async (_name, overrides, message) => {
		const fixed = { ...overrides };
		if ('baseUrl' in fixed && fixed.baseUrl === '') fixed.baseUrl = `${sandbox.url}/nowhere`;
		const h = createHarness(credentialsFor(sandbox, fixed));
		const error = await failureOf(h);
		expect(error.message).toMatch(message);
		expectNoSecret(error);
	});

	test.each([
		['http500', /token endpoint failed with HTTP 500/],
		['html', /HTTP 200 with text\/html instead of a JSON token response/],
		['garbage', /not a valid token response \(access_token: Expected string, received number\)/],
	] as const)('token endpoint fault %s', async (fault, message) => {
		sandbox.tokenFault = fault;
		const error = await failureOf(createHarness(credentialsFor(sandbox)));
		expect(error.message).toMatch(message);
		expectNoSecret(error);
	});

	test.each([
		['stops listening (connection refused)', 'close', 'connection refused'],
		['drops the connection (connection closed)', 'drop', 'connection closed by the server'],
	] as const)(
		'a service that %s after issuing the token: the call says so in words, not as a raw code',
		async (_name, how, problem) => {
			let dropping = false;
			const front = await startFront(sandbox.url, (req) => {
				if (!dropping) return undefined;
				req.socket.destroy();
				// never sent (the connection is gone); answering here keeps the front from calling the sandbox
				return { status: 500 };
			});
			const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
			await listEndpoints(h);
			if (how === 'close') await front.close();
			else dropping = true;
			const error = await failureOf(h);
			expect(error.message).toBe(
				`Could not reach the captioning service for GET /webhook_endpoints (${problem}). Check the credential's Base URL and that n8n can reach that address, then try again.`,
			);
			expectNoSecret(error, [String(h.store.data.accessToken)]);
		},
	);

	test('a wrong API media type gets a 406 that says what to set', async () => {
		const error = await failureOf(
			createHarness(credentialsFor(sandbox, { mediaType: 'application/json' })),
		);
		expect(error.message).toMatch(
			/does not accept the API Media Type.*application\/vnd\.<service>\.v1/,
		);
		expect((error as { httpCode?: string }).httpCode).toBe('406');
		expectNoSecret(error);
	});
});

describe('preAuthentication in a credential test', () => {
	test('runs even with a saved token (n8n marks the test node), and the check call succeeds', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await listEndpoints(h);
		const testNode = { ...h.makeNode('n8n-nodes-base.noOp'), parameters: { temp: '' } };
		const helpers = { helpers: { httpRequest: (o: IHttpRequestOptions) => fetchLike(o) } };
		const output = await h
			.additionalData()
			.credentialsHelper.preAuthentication(
				helpers as never,
				{ ...h.store.data },
				'captioningApi',
				testNode,
				false,
			);
		expect(output?.accessToken).toEqual(expect.any(String));
		expect(grants(sandbox)).toEqual(['assertion:200', 'refresh_token:200']);
	});
});

/** n8n-core's own httpRequest helper, as the credential test's helpers carry it. */
async function fetchLike(options: IHttpRequestOptions) {
	const { Container } = await import('@n8n/di');
	const { OutboundHttp } = await import('@n8n/backend-network');
	return Container.get(OutboundHttp).requests().request(options);
}

// ---- the wire, seen from a recording front ------------------------------------------------------------------

interface Seen {
	method: string;
	path: string;
	/** The Authorization header as it arrived, if one did. */
	authorization?: string;
	grantType?: string;
	assertion?: string;
	refreshToken?: string;
	clientId?: string;
	status: number;
	at: number;
}

type Reply = { status: number; headers?: Record<string, string>; body?: unknown };

interface Front {
	url: string;
	seen: Seen[];
	close(): Promise<void>;
}

const fronts: Front[] = [];
afterEach(async () => {
	await Promise.all(fronts.splice(0).map((front) => front.close()));
});

/**
 * A server on its own port that records every request and either answers it itself (`reply`) or passes it on to
 * `target` (a leading /v1 is dropped on the way, for a redirect within the front's origin).
 */
async function startFront(
	target: string | undefined,
	reply: (req: IncomingMessage, url: URL) => Reply | undefined | Promise<Reply | undefined> = () =>
		undefined,
): Promise<Front> {
	const seen: Seen[] = [];
	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const url = new URL(req.url ?? '/', 'http://front');
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const param = (name: string) => url.searchParams.get(name) ?? undefined;
		const entry: Seen = {
			method: req.method ?? 'GET',
			path: url.pathname,
			authorization: req.headers.authorization,
			grantType: param('grant_type'),
			assertion: param('assertion'),
			refreshToken: param('refresh_token'),
			clientId: param('client_id'),
			status: 0,
			at: Date.now(),
		};
		seen.push(entry);
		const custom = (await reply(req, url)) ?? (target ? undefined : { status: 404, body: {} });
		if (custom) {
			const text = custom.body === undefined ? '' : JSON.stringify(custom.body);
			entry.status = custom.status;
			res.writeHead(custom.status, {
				...(text ? { 'content-type': 'application/json' } : {}),
				...custom.headers,
			});
			res.end(text);
			return;
		}
		const headers: Record<string, string> = {};
		for (const name of ['accept', 'authorization', 'content-type']) {
			const value = req.headers[name];
			if (typeof value === 'string') headers[name] = value;
		}
		const answer = await fetch(`${target}${url.pathname.replace(/^\/v1\//, '/')}${url.search}`, {
			method: entry.method,
			headers,
			body: chunks.length ? Buffer.concat(chunks) : undefined,
			redirect: 'manual',
		});
		const body = Buffer.from(await answer.arrayBuffer());
		const out: Record<string, string> = {};
		answer.headers.forEach((value, name) => {
			if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
				out[name] = value;
		});
		entry.status = answer.status;
		res.writeHead(answer.status, out);
		res.end(body);
	};
	const server = createServer((req, res) => void handle(req, res));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const front: Front = {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		seen,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
	fronts.push(front);
	return front;
}

/** One line per request: what a reader of the wire would note. */
const wire = (front: Front) =>
	front.seen.map((r) =>
		r.path === '/oauth/token'
			? `token ${r.grantType} ${r.status}`
			: `${r.method} ${r.path} ${r.authorization ? 'bearer' : 'no-bearer'} ${r.status}`,
	);

async function restart(options: SandboxOptions) {
	await sandbox.stop();
	sandbox = await startSandbox({ rateLimit: null, ...options });
}

const OLD_ASSERTION = 'as-old-assertion-0001';
const NEW_ASSERTION = 'as-new-assertion-0002';
const OTHER_CLIENT = {
	clientId: 'other-client-id',
	clientSecret: 'other-client-secret',
	assertions: [],
};

describe('saved tokens are used only with the values they were obtained with', () => {
	beforeEach(async () => {
		await restart({
			clients: [
				{ ...DEFAULT_CLIENT, assertions: [OLD_ASSERTION, NEW_ASSERTION] },
				{ ...OTHER_CLIENT, assertions: [NEW_ASSERTION] },
			],
		});
	});

	test.each([
		['the Assertion Token', { assertion: NEW_ASSERTION }],
		[
			'the Client ID and Secret',
			{
				clientId: OTHER_CLIENT.clientId,
				clientSecret: OTHER_CLIENT.clientSecret,
				assertion: NEW_ASSERTION,
			},
		],
		['the Base URL', { baseUrl: 'second front' }],
	])(
		'%s changed: the next call first makes exactly one assertion grant with the new values, then succeeds; no old token is sent',
		async (_name, change) => {
			const edit: Record<string, string> = change;
			const first = await startFront(sandbox.url);
			const second = await startFront(sandbox.url);
			const h = createHarness(
				credentialsFor(sandbox, { baseUrl: first.url, assertion: OLD_ASSERTION }),
			);
			await listEndpoints(h);
			const old = {
				access: String(h.store.data.accessToken),
				refresh: String(h.store.data.refreshToken),
			};

			// the user edits the credential: n8n keeps the hidden fields as they were
			Object.assign(h.store.data, edit);
			if (edit.baseUrl) h.store.data.baseUrl = second.url;
			const front = edit.baseUrl ? second : first;
			first.seen.length = 0;
			await expect(listEndpoints(h)).resolves.toEqual({ data: [] });

			// new tokens before the call, not after a refusal: a service may answer old ones 400 or 403
			expect(wire(front)).toEqual(['token assertion 200', 'GET /webhook_endpoints bearer 200']);
			expect(front.seen[0]).toMatchObject({
				assertion: h.store.data.assertion,
				clientId: h.store.data.clientId,
			});
			expect(front.seen[1].authorization).toBe(`Bearer ${String(h.store.data.accessToken)}`);
			const everything = JSON.stringify([...first.seen, ...second.seen]);
			expect(everything).not.toContain(old.access);
			expect(everything).not.toContain(old.refresh);

			// saved with the new fingerprint: the call after that goes straight through
			front.seen.length = 0;
			await listEndpoints(h);
			expect(wire(front)).toEqual(['GET /webhook_endpoints bearer 200']);

			// the old refresh token was never spent (the sandbox rotates them: a used one is refused)
			const refreshed = await fetch(
				`${sandbox.url}/oauth/token?${new URLSearchParams({
					grant_type: 'refresh_token',
					refresh_token: old.refresh,
					client_id: DEFAULT_CLIENT.clientId,
					client_secret: DEFAULT_CLIENT.clientSecret,
				})}`,
				{ method: 'POST' },
			);
			expect(refreshed.status).toBe(200);
		},
	);

	test('the old code path would have gone on with the old tokens: the control', async () => {
		const front = await startFront(sandbox.url);
		const h = createHarness(
			credentialsFor(sandbox, { baseUrl: front.url, assertion: OLD_ASSERTION }),
		);
		await listEndpoints(h);
		// the old access token still works at the service: only the fingerprint keeps it from being sent
		front.seen.length = 0;
		const res = await fetch(`${front.url}/webhook_endpoints`, {
			headers: {
				accept: sandbox.mediaType,
				authorization: `Bearer ${String(h.store.data.accessToken)}`,
			},
		});
		expect(res.status).toBe(200);
	});

	test('a credential test after the edit: one assertion grant with the new assertion, not the old refresh token', async () => {
		const front = await startFront(sandbox.url);
		const h = createHarness(
			credentialsFor(sandbox, { baseUrl: front.url, assertion: OLD_ASSERTION }),
		);
		await listEndpoints(h);
		const oldRefresh = String(h.store.data.refreshToken);
		h.store.data.assertion = NEW_ASSERTION;
		front.seen.length = 0;
		expect(await credentialTest(h)).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(wire(front)).toEqual(['token assertion 200', 'GET /webhook_endpoints bearer 200']);
		expect(front.seen[0].assertion).toBe(NEW_ASSERTION);
		expect(JSON.stringify(front.seen)).not.toContain(oldRefresh);
	});
});

describe('an upgrade from a version without fingerprints', () => {
	test('tokens saved before fingerprints existed (an upgrade of the package): one assertion grant, then as before', async () => {
		// saved by a version without fingerprints (a grant in this process would be shared for 10 s instead)
		const front = await startFront(sandbox.url);
		const earlier = await obtainToken(sandbox);
		const h = createHarness({
			...credentialsFor(sandbox, { baseUrl: front.url }),
			accessToken: earlier.access_token,
			refreshToken: earlier.refresh_token,
			expiresAt: Date.now() + 7_200_000,
		});
		await listEndpoints(h);
		await listEndpoints(h);
		expect(wire(front)).toEqual([
			'token assertion 200',
			'GET /webhook_endpoints bearer 200',
			'GET /webhook_endpoints bearer 200',
		]);
	});
});

describe('a refused refresh of any 4xx kind ends in one assertion grant and a working call', () => {
	test.each([
		['400 invalid_grant', 400, { error: 'invalid_grant' }],
		['401 invalid_grant', 401, { error: 'invalid_grant' }],
		['401 invalid_client', 401, { error: 'invalid_client' }],
		['400 without a body', 400, undefined],
		['401 without an error code', 401, { message: 'Unauthorized' }],
	])('%s', async (_name, status, body) => {
		// the front refuses refresh grants as a service of that reading would, and passes the rest on
		const front = await startFront(sandbox.url, (_req, url) =>
			url.searchParams.get('grant_type') === 'refresh_token' ? { status, body } : undefined,
		);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await listEndpoints(h);
		sandbox.advanceClock(7201);
		front.seen.length = 0;
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(wire(front)).toEqual([
			'GET /webhook_endpoints bearer 401',
			`token refresh_token ${status}`,
			'token assertion 200',
			'GET /webhook_endpoints bearer 200',
		]);
	});

	test.each<[string, Reply]>([
		['500', { status: 500, body: { errors: [{ status: '500', title: 'Internal Server Error' }] } }],
		['200 with an OAuth error', { status: 200, body: { error: 'invalid_grant' } }],
		['200 without access_token', { status: 200, body: { token_type: 'Bearer', expires_in: 7200 } }],
		[
			'200 with access_token null',
			{ status: 200, body: { access_token: null, refresh_token: 'x' } },
		],
	])(
		'a refresh answered %s (no token) ends in exactly one assertion grant and a working call; the dropped refresh token is not reused',
		async (_name, answer) => {
			const front = await startFront(sandbox.url, (_req, url) =>
				url.searchParams.get('grant_type') === 'refresh_token' ? answer : undefined,
			);
			const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
			await listEndpoints(h);
			const dropped = String(h.store.data.refreshToken);
			sandbox.advanceClock(7201);
			front.seen.length = 0;
			await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
			expect(wire(front)).toEqual([
				'GET /webhook_endpoints bearer 401',
				`token refresh_token ${answer.status}`,
				'token assertion 200',
				'GET /webhook_endpoints bearer 200',
			]);
			expect(front.seen[1].refreshToken).toBe(dropped);
			// the assertion's own refresh token is saved; the next renewal uses it, never the dropped one
			expect(h.store.data.refreshToken).not.toBe(dropped);
			sandbox.advanceClock(7201);
			front.seen.length = 0;
			await listEndpoints(h);
			expect(front.seen.filter((s) => s.grantType).map((s) => s.refreshToken)).not.toContain(
				dropped,
			);
		},
	);

	test('a refresh answered 503 three times (sent again twice, as API calls are): then exactly one assertion grant and a working call', async () => {
		const front = await startFront(sandbox.url, (_req, url) =>
			url.searchParams.get('grant_type') === 'refresh_token'
				? { status: 503, body: undefined }
				: undefined,
		);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await listEndpoints(h);
		sandbox.advanceClock(7201);
		front.seen.length = 0;
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(wire(front)).toEqual([
			'GET /webhook_endpoints bearer 401',
			'token refresh_token 503',
			'token refresh_token 503',
			'token refresh_token 503',
			'token assertion 200',
			'GET /webhook_endpoints bearer 200',
		]);
		const [first, second, third] = front.seen.filter((s) => s.grantType).map((s) => s.at);
		expect(second - first).toBeGreaterThanOrEqual(900);
		expect(third - second).toBeGreaterThanOrEqual(1_900);
	});

	test('a token endpoint failing for both grants: a clear error without secrets; the next call goes to the assertion', async () => {
		let failing = false;
		const front = await startFront(sandbox.url, (_req, url) =>
			failing && url.pathname === '/oauth/token' ? { status: 500, body: {} } : undefined,
		);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await listEndpoints(h);
		const dropped = String(h.store.data.refreshToken);
		failing = true;
		sandbox.advanceClock(7201);
		front.seen.length = 0;
		const error = (await listEndpoints(h).then(
			() => new Error('expected the call to fail'),
			(e: Error) => e,
		)) as Error;
		expect(error.message).toMatch(/token endpoint failed with HTTP 500/);
		expect(wire(front)).toEqual([
			'GET /webhook_endpoints bearer 401',
			'token refresh_token 500',
			'token assertion 500',
		]);
		expectNoSecretIn(JSON.stringify({ ...error, m: error.message, s: error.stack }));
		// nothing could be saved, and the refresh token that yielded nothing is not sent again
		failing = false;
		front.seen.length = 0;
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(wire(front)).toEqual([
			'GET /webhook_endpoints bearer 401',
			'token assertion 200',
			'GET /webhook_endpoints bearer 200',
		]);
		expect(JSON.stringify(front.seen)).not.toContain(dropped);
	});
});

// ---- the credential test, as n8n 2.41.1 runs it ---------------------------------------------------------------

type TestResult = { status: 'OK' | 'Error'; message: string };

/**
 * n8n 2.41.1's CredentialsTester.runRequestTest (packages/cli/src/services/credentials-tester.service.ts) for a
 * credential type with `test.request`, ported onto the harness: the request becomes the routing of a `temp`
 * parameter of a No Operation node, run by n8n-core's real RoutingNode (so preAuthentication sees a test), and
 * the `rules` are applied to the status of a failed answer.
 */
async function credentialTest(
	h: Harness,
	data: ICredentialDataDecryptedObject = { ...h.store.data },
): Promise<TestResult> {
	const testRequest = new CaptioningApi().test;
	const nodeType: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'n8n-nodes-base.noOp',
			group: ['organization'],
			version: 1,
			description: 'credential test',
			defaults: { name: 'No Operation, do nothing' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'captioningApi', required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		parameters: {},
		name: 'Temp-Node',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
		credentials: { captioningApi: { id: CREDENTIAL_ID, name: 'Captioning account' } },
	};
	const nodeTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
	// as in n8n, the Workflow fills in the parameter defaults: temp = '' is what marks a credential test
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const ctx = new ExecuteContext(
		workflow,
		node,
		h.additionalData(),
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const credentials = {
		id: CREDENTIAL_ID,
		name: 'Captioning account',
		type: 'captioningApi',
		data,
	};
	try {
		await new RoutingNode(ctx, nodeType, credentials).runNode();
	} catch (error) {
		const e = error as {
			message: string;
			cause?: { code?: string; response?: { status: number; statusText?: string } };
		};
		if (e.cause?.response) {
			const status = e.cause.response.status;
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === status) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (status < 199 || status > 299) {
				return {
					status: 'Error',
					message: e.cause.response.statusText || `Received HTTP status code: ${status}`,
				};
			}
		} else if (e.cause?.code) {
			return { status: 'Error', message: e.cause.code };
		}
		return { status: 'Error', message: e.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

const SECRETS = [
	DEFAULT_CLIENT.clientSecret,
	DEFAULT_CLIENT.assertions[0],
	'wrong-secret-value',
	'wrong-assertion-value',
];

function expectNoSecretIn(text: string) {
	for (const secret of [...SECRETS, ...sandbox.tokens.issuedSecrets()]) {
		expect(text).not.toContain(secret);
	}
}

describe('the credential test passes with valid values and names the cause with wrong ones', () => {
	test('valid values: a grant, then a read with the new token', async () => {
		const front = await startFront(sandbox.url);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		expect(await credentialTest(h)).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(wire(front)).toEqual(['token assertion 200', 'GET /webhook_endpoints bearer 200']);
		expect(h.store.data.tokenFingerprint).toMatch(/^[0-9a-f]{64}$/);
	});

	test('valid values with saved tokens: preAuthentication still runs (n8n marks the test node)', async () => {
		const front = await startFront(sandbox.url);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await listEndpoints(h);
		front.seen.length = 0;
		expect(await credentialTest(h)).toMatchObject({ status: 'OK' });
		expect(wire(front)).toEqual(['token refresh_token 200', 'GET /webhook_endpoints bearer 200']);
	});

	test.each([
		['404 (no such route)', { status: 404, body: { errors: [{ status: '404' }] } }],
		[
			'405 (only POST)',
			{ status: 405, headers: { allow: 'POST' }, body: { errors: [{ status: '405' }] } },
		],
		['501 (not implemented)', { status: 501, body: {} }],
	])(
		'a service without GET /webhook_endpoints, %s: the grant proved the credential, the test passes',
		async (_name, answer) => {
			const front = await startFront(sandbox.url, (req, url) =>
				req.method === 'GET' && url.pathname === '/webhook_endpoints' ? answer : undefined,
			);
			const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
			expect(await credentialTest(h)).toEqual({ status: 'OK', message: 'Connection successful!' });
			expect(wire(front)).toEqual([
				'token assertion 200',
				`GET /webhook_endpoints bearer ${answer.status}`,
			]);
		},
	);

	test.each([
		[
			'a wrong assertion',
			{ assertion: 'wrong-assertion-value' },
			/rejected the Assertion Token \(invalid_grant\)/,
		],
		[
			'a wrong client secret',
			{ clientSecret: 'wrong-secret-value' },
			/rejected the Client ID or Client Secret \(invalid_client\)/,
		],
		[
			'a wrong client ID',
			{ clientId: 'no-such-client' },
			/rejected the Client ID or Client Secret/,
		],
		[
			'a Base URL with no service',
			{ baseUrl: 'http://127.0.0.1:9' },
			/Could not reach the captioning service at http:\/\/127\.0\.0\.1:9 \(connection refused\)/,
		],
		[
			'a Base URL with a wrong path',
			{ baseUrl: 'nowhere' },
			/no token endpoint at .*\/nowhere\/oauth\/token \(HTTP 404\)/,
		],
		[
			'a wrong API media type',
			{ mediaType: 'application/json' },
			/does not accept the API Media Type \(HTTP 406\)\. Set it to application\/vnd/,
		],
	])('%s', async (_name, overrides, message) => {
		const values: Record<string, string> = { ...overrides };
		if (values.baseUrl === 'nowhere') values.baseUrl = `${sandbox.url}/nowhere`;
		const result = await credentialTest(createHarness(credentialsFor(sandbox, values)));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(message);
		expectNoSecretIn(result.message);
	});

	test.each([
		[
			'refuses the token it issued (401)',
			401,
			/issued a token but refused it on GET \/webhook_endpoints \(HTTP 401\)\. Check that the Base URL/,
		],
		['fails (500)', 500, /failed with HTTP 500 on GET \/webhook_endpoints.*Test again later/],
		['is unavailable (503)', 503, /failed with HTTP 503/],
	])('an API that %s fails the test with that cause', async (_name, status, message) => {
		const front = await startFront(sandbox.url, (req, url) =>
			req.method === 'GET' && url.pathname === '/webhook_endpoints'
				? { status, body: { errors: [{ status: String(status) }] } }
				: undefined,
		);
		const result = await credentialTest(
			createHarness(credentialsFor(sandbox, { baseUrl: front.url })),
		);
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(message) });
		expectNoSecretIn(result.message);
	});
});

// ---- redirects --------------------------------------------------------------------------------------------------

describe('API calls never send the token across origins', () => {
	async function redirectingFront(status: number, to: string, method = 'GET') {
		return startFront(sandbox.url, (req, url) =>
			req.method === method && url.pathname === '/webhook_endpoints'
				? { status, headers: { location: to } }
				: undefined,
		);
	}

	test.each([301, 302, 303, 307, 308])(
		'a %i to another origin: not followed, an error naming where it pointed, nothing reaches the other server',
		async (status) => {
			const elsewhere = await startFront(undefined, () => ({ status: 200, body: { data: [] } }));
			const front = await redirectingFront(status, `${elsewhere.url}/webhook_endpoints?x=1`);
			const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
			const error = await listEndpoints(h).catch((e: Error & { httpCode?: string }) => e);
			expect(error).toBeInstanceOf(Error);
			expect(error.message).toBe(
				`The service redirected GET /webhook_endpoints to another address (${elsewhere.url}, HTTP ${status}). The credential's token is only sent to its Base URL, so the redirect was not followed. If the service has moved there, set the Base URL to ${elsewhere.url}.`,
			);
			expect((error as { httpCode?: string }).httpCode).toBe(String(status));
			expect(elsewhere.seen).toEqual([]);
			expectNoSecretIn(JSON.stringify({ ...error, m: error.message }));
		},
	);

	test("a redirect within the Base URL's origin is followed, with the token", async () => {
		const front = await redirectingFront(301, '/v1/webhook_endpoints');
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(wire(front)).toEqual([
			'token assertion 200',
			'GET /webhook_endpoints bearer 301',
			'GET /v1/webhook_endpoints bearer 200',
		]);
	});

	test('a 307 of a POST within the origin: the POST is repeated with its body, and applied once', async () => {
		const front = await redirectingFront(307, '/v1/webhook_endpoints', 'POST');
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		const created = await createEndpoint(h, 'http://127.0.0.1:1/hook');
		expect(created.data.attributes.callback_uri).toBe('http://127.0.0.1:1/hook');
		expect(wire(front).slice(1)).toEqual([
			'POST /webhook_endpoints bearer 307',
			'POST /v1/webhook_endpoints bearer 201',
		]);
		expect(sandbox.endpoints.size).toBe(1);
	});

	test('redirects going round in circles end after 5', async () => {
		const front = await redirectingFront(302, '/webhook_endpoints');
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await expect(listEndpoints(h)).rejects.toThrow(
			/redirected GET \/webhook_endpoints more than 5 times/,
		);
		expect(front.seen.filter((r) => r.path === '/webhook_endpoints')).toHaveLength(6);
	});

	test('callers that let n8n follow redirects (the HTTP Request node) do not send the token to another origin either', async () => {
		const elsewhere = await startFront(undefined, () => ({ status: 200, body: { data: [] } }));
		const front = await redirectingFront(302, `${elsewhere.url}/webhook_endpoints`);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		const ctx = h.executeContext(h.makeNode('credentialProbe'), [{ json: {} }]);
		const body = await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'captioningApi', {
			method: 'GET',
			url: `${front.url}/webhook_endpoints`,
			json: true,
		});
		expect(body).toEqual({ data: [] });
		expect(elsewhere.seen).toHaveLength(1);
		expect(elsewhere.seen[0].authorization).toBeUndefined();

		// the control: n8n's default sends an Authorization header along the same redirect
		await ctx.helpers.httpRequest({
			method: 'GET',
			url: `${front.url}/webhook_endpoints`,
			headers: { Authorization: 'Bearer control-value' },
			json: true,
		});
		expect(elsewhere.seen[1].authorization).toBe('Bearer control-value');
	});
});

// ---- bounded waiting ------------------------------------------------------------------------------------------

describe('waiting on the rate limit ends', () => {
	test('a cancelled execution ends a Retry-After wait at once, with a clear error and nothing more sent', async () => {
		const front = await startFront(sandbox.url, (_req, url) =>
			url.pathname === '/webhook_endpoints'
				? { status: 429, headers: { 'retry-after': '30' }, body: { errors: [{ status: '429' }] } }
				: undefined,
		);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		const ctx = h.executeContext(h.makeNode('credentialProbe'), [{ json: {} }]);
		const controller = new AbortController();
		ctx.getExecutionCancelSignal = () => controller.signal;
		const started = Date.now();
		const call = captioningApiCall.call(ctx, { method: 'GET', path: '/webhook_endpoints' });
		setTimeout(() => controller.abort(), 300);
		const error = (await call.then(
			() => new Error('expected the call to fail'),
			(e: Error) => e,
		)) as Error;
		expect(error.message).toMatch(
			/The execution was cancelled while GET \/webhook_endpoints was waiting for the service's rate limit/,
		);
		expectNoSecretIn(JSON.stringify({ ...error, m: error.message, s: error.stack }));
		expect(Date.now() - started).toBeLessThan(2000);
		expect(front.seen.filter((r) => r.path === '/webhook_endpoints')).toHaveLength(1);
	});

	test.each([
		['in epoch seconds, an hour ahead', () => String(Math.ceil(Date.now() / 1000) + 3600)],
		['in epoch milliseconds, a second ahead', () => String(Date.now() + 1000)],
		['in epoch milliseconds, an hour ahead', () => String(Date.now() + 3_600_000)],
		['in seconds from now, 90 s ahead', () => '90'],
	])(
		'a window announced to reopen %s: capped, never a refusal to send; the service answers',
		async (_name, reset) => {
			const front = await startFront(sandbox.url, (_req, url) =>
				url.pathname === '/webhook_endpoints'
					? {
							status: 200,
							headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset() },
							body: { data: [] },
						}
					: undefined,
			);
			const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
			await listEndpoints(h);
			const started = Date.now();
			await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
			await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
			// a second ahead is waited out; a window beyond the 60 s is not waited for at all
			expect(Date.now() - started).toBeLessThan(5000);
			expect(front.seen.filter((r) => r.path === '/webhook_endpoints')).toHaveLength(3);
		},
	);
});

// ---- under the sandbox's readings of what the contract leaves open ----------------------------------------------

describe.each(['401', '400'] as const)('token-refusal=%s', (refusal) => {
	beforeEach(() => {
		sandbox.setVariants({ 'token-refusal': refusal });
	});

	test('all tokens revoked: the refused refresh ends in one assertion grant and a working call', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await listEndpoints(h);
		sandbox.tokens.revoke('all');
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(grants(sandbox)).toEqual(['assertion:200', `refresh_token:${refusal}`, 'assertion:200']);
	});

	test('a refresh token rotated away elsewhere: one assertion grant and a working call', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await listEndpoints(h);
		expect((await spendRefreshToken(h)).status).toBe(200);
		sandbox.advanceClock(7201);
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(grants(sandbox)).toEqual([
			'assertion:200',
			'refresh_token:200',
			`refresh_token:${refusal}`,
			'assertion:200',
		]);
	});

	test('the credential test passes with valid values', async () => {
		const h = createHarness(credentialsFor(sandbox));
		expect(await credentialTest(h)).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	test.each([
		[
			'a wrong assertion',
			{ assertion: 'wrong-assertion-value' },
			/rejected the Assertion Token \(invalid_grant\)/,
		],
		[
			'a wrong client secret',
			{ clientSecret: 'wrong-secret-value' },
			/rejected the Client ID or Client Secret \(invalid_client\)/,
		],
		['a wrong API media type', { mediaType: 'application/json' }, /API Media Type \(HTTP 406\)/],
	])('the credential test names %s', async (_name, overrides, message) => {
		const result = await credentialTest(createHarness(credentialsFor(sandbox, overrides)));
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(message) });
		expect(grants(sandbox)[0]).toMatch(
			'mediaType' in overrides ? /^assertion:200$/ : new RegExp(`^assertion:${refusal}$`),
		);
		expectNoSecretIn(result.message);
	});

	test('an edited assertion with a refresh token saved: a credential test makes one assertion grant with it', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await listEndpoints(h);
		h.store.data.assertion = 'wrong-assertion-value';
		const result = await credentialTest(h);
		expect(result.message).toMatch(/rejected the Assertion Token/);
		// the refresh token of the old values would have passed: it was not tried
		expect(grants(sandbox)).toEqual(['assertion:200', `assertion:${refusal}`]);
	});
});

describe('token-answer=loose: expires_in a string, scope null, no token_type, a fractional created_at, no rotation', () => {
	beforeEach(() => {
		sandbox.setVariants({ 'token-answer': 'loose' });
	});

	test('the credential test passes', async () => {
		const h = createHarness(credentialsFor(sandbox));
		expect(await credentialTest(h)).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	test('two renewals in a row use the refresh grant with the kept refresh token', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await listEndpoints(h);
		const kept = String(h.store.data.refreshToken);
		expect(kept).not.toBe('');
		// expires_in "7200" was read as 7200 seconds
		expect(Number(h.store.data.expiresAt)).toBeGreaterThan(Date.now() + 7_100_000);
		for (let renewal = 1; renewal <= 2; renewal++) {
			sandbox.advanceClock(7201);
			await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
			expect(h.store.data.refreshToken).toBe(kept);
		}
		const tokenLog = sandbox.requestLog.filter((r) => r.path === '/oauth/token');
		expect(tokenLog.map((r) => [r.grantType, r.status, r.refreshSerial])).toEqual([
			['assertion', 200, undefined],
			['refresh_token', 200, tokenLog[0].issuedRefreshSerial],
			['refresh_token', 200, tokenLog[0].issuedRefreshSerial],
		]);
	});
});

describe.each(['absent-404', 'absent-405'] as const)('manage=%s', (manage) => {
	const status = manage === 'absent-404' ? 404 : 405;
	beforeEach(() => {
		sandbox.setVariants({ manage });
	});

	test('the credential test passes with valid values: the grant proves them, the missing read is no failure', async () => {
		const h = createHarness(credentialsFor(sandbox));
		expect(await credentialTest(h)).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(sandbox.requestLog.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'POST /oauth/token 200',
			`GET /webhook_endpoints ${status}`,
		]);
	});

	test.each([
		['a wrong assertion', { assertion: 'wrong-assertion-value' }, /rejected the Assertion Token/],
		[
			'a wrong client secret',
			{ clientSecret: 'wrong-secret-value' },
			/rejected the Client ID or Client Secret/,
		],
		[
			'a wrong client ID',
			{ clientId: 'no-such-client' },
			/rejected the Client ID or Client Secret/,
		],
		[
			'a Base URL with no service',
			{ baseUrl: 'http://127.0.0.1:9' },
			/Could not reach the captioning service/,
		],
	])('the credential test names %s', async (_name, overrides, message) => {
		const result = await credentialTest(createHarness(credentialsFor(sandbox, overrides)));
		expect(result).toEqual({ status: 'Error', message: expect.stringMatching(message) });
		expectNoSecretIn(result.message);
	});

	test('a wrong media type cannot show where there is nothing to read; the first call names it', async () => {
		const h = createHarness(credentialsFor(sandbox, { mediaType: 'application/json' }));
		expect(await credentialTest(h)).toMatchObject({ status: 'OK' });
		await expect(createEndpoint(h, 'http://127.0.0.1:1/hook')).rejects.toThrow(
			/does not accept the API Media Type set in the credential \(HTTP 406\)/,
		);
	});
});

describe.each(['seconds', 'zero', 'date', 'absent'] as const)('retry-after=%s', (retryAfter) => {
	test('a burst over the limit: every call succeeds, and no retry follows its 429 in under a second', async () => {
		await restart({ rateLimit: { limit: 2, windowMs: 1000 }, announceRateLimit: false });
		sandbox.setVariants({ 'retry-after': retryAfter });
		const front = await startFront(sandbox.url);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		const ctx = h.executeContext(h.makeNode('credentialProbe'), [{ json: {} }]);
		for (let i = 0; i < 5; i++) {
			await callParsed(
				ctx,
				{ method: 'GET', path: '/webhook_endpoints', itemIndex: i },
				webhookEndpointListSchema,
			);
		}
		const api = front.seen.filter((r) => r.path === '/webhook_endpoints');
		expect(api.filter((r) => r.status === 200)).toHaveLength(5);
		const refused = api.flatMap((r, i) => (r.status === 429 ? [[r, api[i + 1]]] : []));
		expect(refused.length).toBeGreaterThanOrEqual(1);
		for (const [limited, next] of refused) {
			expect(next.at - limited.at).toBeGreaterThanOrEqual(900);
		}
	}, 30_000);
});

test('retry-after=date, a window that reopens in an hour: a clear error at once, no wait', async () => {
	await restart({ rateLimit: { limit: 1, windowMs: 3_600_000 }, announceRateLimit: false });
	sandbox.setVariants({ 'retry-after': 'date' });
	const h = createHarness(credentialsFor(sandbox));
	await listEndpoints(h);
	const started = Date.now();
	await expect(listEndpoints(h)).rejects.toThrow(
		/rate limit is used up for GET \/webhook_endpoints: it asks to wait \d+ s, longer than the 60 s a call may take in all/,
	);
	expect(Date.now() - started).toBeLessThan(2000);
	// the wait is measured above: the test's own timeout only leaves room for a busy machine's restart and grant
}, 60_000);

// ---- renewal before the call, after a 400 or 403 that says so, and across processes ---------------------------

/** The store as a grant left it, with the saved expiry moved to `expiresAt`. */
async function withExpiry(h: Harness, expiresAt: unknown) {
	await listEndpoints(h);
	h.store.data = { ...h.store.data, expiresAt } as typeof h.store.data;
}

describe('a token at or near its saved expiry is renewed before the call', () => {
	test.each([
		['30 s before its expiry (within the minute)', () => Date.now() + 30_000],
		['past its expiry', () => Date.now() - 1_000],
	])('%s: the refresh grant comes first, the call is never refused', async (_name, expiresAt) => {
		const front = await startFront(sandbox.url);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await withExpiry(h, expiresAt());
		const before = String(h.store.data.accessToken);
		front.seen.length = 0;
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(wire(front)).toEqual(['token refresh_token 200', 'GET /webhook_endpoints bearer 200']);
		expect(h.store.data.accessToken).not.toBe(before);
		expect(Number(h.store.data.expiresAt)).toBeGreaterThan(Date.now() + 7_000_000);
		// renewed: the next calls use it without a grant
		front.seen.length = 0;
		await listEndpoints(h);
		expect(wire(front)).toEqual(['GET /webhook_endpoints bearer 200']);
	});

	test('a minute and more before its expiry: used as it is', async () => {
		const front = await startFront(sandbox.url);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await withExpiry(h, Date.now() + 120_000);
		front.seen.length = 0;
		await listEndpoints(h);
		expect(wire(front)).toEqual(['GET /webhook_endpoints bearer 200']);
	});

	test.each([
		['0 (the field’s default)', 0],
		['missing', undefined],
		['text that is no number', 'next week'],
	])(
		'an expiry that cannot be read, %s: one refresh, and a real expiry saved',
		async (_n, value) => {
			const front = await startFront(sandbox.url);
			const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
			await withExpiry(h, value);
			front.seen.length = 0;
			await listEndpoints(h);
			await listEndpoints(h);
			expect(wire(front)).toEqual([
				'token refresh_token 200',
				'GET /webhook_endpoints bearer 200',
				'GET /webhook_endpoints bearer 200',
			]);
			expect(Number(h.store.data.expiresAt)).toBeGreaterThan(Date.now() + 7_000_000);
		},
	);

	test('a POST with a token due: renewed first, applied once', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await withExpiry(h, Date.now() + 10_000);
		await createEndpoint(h, 'http://127.0.0.1:1/due');
		expect(grants(sandbox)).toEqual(['assertion:200', 'refresh_token:200']);
		expect(
			sandbox.requestLog
				.filter((r) => r.method === 'POST' && r.path === '/webhook_endpoints')
				.map((r) => r.status),
		).toEqual([201]);
	});
});

describe.each(['403', '400'] as const)(
	'expired-token=%s: the service refuses an expired token as a 401 would, and the call renews it once',
	(status) => {
		beforeEach(() => {
			sandbox.setVariants({ 'expired-token': status });
		});

		test('an expired token: one renewal, the call succeeds; a POST is applied once', async () => {
			const h = createHarness(credentialsFor(sandbox));
			await listEndpoints(h);
			sandbox.advanceClock(7_201);
			const created = await createEndpoint(h, 'http://127.0.0.1:1/renewed');
			expect(created.data.attributes.callback_uri).toBe('http://127.0.0.1:1/renewed');
			expect(grants(sandbox)).toEqual(['assertion:200', 'refresh_token:200']);
			expect(
				sandbox.requestLog
					.filter((r) => r.method === 'POST' && r.path === '/webhook_endpoints')
					.map((r) => r.status),
			).toEqual([Number(status), 201]);
			expect(sandbox.endpoints.size).toBe(1);
		});

		test('refused again after the renewal: a clear error that says so, one renewal only', async () => {
			// from the second request on, the service refuses every token (its clock past each one's end)
			let refusing = false;
			const front = await startFront(sandbox.url, () => {
				if (refusing) sandbox.advanceClock(7_201);
				return undefined;
			});
			const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
			await listEndpoints(h);
			refusing = true;
			front.seen.length = 0;
			const error = (await listEndpoints(h).catch((e: Error) => e)) as Error & {
				httpCode?: string;
			};
			expect(error.message).toBe(
				`The service refused the access token for GET /webhook_endpoints even after renewing it (HTTP ${status}). Open the Captioning credential and test it.`,
			);
			expect(wire(front)).toEqual([
				`GET /webhook_endpoints bearer ${status}`,
				'token refresh_token 200',
				`GET /webhook_endpoints bearer ${status}`,
			]);
		});
	},
);

describe('a 400 or 403 that does not say the token is invalid keeps its own words and renews nothing', () => {
	test.each([
		[
			'403 for a missing scope',
			{
				status: 403,
				body: { errors: [{ code: 'insufficient_scope', detail: 'write_media is missing' }] },
			},
			/not allowed to read \/webhook_endpoints \(HTTP 403\)\. Check that the application has the write_transcriptions and write_media scopes/,
		],
		[
			'400 for a bad request',
			{ status: 400, body: { errors: [{ detail: 'page[size] must be a number' }] } },
			/^The service rejected GET \/webhook_endpoints \(HTTP 400\): page\[size\] must be a number\.$/,
		],
	] as const)('%s', async (_name, answer, message) => {
		const front = await startFront(sandbox.url, (_req, url) =>
			url.pathname === '/webhook_endpoints' ? answer : undefined,
		);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await expect(listEndpoints(h)).rejects.toThrow(message);
		expect(wire(front)).toEqual([
			'token assertion 200',
			`GET /webhook_endpoints bearer ${answer.status}`,
		]);
	});
});

describe('another process renewed meanwhile: the call uses what it saved', () => {
	/** What another worker does: renews with the refresh token the credential holds, and saves what it got. */
	async function anotherWorkerRenews(h: Harness) {
		const res = await spendRefreshToken(h);
		const body = (await res.json()) as { access_token: string; refresh_token: string };
		h.store.data = {
			...h.store.data,
			accessToken: body.access_token,
			refreshToken: body.refresh_token,
			expiresAt: Date.now() + 7_200_000,
		};
	}

	test('its refresh is refused (the other spent the rotated token): the stored token, no assertion grant', async () => {
		// the other worker wins the race: it spends the refresh token just before ours arrives
		let racing = false;
		const front = await startFront(sandbox.url, async (_req, url) => {
			if (racing && url.searchParams.get('grant_type') === 'refresh_token') {
				await anotherWorkerRenews(h);
			}
			return undefined;
		});
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await withExpiry(h, Date.now() - 1_000);
		racing = true;
		front.seen.length = 0;
		const saved = () => String(h.store.data.accessToken);
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(wire(front)).toEqual(['token refresh_token 400', 'GET /webhook_endpoints bearer 200']);
		expect(front.seen[1].authorization).toBe(`Bearer ${saved()}`);
		expect(grants(sandbox)).toEqual(['assertion:200', 'refresh_token:200', 'refresh_token:400']);
	});

	test('a second call of this process that read the refused refresh token waits for the save too: no assertion grant', async () => {
		// the other worker spends the refresh token just before ours arrives, and its save lands 700 ms later
		let racing = false;
		const front = await startFront(sandbox.url, async (_req, url) => {
			if (racing && url.searchParams.get('grant_type') === 'refresh_token') {
				racing = false;
				const stored = { ...h.store.data };
				await anotherWorkerRenews(h);
				const saved = { ...h.store.data };
				h.store.data = stored;
				setTimeout(() => (h.store.data = saved), 700);
			}
			return undefined;
		});
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await withExpiry(h, Date.now() - 1_000);
		racing = true;
		front.seen.length = 0;
		const first = listEndpoints(h);
		await waitFor('the refused refresh', () => front.seen.some((r) => r.status === 400));
		// the second call reads the store before the save: the token it holds is the refused one
		const second = listEndpoints(h);
		await expect(Promise.all([first, second])).resolves.toEqual([{ data: [] }, { data: [] }]);
		expect(wire(front)).toEqual([
			'token refresh_token 400',
			'GET /webhook_endpoints bearer 200',
			'GET /webhook_endpoints bearer 200',
		]);
		expect(grants(sandbox).filter((g) => g.startsWith('assertion'))).toEqual(['assertion:200']);
	});

	test('its token is refused (the other’s grant revoked it): the stored token, no grant of its own', async () => {
		sandbox.setVariants({ 'earlier-tokens': 'revoked' });
		let race = false;
		const front = await startFront(sandbox.url, async (_req, url) => {
			if (race && url.pathname === '/webhook_endpoints') {
				race = false;
				await anotherWorkerRenews(h);
			}
			return undefined;
		});
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await listEndpoints(h);
		race = true;
		front.seen.length = 0;
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(wire(front)).toEqual([
			'GET /webhook_endpoints bearer 401',
			'GET /webhook_endpoints bearer 200',
		]);
		expect(grants(sandbox)).toEqual(['assertion:200', 'refresh_token:200']);
	});

	test('nothing newer stored after a refused refresh: the assertion grant, after a short look at the store', async () => {
		const front = await startFront(sandbox.url, (_req, url) =>
			url.searchParams.get('grant_type') === 'refresh_token'
				? { status: 400, body: { error: 'invalid_grant' } }
				: undefined,
		);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		await withExpiry(h, Date.now() - 1_000);
		front.seen.length = 0;
		await expect(listEndpoints(h)).resolves.toEqual({ data: [] });
		expect(wire(front)).toEqual([
			'token refresh_token 400',
			'token assertion 200',
			'GET /webhook_endpoints bearer 200',
		]);
		const [refused, assertion] = front.seen.map((s) => s.at);
		expect(assertion - refused).toBeGreaterThanOrEqual(1_500);
		expect(assertion - refused).toBeLessThan(5_000);
	});
});

describe('token-rate-limit=every-other: the token endpoint answers 429 Retry-After: 1 to every first request', () => {
	beforeEach(() => {
		sandbox.setVariants({ 'token-rate-limit': 'every-other' });
	});

	test('the credential test passes, after waiting 1 s for its grant', async () => {
		const h = createHarness(credentialsFor(sandbox));
		expect(await credentialTest(h)).toEqual({ status: 'OK', message: 'Connection successful!' });
		const tokens = tokenCalls(sandbox);
		expect(tokens.map((r) => r.status)).toEqual([429, 200]);
		expect(tokens[1].at - tokens[0].at).toBeGreaterThanOrEqual(950);
	});

	test('a call that renews waits too, within its own budget, and succeeds; a POST is applied once', async () => {
		const h = createHarness(credentialsFor(sandbox));
		await createEndpoint(h, 'http://127.0.0.1:1/first');
		await withExpiry(h, Date.now() - 1);
		await createEndpoint(h, 'http://127.0.0.1:1/second');
		expect(grants(sandbox)).toEqual([
			'assertion:429',
			'assertion:200',
			'refresh_token:429',
			'refresh_token:200',
		]);
		expect(sandbox.endpoints.size).toBe(2);
	});

	test('a Retry-After that does not fit in what is left: the error says the budget is spent, in one sentence', async () => {
		const front = await startFront(sandbox.url, (_req, url) =>
			url.pathname === '/oauth/token'
				? {
						status: 429,
						headers: { 'retry-after': '120' },
						body: { error: 'rate_limited', error_description: 'Retry after 2 minutes.' },
					}
				: undefined,
		);
		const h = createHarness(credentialsFor(sandbox, { baseUrl: front.url }));
		const result = await credentialTest(h);
		expect(result).toEqual({
			status: 'Error',
			message:
				"The service's rate limit is used up for the token request (assertion grant): it asks to wait 120 s, longer than the 60 s a call may take in all. The token endpoint limits requests too: try again in a minute.",
		});
		expect(wire(front)).toEqual(['token assertion 429']);
	});
});
