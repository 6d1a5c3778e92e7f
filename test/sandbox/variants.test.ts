// The sandbox's variants (sandbox/variants.ts): every non-default reading of what the contract leaves "not
// shown", over real HTTP, each test asserting on what a client of the service would see on the wire.
import { spawn } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';

import { json } from '../helpers/http';
import { startReceiver, type Receiver } from '../helpers/receiver';
import {
	apiHeaders,
	assertionParams,
	createEndpoint,
	obtainToken,
	setVariants,
	tokenUrl,
} from '../helpers/sandboxClient';
import { cliOptions } from '../../sandbox/cli';
import {
	DEFAULT_CLIENT,
	type Sandbox,
	startSandbox,
	VARIANT_DIMENSIONS,
	type Variants,
} from '../../sandbox/server';
import { defaultVariants } from '../../sandbox/variants';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const EVENTS = ['transcription.created', 'transcription.transcribed'];

let sandbox: Sandbox;
let receiver: Receiver;
let token: string;

async function play(variants: Partial<Variants>) {
	sandbox = await startSandbox({
		retryDelaysMs: [20, 20, 20, 20, 20],
		transcribeAfterMs: 0,
		variants,
	});
	token = (await obtainToken(sandbox)).access_token;
}

beforeEach(async () => {
	receiver = await startReceiver();
});

afterEach(async () => {
	await sandbox?.stop();
	await receiver.close();
});

const headers = () => apiHeaders(sandbox, token);
const get = (path: string) => fetch(`${sandbox.url}${path}`, { headers: headers() });
const del = (path: string) =>
	fetch(`${sandbox.url}${path}`, { method: 'DELETE', headers: headers() });
const post = (url: string, init: RequestInit = {}) => fetch(url, { method: 'POST', ...init });
const create = (path = '/hook', events = EVENTS) =>
	createEndpoint(sandbox, token, `${receiver.url}${path}`, events);
/** The callback URIs GET /webhook_endpoints lists (JSON:API). */
const listedUris = async (): Promise<string[]> =>
	(await json(await get('/webhook_endpoints'))).data.map(
		(e: { attributes: { callback_uri: string } }) => e.attributes.callback_uri,
	);
