// Every answer and delivery shape the nodes read, for the property suite: the answer as the sandbox gives it, its
// decoded value written by hand (oracle.ts), the members the code uses (mutations.ts patterns), the secrets that
// may never show, and how the package's own code reads it: the real parsers, then the flow that uses what they
// read (the token flow, the action's Create, the list reader, the receive pipeline), checked to agree with them.
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { describeTokenFailure } from '../../nodes/Captioning/tokens/failures';
import { readTokenAnswer, type TokenAnswer } from '../../nodes/Captioning/tokens/answer';
import type { SavedTokens } from '../../nodes/Captioning/tokens/grant';
import { obtainTokens } from '../../nodes/Captioning/tokens/obtain';
import {
	CredentialError,
	credentialValues,
	readCredentials,
	valuesFingerprint,
} from '../../nodes/Captioning/tokens/values';
import { createdItem } from '../../nodes/Captioning/actions/webhookEndpoint/create.operation';
import { gotItem } from '../../nodes/Captioning/actions/webhookEndpoint/get.operation';
import { listedItems } from '../../nodes/Captioning/actions/webhookEndpoint/getAll.operation';
import {
	headerValue,
	readAnnouncement,
	readRetryAfter,
} from '../../nodes/Captioning/shared/schemas';
import {
	collectEndpoints,
	createdEndpoint,
	ITEM_SHAPE,
	LIST_SHAPE,
	readEndpointPage,
	UnexpectedListError,
} from '../../nodes/Captioning/transport/webhookEndpoints';
import { type CaptioningContext, captioningApiCall } from '../../nodes/Captioning/transport';
import { readFailure } from '../../nodes/Captioning/transport/errors';
import {
	pacerFor,
	pauseBeforeNextRequest,
	planPause,
	retryDelayMs,
	sendPaced,
} from '../../nodes/Captioning/shared/pacing';
import type { DedupeAccess } from '../../nodes/Captioning/trigger/dedupe/staticData';
import { receiveNow } from '../../nodes/Captioning/trigger/pipeline';
import { hashToken } from '../../nodes/Captioning/trigger/token';
import { type Answer, asHeaders, type Json } from './mutations';
import type { Oracle, Outcome } from './oracle';

export interface Shape extends Oracle {
	name: string;
	answer: Answer;
	/** Patterns of the members the code reads (mutations.ts). */
	used: string[];
	/** Values that may never appear in an outcome, a message or an output. */
	secrets: string[];
	/** The package's own reading of the answer; `seen` collects all text it produced, for the secret scan. */
	run(answer: Answer, seen: string[]): Promise<Outcome>;
}

const SECRET = 'cs-property-secret-0001';
const ASSERTION = 'as-property-assertion-0002';
const ACCESS = 'at-property-access-0003';
const REFRESH = 'rt-property-refresh-0004';
const HELD = 'rt-property-held-0005';
const CALLBACK_TOKEN = 'Cb7okenPropertySuite0123456789ab';
const BASE_URL = 'https://api.example.com';
const WEBHOOK_URL = 'https://n8n.example.com/webhook/4f1c/webhook';
const CALLBACK_URI = `${WEBHOOK_URL}?token=${CALLBACK_TOKEN}`;
const NOW = Date.parse('2026-01-01T00:00:00Z');
const ENDPOINT_ID = '7d0c3a52-9a4e-4c2f-8f5e-1b2a3c4d5e6f';
/** The lifetime the service gives (not the 7200 s the credential assumes without one). */
const EXPIRES_IN = 3600;
const DEFAULT_LIFETIME_S = 7200;

/** Errors the package throws on purpose; anything else (a TypeError, say) is a crash. */
function failure(error: unknown, seen: string[]): Outcome {
	if (
		error instanceof NodeApiError ||
		error instanceof NodeOperationError ||
		error instanceof CredentialError ||
		error instanceof UnexpectedListError
	) {
		const { description, errorResponse, messages } = error as NodeApiError;
		seen.push(JSON.stringify({ m: error.message, description, errorResponse, messages }));
		return { ok: false, message: [error.message, description].filter(Boolean).join(' — ') };
	}
	throw error;
}

