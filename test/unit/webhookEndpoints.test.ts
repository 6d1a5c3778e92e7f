// Reading webhook endpoints from every shape the service may answer in, branch by branch.
import {
	classifyFailure,
	collectEndpoints,
	createdEndpoint,
	createdEndpointId,
	idFromLocation,
	nextFromLinkHeader,
	nextPagePath,
	readEndpoint,
	readEndpointDocument,
	readEndpointPage,
	redactCallbackToken,
	redactEndpoint,
	UnexpectedListError,
} from '../../nodes/Captioning/transport/webhookEndpoints';
import { headerValue } from '../../nodes/Captioning/shared/schemas';

const URI = 'https://n8n.example.com/webhook/abc/webhook?token=s3cret';
const EVENTS = ['transcription.created', 'transcription.transcribed'];
const jsonApi = (id: unknown = 'ep-1') => ({
	id,
	type: 'webhook_endpoint',
	attributes: { callback_uri: URI, enabled_events: EVENTS, created_at: '2026-01-01T00:00:00.000Z' },
	links: { self: 'https://api.example.com/webhook_endpoints/ep-1' },
});
const flat = (id: unknown = 'ep-1') => ({
	id,
	callback_uri: URI,
	enabled_events: EVENTS,
	created_at: '2026-01-01T00:00:00.000Z',
});
const normalised = {
	id: 'ep-1',
	callback_uri: URI,
	enabled_events: EVENTS,
	created_at: '2026-01-01T00:00:00.000Z',
};

describe('readEndpoint', () => {
	test('a JSON:API resource and a flat object read the same; the envelope is dropped', () => {
		expect(readEndpoint(jsonApi())).toEqual(normalised);
		expect(readEndpoint(flat())).toEqual(normalised);
	});

	test('a numeric id becomes a string; a missing or empty id is null', () => {
		expect(readEndpoint(flat(42))?.id).toBe('42');
		expect(readEndpoint({ callback_uri: URI })?.id).toBeNull();
		expect(readEndpoint(flat(null))?.id).toBeNull();
		expect(readEndpoint(jsonApi(''))?.id).toBeNull();
	});

	test('ids as the service wrote them: zeros kept, integers past 2^32 exact, one beyond 2^53 not used and said', () => {
		expect(readEndpoint(flat('007'))?.id).toBe('007');
		expect(readEndpoint(flat(2 ** 32 + 7))?.id).toBe('4294967303');
		expect(readEndpoint(flat(JSON.parse('12345678901234567891')))).toEqual({
			...normalised,
			id: null,
			note: 'The service wrote the endpoint’s ID as a number beyond 2^53, which a JSON number cannot carry exactly: that ID is not used. Ask the service to send IDs as strings.',
		});
	});

	test('events that are missing or not strings are left out, and said; no callback_uri is no endpoint', () => {
		expect(readEndpoint({ id: 'x', callback_uri: URI })).toEqual({
			id: 'x',
			callback_uri: URI,
			enabled_events: [],
			note: 'The service’s answer did not show the endpoint’s enabled_events.',
		});
		expect(readEndpoint({ id: 'x', callback_uri: URI, enabled_events: ['a', 1, null] })).toEqual({
			id: 'x',
			callback_uri: URI,
			enabled_events: ['a'],
			note: 'Some of the endpoint’s enabled_events are not event names (text): they are left out.',
		});
		expect(readEndpoint({ id: 'x', callback_uri: URI, enabled_events: [] })).toEqual({
			id: 'x',
			callback_uri: URI,
			enabled_events: [],
		});
		expect(readEndpoint({ id: 'x', attributes: { enabled_events: EVENTS } })).toBeUndefined();
		expect(readEndpoint({ id: 'x' })).toBeUndefined();
		expect(readEndpoint([flat()])).toBeUndefined();
		expect(readEndpoint('x')).toBeUndefined();
	});
});