const control = (path: string, body?: unknown) =>
	fetch(`${sandbox.url}/_sandbox/${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		...(body === undefined
			? {}
			: { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
	});

describe('create: the answer of POST /webhook_endpoints', () => {
	test.each([
		['flat', (endpoint: object) => endpoint],
		['root-key', (endpoint: object) => ({ webhook_endpoint: endpoint })],
	] as const)(
		'%s: 201 with a flat object {id, callback_uri, enabled_events, created_at} (under a Rails root key) and no Location',
		async (variant, shape) => {
			await play({ create: variant });
			const res = await create();
			expect(res.status).toBe(201);
			expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
			expect(res.headers.get('location')).toBeNull();
			const body = await json(res);
			const endpoint = {
				id: expect.stringMatching(UUID),
				callback_uri: `${receiver.url}/hook`,
				enabled_events: EVENTS,
				created_at: expect.stringMatching(ISO_MS_UTC),
			};
			expect(body).toEqual(shape(endpoint));
			const { id } = variant === 'flat' ? body : body.webhook_endpoint;
			expect((await get(`/webhook_endpoints/${id}`)).status).toBe(200);
		},
	);

	test('location: 201 with an empty body and a Location that reads the new endpoint', async () => {
		await play({ create: 'location' });
		const res = await create();
		expect(res.status).toBe(201);
		expect(res.headers.get('content-type')).toBeNull();
		expect(res.headers.get('content-length')).toBe('0');
		expect(await res.text()).toBe('');
		const location = res.headers.get('location')!;
		const prefix = `${sandbox.url}/webhook_endpoints/`;
		expect(location.slice(0, prefix.length)).toBe(prefix);
		expect(location.slice(prefix.length)).toMatch(UUID);
		const read = await fetch(location, { headers: headers() });
		expect(read.status).toBe(200);
		expect((await json(read)).data.attributes.callback_uri).toBe(`${receiver.url}/hook`);
	});

	test.each([
		['empty', 201],
		['no-content', 204],
	] as const)(
		'%s: %i with no body and no Location, and the endpoint exists all the same',
		async (variant, status) => {
			await play({ create: variant });
			const res = await create();
			expect(res.status).toBe(status);
			expect(res.headers.get('location')).toBeNull();
			expect(res.headers.get('content-type')).toBeNull();
			expect(await res.text()).toBe('');
			expect(await listedUris()).toEqual([`${receiver.url}/hook`]);
			// it delivers: the registration is real even though its answer said nothing
			await sandbox.transcribe();
			await sandbox.idle();
			expect(receiver.received).toHaveLength(2);
		},
	);
});

describe('resource: root-key, the flat objects under Rails root keys', () => {
	test('resource=root-key: GET one is {"webhook_endpoint": {…}}, GET list {"webhook_endpoints": […]}', async () => {
		await play({ resource: 'root-key', members: 'loose' });
		await create('/first');
		const res = await get('/webhook_endpoints');
		expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
		const list = await json(res);
		expect(Object.keys(list)).toEqual(['webhook_endpoints']);
		// with members=loose, the resources under the root key are loosened as ever
		const [first] = list.webhook_endpoints;
		expect(first).toMatchObject({
			id: 1,
			callback_uri: `${receiver.url}/first`,
			description: null,
		});
		const one = await json(await get(`/webhook_endpoints/${first.id}`));
		expect(one).toEqual({ webhook_endpoint: first });
	});

	test('resource=root-key with list=paged: each page under the root key, the next one in a Link header', async () => {
		await play({ resource: 'root-key', list: 'paged' });
		for (const path of ['/a', '/b', '/c']) await create(path);
		const res = await get('/webhook_endpoints');
		expect((await json(res)).webhook_endpoints).toHaveLength(2);
		expect(res.headers.get('link')).toBe(
			`<${sandbox.url}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=2>; rel="next"`,
		);
	});
});

describe('manage: reads, lists and deletes of webhook endpoints', () => {
	test.each([
		['absent-404', 404, null],
		['absent-405', 405, 'POST'],
	] as const)(
		'%s: GET list, GET one and DELETE answer %i (Allow: %s); POST still registers and delivers',
		async (variant, status, allow) => {
			await play({ manage: variant });
			const created = await create();
			expect(created.status).toBe(201);
			const { id } = (await json(created)).data;
			for (const res of [
				await get('/webhook_endpoints'),
				await get(`/webhook_endpoints/${id}`),
				await del(`/webhook_endpoints/${id}`),
			]) {
				expect(res.status).toBe(status);
				expect(res.headers.get('allow')).toBe(allow);
				expect(res.headers.get('content-type')).toBe('application/vnd.api+json; charset=utf-8');
				expect((await json(res)).errors[0]).toMatchObject({
					status: String(status),
					detail:
						status === 404
							? expect.stringMatching(/No route matches/)
							: expect.stringMatching(/only POST \/webhook_endpoints/),
				});
			}
			// the refused DELETE removed nothing: the endpoint still hears events
			await sandbox.transcribe();
			await sandbox.idle();
			expect(receiver.received.map((r) => r.path)).toEqual(['/hook', '/hook']);
		},
	);

	test('absent-404: the router answers before authentication, as for any route that does not exist', async () => {
		await play({ manage: 'absent-404' });
		const res = await fetch(`${sandbox.url}/webhook_endpoints`, {
			headers: { accept: sandbox.mediaType },
		});
		expect(res.status).toBe(404);
		// POST is the one route left, and it still wants a token
		const unauthenticated = await post(`${sandbox.url}/webhook_endpoints`, {
			headers: { accept: sandbox.mediaType },
		});
		expect(unauthenticated.status).toBe(401);
	});
});

describe('resource: the shape of read answers', () => {
	test('flat: GET one is a flat object and GET list a bare JSON array of them', async () => {
		await play({ resource: 'flat' });
		const { id } = (await json(await create())).data;
		const flat = {
			id,
			callback_uri: `${receiver.url}/hook`,
			enabled_events: EVENTS,
			created_at: expect.stringMatching(ISO_MS_UTC),
		};
		const one = await get(`/webhook_endpoints/${id}`);
		expect(one.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(await json(one)).toEqual(flat);
		const list = await get('/webhook_endpoints');
		expect(list.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(await json(list)).toEqual([flat]);
	});
});

describe('list: the list of webhook endpoints', () => {
	async function createFive(): Promise<string[]> {
		const ids: string[] = [];
		for (let i = 0; i < 5; i++) {
			const res = await json(await create(`/hook-${i}`));
			ids.push(res.data?.id ?? res.id);
		}
		return ids;
	}

	test('single (default) ignores page parameters: every endpoint in one answer', async () => {
		await play({});
		const ids = await createFive();
		const body = await json(await get('/webhook_endpoints?page[number]=2&page[size]=1'));
		expect(body.data.map((e: { id: string }) => e.id)).toEqual(ids);
		expect(body.links).toBeUndefined();
	});

	test('paged: pages of 2 with links.next as an absolute URL on every page but the last', async () => {
		await play({ list: 'paged' });
		const ids = await createFive();
		const seen: string[] = [];
		const nexts: (string | undefined)[] = [];
		let url: string | undefined = `${sandbox.url}/webhook_endpoints`;
		while (url) {
			const res = await fetch(url, { headers: headers() });
			expect(res.status).toBe(200);
			expect(res.headers.get('link')).toBeNull();
			const body = await json(res);
			expect(body.data.length).toBeLessThanOrEqual(2);
			seen.push(...body.data.map((e: { id: string; type: string }) => e.id));
			expect(body.links.self).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook_endpoints\?/);
			url = body.links.next;
			nexts.push(url);
		}
		expect(seen).toEqual(ids);
		expect(nexts).toEqual([
			`${sandbox.url}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=2`,
			`${sandbox.url}/webhook_endpoints?page%5Bnumber%5D=3&page%5Bsize%5D=2`,
			undefined,
		]);
	});

	test('paged: page[number] and page[size] are honoured, unencoded brackets too', async () => {
		await play({ list: 'paged' });
		const ids = await createFive();
		const body = await json(await get('/webhook_endpoints?page[number]=2&page[size]=3'));
		expect(body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(3));
		expect(body.links.next).toBeUndefined();
		expect(body.links.self).toBe(
			`${sandbox.url}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=3`,
		);
		const first = await json(await get('/webhook_endpoints?page%5Bsize%5D=3'));
		expect(first.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 3));
		expect(first.links.next).toBe(
			`${sandbox.url}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=3`,
		);
	});

	test('paged: an empty list is one page without next; a page past the end is empty', async () => {
		await play({ list: 'paged' });
		const empty = await json(await get('/webhook_endpoints'));
		expect(empty.data).toEqual([]);
		expect(empty.links.next).toBeUndefined();
		await createFive();
		const past = await json(await get('/webhook_endpoints?page[number]=9'));
		expect(past.data).toEqual([]);
		expect(past.links.next).toBeUndefined();
	});

	test.each([
		['page[number]=0', /page\[number\] must be a whole number from 1 \(got "0"\)/],
		['page[size]=two', /page\[size\] must be a whole number from 1 \(got "two"\)/],
	])('paged: %s is refused with 400 naming the parameter', async (query, detail) => {
		await play({ list: 'paged' });
		const res = await get(`/webhook_endpoints?${query}`);
		expect(res.status).toBe(400);
		expect((await json(res)).errors[0].detail).toMatch(detail);
	});

	test('paged with resource=flat: bare arrays, the next page in a Link header on all but the last', async () => {
		await play({ list: 'paged', resource: 'flat' });
		const ids = await createFive();
		const seen: string[] = [];
		const links: (string | null)[] = [];
		let url: string | undefined = `${sandbox.url}/webhook_endpoints`;
		while (url) {
			const res = await fetch(url, { headers: headers() });
			const body = await json(res);
			expect(Array.isArray(body)).toBe(true);
			seen.push(...body.map((e: { id: string }) => e.id));
			const link = res.headers.get('link');
			links.push(link);
			url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
		}
		expect(seen).toEqual(ids);
		expect(links).toEqual([
			`<${sandbox.url}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=2>; rel="next"`,
			`<${sandbox.url}/webhook_endpoints?page%5Bnumber%5D=3&page%5Bsize%5D=2>; rel="next"`,
			null,
		]);
	});
});

/** A refresh-token grant of the default client, as a client of the service sends it. */
const refresh = (refreshToken: string, overrides: Record<string, string> = {}) =>
	post(
		tokenUrl(sandbox, {
			grant_type: 'refresh_token',
			refresh_token: refreshToken,
			client_id: DEFAULT_CLIENT.clientId,
			client_secret: DEFAULT_CLIENT.clientSecret,
			...overrides,
		}),
	);

describe('token-refusal: the status of the token endpoint refusals', () => {
	async function refusals() {
		const { refresh_token } = await obtainToken(sandbox);
		await refresh(refresh_token);
		const cases: [string, Response][] = [
			['invalid_grant', await refresh(refresh_token)],
			['invalid_grant', await post(tokenUrl(sandbox, assertionParams({ assertion: 'nope' })))],
			['invalid_client', await post(tokenUrl(sandbox, assertionParams({ client_secret: 'nope' })))],
			['invalid_scope', await post(tokenUrl(sandbox, assertionParams({ scope: 'admin' })))],
			['invalid_request', await post(tokenUrl(sandbox, assertionParams({ provider: '' })))],
			[
				'unsupported_grant_type',
				await post(tokenUrl(sandbox, assertionParams({ grant_type: 'password' }))),
			],
		];
		return Promise.all(
			cases.map(async ([expected, res]) => {
				const body = await json(res);
				expect(body.error).toBe(expected);
				expect(res.headers.get('cache-control')).toBe('no-store');
				return [expected, res.status];
			}),
		);
	}

	test.each([
		['401', 401],
		['400', 400],
	] as const)(
		'%s: every refusal answers %i, with the RFC 6749 error code in the body',
		async (variant, status) => {
			await play({ 'token-refusal': variant });
			expect(await refusals()).toEqual([
				['invalid_grant', status],
				['invalid_grant', status],
				['invalid_client', status],
				['invalid_scope', status],
				['invalid_request', status],
				['unsupported_grant_type', status],
			]);
			// a grant that is not refused is untouched
			expect((await post(tokenUrl(sandbox, assertionParams()))).status).toBe(200);
		},
	);

	test('rfc (default): invalid_client 401, every other refusal 400', async () => {
		await play({});
		expect((await refusals()).map(([, status]) => status)).toEqual([400, 400, 401, 400, 400, 400]);
	});
});

describe('token-answer: the members of the token answer', () => {
	test('loose: expires_in a string, scope null, no token_type, a fractional created_at; refreshes answer no refresh token and do not rotate', async () => {
		await play({ 'token-answer': 'loose' });
		const res = await post(tokenUrl(sandbox, assertionParams()));
		expect(res.status).toBe(200);
		const first = await json(res);
		expect(first).toEqual({
			access_token: expect.any(String),
			expires_in: '7200',
			refresh_token: expect.any(String),
			scope: null,
			created_at: expect.any(Number),
		});
		expect(Number.isInteger(first.created_at)).toBe(false);
		expect('token_type' in first).toBe(false);
		// the refresh token is not spent: it renews twice, and the answers carry none
		for (let n = 0; n < 2; n++) {
			const renewed = await refresh(first.refresh_token);
			expect(renewed.status).toBe(200);
			const body = await json(renewed);
			expect(Object.keys(body).sort()).toEqual([
				'access_token',
				'created_at',
				'expires_in',
				'scope',
			]);
			const read = await fetch(`${sandbox.url}/webhook_endpoints`, {
				headers: apiHeaders(sandbox, body.access_token),
			});
			expect(read.status).toBe(200);
		}
		const log = sandbox.requestLog.filter((r) => r.path === '/oauth/token');
		expect(log.map((r) => [r.grantType, r.refreshSerial, r.issuedRefreshSerial])).toEqual([
			['assertion', undefined, 1],
			['assertion', undefined, 2],
			['refresh_token', 2, undefined],
			['refresh_token', 2, undefined],
		]);
	});

	test('contract (default): the six members of 2.1, and a refresh rotates the refresh token', async () => {
		await play({});
		const first = await obtainToken(sandbox);
		expect(Object.keys(first).sort()).toEqual([
			'access_token',
			'created_at',
			'expires_in',
			'refresh_token',
			'scope',
			'token_type',
		]);
		expect((await refresh(first.refresh_token)).status).toBe(200);
		expect((await refresh(first.refresh_token)).status).toBe(400);
	});
});

describe('callback-query: a callback_uri with a query string', () => {
	test('keep (default): stored, echoed and delivered to as sent', async () => {
		await play({});
		const created = await json(await create('/hook?token=abc&x=1'));
		expect(created.data.attributes.callback_uri).toBe(`${receiver.url}/hook?token=abc&x=1`);
		await sandbox.transcribe();
		await sandbox.idle();
		expect(receiver.received.map((r) => r.path)).toEqual([
			'/hook?token=abc&x=1',
			'/hook?token=abc&x=1',
		]);
	});

	test('strip: the answer, the record and the list show the URI without its query; deliveries go there', async () => {
		await play({ 'callback-query': 'strip' });
		const created = await json(await create('/hook?token=abc'));
		expect(created.data.attributes.callback_uri).toBe(`${receiver.url}/hook`);
		const id: string = created.data.id;
		expect((await json(await get(`/webhook_endpoints/${id}`))).data.attributes.callback_uri).toBe(
			`${receiver.url}/hook`,
		);
		expect(await listedUris()).toEqual([`${receiver.url}/hook`]);
		await sandbox.transcribe();
		await sandbox.idle();
		expect(receiver.received.map((r) => r.path)).toEqual(['/hook', '/hook']);
		// a URI without a query is stored as it came
		expect((await json(await create('/plain'))).data.attributes.callback_uri).toBe(
			`${receiver.url}/plain`,
		);
	});

	test('refuse: 422 naming the field, nothing stored; a URI without a query is created', async () => {
		await play({ 'callback-query': 'refuse' });
		const refused = await create('/hook?token=abc');
		expect(refused.status).toBe(422);
		expect((await json(refused)).errors).toEqual([
			expect.objectContaining({
				status: '422',
				code: 'invalid_callback_uri',
				detail: 'callback_uri must not contain a query string',
				source: { pointer: '/data/attributes/callback_uri' },
			}),
		]);
		expect(sandbox.endpoints.size).toBe(0);
		expect((await create('/plain')).status).toBe(201);
		expect(sandbox.endpoints.size).toBe(1);
	});
});

describe('members: the webhook-endpoint resource', () => {
	test('loose: integer ids in sequence, extra and null members, Created_At; reads and deletes by that id', async () => {
		await play({ members: 'loose' });
		const first = await json(await create('/one'));
		const second = await json(await create('/two'));
		expect(first).toEqual({
			jsonapi: { version: '1.1' },
			data: {
				id: 1,
				type: 'webhook_endpoint',
				attributes: {
					callback_uri: `${receiver.url}/one`,
					enabled_events: EVENTS,
					Created_At: expect.stringMatching(ISO_MS_UTC),
					description: null,
					disabled_at: null,
					metadata: { source: 'api', tags: [], retries: 5 },
				},
				links: { self: `${sandbox.url}/webhook_endpoints/1` },
				relationships: { owner: { data: null } },
				meta: null,
			},
			meta: null,
		});
		expect(second.data.id).toBe(2);
		const list = await json(await get('/webhook_endpoints'));
		expect(list.data.map((e: { id: unknown }) => e.id)).toEqual([1, 2]);
		expect(list.meta).toBeNull();
		expect((await json(await get('/webhook_endpoints/2'))).data.attributes.callback_uri).toBe(
			`${receiver.url}/two`,
		);
		expect((await del('/webhook_endpoints/1')).status).toBe(204);
		expect((await get('/webhook_endpoints/1')).status).toBe(404);
	});

	test('loose with resource=flat: flat objects with integer ids and the same extra members', async () => {
		await play({ members: 'loose', resource: 'flat', create: 'flat' });
		const created = await json(await create('/flat'));
		expect(created).toEqual({
			id: 1,
			callback_uri: `${receiver.url}/flat`,
			enabled_events: EVENTS,
			Created_At: expect.stringMatching(ISO_MS_UTC),
			description: null,
			disabled_at: null,
			metadata: { source: 'api', tags: [], retries: 5 },
		});
		expect(await json(await get('/webhook_endpoints'))).toEqual([created]);
	});

	test('endpoint-ids=bigint: integers past 2^32 as JSON numbers; reads and deletes by them', async () => {
		await play({ 'endpoint-ids': 'bigint' });
		const first = await json(await create('/big'));
		expect(first.data.id).toBe(2 ** 32 + 1);
		expect(first.data.links.self).toBe(`${sandbox.url}/webhook_endpoints/4294967297`);
		const list = await json(await get('/webhook_endpoints'));
		expect(list.data.map((e: { id: unknown }) => e.id)).toEqual([4294967297]);
		expect((await json(await get('/webhook_endpoints/4294967297'))).data.id).toBe(4294967297);
		expect((await del('/webhook_endpoints/4294967297')).status).toBe(204);
		expect((await get('/webhook_endpoints/4294967297')).status).toBe(404);
	});

	test('endpoint-ids=zero-padded: numeric strings whose zeros are the id (7 is another endpoint)', async () => {
		await play({ 'endpoint-ids': 'zero-padded', resource: 'flat', create: 'flat' });
		const created = await json(await create('/padded'));
		expect(created.id).toBe('000000000001');
		expect((await json(await get('/webhook_endpoints/000000000001'))).id).toBe('000000000001');
		expect((await get('/webhook_endpoints/1')).status).toBe(404);
		expect((await del('/webhook_endpoints/000000000001')).status).toBe(204);
	});

	test('loose with list=paged: links.next keeps working', async () => {
		await play({ members: 'loose', list: 'paged' });
		for (const n of [1, 2, 3]) await create(`/p${n}`);
		const page = await json(await get('/webhook_endpoints'));
		expect(page.data.map((e: { id: unknown }) => e.id)).toEqual([1, 2]);
		expect(page.links.next).toMatch(/page%5Bnumber%5D=2/);
	});
});

describe('retry-after: the 429 of the rate limit', () => {
	async function limited(variant: Variants['retry-after']) {
		sandbox = await startSandbox({
			// an hour's window: the two requests cannot straddle a window boundary
			rateLimit: { limit: 1, windowMs: 3_600_000 },
			variants: { 'retry-after': variant },
		});
		token = (await obtainToken(sandbox)).access_token;
		expect((await get('/webhook_endpoints')).status).toBe(200);
		const res = await get('/webhook_endpoints');
		expect(res.status).toBe(429);
		expect(Number(res.headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThanOrEqual(
			Date.now() - 1000,
		);
		return res;
	}

	test('zero: Retry-After: 0', async () => {
		const res = await limited('zero');
		expect(res.headers.get('retry-after')).toBe('0');
	});

	test('date: Retry-After is an HTTP date no earlier than the window reopens', async () => {
		const res = await limited('date');
		const value = res.headers.get('retry-after')!;
		expect(value).toMatch(
			/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
		);
		expect(Date.parse(value)).toBe(Number(res.headers.get('x-ratelimit-reset')) * 1000);
		expect(Date.parse(value)).toBeLessThanOrEqual(Date.now() + 3_601_000);
	});

	test('absent: a 429 with no Retry-After, whose error says to retry once the window has passed', async () => {
		const res = await limited('absent');
		expect(res.headers.get('retry-after')).toBeNull();
		expect((await json(res)).errors[0].detail).toMatch(/retry once the window has passed/);
	});

	test('{"reset": true} forgets the windows, as a fresh service would; a plain change keeps them', async () => {
		await limited('seconds');
		await setVariants(sandbox, { numbers: 'string' });
		expect((await get('/webhook_endpoints')).status).toBe(429);
		await setVariants(sandbox, {}, { reset: true });
		expect((await get('/webhook_endpoints')).status).toBe(200);
		expect((await get('/webhook_endpoints')).status).toBe(429);
	});

	test('seconds (default): whole seconds until the window reopens', async () => {
		const res = await limited('seconds');
		const seconds = Number(res.headers.get('retry-after'));
		expect(Number.isInteger(seconds)).toBe(true);
		expect(seconds).toBeGreaterThanOrEqual(1);
		expect(seconds).toBeLessThanOrEqual(3600);
	});
});

describe('delivery: the Content-Type of deliveries', () => {
	test('jsonapi: application/vnd.api+json, and a redelivery keeps the content type it was sent with', async () => {
		await play({ delivery: 'jsonapi' });
		await create();
		const { events } = await sandbox.transcribe();
		await sandbox.idle();
		expect(receiver.received.map((r) => r.headers['content-type'])).toEqual([
			'application/vnd.api+json',
			'application/vnd.api+json',
		]);
		expect(JSON.parse(receiver.received[1].body).data.attributes.event_type).toBe(
			'transcription.transcribed',
		);
		sandbox.setVariants({ delivery: 'json' });
		expect((await control(`events/${events[1].id}/redeliver`, {})).status).toBe(202);
		await sandbox.idle();
		await sandbox.transcribe();
		await sandbox.idle();
		expect(receiver.received.slice(2).map((r) => r.headers['content-type'])).toEqual([
			'application/vnd.api+json',
			'application/json; charset=utf-8',
			'application/json; charset=utf-8',
		]);
	});
});

describe('event-id: the ids of one event sent to several endpoints', () => {
	test('shared: every endpoint gets the same data.id; the event log keeps each delivery per endpoint', async () => {
		await play({ 'event-id': 'shared' });
		const a = (await json(await create('/a'))).data.id;
		const b = (await json(await create('/b'))).data.id;
		await sandbox.transcribe();
		await sandbox.idle();
		const bodies = receiver.received.map((r) => ({ path: r.path, event: JSON.parse(r.body).data }));
		expect(bodies).toHaveLength(4);
		for (const type of EVENTS) {
			const copies = bodies.filter((x) => x.event.attributes.event_type === type);
			expect(copies.map((x) => x.path).sort()).toEqual(['/a', '/b']);
			expect(copies[0].event.id).toBe(copies[1].event.id);
			expect(copies.map((x) => x.event.attributes.uri).sort()).toEqual([
				`${receiver.url}/a`,
				`${receiver.url}/b`,
			]);
		}
		const [createdId, transcribedId] = EVENTS.map(
			(type) => bodies.find((x) => x.event.attributes.event_type === type)!.event.id,
		);
		expect(createdId).not.toBe(transcribedId);
		const log = (await json(await control('events'))).events;
		expect(
			log
				.filter((e: { id: string }) => e.id === transcribedId)
				.map((e: { endpointId: string }) => e.endpointId)
				.sort(),
		).toEqual([a, b].sort());
		// redelivery goes to every endpoint that received the id, or to the one named
		receiver.received.length = 0;
		expect((await control(`events/${transcribedId}/redeliver`, {})).status).toBe(202);
		await sandbox.idle();
		expect(receiver.received.map((r) => r.path).sort()).toEqual(['/a', '/b']);
		receiver.received.length = 0;
		expect((await control(`events/${transcribedId}/redeliver`, { endpointId: b })).status).toBe(
			202,
		);
		await sandbox.idle();
		expect(receiver.received.map((r) => [r.path, JSON.parse(r.body).data.id])).toEqual([
			['/b', transcribedId],
		]);
	});

	test('per-endpoint (default): each endpoint gets its own id for the same event', async () => {
		await play({});
		await create('/a', ['transcription.transcribed']);
		await create('/b', ['transcription.transcribed']);
		await sandbox.transcribe();
		await sandbox.idle();
		const ids = receiver.received.map((r) => JSON.parse(r.body).data.id);
		expect(ids).toHaveLength(2);
		expect(ids[0]).not.toBe(ids[1]);
	});
});

describe('numbers: duration and average_confidence in deliveries', () => {
	test('string: both are decimal strings; a missing confidence stays null', async () => {
		await play({ numbers: 'string' });
		await create();
		await sandbox.transcribe();
		await sandbox.idle();
		const [created, transcribed] = receiver.received.map(
			(r) => JSON.parse(r.body).included[0].attributes,
		);
		expect(created.duration).toMatch(/^\d+(\.\d+)?$/);
		expect(created.average_confidence).toBeNull();
		expect(transcribed.duration).toBe(created.duration);
		expect(transcribed.average_confidence).toMatch(/^0\.\d+$/);
		expect(Number(transcribed.average_confidence)).toBeGreaterThan(0.8);
		expect(Number(transcribed.average_confidence)).toBeLessThan(1);
		// the raw body quotes them: a client parsing JSON gets strings, not numbers
		expect(receiver.received[1].body).toContain(`"duration":"${transcribed.duration}"`);
	});
});

describe('resource-types and included: the JSON:API resources of deliveries', () => {
	const deliveries = async (variants: Partial<Variants>) => {
		await play(variants);
		await create();
		const { transcription } = await sandbox.transcribe();
		await sandbox.idle();
		return {
			transcription,
			bodies: receiver.received.map((r) => JSON.parse(r.body)),
		};
	};

	test.each([
		['plural', 'webhook_events', 'transcriptions'],
		['capitalised', 'WebhookEvent', 'Transcription'],
		['singular', 'webhook_event', 'transcription'],
	] as const)(
		'resource-types=%s: data.type %s, the subject and its resource %s',
		async (variant, event, subject) => {
			const { transcription, bodies } = await deliveries({ 'resource-types': variant });
			expect(bodies).toHaveLength(2);
			for (const body of bodies) {
				expect(body.data.type).toBe(event);
				expect(body.data.relationships.subject.data).toEqual({
					id: transcription.id,
					type: subject,
				});
				expect(body.included).toEqual([
					expect.objectContaining({ id: transcription.id, type: subject }),
				]);
			}
		},
	);

	test('included=related: its media under the transcription’s own id first, the transcription, then its user', async () => {
		const { transcription, bodies } = await deliveries({
			included: 'related',
			'resource-types': 'plural',
		});
		for (const body of bodies) {
			expect(body.included.map((r: { id: string; type: string }) => [r.type, r.id])).toEqual([
				['media_objects', transcription.id],
				['transcriptions', transcription.id],
				['users', DEFAULT_CLIENT.clientId],
			]);
			expect(body.included[0].attributes.url).toMatch(/\/media\/.+\/media\.wav\?/);
		}
		expect(bodies[1].included[1].attributes.transcriptions).toHaveLength(2);
	});

	test('included=without-subject: the related resources, and no transcription', async () => {
		const { transcription, bodies } = await deliveries({ included: 'without-subject' });
		for (const body of bodies) {
			expect(body.data.relationships.subject.data.id).toBe(transcription.id);
			expect(body.included.map((r: { type: string }) => r.type)).toEqual(['media_object', 'user']);
		}
	});
});

describe('expired-token: how the API refuses a token it was sent', () => {
	/** A token the service issued, then one it revoked, one that expired and one it never issued, and none. */
	async function refusals() {
		const revokedToken = token;
		sandbox.tokens.revoke('access');
		const expiring = (await obtainToken(sandbox)).access_token;
		sandbox.advanceClock(7_201);
		const read = (bearer?: string) =>
			fetch(`${sandbox.url}/webhook_endpoints`, {
				headers: bearer ? apiHeaders(sandbox, bearer) : { accept: sandbox.mediaType },
			});
		return {
			revoked: await read(revokedToken),
			expired: await read(expiring),
			unknown: await read('never-issued-token-value'),
			missing: await read(),
		};
	}

	test('403: a presented token is refused 403 with WWW-Authenticate and a JSON:API invalid_token error', async () => {
		await play({ 'expired-token': '403' });
		const { revoked, expired, unknown, missing } = await refusals();
		for (const [res, detail] of [
			[revoked, 'The access token was revoked'],
			[expired, 'The access token expired'],
			[unknown, 'The access token is invalid'],
		] as const) {
			expect(res.status).toBe(403);
			expect(res.headers.get('www-authenticate')).toBe(
				`Bearer realm="service", error="invalid_token", error_description="${detail}"`,
			);
			expect(res.headers.get('content-type')).toMatch(/^application\/vnd\.api\+json/);
			expect((await json(res)).errors).toEqual([
				{ status: '403', code: 'invalid_token', title: 'invalid token', detail },
			]);
		}
		// RFC 6750 3.1: a request without any token is 401, without an error code in the reading
		expect(missing.status).toBe(401);
	});

	test('400: a presented token is refused 400 with an OAuth invalid_token body and no WWW-Authenticate', async () => {
		await play({ 'expired-token': '400' });
		const { expired, missing } = await refusals();
		expect(expired.status).toBe(400);
		expect(expired.headers.get('www-authenticate')).toBeNull();
		expect(await json(expired)).toEqual({
			error: 'invalid_token',
			error_description: 'The access token expired',
		});
		expect(missing.status).toBe(401);
	});

	test('401 (default): every refusal 401 with WWW-Authenticate, as 5.3 shows it', async () => {
		await play({});
		const statuses = Object.values(await refusals()).map((res) => res.status);
		expect(statuses).toEqual([401, 401, 401, 401]);
	});
});

describe("token-rate-limit: the token endpoint's own rate limit", () => {
	const assertionGrant = () => post(tokenUrl(sandbox, assertionParams()));

	test('every-other: the 1st, 3rd, 5th token request of a client is refused 429 with Retry-After: 1', async () => {
		await play({});
		await setVariants(sandbox, { 'token-rate-limit': 'every-other' });
		const statuses: number[] = [];
		for (let n = 0; n < 5; n++) {
			const res = await assertionGrant();
			statuses.push(res.status);
			if (res.status === 429) {
				expect(res.headers.get('retry-after')).toBe('1');
				expect(await json(res)).toEqual({
					error: 'rate_limited',
					error_description: 'Too many requests to the token endpoint. Retry after 1 second.',
				});
			} else {
				expect((await json(res)).access_token).toEqual(expect.any(String));
			}
		}
		expect(statuses).toEqual([429, 200, 429, 200, 429]);
		// counted per client: another client's first request is refused too, and the API is not limited by it
		const other = await post(
			tokenUrl(sandbox, assertionParams({ client_id: 'sandbox-second-client-id' })),
		);
		expect(other.status).toBe(429);
		expect((await get('/webhook_endpoints')).status).toBe(200);
	});

	test('setting the readings again starts the count afresh: the next request is a first one', async () => {
		await play({});
		await setVariants(sandbox, { 'token-rate-limit': 'every-other' });
		expect((await assertionGrant()).status).toBe(429);
		await setVariants(sandbox, { 'token-rate-limit': 'every-other' });
		expect((await assertionGrant()).status).toBe(429);
		expect((await assertionGrant()).status).toBe(200);
	});

	test('none (default): no token request is refused for the rate limit', async () => {
		await play({});
		const statuses = [await assertionGrant(), await assertionGrant()].map((res) => res.status);
		expect(statuses).toEqual([200, 200]);
	});
});

describe('earlier-tokens: what a grant does to the access tokens issued before it', () => {
	test("revoked: each grant, assertion or refresh, revokes the client's earlier access tokens", async () => {
		await play({ 'earlier-tokens': 'revoked' });
		const read = (bearer: string) =>
			fetch(`${sandbox.url}/webhook_endpoints`, { headers: apiHeaders(sandbox, bearer) });
		const second = await obtainToken(sandbox);
		expect((await read(token)).status).toBe(401);
		expect((await read(second.access_token)).status).toBe(200);
		const renewed = await json(
			await post(
				tokenUrl(sandbox, {
					grant_type: 'refresh_token',
					refresh_token: second.refresh_token,
					client_id: DEFAULT_CLIENT.clientId,
					client_secret: DEFAULT_CLIENT.clientSecret,
				}),
			),
		);
		expect((await read(second.access_token)).status).toBe(401);
		expect((await read(renewed.access_token)).status).toBe(200);
		// another client's tokens are not touched
		const other = await json(
			await post(
				tokenUrl(sandbox, {
					...assertionParams(),
					client_id: 'sandbox-second-client-id',
					client_secret: 'sandbox-second-client-secret',
					assertion: 'sandbox-second-assertion-token',
				}),
			),
		);
		expect(other.access_token).toEqual(expect.any(String));
		expect((await read(renewed.access_token)).status).toBe(200);
	});

	test('kept (default): earlier access tokens stay valid until they expire', async () => {
		await play({});
		await obtainToken(sandbox);
		expect((await get('/webhook_endpoints')).status).toBe(200);
	});
});

describe('Choosing variants', () => {
	test('startSandbox({ variants }) plays them, sandbox.variants and GET /_sandbox/variants report them', async () => {
		await play({ create: 'flat', manage: 'absent-405' });
		const expected = { ...defaultVariants(), create: 'flat', manage: 'absent-405' };
		expect(sandbox.variants).toEqual(expected);
		const res = await control('variants');
		expect(res.status).toBe(200);
		expect(await json(res)).toEqual({ variants: expected, dimensions: VARIANT_DIMENSIONS });
	});

	test('startSandbox refuses an unknown variant, naming the allowed values', async () => {
		await expect(
			startSandbox({ variants: { create: 'xml' as Variants['create'] } }),
		).rejects.toThrow(
			'Unknown value "xml" for variant dimension "create". Allowed: jsonapi, flat, location, empty, no-content, root-key (default jsonapi).',
		);
	});

	test('sandbox.setVariants changes only the dimensions named, and the next answer follows', async () => {
		await play({ list: 'paged' });
		expect(sandbox.setVariants({ create: 'no-content' })).toMatchObject({
			create: 'no-content',
			list: 'paged',
		});
		expect((await create()).status).toBe(204);
	});

	test('POST /_sandbox/variants changes them; {"reset": true} restores the defaults first', async () => {
		await play({ list: 'paged', numbers: 'string' });
		expect(await setVariants(sandbox, { manage: 'absent-404' })).toMatchObject({
			manage: 'absent-404',
			list: 'paged',
			numbers: 'string',
		});
		expect((await get('/webhook_endpoints')).status).toBe(404);
		expect(await setVariants(sandbox, { create: 'empty' }, { reset: true })).toEqual({
			...defaultVariants(),
			create: 'empty',
		});
		expect((await get('/webhook_endpoints')).status).toBe(200);
		expect((await create()).status).toBe(201);
		expect(sandbox.variants).toEqual({ ...defaultVariants(), create: 'empty' });
	});

	test.each([
		[
			{ colour: 'red' },
			// every dimension, in the table's order (each wave adds its own at the end)
			`Unknown variant dimension "colour". Dimensions: create, manage, resource, list, token-refusal, retry-after, delivery, event-id, numbers, token-answer, members, ${Object.keys(VARIANT_DIMENSIONS).slice(11).join(', ')}.`,
		],
		[
			{ create: 'flat', manage: 'absent-500' },
			'Unknown value "absent-500" for variant dimension "manage". Allowed: full, absent-404, absent-405 (default full).',
		],
		[{ reset: 'yes' }, 'reset must be true or false.'],
	])(
		'POST /_sandbox/variants %j is refused with 400 naming it, and nothing changes',
		async (body, detail) => {
			await play({});
			const res = await control('variants', body);
			expect(res.status).toBe(400);
			expect((await json(res)).errors[0].detail).toBe(detail);
			expect(sandbox.variants).toEqual(defaultVariants());
			await expect(setVariants(sandbox, body as Partial<Variants>)).rejects.toThrow(detail);
		},
	);
});

describe('CLI --variant', () => {
	test('repeatable and comma-separated; every other dimension keeps its default', () => {
		expect(
			cliOptions(['--variant', 'create=flat, manage=absent-405', '--variant', 'numbers=string'])
				.variants,
		).toEqual({ create: 'flat', manage: 'absent-405', numbers: 'string' });
		expect(cliOptions([]).variants).toEqual({});
	});

	test.each([
		[
			['--variant', 'create'],
			'Write a variant as dimension=value, e.g. create=flat (got "create")',
		],
		[['--variant', 'list=pages'], 'Allowed: single, paged (default single)'],
		[['--variant', 'shape=flat'], 'Unknown variant dimension "shape"'],
		[
			['--variant', 'create=flat', '--variant', 'create=empty'],
			'Variant dimension "create" is given twice (flat and empty); choose one.',
		],
	])('%j is refused with a message naming the fix', (argv, message) => {
		expect(() => cliOptions(argv)).toThrow(message);
	});

	const runCli = (args: string[]) =>
		spawn(process.execPath, [require.resolve('tsx/cli'), 'sandbox/cli.ts', ...args], {
			cwd: resolvePath(__dirname, '../..'),
			env: { ...process.env, SANDBOX_PORT: '0' },
		});

	test('the sandbox started from the command line prints its variants and plays them', async () => {
		const child = runCli(['--quiet', '--variant', 'create=flat,resource=flat']);
		try {
			let out = '';
			const url = await new Promise<string>((resolve, reject) => {
				child.stdout.on('data', (chunk: Buffer) => {
					out += chunk.toString();
					const match = /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*\n\s*variants: .*\n/.exec(
						out,
					);
					if (match) resolve(match[1]);
				});
				child.once('exit', (code) => reject(new Error(`the CLI exited (${code}): ${out}`)));
			});
			expect(out).toMatch(/\n {2}variants: {8}create=flat, resource=flat\n/);
			const tokenRes = await post(
				`${url}/oauth/token?${new URLSearchParams(assertionParams()).toString()}`,
			);
			const { access_token } = await json(tokenRes);
			const res = await fetch(`${url}/webhook_endpoints`, {
				method: 'POST',
				headers: {
					accept: 'application/vnd.service.v1',
					authorization: `Bearer ${access_token}`,
					'content-type': 'application/x-www-form-urlencoded',
				},
				body: `callback_uri=${encodeURIComponent(`${receiver.url}/hook`)}&enabled_events[]=transcription.created`,
			});
			expect(res.headers.get('location')).toBeNull();
			expect(Object.keys(await json(res)).sort()).toEqual([
				'callback_uri',
				'created_at',
				'enabled_events',
				'id',
			]);
		} finally {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill('SIGTERM');
			await exited;
		}
	});

	test('an unknown variant on the command line exits 2 with the allowed values', async () => {
		const child = runCli(['--variant', 'delivery=xml']);
		let err = '';
		child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
		const code = await new Promise((resolve) => child.once('exit', resolve));
		expect(code).toBe(2);
		expect(err).toContain(
			'sandbox: Unknown value "xml" for variant dimension "delivery". Allowed: json, jsonapi (default json).',
		);
		expect(err).toContain('  event-id: per-endpoint | shared');
	});
});

describe('error-echo=request: error answers repeat the request’s credentials, over HTTP', () => {
	test('an API refusal holds the access token; a token refusal the client secret and assertion; a forged file URL its query', async () => {
		await play({ 'error-echo': 'request' });
		const refused = await json(await create('/hook', ['no.such.event']));
		expect(refused.errors[0].detail).toContain(`Authorization: Bearer ${token}`);
		expect(refused.errors[0].meta.authorization).toBe(`Bearer ${token}`);
		expect(refused.message).toContain(Buffer.from(`Bearer ${token}`).toString('base64'));

		const params = assertionParams({ assertion: 'wrong-assertion-value' });
		const grant = await json(await post(tokenUrl(sandbox, params)));
		expect(grant.error).toBe('invalid_grant');
		expect(grant.error_description).toContain('assertion=wrong-assertion-value');
		expect(grant.request.query).toContain(`client_secret=${params.client_secret}`);

		const forged = await fetch(
			`${sandbox.url}/files/x/captions.vtt?expires=1&signature=forged-signature`,
		);
		expect(forged.status).toBeGreaterThanOrEqual(400);
		expect((await json(forged)).request.query).toBe('expires=1&signature=forged-signature');
	});

	test('none (default): no echo', async () => {
		await play({});
		const refused = await json(await create('/hook', ['no.such.event']));
		expect(JSON.stringify(refused)).not.toContain(token);
	});
});