/** The flow disagreeing with its own parser is a defect, not an outcome. */
function agree(condition: boolean, what: string): void {
	if (!condition) throw new Error(`the flow disagrees with the parser: ${what}`);
}

let client = 0;
/** Credential values of their own for each run: the token flow shares a grant between equal values. */
function values(saved: Record<string, unknown> = {}) {
	client++;
	const data: Record<string, unknown> = {
		baseUrl: BASE_URL,
		clientId: `property-client-${client}`,
		clientSecret: SECRET,
		assertion: ASSERTION,
		mediaType: 'application/vnd.service.v1',
	};
	return { ...data, ...saved };
}

const contentType = (answer: Answer) =>
	headerValue(asHeaders(answer.headers), 'content-type') ?? '';

// ---- the token endpoint ----------------------------------------------------------------------------------------

const TOKEN_BODY: Json = {
	access_token: ACCESS,
	token_type: 'Bearer',
	expires_in: EXPIRES_IN,
	refresh_token: REFRESH,
	scope: 'write_transcriptions write_media',
	created_at: 1_767_225_600,
};
const TOKEN_USED = [
	'body.access_token',
	'body.expires_in',
	'body.refresh_token',
	'body.error',
	'body.error_description',
];
const JSON_HEADERS = {
	'content-type': 'application/json; charset=utf-8',
	'cache-control': 'no-store',
};
const TOKEN_ORACLE = {
	expected: { accessToken: ACCESS, expiresInSeconds: EXPIRES_IN, refreshToken: REFRESH },
	// without a usable expires_in the credential assumes 7200 s; without a refresh_token it keeps the one held
	optional: ['expiresInSeconds', 'refreshToken'],
};

/** The token endpoint answering `answer` with `status`, as n8n's request helper returns a whole answer. */
const answering = (status: number, answer: Answer) => async () => ({
	statusCode: status,
	headers: asHeaders(answer.headers),
	body: answer.body,
});

const tokenValue = (token: TokenAnswer) => ({
	accessToken: token.access_token,
	expiresInSeconds: token.expires_in,
	refreshToken: token.refresh_token,
});

/** What the credential saved is what the parser read: the token, its lifetime, the refresh token or the held one. */
function savedAsRead(saved: SavedTokens, token: TokenAnswer, held: string): void {
	agree(saved.accessToken === token.access_token, 'the access token saved');
	agree(
		saved.expiresAt === NOW + (token.expires_in ?? DEFAULT_LIFETIME_S) * 1000,
		`expiresAt ${saved.expiresAt - NOW} ms from now for expires_in ${token.expires_in}`,
	);
	agree(saved.refreshToken === (token.refresh_token ?? held), 'the refresh token saved');
}