describe('readEndpointDocument', () => {
	test('a record under a root key named after the resource, as Rails serializers write it', () => {
		for (const key of [
			'webhook_endpoint',
			'webhookEndpoint',
			'WebhookEndpoint',
			'webhook-endpoints',
		]) {
			expect(readEndpointDocument({ [key]: flat() })).toEqual(normalised);
			expect(readEndpointDocument({ [key]: { data: jsonApi() } })).toEqual(normalised);
		}
		expect(readEndpointDocument({ data: flat() })).toEqual(normalised);
		expect(readEndpointDocument({ data: { data: jsonApi() } })).toEqual(normalised);
		// another name, or a root key that holds no object, is no record
		expect(readEndpointDocument({ endpoint: flat() })).toBeUndefined();
		expect(readEndpointDocument({ webhook_endpoint: [flat()] })).toBeUndefined();
	});

	test('{data:{…}}, a flat object, or JSON text of either', () => {
		expect(readEndpointDocument({ data: jsonApi() })).toEqual(normalised);
		expect(readEndpointDocument(flat())).toEqual(normalised);
		expect(readEndpointDocument(JSON.stringify({ data: jsonApi() }))).toEqual(normalised);
		expect(readEndpointDocument('')).toBeUndefined();
		expect(readEndpointDocument({ data: [jsonApi()] })).toBeUndefined();
	});
});

describe('headerValue', () => {
	test('whatever the case of the name; the first of several values', () => {
		expect(headerValue({ Location: '/a' }, 'location')).toBe('/a');
		expect(headerValue({ link: ['<a>; rel="next"', '<b>'] }, 'Link')).toBe('<a>; rel="next"');
		expect(headerValue({}, 'location')).toBeUndefined();
		expect(headerValue(undefined, 'location')).toBeUndefined();
	});
});

describe('idFromLocation', () => {
	test('the segment after webhook_endpoints of an absolute or relative Location, decoded', () => {
		expect(idFromLocation('https://api.example.com/webhook_endpoints/ep-1')).toBe('ep-1');
		expect(idFromLocation('https://api.example.com/v1/webhook_endpoints/42')).toBe('42');
		expect(idFromLocation('/webhook_endpoints/ep-1/')).toBe('ep-1');
		expect(idFromLocation('/webhook_endpoints/a%20b?x=1#y')).toBe('a b');
		expect(idFromLocation('/webhook_endpoints/%E0%A4%A')).toBe('%E0%A4%A');
	});

	test('no header, no segment, or a path that is not below /webhook_endpoints/: no id', () => {
		expect(idFromLocation(undefined)).toBeUndefined();
		expect(idFromLocation('')).toBeUndefined();
		expect(idFromLocation('https://api.example.com/')).toBeUndefined();
		expect(idFromLocation('http://[bad')).toBeUndefined();
		expect(idFromLocation('/webhook_endpoints')).toBeUndefined();
		expect(idFromLocation('/webhook_endpoints/')).toBeUndefined();
		// a job, a queue entry or another resource: its id would name no endpoint, or another one
		expect(idFromLocation('https://api.example.com/jobs/42')).toBeUndefined();
		expect(idFromLocation('/queue/webhook_endpoints_jobs/7')).toBeUndefined();
		expect(idFromLocation('/webhook_endpoints/42/deliveries/9')).toBeUndefined();
		// a header that is no URI reference (JSON, a sentence) names nothing, though a URL parser would take it
		expect(
			idFromLocation('{"value":"https://api.example.com/webhook_endpoints/ep-1"}'),
		).toBeUndefined();
		expect(idFromLocation('see /webhook_endpoints/ep-1')).toBeUndefined();
	});
});

