// The captioningApi credential through n8n-core's real request helpers, against the sandbox over real HTTP.
import type { IHttpRequestOptions } from 'n8n-workflow';

import { createHarness, type Harness } from '../helpers/n8nContext';
import { credentialsFor } from '../helpers/sandboxClient';
import { DEFAULT_CLIENT, type Sandbox, startSandbox } from '../../sandbox/server';
import { captioningApiRequest } from '../../nodes/Captioning/transport';
import {
	webhookEndpointDocumentSchema,
	webhookEndpointListSchema,
} from '../../nodes/Captioning/shared/schemas';

let sandbox: Sandbox;

const tokenCalls = (s: Sandbox) => s.requestLog.filter((r) => r.path === '/oauth/token');
const grants = (s: Sandbox) => tokenCalls(s).map((r) => `${r.grantType}:${r.status}`);

/** GET /webhook_endpoints through the package's transport, from an execute context of a fresh "execution". */
async function listEndpoints(h: Harness) {
	const node = h.makeNode('credentialProbe');
	const ctx = h.executeContext(node, [{ json: {} }]);
	return captioningApiRequest.call(
		ctx,
		{ method: 'GET', path: '/webhook_endpoints' },
		webhookEndpointListSchema,
	);
}

async function createEndpoint(h: Harness, callbackUri: string) {
	const ctx = h.executeContext(h.makeNode('credentialProbe'), [{ json: {} }]);
	return captioningApiRequest.call(
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
			await captioningApiRequest.call(
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
