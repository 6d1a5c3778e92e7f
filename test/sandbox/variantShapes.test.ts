// The pure decisions behind the sandbox's variants, rate limit and event log, branch by branch; the wire
// behaviour they produce is tested over HTTP in variants.test.ts.
import { EventLog, type SentEvent } from '../../sandbox/eventLog';
import { FixedWindowLimiter, rateLimitedError, rateLimitHeaders } from '../../sandbox/rateLimit';
import {
	absentRouteAnswer,
	checkVariant,
	creationAnswer,
	decimalString,
	defaultVariants,
	deliveryContentType,
	echoRequest,
	encodeNumbers,
	endpointIdFor,
	eventIdAllocator,
	type FlatEndpoint,
	includedResources,
	listAnswer,
	nonDefaultVariants,
	pageUrl,
	parsePage,
	parseVariantArgs,
	parseVariantPatch,
	QUERY_REFUSED,
	readAnswer,
	resourceType,
	retryAfterValue,
	rotatesRefreshTokens,
	storedCallbackUri,
	tokenAnswerBody,
	tokenRefusalStatus,
	VARIANT_DIMENSIONS,
	withEndpointIds,
	withMembers,
} from '../../sandbox/variants';

const endpoint = (id: string): FlatEndpoint => ({
	id,
	callback_uri: `http://127.0.0.1/${id}`,
	enabled_events: ['transcription.created'],
	created_at: '2025-01-01T00:00:00.000Z',
});
const SELF = 'http://sb/webhook_endpoints/e1';
const COLLECTION = 'http://sb/webhook_endpoints';
const selfOf = (id: string) => `${COLLECTION}/${id}`;

describe('the table and its parsing', () => {
	test('defaults are the first value of every dimension, and nothing differs from them', () => {
		const defaults = defaultVariants();
		expect(Object.keys(defaults)).toEqual(Object.keys(VARIANT_DIMENSIONS));
		expect(defaults).toEqual({
			create: 'jsonapi',
			manage: 'full',
			resource: 'jsonapi',
			list: 'single',
			'token-refusal': 'rfc',
			'retry-after': 'seconds',
			delivery: 'json',
			'event-id': 'per-endpoint',
			numbers: 'number',
			'token-answer': 'contract',
			members: 'contract',
			'endpoint-ids': 'uuid',
			'resource-types': 'singular',
			included: 'subject',
			'expired-token': '401',
			'token-rate-limit': 'none',
			'earlier-tokens': 'kept',
			'callback-query': 'keep',
			'error-echo': 'none',
		});
		expect(nonDefaultVariants(defaults)).toEqual([]);
		expect(nonDefaultVariants({ ...defaults, numbers: 'string', create: 'flat' })).toEqual([
			'create=flat',
			'numbers=string',
		]);
	});

	test('checkVariant refuses unknown dimensions, unknown values and non-strings', () => {
		expect(checkVariant('list', 'paged')).toEqual({ dimension: 'list', value: 'paged' });
		expect(() => checkVariant('toString', 'x')).toThrow('Unknown variant dimension "toString"');
		expect(() => checkVariant('list', 2)).toThrow('Unknown value 2 for variant dimension "list"');
		expect(() => checkVariant('list', null)).toThrow('Allowed: single, paged (default single)');
	});

	test('parseVariantPatch keeps the named dimensions and skips undefined ones', () => {
		expect(parseVariantPatch({ create: 'flat', list: undefined })).toEqual({ create: 'flat' });
		expect(parseVariantPatch({})).toEqual({});
		expect(() => parseVariantPatch({ reset: true })).toThrow('Unknown variant dimension "reset"');
	});

	test('parseVariantArgs: commas, spaces and empty items; the same value twice is fine', () => {
		expect(parseVariantArgs(['create = flat,,', ' list=paged', 'create=flat'])).toEqual({
			create: 'flat',
			list: 'paged',
		});
		expect(parseVariantArgs([])).toEqual({});
		expect(() => parseVariantArgs(['=flat'])).toThrow('Write a variant as dimension=value');
		expect(() => parseVariantArgs(['numbers='])).toThrow('Unknown value "" for variant');
	});
});