describe('createdEndpointId', () => {
	const location = { location: 'https://api.example.com/webhook_endpoints/from-location' };

	test('data.id first, then a top-level id, then the Location header', () => {
		expect(createdEndpointId({ headers: location, body: { data: jsonApi('from-data') } })).toBe(
			'from-data',
		);
		expect(createdEndpointId({ headers: location, body: flat('from-top') })).toBe('from-top');
		expect(createdEndpointId({ headers: location, body: '' })).toBe('from-location');
		expect(createdEndpointId({ headers: location, body: { data: { id: null } } })).toBe(
			'from-location',
		);
	});

	test('a record under a Rails root key: the id the service gave', () => {
		for (const key of ['webhook_endpoint', 'webhookEndpoint', 'WebhookEndpoint', 'data']) {
			expect(createdEndpointId({ headers: {}, body: { [key]: flat('rails-7') } })).toBe('rails-7');
			expect(createdEndpointId({ headers: {}, body: { [key]: flat(7) } })).toBe('7');
		}
	});

	test('an empty 201 without Location, or a 204, gives none', () => {
		expect(createdEndpointId({ headers: {}, body: '' })).toBeUndefined();
		expect(createdEndpointId({ headers: {}, body: undefined })).toBeUndefined();
		expect(createdEndpointId({ headers: {}, body: { ok: true } })).toBeUndefined();
	});
});

describe('createdEndpoint', () => {
	const sent = { callbackUri: URI, events: ['transcription.transcribed'] };

	test('a whole resource is read as it is, under a root key too', () => {
		expect(createdEndpoint({ headers: {}, body: { data: jsonApi() } }, sent)).toEqual(normalised);
		expect(createdEndpoint({ headers: {}, body: flat() }, sent)).toEqual(normalised);
		expect(createdEndpoint({ headers: {}, body: { webhook_endpoint: flat() } }, sent)).toEqual(
			normalised,
		);
	});

	const SENT_URI =
		'The service’s answer did not show the callback URI it stored: callback_uri is the one sent.';
	const SENT_EVENTS =
		'The service’s answer did not show the enabled_events it stored: enabled_events are the ones sent.';
	const NO_ID =
		'The service created the endpoint but its answer did not include the endpoint’s ID. Get Many lists the endpoints with their IDs where the service offers it; otherwise find it in the service’s developers dashboard.';

	test('an empty answer is completed with what was sent, the id from Location or null, and says so', () => {
		expect(
			createdEndpoint({ headers: { location: '/webhook_endpoints/ep-9' }, body: '' }, sent),
		).toEqual({
			id: 'ep-9',
			callback_uri: URI,
			enabled_events: ['transcription.transcribed'],
			note: `${SENT_URI} ${SENT_EVENTS}`,
		});
		expect(createdEndpoint({ headers: {}, body: undefined }, sent)).toEqual({
			id: null,
			callback_uri: URI,
			enabled_events: ['transcription.transcribed'],
			note: `${NO_ID} ${SENT_URI} ${SENT_EVENTS}`,
		});
	});

	test('an answer with only an id, or no events, keeps the sent values and says so', () => {
		expect(createdEndpoint({ headers: {}, body: { id: 'x' } }, sent)).toEqual({
			id: 'x',
			callback_uri: URI,
			enabled_events: ['transcription.transcribed'],
			note: `${SENT_URI} ${SENT_EVENTS}`,
		});
		expect(createdEndpoint({ headers: {}, body: { id: 'x', callback_uri: URI } }, sent)).toEqual({
			id: 'x',
			callback_uri: URI,
			enabled_events: ['transcription.transcribed'],
			note: SENT_EVENTS,
		});
	});

	test('what the service stored is reported as stored: its URI, and events it echoed, none included', () => {
		const stored = 'https://N8N.example.com/webhook/abc/webhook/?token=s3cret';
		expect(
			createdEndpoint(
				{ headers: {}, body: { id: 'x', callback_uri: stored, enabled_events: [] } },
				sent,
			),
		).toEqual({ id: 'x', callback_uri: stored, enabled_events: [] });
		expect(
			createdEndpoint(
				{
					headers: {},
					body: {
						id: 'x',
						callback_uri: URI,
						enabled_events: ['transcription.created', 'transcription.created'],
					},
				},
				sent,
			).enabled_events,
		).toEqual(['transcription.created', 'transcription.created']);
	});

	test('an id beyond 2^53 is not used, and said; the Location gives it exactly', () => {
		const INEXACT =
			'The service wrote the endpoint’s ID as a number beyond 2^53, which a JSON number cannot carry exactly: that ID is not used. Ask the service to send IDs as strings.';
		const body = JSON.parse(
			'{"id": 12345678901234567891, "callback_uri": "https://x/h", "enabled_events": []}',
		);
		expect(createdEndpoint({ headers: {}, body }, sent)).toMatchObject({
			id: null,
			note: INEXACT,
		});
		expect(
			createdEndpoint(
				{ headers: { location: '/webhook_endpoints/12345678901234567891' }, body },
				sent,
			),
		).toMatchObject({ id: '12345678901234567891', note: INEXACT });
	});
});

