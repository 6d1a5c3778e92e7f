// Every answer shape the nodes read, for the property suite: the answer as the sandbox gives it, the members the
// code uses (mutations.ts patterns), what an error must name, the secrets that may never show, and how the
// package's own code reads it (run: the real parsers, token flow, transport wording and receive pipeline).
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CredentialError } from '../../credentials/CaptioningApi/values';
import { obtainTokens } from '../../credentials/CaptioningApi/tokens';
import {
	credentialValues,
	valuesFingerprint,
} from '../../nodes/Captioning/shared/credentialValues';
import {
	collectEndpoints,
	createdEndpoint,
	createdEndpointId,
	LIST_SHAPE,
	readEndpointDocument,
	UnexpectedListError,
	type WebhookEndpoint,
} from '../../nodes/Captioning/transport/webhookEndpoints';
import { type CaptioningContext, captioningApiCall } from '../../nodes/Captioning/transport';
import {
	pacerFor,
	pauseBeforeNextRequest,
	planPause,
	retryDelayMs,
	sendPaced,
} from '../../nodes/Captioning/shared/pacing';
import { readFailure } from '../../nodes/Captioning/transport';
import { readAnnouncement } from '../../nodes/Captioning/shared/schemas';
import type { DedupeAccess } from '../../nodes/Captioning/trigger/dedupe/staticData';
import { receiveNow } from '../../nodes/Captioning/trigger/pipeline';
import { hashToken } from '../../nodes/Captioning/trigger/token';
import { type Answer, asHeaders, type Json } from './mutations';

export type Outcome = { ok: true; decision: unknown } | { ok: false; message: string };