describe('webhook-endpoint answers', () => {
	const e1 = endpoint('e1');
	const jsonApi = {
		id: 'e1',
		type: 'webhook_endpoint',
		attributes: {
			callback_uri: e1.callback_uri,
			enabled_events: e1.enabled_events,
			created_at: e1.created_at,
		},
		links: { self: SELF },
	};

	test.each([
		[
			'jsonapi',
			{
				status: 201,
				body: { data: jsonApi },
				contentType: 'application/vnd.api+json; charset=utf-8',
				headers: { location: SELF },
			},
		],
		['flat', { status: 201, body: e1, contentType: 'application/json; charset=utf-8' }],
		['location', { status: 201, headers: { location: SELF } }],
		['empty', { status: 201 }],
		['no-content', { status: 204 }],
		[
			'root-key',
			{
				status: 201,
				body: { webhook_endpoint: e1 },
				contentType: 'application/json; charset=utf-8',
			},
		],
	] as const)('creationAnswer %s', (variant, answer) => {
		expect(creationAnswer(variant, e1, SELF)).toEqual(answer);
	});

	test('readAnswer: a JSON:API document, the flat object, or it under the root key', () => {
		expect(readAnswer('jsonapi', e1, SELF).body).toEqual({ data: jsonApi });
		expect(readAnswer('root-key', e1, SELF)).toEqual({
			status: 200,
			body: { webhook_endpoint: e1 },
			contentType: 'application/json; charset=utf-8',
		});
		expect(readAnswer('flat', e1, SELF)).toEqual({
			status: 200,
			body: e1,
			contentType: 'application/json; charset=utf-8',
		});
	});

	test('parsePage: defaults 1 and 2, at most 100 per page, errors name the parameter', () => {
		expect(parsePage(new URLSearchParams())).toEqual({ number: 1, size: 2 });
		expect(parsePage(new URLSearchParams('page[number]=&page[size]='))).toEqual({
			number: 1,
			size: 2,
		});
		expect(parsePage(new URLSearchParams('page[number]=3&page[size]=500'))).toEqual({
			number: 3,
			size: 100,
		});
		expect(parsePage(new URLSearchParams('page[number]=-1'))).toMatchObject({
			parameter: 'page[number]',
		});
		expect(parsePage(new URLSearchParams('page[size]=1.5'))).toMatchObject({
			parameter: 'page[size]',
			error: 'page[size] must be a whole number from 1 (got "1.5").',
		});
	});

	test('pageUrl encodes the brackets, as Rails-style services do', () => {
		expect(pageUrl(COLLECTION, { number: 2, size: 5 })).toBe(
			`${COLLECTION}?page%5Bnumber%5D=2&page%5Bsize%5D=5`,
		);
	});

	const four = ['a', 'b', 'c', 'd'].map(endpoint);

	test('listAnswer single: everything, as a document or a bare array, page ignored', () => {
		const page = { number: 2, size: 1 };
		const doc = listAnswer({ resource: 'jsonapi', list: 'single' }, four, page, COLLECTION, selfOf);
		expect((doc.body as { data: { id: string }[] }).data.map((e) => e.id)).toEqual([
			'a',
			'b',
			'c',
			'd',
		]);
		const flat = listAnswer({ resource: 'flat', list: 'single' }, four, page, COLLECTION, selfOf);
		expect(flat).toEqual({
			status: 200,
			body: four,
			contentType: 'application/json; charset=utf-8',
		});
		const rooted = listAnswer(
			{ resource: 'root-key', list: 'single' },
			four,
			page,
			COLLECTION,
			selfOf,
		);
		expect(rooted.body).toEqual({ webhook_endpoints: four });
	});

	test('listAnswer paged: next on every page but the last, also when the last page is full', () => {
		const variants = { resource: 'jsonapi', list: 'paged' } as const;
		const first = listAnswer(variants, four, { number: 1, size: 2 }, COLLECTION, selfOf);
		expect(first.body).toMatchObject({
			links: {
				self: pageUrl(COLLECTION, { number: 1, size: 2 }),
				next: pageUrl(COLLECTION, { number: 2, size: 2 }),
			},
		});
		const last = listAnswer(variants, four, { number: 2, size: 2 }, COLLECTION, selfOf);
		expect((last.body as { links: object }).links).toEqual({
			self: pageUrl(COLLECTION, { number: 2, size: 2 }),
		});
		const flatLast = listAnswer(
			{ resource: 'flat', list: 'paged' },
			four,
			{ number: 2, size: 2 },
			COLLECTION,
			selfOf,
		);
		expect(flatLast).toEqual({
			status: 200,
			body: four.slice(2),
			contentType: 'application/json; charset=utf-8',
			headers: {},
		});
	});

	test('absentRouteAnswer: only POST on the collection is served when manage is absent', () => {
		expect(absentRouteAnswer('full', 'DELETE', false)).toBeNull();
		expect(absentRouteAnswer('absent-404', 'POST', true)).toBeNull();
		expect(absentRouteAnswer('absent-405', 'POST', true)).toBeNull();
		expect(absentRouteAnswer('absent-404', 'POST', false)).toEqual({ status: 404, headers: {} });
		expect(absentRouteAnswer('absent-405', 'PATCH', true)).toEqual({
			status: 405,
			headers: { allow: 'POST' },
		});
	});
});