const tokenShapes: Shape[] = [
	{
		name: 'token answer (assertion grant)',
		answer: { headers: JSON_HEADERS, body: TOKEN_BODY },
		used: TOKEN_USED,
		...TOKEN_ORACLE,
		words: /access_token|token response|refused the assertion grant/,
		secrets: [SECRET, ASSERTION],
		async run(answer, seen) {
			const parsed = readTokenAnswer(200, contentType(answer), answer.body);
			let saved: SavedTokens;
			try {
				saved = await obtainTokens(answering(200, answer), values(), () => NOW);
			} catch (error) {
				agree(!parsed.ok, 'a grant failed on an answer the parser read');
				return failure(error, seen);
			}
			seen.push(JSON.stringify(saved));
			if (!parsed.ok)
				return agree(false, 'tokens saved from an answer the parser refused') as never;
			savedAsRead(saved, parsed.token, '');
			return { ok: true, value: tokenValue(parsed.token), warnings: [] };
		},
	},
	{
		name: 'token answer (refresh grant)',
		answer: { headers: JSON_HEADERS, body: TOKEN_BODY },
		used: TOKEN_USED,
		...TOKEN_ORACLE,
		words: /access_token|token response|refused the refresh_token grant|saved refresh token/,
		secrets: [SECRET, ASSERTION],
		async run(answer, seen) {
			const grants: string[] = [];
			const http = async (options: { qs?: unknown }) => {
				const grant = String((options.qs as Record<string, string>).grant_type);
				grants.push(grant);
				// the refresh gets the mutated answer; a fallback assertion grant gets a good one
				const body: Json =
					grant === 'refresh_token' ? answer.body : { access_token: 'at-fallback', expires_in: 60 };
				return { statusCode: 200, headers: asHeaders(answer.headers), body };
			};
			// a refresh token of its own per run: the flow drops, process-wide, one that yielded no token
			const held = `${HELD}-${client}`;
			const data = values({ accessToken: 'at-old', refreshToken: held });
			data.tokenFingerprint = valuesFingerprint(credentialValues(data));
			const parsed = readTokenAnswer(200, contentType(answer), answer.body);
			const saved = await obtainTokens(http, data, () => NOW);
			seen.push(JSON.stringify(saved));
			if (parsed.ok) {
				agree(grants.join() === 'refresh_token', `one refresh, not ${grants.join()}`);
				savedAsRead(saved, parsed.token, held);
				return { ok: true, value: tokenValue(parsed.token), warnings: [] };
			}
			// a refresh that yields no token: one assertion grant, and the held refresh token is not kept
			agree(grants.join() === 'refresh_token,assertion', `a fall-back, not ${grants.join()}`);
			agree(saved.accessToken === 'at-fallback' && saved.refreshToken !== held, 'the fall-back');
			const message = describeTokenFailure(parsed.failure, 'refresh_token', readCredentials(data));
			seen.push(message);
			return { ok: false, message };
		},
	},
	{
		name: 'OAuth error body (refused assertion grant)',
		answer: {
			headers: JSON_HEADERS,
			body: {
				error: 'invalid_grant',
				error_description:
					'The provided authorization grant is invalid, expired, revoked, or was issued to another client.',
			},
		},
		used: ['body.error', 'body.error_description', 'body.access_token'],
		expected:
			'The service rejected the Assertion Token (invalid_grant): it is wrong, expired or revoked, or belongs to another client. Create a new assertion token in the dashboard and paste it into the credential.',
		words: /Assertion Token|assertion grant/,
		secrets: [SECRET, ASSERTION],
		async run(answer, seen) {
			try {
				await obtainTokens(answering(400, answer), values(), () => NOW);
				return { ok: true, value: { granted: true }, warnings: [] };
			} catch (error) {
				return failure(error, seen);
			}
		},
	},
];

// ---- webhook endpoints -----------------------------------------------------------------------------------------

const EVENTS = ['transcription.created', 'transcription.transcribed'];
/** What Create sent; the service echoes it. */
const SENT = { callbackUri: CALLBACK_URI, events: EVENTS };
const REDACTED_URI = `${WEBHOOK_URL}?token=[redacted]`;
const ATTRIBUTES = {
	callback_uri: CALLBACK_URI,
	enabled_events: EVENTS,
	created_at: '2026-01-01T00:00:00.000Z',
};
const jsonApiEndpoint = (id: string, attributes: Json = ATTRIBUTES): Json => ({
	id,
	type: 'webhook_endpoint',
	attributes,
	links: { self: `${BASE_URL}/webhook_endpoints/${id}` },
});
const ITEM_JSONAPI = [
	'id',
	'attributes',
	'attributes.callback_uri',
	'attributes.enabled_events',
	'callback_uri',
	'enabled_events',
	'data',
];
const ITEM_FLAT = ['id', 'callback_uri', 'enabled_events', 'attributes', 'data'];
const under = (prefix: string, members: string[]) => members.map((m) => `${prefix}.${m}`);
/** A Rails serializer's root key, and the names of the resource a record may come under. */
const ROOT_KEYS = ['data', 'webhook_endpoint', 'webhookEndpoint', 'WebhookEndpoint'];