describe('nextFromLinkHeader', () => {
	test('the rel="next" target, quoted or not, among other relations', () => {
		expect(
			nextFromLinkHeader(
				'<https://a.example/x?page=1>; rel="prev", <https://a.example/x?page=3>; rel="next"',
			),
		).toBe('https://a.example/x?page=3');
		expect(nextFromLinkHeader('</x?page=2>; rel=next')).toBe('/x?page=2');
		expect(nextFromLinkHeader('</x?page=2>; title="a"; REL="last next"')).toBe('/x?page=2');
	});

	test('parameters in quotes may hold commas, semicolons and angle brackets; the first rel counts', () => {
		expect(
			nextFromLinkHeader(
				'</x?page=1>; title="a, b; rel=next"; rel="prev", </x?page=3>; type="<x>"; rel="next"',
			),
		).toBe('/x?page=3');
		expect(nextFromLinkHeader('</x?page=1>; rel="prev"; rel="next", </x?page=3>; rel=next')).toBe(
			'/x?page=3',
		);
		expect(nextFromLinkHeader('</x?page=2>;REL = "Next" ;title=x')).toBe('/x?page=2');
		expect(nextFromLinkHeader('</x?page=2>; title="escaped \\" quote"; rel=next')).toBe(
			'/x?page=2',
		);
	});

	test('no next relation, or no header: none', () => {
		expect(nextFromLinkHeader('<https://a.example/x?page=9>; rel="last"')).toBeUndefined();
		expect(nextFromLinkHeader('<https://a.example/x>; rel="nextish"')).toBeUndefined();
		expect(nextFromLinkHeader(undefined)).toBeUndefined();
	});
});

describe('readEndpointPage', () => {
	test('{data:[…]} with links.next (a string or an href object)', () => {
		expect(
			readEndpointPage({
				headers: {},
				body: {
					data: [jsonApi()],
					links: { next: 'https://api.example.com/webhook_endpoints?p=2' },
				},
			}),
		).toEqual({
			endpoints: [normalised],
			unreadable: 0,
			next: 'https://api.example.com/webhook_endpoints?p=2',
		});
		expect(
			readEndpointPage({ headers: {}, body: { data: [], links: { next: { href: '/n' } } } })?.next,
		).toBe('/n');
	});

	test('a bare array with the next page in a Link header; the last page has none', () => {
		expect(
			readEndpointPage({
				headers: { link: '</webhook_endpoints?p=2>; rel="next"' },
				body: [flat()],
			}),
		).toEqual({ endpoints: [normalised], unreadable: 0, next: '/webhook_endpoints?p=2' });
		expect(readEndpointPage({ headers: {}, body: [flat()] })).toEqual({
			endpoints: [normalised],
			unreadable: 0,
		});
		expect(readEndpointPage({ headers: {}, body: { data: [], links: { next: null } } })).toEqual({
			endpoints: [],
			unreadable: 0,
		});
	});

	test('a list under a root key named after the resource, as Rails serializers write it', () => {
		for (const key of ['webhook_endpoints', 'webhookEndpoints', 'WebhookEndpoints']) {
			expect(readEndpointPage({ headers: {}, body: { [key]: [flat()] } })?.endpoints).toEqual([
				normalised,
			]);
		}
		expect(readEndpointPage({ headers: {}, body: { endpoints: [flat()] } })).toBeUndefined();
		expect(
			readEndpointPage({ headers: {}, body: { data: { data: [flat()] } } })?.endpoints,
		).toEqual([normalised]);
	});

	test('entries that are no endpoint are left out and counted; a body that is no list is none', () => {
		expect(readEndpointPage({ headers: {}, body: [flat(), { id: 'x' }, 7] })).toEqual({
			endpoints: [normalised],
			unreadable: 2,
		});
		expect(readEndpointPage({ headers: {}, body: { data: jsonApi() } })).toBeUndefined();
		expect(readEndpointPage({ headers: {}, body: '' })).toBeUndefined();
	});
});