describe('callback-query: what is stored for a callback_uri with a query string', () => {
	test('keep stores it as sent; strip without its query; refuse says why', () => {
		const sent = 'https://n8n.example.com/webhook/abc/webhook?token=t&x=1#frag';
		expect(storedCallbackUri('keep', sent)).toEqual({ stored: sent });
		expect(storedCallbackUri('strip', sent)).toEqual({
			stored: 'https://n8n.example.com/webhook/abc/webhook#frag',
		});
		expect(storedCallbackUri('refuse', sent)).toEqual({
			refused: 'callback_uri must not contain a query string',
		});
		expect(QUERY_REFUSED).toBe('callback_uri must not contain a query string');
	});

	test('a URI without a query is stored as it came, whatever the variant', () => {
		const plain = 'https://n8n.example.com/webhook/abc/abc/t';
		for (const variant of VARIANT_DIMENSIONS['callback-query']) {
			expect(storedCallbackUri(variant, plain)).toEqual({ stored: plain });
		}
		// an empty query ("?") is no query string
		expect(storedCallbackUri('refuse', `${plain}?`)).toEqual({ stored: `${plain}?` });
	});
});

describe('endpoint-ids: how the service numbers its endpoints', () => {
	test('uuid leaves ids to the store; bigint counts past 2^32; zero-padded pads to 12 digits', () => {
		expect(endpointIdFor('uuid', 3)).toBeUndefined();
		expect(endpointIdFor('bigint', 3)).toBe('4294967299');
		expect(endpointIdFor('zero-padded', 3)).toBe('000000000003');
	});

	test('bigint sends each id as the JSON integer it spells, in every answer; the others as they are', () => {
		const read = readAnswer('flat', endpoint('4294967299'), SELF);
		expect(withEndpointIds('bigint', read).body).toMatchObject({ id: 4294967299 });
		const created = creationAnswer('jsonapi', endpoint('4294967299'), SELF);
		expect(withEndpointIds('bigint', created).body).toMatchObject({ data: { id: 4294967299 } });
		const padded = readAnswer('flat', endpoint('000000000003'), SELF);
		expect(withEndpointIds('bigint', padded)).toEqual(padded);
		expect(withEndpointIds('zero-padded', padded)).toBe(padded);
	});
});