const endpointWords = /callback_uri|data|webhook endpoint/;
/** Where an endpoint's enabled_events may be: an event dropped from them is another endpoint, not another shape. */
const EVENT_LISTS = [
	'body.enabled_events',
	...under('body.*', ['enabled_events', 'attributes.enabled_events']),
	...under('body.*.*', ['enabled_events', 'attributes.enabled_events']),
];

function invariantEvents(events: unknown): void {
	agree(
		Array.isArray(events) && events.every((e) => typeof e === 'string'),
		'enabled_events are event names',
	);
}

function createShape(name: string, answer: Answer, used: string[], id: string): Shape {
	return {
		name,
		answer,
		used,
		expected: { id, callback_uri: REDACTED_URI, enabled_events: EVENTS },
		// Create's note, where the answer gave no id or showed no enabled_events (the ones sent are output then)
		fields: { id: /\bID\b/, enabled_events: /enabled_events/ },
		lists: EVENT_LISTS,
		rootKeys: ROOT_KEYS,
		words: endpointWords,
		secrets: [CALLBACK_TOKEN],
		async run(a, seen) {
			const response = { headers: asHeaders(a.headers), body: a.body };
			const item = createdItem(createdEndpoint(response, SENT));
			seen.push(JSON.stringify(item));
			invariantEvents(item.enabled_events);
			const warnings = typeof item.note === 'string' ? [item.note] : [];
			const { id: itemId, callback_uri, enabled_events } = item;
			return { ok: true, value: { id: itemId, callback_uri, enabled_events }, warnings };
		},
	};
}

const listEndpoint = (id: string) =>
	`https://n8n.example.com/webhook/${id}/webhook?token=${CALLBACK_TOKEN}`;
const NEXT_PAGE = `${BASE_URL}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=2`;
const SKIPPED = /not a webhook endpoint/;

function listShape(name: string, answer: Answer, used: string[], oracle: Partial<Oracle>): Shape {
	return {
		name,
		answer,
		used,
		expected: {
			ids: ['11', '12'],
			callbackUris: [listEndpoint('11'), listEndpoint('12')],
			events: [EVENTS, EVENTS],
			next: NEXT_PAGE,
		},
		// a list without a next page has ended
		optional: ['next'],
		fields: {
			ids: /not a webhook endpoint|without its ID|\bID\b/,
			callbackUris: SKIPPED,
			events: /not a webhook endpoint|enabled_events/,
		},
		words: /not a list of webhook endpoints|data/,
		secrets: [],
		...oracle,
		async run(a) {
			const first = { headers: asHeaders(a.headers), body: a.body };
			const page = readEndpointPage(first);
			let pages = 0;
			const fetchPage = async () => (pages++ === 0 ? first : { headers: {}, body: { data: [] } });
			try {
				const list = await collectEndpoints(fetchPage, { baseUrl: BASE_URL });
				agree(pages === (page?.next ? 2 : 1), `${pages} pages read for a next page ${page?.next}`);
				for (const e of list.endpoints) invariantEvents(e.enabled_events);
				const { items, hints } = listedItems(list);
				return {
					ok: true,
					value: {
						ids: items.map((e) => e.id),
						callbackUris: list.endpoints.map((e) => e.callback_uri),
						events: items.map((e) => e.enabled_events),
						next: page?.next,
					},
					warnings: [...hints, ...items.flatMap((e) => (e.note ? [e.note] : []))],
				};
			} catch (error) {
				if (error instanceof UnexpectedListError) {
					return { ok: false, message: `${error.message} — ${LIST_SHAPE}` };
				}
				throw error;
			}
		},
	};
}