describe('nextPagePath', () => {
	const base = 'https://api.example.com';
	const current = `${base}/webhook_endpoints`;

	test('an absolute or relative next URL at the Base URL becomes a path with its query', () => {
		expect(nextPagePath(`${base}/webhook_endpoints?page%5Bnumber%5D=2`, current, base)).toEqual({
			path: '/webhook_endpoints?page%5Bnumber%5D=2',
		});
		expect(nextPagePath('?page=2', current, base)).toEqual({ path: '/webhook_endpoints?page=2' });
		expect(nextPagePath('/webhook_endpoints?page=2', current, base)).toEqual({
			path: '/webhook_endpoints?page=2',
		});
	});

	test('a Base URL with a path: the path below it', () => {
		expect(
			nextPagePath(
				'https://api.example.com/v1/webhook_endpoints?page=2',
				'https://api.example.com/v1/webhook_endpoints',
				'https://api.example.com/v1/',
			),
		).toEqual({ path: '/webhook_endpoints?page=2' });
		expect(
			nextPagePath(
				'https://api.example.com/v2/webhook_endpoints?page=2',
				'https://api.example.com/v1/webhook_endpoints',
				'https://api.example.com/v1',
			),
		).toEqual({ refused: expect.stringMatching(/outside the Base URL's path/) });
	});

	test('another origin (host, port or scheme) is refused: the token never goes there', () => {
		for (const next of [
			'https://evil.example.com/webhook_endpoints?page=2',
			'https://api.example.com:8443/webhook_endpoints?page=2',
			'http://api.example.com/webhook_endpoints?page=2',
		]) {
			expect(nextPagePath(next, current, base)).toEqual({
				refused: expect.stringMatching(/another origin/),
			});
		}
		expect(nextPagePath('x', current, 'not a url')).toEqual({
			refused: expect.stringMatching(/not a URL/),
		});
	});
});

describe('collectEndpoints', () => {
	const base = 'http://127.0.0.1:9';
	const page = (ids: string[], next?: string) => ({
		headers: {},
		body: { data: ids.map((id) => jsonApi(id)), ...(next ? { links: { next } } : {}) },
	});

	test('follows next pages until the last one', async () => {
		const paths: string[] = [];
		const pages: Record<string, ReturnType<typeof page>> = {
			'/webhook_endpoints': page(['1', '2'], `${base}/webhook_endpoints?p=2`),
			'/webhook_endpoints?p=2': page(['3', '4'], `${base}/webhook_endpoints?p=3`),
			'/webhook_endpoints?p=3': page(['5']),
		};
		const result = await collectEndpoints(
			async (path) => {
				paths.push(path);
				return pages[path];
			},
			{ baseUrl: `${base}/` },
		);
		expect(result.endpoints.map((e) => e.id)).toEqual(['1', '2', '3', '4', '5']);
		expect(result.incomplete).toBeUndefined();
		expect(paths).toEqual(Object.keys(pages));
	});

	test('stops reading once the limit is in hand', async () => {
		const paths: string[] = [];
		const result = await collectEndpoints(
			async (path) => {
				paths.push(path);
				return page(['a', 'b'], `${base}/webhook_endpoints?p=${paths.length + 1}`);
			},
			{ baseUrl: base, limit: 3 },
		);
		expect(result.endpoints).toHaveLength(3);
		expect(paths).toHaveLength(2);
	});

	test('a cross-origin next page is not followed, and says so', async () => {
		const result = await collectEndpoints(
			async () => page(['1'], 'https://elsewhere.example.com/webhook_endpoints?p=2'),
			{ baseUrl: base },
		);
		expect(result.endpoints).toHaveLength(1);
		expect(result.incomplete).toMatch(/another origin \(https:\/\/elsewhere\.example\.com\)/);
	});

	test('a bounded number of pages; a next link back to a read page ends the list', async () => {
		let calls = 0;
		const endless = await collectEndpoints(
			async () => page([String(++calls)], `${base}/webhook_endpoints?p=${calls + 1}`),
			{ baseUrl: base, maxPages: 4 },
		);
		expect(calls).toBe(4);
		expect(endless.incomplete).toMatch(/beyond 4 pages/);
		calls = 0;
		const loop = await collectEndpoints(
			async () => page([String(++calls)], `${base}/webhook_endpoints`),
			{ baseUrl: base },
		);
		expect(calls).toBe(1);
		expect(loop.incomplete).toBeUndefined();
	});

	test('items that are no endpoint, on any page, are left out and said', async () => {
		const result = await collectEndpoints(
			async (path) =>
				path === '/webhook_endpoints'
					? { headers: {}, body: { data: [jsonApi('1'), { id: '2' }], links: { next: '?p=2' } } }
					: { headers: {}, body: { data: [jsonApi('3'), 'x', null] } },
			{ baseUrl: base },
		);
		expect(result.endpoints.map((e) => e.id)).toEqual(['1', '3']);
		expect(result.skipped).toBe(
			'3 items of the list are not a webhook endpoint (no callback_uri) and are left out',
		);
		expect(result.incomplete).toBeUndefined();
		const one = await collectEndpoints(async () => ({ headers: {}, body: [flat(), {}] }), {
			baseUrl: base,
		});
		expect(one.skipped).toBe(
			'1 item of the list is not a webhook endpoint (no callback_uri) and is left out',
		);
		expect((await collectEndpoints(async () => page(['1']), { baseUrl: base })).skipped).toBe(
			undefined,
		);
	});

	test('an answer that is no list throws, naming the request', async () => {
		await expect(
			collectEndpoints(async () => ({ headers: {}, body: { data: jsonApi() } }), { baseUrl: base }),
		).rejects.toEqual(new UnexpectedListError('/webhook_endpoints'));
	});
});

describe('classifyFailure', () => {
	test('404, 405 and 501 on the collection: the service has no such route', () => {
		for (const status of [404, 405, 501]) {
			expect(classifyFailure(status, 'collection', true)).toBe('unsupported');
			expect(classifyFailure(status, 'collection', false)).toBe('unsupported');
		}
	});

	test('on an item: 405/501 unsupported; 404 gone where the service has reads, unsupported elsewhere', () => {
		expect(classifyFailure(405, 'item', true)).toBe('unsupported');
		expect(classifyFailure(501, 'item', true)).toBe('unsupported');
		expect(classifyFailure(404, 'item', true)).toBe('gone');
		expect(classifyFailure(404, 'item', false)).toBe('unsupported');
	});

	test('anything else, or no answer at all, is a real error', () => {
		for (const status of [400, 401, 403, 422, 429, 500, 503, undefined]) {
			expect(classifyFailure(status, 'item', true)).toBe('error');
			expect(classifyFailure(status, 'collection', false)).toBe('error');
		}
	});
});

describe('redactCallbackToken', () => {
	test('the token’s value goes; the rest of the URI is kept exactly', () => {
		expect(redactCallbackToken(URI)).toBe(
			'https://n8n.example.com/webhook/abc/webhook?token=[redacted]',
		);
		expect(redactCallbackToken('https://h.example/p?a=1+2&token=x%2Fy&b=%20#frag?token=z')).toBe(
			'https://h.example/p?a=1+2&token=[redacted]&b=%20#frag?token=z',
		);
		expect(redactCallbackToken('https://h.example/p?to%6Ben=x&tokens=y')).toBe(
			'https://h.example/p?to%6Ben=[redacted]&tokens=y',
		);
	});

	test('the token route’s token (the last segment after the webhook ID twice) goes too', () => {
		const id = '0f6c7c2e-2b1a-4c1e-9b0e-1d2c3b4a5f60';
		expect(redactCallbackToken(`https://n8n.example.com/webhook/${id}/${id}/s3cret-t0ken`)).toBe(
			`https://n8n.example.com/webhook/${id}/${id}/[redacted]`,
		);
		expect(
			redactCallbackToken(`https://n8n.example.com/webhook/${id}/${id}/s3cret?a=1&token=x#f`),
		).toBe(`https://n8n.example.com/webhook/${id}/${id}/[redacted]?a=1&token=[redacted]#f`);
		expect(redactCallbackToken(`https://h.example/${id}/webhook#${id}/${id}/x`)).toBe(
			`https://h.example/${id}/webhook#${id}/${id}/x`,
		);
	});

	test('a URI without a token, or without a query, is unchanged', () => {
		expect(redactCallbackToken('https://h.example/p')).toBe('https://h.example/p');
		expect(redactCallbackToken('https://h.example/p?token')).toBe('https://h.example/p?token');
		expect(redactCallbackToken('https://h.example/p?a=%E0%A4%A')).toBe(
			'https://h.example/p?a=%E0%A4%A',
		);
		expect(redactEndpoint({ ...normalised }).callback_uri).not.toContain('s3cret');
	});
});

describe('redactEndpoint: Get and Get Many show no secret', () => {
	const TOKEN = 'Abcdefghijklmnopqrstuvwxyz012345';
	const ACCESS = 'access-token-value-9876';

	test('attributes that hold the callback token, members named as secrets, and the credential’s values are out; the rest as it came', () => {
		const endpoint = {
			id: 'ep-1',
			callback_uri: `https://n8n.example.com/webhook/x/webhook?token=${TOKEN}`,
			enabled_events: ['transcription.transcribed'],
			delivery_url: `https://n8n.example.com/webhook/x/webhook?token=${TOKEN}&a=1`,
			last_delivery: { request: `POST ?token=${encodeURIComponent(TOKEN)}`, status: 200 },
			signing_secret: 'whsec_abcdef',
			webhookSecret: 'whsec_2',
			api_key: 42,
			debug: `Authorization: Bearer ${ACCESS}`,
			created_at: '2026-01-01T00:00:00Z',
			description: 'Created by n8n for workflow 7 (see https://x.example/a?b=c)',
		};
		const shown = redactEndpoint(endpoint, [ACCESS]);
		expect(shown).toEqual({
			id: 'ep-1',
			callback_uri: 'https://n8n.example.com/webhook/x/webhook?token=[redacted]',
			enabled_events: ['transcription.transcribed'],
			delivery_url: 'https://n8n.example.com/webhook/x/webhook?token=[redacted]&a=1',
			last_delivery: { request: 'POST ?token=[redacted]', status: 200 },
			signing_secret: '[redacted]',
			webhookSecret: '[redacted]',
			api_key: '[redacted]',
			debug: 'Authorization: Bearer [redacted]',
			created_at: '2026-01-01T00:00:00Z',
			description: 'Created by n8n for workflow 7 (see https://x.example/a?b=c)',
		});
		expect(Object.keys(shown)).toEqual(Object.keys(endpoint));
	});

	test('on the token route, the token in the path is found and redacted elsewhere too', () => {
		const id = 'a1b2c3d4-0000-4000-8000-000000000001';
		const shown = redactEndpoint({
			id: null,
			callback_uri: `https://n8n.example.com/webhook/${id}/${id}/${TOKEN}`,
			enabled_events: [],
			echo: `sent to …/${TOKEN}`,
		});
		expect(shown).toEqual({
			id: null,
			callback_uri: `https://n8n.example.com/webhook/${id}/${id}/[redacted]`,
			enabled_events: [],
			echo: 'sent to …/[redacted]',
		});
	});
});