describe('members: the loose reading of endpoint resources', () => {
	const extras = {
		description: null,
		disabled_at: null,
		metadata: { source: 'api', tags: [], retries: 5 },
	};

	test('contract leaves every answer as it is', () => {
		const answer = creationAnswer('jsonapi', endpoint('7'), SELF);
		expect(withMembers('contract', answer)).toBe(answer);
	});

	test('a JSON:API document: an integer id, Created_At, extra and null members, around the resource too', () => {
		const answer = readAnswer('jsonapi', endpoint('7'), SELF);
		expect(withMembers('loose', answer)).toEqual({
			...answer,
			body: {
				jsonapi: { version: '1.1' },
				data: {
					id: 7,
					type: 'webhook_endpoint',
					attributes: {
						callback_uri: 'http://127.0.0.1/7',
						enabled_events: ['transcription.created'],
						Created_At: '2025-01-01T00:00:00.000Z',
						...extras,
					},
					links: { self: SELF },
					relationships: { owner: { data: null } },
					meta: null,
				},
				meta: null,
			},
		});
	});

	test('a bare array of flat objects; an id that is no whole number stays a string', () => {
		const page = listAnswer(
			{ resource: 'flat', list: 'single' },
			[endpoint('3'), endpoint('e-1')],
			{ number: 1, size: 2 },
			COLLECTION,
			selfOf,
		);
		const loose = (id: number | string) => ({
			id,
			callback_uri: `http://127.0.0.1/${id}`,
			enabled_events: ['transcription.created'],
			Created_At: '2025-01-01T00:00:00.000Z',
			...extras,
		});
		expect(withMembers('loose', page).body).toEqual([loose(3), loose('e-1')]);
	});

	test('under a Rails root key, the resources inside it', () => {
		const one = withMembers('loose', creationAnswer('root-key', endpoint('7'), SELF));
		expect(one.body).toEqual({
			webhook_endpoint: {
				id: 7,
				callback_uri: 'http://127.0.0.1/7',
				enabled_events: ['transcription.created'],
				Created_At: '2025-01-01T00:00:00.000Z',
				...extras,
			},
		});
		const list = listAnswer(
			{ resource: 'root-key', list: 'single' },
			[endpoint('3')],
			{ number: 1, size: 2 },
			COLLECTION,
			selfOf,
		);
		expect(withMembers('loose', list).body).toEqual({
			webhook_endpoints: [expect.objectContaining({ id: 3, Created_At: expect.any(String) })],
		});
	});

	test('empty answers stay empty; links.next of a page is kept', () => {
		expect(withMembers('loose', { status: 204 })).toEqual({ status: 204 });
		const paged = listAnswer(
			{ resource: 'jsonapi', list: 'paged' },
			[endpoint('1'), endpoint('2'), endpoint('3')],
			{ number: 1, size: 2 },
			COLLECTION,
			selfOf,
		);
		const body = withMembers('loose', paged).body as { links: { next: string } };
		expect(body.links.next).toBe(pageUrl(COLLECTION, { number: 2, size: 2 }));
	});
});

describe('token-answer', () => {
	const issued = {
		accessToken: 'at',
		refreshToken: 'rt',
		expiresInSeconds: 7200,
		scope: 'write_transcriptions write_media',
		issuedAtMs: 1_767_225_600_250,
	};

	test('contract: the six members of 2.1; refresh tokens rotate', () => {
		expect(tokenAnswerBody('contract', issued)).toEqual({
			access_token: 'at',
			token_type: 'Bearer',
			expires_in: 7200,
			refresh_token: 'rt',
			scope: 'write_transcriptions write_media',
			created_at: 1_767_225_600,
		});
		expect(rotatesRefreshTokens('contract')).toBe(true);
	});

	test('loose: expires_in a string, scope null, no token_type, created_at fractional; none rotate', () => {
		expect(tokenAnswerBody('loose', issued)).toEqual({
			access_token: 'at',
			expires_in: '7200',
			refresh_token: 'rt',
			scope: null,
			created_at: 1_767_225_600.25,
		});
		expect(tokenAnswerBody('loose', { ...issued, refreshToken: undefined })).not.toHaveProperty(
			'refresh_token',
		);
		expect(rotatesRefreshTokens('loose')).toBe(false);
	});
});