function readShape(name: string, body: Json, used: string[]): Shape {
	return {
		name,
		answer: { headers: {}, body },
		used,
		expected: { id: ENDPOINT_ID, callback_uri: REDACTED_URI, enabled_events: EVENTS },
		fields: { id: /\bID\b/, enabled_events: /enabled_events/ },
		lists: EVENT_LISTS,
		rootKeys: ROOT_KEYS,
		words: endpointWords,
		secrets: [CALLBACK_TOKEN],
		// the trigger reads an endpoint by id; one it cannot read is an endpoint it will not delete
		async run(a) {
			// Get's own output: a read by id that leaves the id out has the id it asked for
			const endpoint = gotItem(a.body, ENDPOINT_ID);
			if (!endpoint) return { ok: false, message: `not a webhook endpoint — ${ITEM_SHAPE}` };
			invariantEvents(endpoint.enabled_events);
			const { id, callback_uri, enabled_events } = endpoint;
			return {
				ok: true,
				value: { id, callback_uri, enabled_events },
				warnings: endpoint.note ? [endpoint.note] : [],
			};
		},
	};
}

const RAILS_ID = '4711';
const endpointShapes: Shape[] = [
	createShape(
		'create answer (JSON:API, Location)',
		{
			headers: { location: `${BASE_URL}/webhook_endpoints/${ENDPOINT_ID}`, ...JSON_HEADERS },
			body: { data: jsonApiEndpoint(ENDPOINT_ID) },
		},
		[...under('body.data', ITEM_JSONAPI), ...under('body', ITEM_FLAT), 'headers.location'],
		ENDPOINT_ID,
	),
	createShape(
		'create answer (flat)',
		{ headers: JSON_HEADERS, body: { id: ENDPOINT_ID, ...ATTRIBUTES } },
		[...under('body', ITEM_FLAT), 'headers.location'],
		ENDPOINT_ID,
	),
	createShape(
		'create answer (Rails root key, numbered)',
		{
			headers: JSON_HEADERS,
			body: {
				webhook_endpoint: { id: RAILS_ID, ...ATTRIBUTES, updated_at: '2026-01-01T00:00:00.000Z' },
			},
		},
		[...under('body.webhook_endpoint', ITEM_FLAT), ...under('body', ITEM_FLAT), 'headers.location'],
		RAILS_ID,
	),
	listShape(
		'list page (JSON:API, links.next)',
		{
			headers: JSON_HEADERS,
			body: {
				data: [
					jsonApiEndpoint('11', { ...ATTRIBUTES, callback_uri: listEndpoint('11') }),
					jsonApiEndpoint('12', { ...ATTRIBUTES, callback_uri: listEndpoint('12') }),
				],
				links: {
					self: `${BASE_URL}/webhook_endpoints?page%5Bnumber%5D=1&page%5Bsize%5D=2`,
					next: NEXT_PAGE,
				},
			},
		},
		[
			'body.data',
			...under('body.data.*', ITEM_JSONAPI),
			'body.links.next',
			'body.links.next.href',
			'headers.link',
		],
		{ lists: ['body.data', ...EVENT_LISTS] },
	),
	listShape(
		'list page (bare array, Link header)',
		{
			headers: { ...JSON_HEADERS, link: `<${NEXT_PAGE}>; rel="next"` },
			body: [
				{ id: '11', ...ATTRIBUTES, callback_uri: listEndpoint('11') },
				{ id: '12', ...ATTRIBUTES, callback_uri: listEndpoint('12') },
			],
		},
		['body.*', ...under('body.*', ITEM_FLAT), 'body.links', 'headers.link'],
		{
			lists: ['body', ...EVENT_LISTS],
			rootKeys: ['data', 'webhook_endpoints', 'webhookEndpoints'],
		},
	),
	readShape('item read (JSON:API)', { data: jsonApiEndpoint(ENDPOINT_ID) }, [
		...under('body.data', ITEM_JSONAPI),
		...under('body', ITEM_FLAT),
	]),
	readShape('item read (flat)', { id: ENDPOINT_ID, ...ATTRIBUTES }, under('body', ITEM_FLAT)),
];