export interface Shape {
	name: string;
	answer: Answer;
	/** Patterns of the members the code reads (mutations.ts). */
	used: string[];
	/** What a failure of this shape is worded with: a used member's name, or the shape itself. */
	words: RegExp;
	/** Values that may never appear in an outcome, a message or an output. */
	secrets: string[];
	/** The answer is a refusal: the code's reading of it is an error. */
	refusal?: true;
	/** The package's own reading of the answer; `seen` collects all text it produced, for the secret scan. */
	run(answer: Answer, seen: string[]): Promise<Outcome>;
	/** What must hold of any outcome, whatever was mutated. */
	invariant?(outcome: Outcome): void;
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

const pick = (e: WebhookEndpoint | undefined) =>
	e && { id: e.id, callback_uri: e.callback_uri, enabled_events: e.enabled_events };

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

const TOKEN_BODY: Json = {
	access_token: ACCESS,
	token_type: 'Bearer',
	expires_in: 7200,
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

/** The token endpoint answering `answer` with `status`, as n8n's request helper returns a whole answer. */
const answering = (status: number, answer: Answer) => async () => ({
	statusCode: status,
	headers: asHeaders(answer.headers),
	body: answer.body,
});

const tokenShapes: Shape[] = [
	{
		name: 'token answer (assertion grant)',
		answer: { headers: JSON_HEADERS, body: TOKEN_BODY },
		used: TOKEN_USED,
		words: /access_token|token response|refused the assertion grant/,
		secrets: [SECRET, ASSERTION],
		async run(answer, seen) {
			try {
				const saved = await obtainTokens(answering(200, answer), values(), () => NOW);
				seen.push(JSON.stringify(saved));
				const { accessToken, refreshToken, expiresAt } = saved;
				return { ok: true, decision: { accessToken, refreshToken, expiresAt } };
			} catch (error) {
				return failure(error, seen);
			}
		},
		invariant(outcome) {
			if (!outcome.ok) return;
			const d = outcome.decision as { accessToken: unknown; expiresAt: number };
			expectTrue(
				typeof d.accessToken === 'string' && d.accessToken.trim() !== '',
				'an access token',
			);
			expectTrue(Number.isFinite(d.expiresAt) && d.expiresAt > NOW, 'a finite expiry ahead');
		},
	},
	{
		name: 'token answer (refresh grant)',
		answer: { headers: JSON_HEADERS, body: TOKEN_BODY },
		used: TOKEN_USED,
		words: /access_token|token response/,
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
			try {
				const saved = await obtainTokens(http, data, () => NOW);
				const { accessToken, expiresAt } = saved;
				const refreshToken = saved.refreshToken === held ? HELD : saved.refreshToken;
				return { ok: true, decision: { grants, accessToken, refreshToken, expiresAt } };
			} catch (error) {
				return failure(error, seen);
			}
		},
		invariant(outcome) {
			// a refresh that yields no token ends in one assertion grant and a working token, whatever it answered
			expectTrue(outcome.ok, 'tokens, from the refresh or from one assertion grant after it');
			if (!outcome.ok) return;
			const d = outcome.decision as { grants: string[]; refreshToken: string; accessToken: string };
			const fellBack = d.grants.length === 2;
			expectTrue(
				d.grants[0] === 'refresh_token' && (!fellBack || d.grants[1] === 'assertion'),
				'a refresh, then at most one assertion grant',
			);
			// RFC 6749 section 6: without a usable refresh token in the answer, the held one is kept
			if (!fellBack) {
				expectTrue(
					d.refreshToken.trim() !== '',
					"the answer's refresh token, or the held one kept",
				);
			} else expectTrue(d.refreshToken !== HELD, 'the dropped refresh token not kept');
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
		refusal: true,
		words: /Assertion Token|assertion grant/,
		secrets: [SECRET, ASSERTION],
		async run(answer, seen) {
			try {
				await obtainTokens(answering(400, answer), values(), () => NOW);
				return { ok: true, decision: 'granted' };
			} catch (error) {
				return failure(error, seen);
			}
		},
		invariant(outcome) {
			expectTrue(!outcome.ok, 'a refusal stays a refusal');
		},
	},
];

// ---- webhook endpoints -----------------------------------------------------------------------------------------

const ENDPOINT_ATTRIBUTES = {
	callback_uri: CALLBACK_URI,
	enabled_events: ['transcription.created', 'transcription.transcribed'],
	created_at: '2026-01-01T00:00:00.000Z',
};
const jsonApiEndpoint = (id: string): Json => ({
	id,
	type: 'webhook_endpoint',
	attributes: { ...ENDPOINT_ATTRIBUTES, callback_uri: `${CALLBACK_URI}-${id}` },
	links: { self: `${BASE_URL}/webhook_endpoints/${id}` },
});
const flatEndpoint = (id: string): Json => ({
	id,
	...ENDPOINT_ATTRIBUTES,
	callback_uri: `${CALLBACK_URI}-${id}`,
});
const ITEM_JSONAPI = [
	'id',
	'attributes',
	'attributes.callback_uri',
	'attributes.enabled_events',
	'callback_uri',
	'enabled_events',
];
const ITEM_FLAT = ['id', 'callback_uri', 'enabled_events', 'attributes'];
const under = (prefix: string, members: string[]) => members.map((m) => `${prefix}.${m}`);

const endpointWords = /callback_uri|data|webhook endpoint/;

function endpointInvariant(outcome: Outcome) {
	if (!outcome.ok) return;
	const { endpoints } = outcome.decision as { endpoints?: Array<ReturnType<typeof pick>> };
	for (const e of endpoints ?? [
		(outcome.decision as { endpoint?: ReturnType<typeof pick> }).endpoint,
	]) {
		if (!e) continue;
		expectTrue(typeof e.callback_uri === 'string' && e.callback_uri !== '', 'a callback URI');
		expectTrue(e.id === null || (typeof e.id === 'string' && e.id !== ''), 'an id or none');
		expectTrue(
			e.enabled_events.every((x) => typeof x === 'string'),
			'event names',
		);
	}
}

const SENT = { callbackUri: CALLBACK_URI, events: ['transcription.transcribed'] };

/** What every webhook-endpoint shape shares: its failures name the shape, and it carries no secret of ours. */
const endpointShape = (name: string, answer: Answer, used: string[]) => ({
	name,
	answer,
	used,
	words: endpointWords,
	secrets: [],
});

function createShape(name: string, answer: Answer, used: string[]): Shape {
	return {
		...endpointShape(name, answer, used),
		async run(a) {
			const response = { headers: asHeaders(a.headers), body: a.body };
			const registeredId = createdEndpointId(response) ?? null;
			return {
				ok: true,
				decision: { endpoint: pick(createdEndpoint(response, SENT)), registeredId },
			};
		},
		invariant(outcome) {
			endpointInvariant(outcome);
			const { registeredId } = (outcome as { decision: { registeredId: unknown } }).decision;
			expectTrue(
				registeredId === null || (typeof registeredId === 'string' && registeredId !== ''),
				'an id or none',
			);
		},
	};
}

function listShape(name: string, answer: Answer, used: string[]): Shape {
	return {
		...endpointShape(name, answer, used),
		async run(a) {
			let pages = 0;
			const fetchPage = async () =>
				pages++ === 0
					? { headers: asHeaders(a.headers), body: a.body }
					: { headers: {}, body: { data: [] } };
			try {
				const list = await collectEndpoints(fetchPage, { baseUrl: BASE_URL });
				return {
					ok: true,
					decision: {
						endpoints: list.endpoints.map(pick),
						incomplete: list.incomplete ?? null,
						pages,
					},
				};
			} catch (error) {
				if (error instanceof UnexpectedListError) {
					return { ok: false, message: `${error.message} — ${LIST_SHAPE}` };
				}
				throw error;
			}
		},
		invariant: endpointInvariant,
	};
}

function readShape(name: string, body: Json, used: string[]): Shape {
	return {
		...endpointShape(name, { headers: {}, body }, used),
		// the trigger reads an endpoint by id; one it cannot read is an endpoint it will not delete
		async run(a) {
			return {
				ok: true,
				decision: { endpoint: pick(readEndpointDocument(a.body)) ?? 'unreadable' },
			};
		},
		invariant(outcome) {
			const { endpoint } = (outcome as { decision: { endpoint: unknown } }).decision;
			if (endpoint !== 'unreadable')
				endpointInvariant({ ok: true, decision: { endpoints: [endpoint] } });
		},
	};
}

const endpointShapes: Shape[] = [
	createShape(
		'create answer (JSON:API, Location)',
		{
			headers: { location: `${BASE_URL}/webhook_endpoints/${ENDPOINT_ID}`, ...JSON_HEADERS },
			body: { data: jsonApiEndpoint(ENDPOINT_ID) },
		},
		[...under('body.data', ITEM_JSONAPI), ...under('body', ITEM_FLAT), 'headers.location'],
	),
	createShape('create answer (flat)', { headers: JSON_HEADERS, body: flatEndpoint(ENDPOINT_ID) }, [
		...under('body', ITEM_FLAT),
		'body.data',
		'headers.location',
	]),
	listShape(
		'list page (JSON:API, links.next)',
		{
			headers: JSON_HEADERS,
			body: {
				data: [jsonApiEndpoint('e1'), jsonApiEndpoint('e2')],
				links: {
					self: `${BASE_URL}/webhook_endpoints?page%5Bnumber%5D=1&page%5Bsize%5D=2`,
					next: `${BASE_URL}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=2`,
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
	),
	listShape(
		'list page (bare array, Link header)',
		{
			headers: {
				...JSON_HEADERS,
				link: `<${BASE_URL}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=2>; rel="next"`,
			},
			body: [flatEndpoint('e1'), flatEndpoint('e2')],
		},
		['body.*', ...under('body.*', ITEM_FLAT), 'body.data', 'body.links', 'headers.link'],
	),
	readShape('item read (JSON:API)', { data: jsonApiEndpoint(ENDPOINT_ID) }, [
		...under('body.data', ITEM_JSONAPI),
		...under('body', ITEM_FLAT),
	]),
	readShape('item read (flat)', flatEndpoint(ENDPOINT_ID), [
		...under('body', ITEM_FLAT),
		'body.data',
	]),
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
	used: [
		'body.errors',
		'body.errors.*',
		'body.errors.*.detail',
		'body.errors.*.title',
		'body.errors.*.code',
	],
	refusal: true,
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
			return { ok: true, decision: 'answered' };
		} catch (error) {
			return failure(error, seen);
		}
	},
	invariant(outcome) {
		expectTrue(!outcome.ok, 'a refusal stays a refusal');
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
	words: /rate limit/,
	secrets: [],
	async run(answer) {
		const headers = asHeaders(answer.headers);
		const delay = retryDelayMs('POST', { status: 429, headers }, 1, NOW);
		const pause = planPause(pauseBeforeNextRequest(readAnnouncement(headers, NOW), NOW), 0);
		// the whole loop with a clock of its own: a 429 with these headers, then an answer; it always ends
		const clock = { now: NOW };
		const slept: number[] = [];
		let sent = 0;
		const ended = await sendPaced(
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
		).then(
			() => 'answered',
			(e: Error) => e.name,
		);
		return { ok: true, decision: { delay, pause, ended, sent, slept } };
	},
	invariant(outcome) {
		const d = (
			outcome as {
				decision: { delay: number; pause: { kind: string; ms?: number }; slept: number[] };
			}
		).decision;
		expectTrue(Number.isFinite(d.delay) && d.delay >= 1000, 'a retry delay of at least 1 s');
		expectTrue(
			d.pause.kind === 'go' || (d.pause.ms ?? 0) <= 60_000,
			'a pause within the budget, never a refusal',
		);
		expectTrue(d.slept.reduce((a, b) => a + b, 0) <= 60_000, 'waits within the budget');
	},
};

// ---- deliveries ------------------------------------------------------------------------------------------------

const EVENT: Json = {
	data: {
		id: '0b9d8c7e-1f2a-4b3c-9d8e-7f6a5b4c3d2e',
		type: 'webhook_event',
		attributes: {
			created_at: '2026-01-01T00:00:00.000Z',
			event_type: 'transcription.transcribed',
			uri: CALLBACK_URI,
		},
		relationships: { subject: { data: { id: 't-1', type: 'transcription' } } },
	},
	included: [
		{
			id: 't-1',
			type: 'transcription',
			attributes: {
				title: 'Quarterly update',
				duration: 12.5,
				average_confidence: 0.93,
				media: { url: `${BASE_URL}/media/t-1/media.wav?expires=1&signature=s` },
				transcriptions: [
					{ format: 'vtt', url: `${BASE_URL}/files/t-1/a.vtt?expires=1&signature=s` },
				],
			},
		},
	],
};

let deliveries = 0;
const eventShape: Shape = {
	name: 'webhook event (delivery)',
	answer: { headers: { 'content-type': 'application/json' }, body: EVENT },
	used: ['body.data', 'body.data.id', 'body.data.attributes', 'body.data.attributes.event_type'],
	words: /data\.id/,
	secrets: [CALLBACK_TOKEN],
	async run(answer, seen) {
		deliveries++;
		const list: { value?: string } = {};
		const dedupe: DedupeAccess = {
			key: `property-${deliveries}`,
			read: () => list.value,
			write: (value) => (list.value = value),
			answered: () => undefined,
			onAnswered: () => {},
		};
		const decision = receiveNow(
			{
				registration: 'api',
				manualToken: '',
				registeredTokenHash: hashToken(CALLBACK_TOKEN),
				givenToken: CALLBACK_TOKEN,
				contentType: String(asHeaders(answer.headers)['content-type'] ?? ''),
				rawBody: Buffer.from(JSON.stringify(answer.body)),
				selectedEvents: ['transcription.transcribed'],
				options: {},
			},
			dedupe,
			{ nowMs: () => NOW },
		);
		if (decision.kind === 'reject') return { ok: false, message: decision.message };
		if (decision.kind !== 'start') return { ok: true, decision: { kind: decision.kind } };
		// the item passes members through as they came (A14): only what decides is compared
		seen.push(JSON.stringify(decision.item));
		const { eventId, eventType } = decision.item.json;
		return { ok: true, decision: { kind: 'start', eventId, eventType } };
	},
};

export const SHAPES: Shape[] = [
	...tokenShapes,
	...endpointShapes,
	errorShape,
	rateShape,
	eventShape,
];

function expectTrue(condition: boolean, what: string): void {
	if (!condition) throw new Error(`expected ${what}`);
}