describe('token refusals and the rate limit', () => {
	test.each([
		['rfc', 400, 400],
		['rfc', 401, 401],
		['401', 400, 401],
		['400', 401, 400],
	] as const)('tokenRefusalStatus %s turns %i into %i', (variant, rfc, status) => {
		expect(tokenRefusalStatus(variant, rfc)).toBe(status);
	});

	test('retryAfterValue: whole seconds rounded up (at least 1), 0, an HTTP date rounded up, nothing', () => {
		const now = Date.UTC(2025, 0, 1, 12, 0, 0, 0);
		expect(retryAfterValue('seconds', now + 1_200, now)).toBe('2');
		expect(retryAfterValue('seconds', now + 10, now)).toBe('1');
		expect(retryAfterValue('zero', now + 5_000, now)).toBe('0');
		expect(retryAfterValue('date', now + 1_200, now)).toBe('Wed, 01 Jan 2025 12:00:02 GMT');
		expect(retryAfterValue('date', now + 2_000, now)).toBe('Wed, 01 Jan 2025 12:00:02 GMT');
		expect(retryAfterValue('absent', now + 1_200, now)).toBeUndefined();
	});

	test('FixedWindowLimiter counts per client and window; the headers and the 429 follow it', () => {
		const limiter = new FixedWindowLimiter();
		const settings = { limit: 2, windowMs: 1000 };
		const t = 10_000;
		expect(limiter.take('a', settings, t)).toEqual({
			allowed: true,
			limit: 2,
			remaining: 1,
			resetAtMs: 11_000,
		});
		expect(limiter.take('a', settings, t + 1).remaining).toBe(0);
		const refused = limiter.take('a', settings, t + 500);
		expect(refused).toMatchObject({ allowed: false, remaining: 0 });
		expect(limiter.take('b', settings, t + 500).allowed).toBe(true);
		expect(limiter.take('a', settings, t + 1000)).toMatchObject({ allowed: true, remaining: 1 });
		limiter.take('a', settings, t + 1001);
		expect(limiter.take('a', settings, t + 1002).allowed).toBe(false);
		limiter.clear();
		expect(limiter.take('a', settings, t + 1003)).toMatchObject({ allowed: true, remaining: 1 });
		expect(rateLimitHeaders(refused)).toEqual({
			'x-ratelimit-limit': '2',
			'x-ratelimit-remaining': '0',
			'x-ratelimit-reset': '11',
		});
		const error = rateLimitedError(refused, settings, 'seconds', t + 500);
		expect([error.status, error.headers]).toEqual([429, { 'retry-after': '1' }]);
		expect(rateLimitedError(refused, settings, 'absent', t + 500).headers).toEqual({});
	});
});