// ---- API errors and rate-limit headers, through the transport ---------------------------------------------------

/** The context the transport runs in, with n8n's request helper answering `answer` as n8n-core throws it. */
function transportContext(
	answer: () => { status: number; headers: Record<string, string | string[]>; data: unknown },
) {
	return {
		getCredentials: async () => ({ baseUrl: BASE_URL, clientId: 'property-client' }),
		getNode: () => ({
			id: 'n',
			name: 'Captioning',
			type: 'captioning',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		}),
		helpers: {
			httpRequestWithAuthentication: async () => {
				const response = answer();
				throw Object.assign(new Error(`Request failed with status code ${response.status}`), {
					cause: { response },
				});
			},
		},
	} as unknown as CaptioningContext;
}

const errorShape: Shape = {
	name: 'JSON:API error document (422)',
	answer: {
		headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
		body: {
			errors: [
				{
					status: '422',
					code: 'invalid_callback_uri',
					title: 'invalid callback uri',
					detail: `callback_uri ${CALLBACK_URI} is already registered (token ${CALLBACK_TOKEN})`,
					source: { pointer: '/data/attributes/callback_uri' },
				},
			],
		},
	},
	used: ['body.errors', 'body.errors.*', 'body.errors.*.detail', 'body.errors.*.title'],
	expected:
		'The service rejected POST /webhook_endpoints (HTTP 422): callback_uri https://n8n.example.com/webhook/4f1c/webhook?[redacted] is already registered (token [redacted]). — callback_uri https://n8n.example.com/webhook/4f1c/webhook?[redacted] is already registered (token [redacted])',
	words: /rejected POST \/webhook_endpoints \(HTTP 422\)/,
	secrets: [CALLBACK_TOKEN],
	async run(answer, seen) {
		const ctx = transportContext(() => ({
			status: 422,
			headers: asHeaders(answer.headers),
			data: answer.body,
		}));
		const request = {
			method: 'POST' as const,
			path: '/webhook_endpoints',
			form: [
				['callback_uri', CALLBACK_URI],
				['enabled_events[]', 'transcription.transcribed'],
			] as Array<[string, string]>,
		};
		try {
			await captioningApiCall.call(ctx, request);
			return { ok: true, value: { answered: true }, warnings: [] };
		} catch (error) {
			return failure(error, seen);
		}
	},
};

const RESET_AT = String(NOW / 1000 + 3);
const rateShape: Shape = {
	name: 'rate-limit headers (429)',
	answer: {
		headers: {
			'retry-after': '2',
			'x-ratelimit-limit': '20',
			'x-ratelimit-remaining': '0',
			'x-ratelimit-reset': RESET_AT,
			...JSON_HEADERS,
		},
		body: { errors: [{ status: '429', code: 'rate_limited', title: 'rate limited' }] },
	},
	used: ['headers.retry-after', 'headers.x-ratelimit-remaining', 'headers.x-ratelimit-reset'],
	expected: { retryAfterMs: 2000, remaining: 0, resetAtMs: NOW + 3000 },
	// without them the transport backs off, and pauses for nothing announced
	optional: ['retryAfterMs', 'remaining', 'resetAtMs'],
	words: /rate limit/,
	secrets: [],
	async run(answer) {
		const headers = asHeaders(answer.headers);
		const retryAfterMs = readRetryAfter(headerValue(headers, 'retry-after'), NOW);
		const announced = readAnnouncement(headers, NOW);
		const delay = retryDelayMs('POST', { status: 429, headers }, 1, NOW);
		agree(delay === Math.max(1000, retryAfterMs ?? 1000), `a retry delay of ${delay} ms`);
		const pause = planPause(pauseBeforeNextRequest(announced, NOW), 0);
		agree(pause.kind === 'go' || (pause.ms ?? 0) <= 60_000, 'a pause within the budget');
		// the whole loop with a clock of its own: a 429 with these headers, then an answer; it always ends
		const clock = { now: NOW };
		const slept: number[] = [];
		let sent = 0;
		await sendPaced(
			async () => {
				sent++;
				if (sent > 1) return { headers: {} as Record<string, string> };
				throw Object.assign(new Error('429'), {
					cause: { response: { status: 429, headers, data: {} } },
				});
			},
			{
				method: 'GET',
				pacer: pacerFor(`property-${Math.random()}`),
				readFailure,
				now: () => clock.now,
				sleep: async (ms) => {
					slept.push(ms);
					clock.now += ms;
				},
			},
		).catch(() => undefined);
		agree(slept.reduce((a, b) => a + b, 0) <= 60_000, 'waits within the budget');
		return {
			ok: true,
			value: { retryAfterMs, remaining: announced?.remaining, resetAtMs: announced?.resetAtMs },
			warnings: [],
		};
	},
};

// ---- deliveries ------------------------------------------------------------------------------------------------

const SUBJECT = /included resources|with the id|transcription's id|names no subject|no attributes/;
const fileUrl = (id: string, name: string) =>
	`${BASE_URL}/files/${id}/${name}?expires=1&signature=s`;
const transcription = (id: Json, type: string, title: string): Json => ({
	id,
	type,
	attributes: {
		title,
		duration: 12.5,
		average_confidence: 0.93,
		media: { url: `${BASE_URL}/media/${id}/media.wav?expires=1&signature=s` },
		transcriptions: [
			{ format: 'vtt', url: fileUrl(String(id), 'a.vtt') },
			{ format: 'google_stt', url: fileUrl(String(id), 'a.json') },
		],
	},
});
const eventData = (id: Json, eventType: string, subject: Json, type = 'webhook_event'): Json => ({
	id,
	type,
	attributes: { created_at: '2026-01-01T00:00:00.000Z', event_type: eventType, uri: CALLBACK_URI },
	relationships: { subject: { data: subject } },
});
const EVENT_ID = '0b9d8c7e-1f2a-4b3c-9d8e-7f6a5b4c3d2e';
const ATTRIBUTES_USED = [
	'title',
	'duration',
	'average_confidence',
	'media',
	'media.url',
	'transcriptions',
	'transcriptions.*',
	'transcriptions.*.format',
	'transcriptions.*.url',
];
const DELIVERY_USED = [
	'body.data',
	'body.data.id',
	'body.data.attributes',
	'body.data.attributes.event_type',
	'body.data.attributes.created_at',
	'body.data.relationships',
	'body.data.relationships.subject',
	'body.data.relationships.subject.data',
	'body.data.relationships.subject.data.id',
	'body.data.relationships.subject.data.type',
	'body.included',
	'body.included.*',
	'body.included.*.id',
	'body.included.*.type',
	'body.included.*.attributes',
	...under('body.included.*.attributes', ATTRIBUTES_USED),
];