describe('deliveries', () => {
	test('resourceType: as 2.3 and 2.4 show it, plural, or capitalised', () => {
		expect(
			['webhook_event', 'transcription', 'media_object'].map((type) => [
				resourceType('singular', type),
				resourceType('plural', type),
				resourceType('capitalised', type),
			]),
		).toEqual([
			['webhook_event', 'webhook_events', 'WebhookEvent'],
			['transcription', 'transcriptions', 'Transcription'],
			['media_object', 'media_objects', 'MediaObject'],
		]);
	});

	test('includedResources: the subject alone, among its media and user, or without it', () => {
		const subject = { id: 't1', type: 'Transcription', attributes: { title: 't' } };
		const related = { mediaUrl: 'http://sb/media/t1/media.wav?s=1', userId: 'client-1' };
		expect(includedResources('subject', 'capitalised', subject, related)).toEqual([subject]);
		const media = {
			id: 't1',
			type: 'MediaObject',
			attributes: { url: related.mediaUrl, content_type: 'audio/wav' },
		};
		const user = { id: 'client-1', type: 'User', attributes: { name: 'Sandbox user' } };
		expect(includedResources('related', 'capitalised', subject, related)).toEqual([
			media,
			subject,
			user,
		]);
		expect(includedResources('without-subject', 'capitalised', subject, related)).toEqual([
			media,
			user,
		]);
	});

	test('deliveryContentType', () => {
		expect(deliveryContentType('json')).toBe('application/json; charset=utf-8');
		expect(deliveryContentType('jsonapi')).toBe('application/vnd.api+json');
	});

	test('eventIdAllocator: a new id per endpoint, or the first one for all', () => {
		let n = 0;
		const newId = () => `id-${++n}`;
		const own = eventIdAllocator('per-endpoint', newId);
		expect([own(), own()]).toEqual(['id-1', 'id-2']);
		const shared = eventIdAllocator('shared', newId);
		expect([shared(), shared(), shared()]).toEqual(['id-3', 'id-3', 'id-3']);
	});

	test('decimalString never writes an exponent', () => {
		expect(decimalString(12.5)).toBe('12.5');
		expect(decimalString(3)).toBe('3');
		expect(decimalString(1e-7)).toBe('0.0000001');
		expect(decimalString(0.91234567891234)).toBe('0.91234567891234');
	});

	test('encodeNumbers: unchanged as numbers; strings with null kept', () => {
		const attributes = { title: 't', duration: 12.5, average_confidence: null };
		expect(encodeNumbers('number', attributes)).toBe(attributes);
		expect(encodeNumbers('string', attributes)).toEqual({
			title: 't',
			duration: '12.5',
			average_confidence: null,
		});
		expect(encodeNumbers('string', { duration: 1, average_confidence: 0.5 })).toEqual({
			duration: '1',
			average_confidence: '0.5',
		});
	});

	test('EventLog keeps every endpoint’s record of a shared id and answers get() with the first', () => {
		const log = new EventLog();
		const record = (id: string, endpointId: string): SentEvent => ({
			id,
			eventType: 'transcription.created',
			endpointId,
			transcriptionId: 't',
			body: '{}',
			contentType: 'application/json',
		});
		log.add(record('x', 'a'));
		log.add(record('x', 'b'));
		log.add(record('y', 'a'));
		expect(log.size).toBe(3);
		expect(log.get('x')?.endpointId).toBe('a');
		expect(log.all('x').map((e) => e.endpointId)).toEqual(['a', 'b']);
		expect(log.all('z')).toEqual([]);
		expect(log.get('z')).toBeUndefined();
		expect([...log].map((e) => `${e.id}:${e.endpointId}`)).toEqual(['x:a', 'x:b', 'y:a']);
		expect(log.has('y')).toBe(true);
	});
});

describe('error-echo: what an error answer repeats of the request', () => {
	const request = { authorization: 'Bearer tok-123', query: 'client_secret=s3&x=1' };
	const words =
		'request had Authorization: Bearer tok-123, base64 QmVhcmVyIHRvay0xMjM=, hex 42656172657220746f6b2d313233; query: client_secret=s3&x=1';
	const meta = {
		authorization: 'Bearer tok-123',
		authorization_base64: 'QmVhcmVyIHRvay0xMjM=',
		query: 'client_secret=s3&x=1',
	};

	test('none: the body as it is', () => {
		const body = { errors: [{ detail: 'x' }] };
		expect(echoRequest('none', body, request)).toBe(body);
	});

	test('request: a JSON:API error repeats it in each detail, in meta and in message', () => {
		expect(
			echoRequest(
				'request',
				{ errors: [{ status: '422', detail: 'bad' }, { title: 'two' }] },
				request,
			),
		).toEqual({
			errors: [
				{ status: '422', detail: `bad (${words})`, meta },
				{ title: 'two', detail: `two (${words})`, meta },
			],
			message: words,
			request: meta,
		});
	});

	test('request: an OAuth error repeats it in error_description', () => {
		expect(echoRequest('request', { error: 'invalid_grant' }, { query: 'assertion=a' })).toEqual({
			error: 'invalid_grant',
			error_description:
				'invalid_grant (request had Authorization: , base64 , hex ; query: assertion=a)',
			message: 'request had Authorization: , base64 , hex ; query: assertion=a',
			request: { authorization: null, authorization_base64: '', query: 'assertion=a' },
		});
	});

	test('a body that is no object is left alone', () => {
		expect(echoRequest('request', 'text', request)).toBe('text');
		expect(echoRequest('request', undefined, request)).toBeUndefined();
	});
});