let deliveries = 0;
function deliveryShape(
	name: string,
	body: Json,
	expected: Record<string, unknown>,
	oracle: Partial<Oracle> = {},
): Shape {
	return {
		name,
		answer: { headers: { 'content-type': 'application/json' }, body },
		used: DELIVERY_USED,
		expected,
		fields: {
			transcriptionId: SUBJECT,
			title: new RegExp(`title|${SUBJECT.source}`),
			duration: new RegExp(`duration|${SUBJECT.source}`),
			averageConfidence: new RegExp(`average_confidence|${SUBJECT.source}`),
			files: new RegExp(`file|${SUBJECT.source}`),
			formats: new RegExp(`file|${SUBJECT.source}`),
		},
		// null: no confidence yet (a created event); no time or media address: null, as the item promises nothing
		optional: ['averageConfidence', 'createdAt', 'mediaUrl'],
		asItCame: [
			'body.data.attributes.created_at',
			...under('body.included.*.attributes', [
				'title',
				'duration',
				'average_confidence',
				'media',
				'media.url',
				'transcriptions.*.url',
			]),
		],
		// a file entry dropped is a transcription with fewer files
		lists: ['body.included.*.attributes.transcriptions'],
		words: /data\.id|event_type/,
		secrets: [CALLBACK_TOKEN],
		...oracle,
		async run(answer, seen) {
			deliveries++;
			const dedupe: DedupeAccess = {
				key: `property-${deliveries}`,
				answered: () => undefined,
				onAnswered: () => {},
			};
			const decision = receiveNow(
				{
					registration: 'api',
					manualToken: '',
					registeredTokenHash: hashToken(CALLBACK_TOKEN),
					givenToken: CALLBACK_TOKEN,
					contentType: contentType(answer),
					rawBody: Buffer.from(JSON.stringify(answer.body)),
					selectedEvents: EVENTS,
					options: {},
				},
				dedupe,
				{ nowMs: () => NOW },
			);
			// an event without a selected type is acknowledged and starts nothing: named, as a refusal is
			if (decision.kind === 'reject' || decision.kind === 'ignore') {
				return { ok: false, message: `${decision.kind}: ${decision.message}` };
			}
			if (decision.kind !== 'start') throw new Error(`a first delivery was a ${decision.kind}`);
			const json = decision.item.json;
			seen.push(JSON.stringify(json));
			const { warnings, ...value } = json;
			return {
				ok: true,
				value,
				warnings: Array.isArray(warnings) ? warnings.map(String) : [],
			};
		},
	};
}

const TRANSCRIBED = {
	eventId: EVENT_ID,
	eventType: 'transcription.transcribed',
	createdAt: '2026-01-01T00:00:00.000Z',
	transcriptionId: '1042',
	title: 'Quarterly update',
	duration: 12.5,
	averageConfidence: 0.93,
	mediaUrl: `${BASE_URL}/media/1042/media.wav?expires=1&signature=s`,
	files: { vtt: fileUrl('1042', 'a.vtt'), google_stt: fileUrl('1042', 'a.json') },
	formats: ['vtt', 'google_stt'],
};

const deliveryShapes: Shape[] = [
	// the subject among other resources: another transcription first, and a media resource with the same id
	deliveryShape(
		'webhook event (transcribed, among other resources)',
		{
			data: eventData(EVENT_ID, 'transcription.transcribed', { id: '1042', type: 'transcription' }),
			included: [
				transcription('1041', 'transcription', 'An earlier transcription'),
				{ id: '1042', type: 'media', attributes: { title: 'The media', duration: 99 } },
				transcription('1042', 'transcription', 'Quarterly update'),
			],
		},
		TRANSCRIBED,
	),
	// Rails' jsonapi-resources: plural kebab types, integer ids
	deliveryShape(
		'webhook event (Rails: plural types, integer ids)',
		{
			data: eventData(
				1_766_000_001,
				'transcription.transcribed',
				{ id: 1042, type: 'transcriptions' },
				'webhook-events',
			),
			included: [transcription(1042, 'transcriptions', 'Quarterly update')],
		},
		{ ...TRANSCRIBED, eventId: '1766000001' },
	),
	// before transcribing: no files yet, no confidence yet; neither is a warning
	deliveryShape(
		'webhook event (created: no files yet)',
		{
			data: eventData(EVENT_ID, 'transcription.created', { id: '1042', type: 'transcription' }),
			included: [
				{
					id: '1042',
					type: 'transcription',
					attributes: {
						title: 'Quarterly update',
						duration: 12.5,
						average_confidence: null,
						media: { url: `${BASE_URL}/media/1042/media.wav` },
						transcriptions: [],
					},
				},
			],
		},
		{
			...TRANSCRIBED,
			eventType: 'transcription.created',
			averageConfidence: null,
			mediaUrl: `${BASE_URL}/media/1042/media.wav`,
			files: {},
			formats: [],
		},
		{ values: [['body.included.0.attributes.average_confidence', ['number']]] },
	),
];

export const SHAPES: Shape[] = [
	...tokenShapes,
	...endpointShapes,
	errorShape,
	rateShape,
	...deliveryShapes,
];
