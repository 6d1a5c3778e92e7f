// The deliveries of the faults suite: a seeded generator plus hand-written cases, each with the answer
// it must get from the Captioning Trigger inside a real n8n 2.41.1. Where n8n answers before the
// trigger runs, the expectation says so (`by: 'n8n'`), and `n8n-exception` marks the answers that are
// neither a 4xx nor a deliberate 2xx: see KNOWN_N8N_EXCEPTIONS.
import { brotliCompressSync, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';

import type { RawRequest } from './http';
import { Rng } from './random';

export interface TriggerTarget {
	/** `/webhook/<webhookId>/webhook`: the production URL's path. */
	path: string;
	/** The secret token of the registered callback URI. */
	token: string;
	/** The registered callback URI, as the service puts it into `data.attributes.uri`. */
	callbackUri: string;
	/** The one event type the trigger listens to. */
	selectedEvent: string;
	/** A contract event type the trigger does not listen to. */
	unselectedEvent: string;
}

export type Expectation =
	/** A 4xx: from the trigger's webhook() (body `{ error }`), or from n8n before the trigger runs. */
	| { kind: 'rejected'; status: number; by: 'trigger' | 'n8n' }
	/** 200 `{ received: true, ignored: 'event type … is not selected' }`. */
	| { kind: 'ignored' }
	/** 200 `{ received: true, duplicate: true }`. */
	| { kind: 'duplicate' }
	/** 200 "Workflow was started": one execution. Only for deliberately valid events. */
	| { kind: 'started' }
	/** n8n answers before the trigger runs with something other than a 4xx; `status` 0: connection reset. */
	| { kind: 'n8n-exception'; statuses: number[]; exception: KnownN8nException };

export type KnownN8nException = keyof typeof KNOWN_N8N_EXCEPTIONS;

/**
 * Answers n8n 2.41.1 gives before the trigger's code runs, found in its dist/ (paths below
 * node_modules/n8n/dist). Each is counted in the suite's summary.
 */
export const KNOWN_N8N_EXCEPTIONS = {
	'body-over-limit':
		'middlewares/body-parser.js: rawBodyReader reads every webhook body with raw-body and ' +
		'limit N8N_PAYLOAD_SIZE_MAX (16 MiB) before any node runs, also for a wrong token. raw-body ' +
		"throws an http-errors 413, which is no ResponseError: webhooks/webhook-helpers.js's " +
		'executeWebhook wraps it into OperationalError("There was a problem executing the workflow") ' +
		'and response-helper.js answers 500. Node may reset the connection before the client has ' +
		'sent the rest of the body (status 0 here). No execution starts.',
	'corrupt-content-encoding':
		'middlewares/body-parser.js pipes Content-Encoding gzip/deflate bodies through zlib; a corrupt, ' +
		'truncated or mislabelled stream (or one that inflates beyond 16 MiB) throws a zlib (or ' +
		'raw-body 413) error that executeWebhook turns into a 500 as above. No execution starts.',
	'options-preflight':
		'webhooks/webhook-request-handler.js answers every OPTIONS request with 204 (CORS preflight) ' +
		'without looking up the webhook. No body, no execution.',
	'shared-xml-parser':
		'middlewares/body-parser.js parses every XML-typed body (text/xml, application/xml, */*+xml) ' +
		'with ONE module-level xml2js 0.6.2 Parser({ async: true }) shared by all requests. That parser ' +
		"does not survive errors or overlap: with body-parser.js's options, parsing '{\"a\":1}' fails, " +
		"'<a>1</a>' succeeds, and the next '{\"b\":2}' never settles; parses that overlap share its " +
		"listeners and get each other's results. So n8n answers an XML-typed request with 422, lets " +
		'the trigger answer (415: never JSON), or never answers (status 0: the client gave up). Any ' +
		'webhook is affected, not only this trigger. No execution.',
	'unsupported-method':
		'webhooks/webhook-request-handler.js answers methods outside DELETE GET HEAD PATCH POST PUT ' +
		'(and OPTIONS) with sendErrorResponse(new Error(...)): a plain Error is classified as a ' +
		'server error, 500. The webhook is not looked up; no execution.',
} as const;

export type Category =
	| 'token-missing'
	| 'token-wrong'
	| 'token-duplicated'
	| 'token-elsewhere'
	| 'wrong-types'
	| 'missing-fields'
	| 'root-and-junk'
	| 'invalid-json'
	| 'invalid-utf8'
	| 'bom'
	| 'content-type'
	| 'deep-nesting'
	| 'huge-body'
	| 'content-encoding'
	| 'method-and-path'
	| 'oversized-head'
	| 'replay'
	| 'unselected-event'
	| 'valid';

export interface Delivery extends RawRequest {
	category: Category;
	label: string;
	expect: Expectation;
	/**
	 * What the trigger sees after n8n decoded the body, when the generator means it to be (`event`) or
	 * not to be (`not-event`) a valid webhook event: the suite checks the generator against the
	 * package's own validation before sending, so a 401 is known to be about the token, not the body.
	 */
	meant?: { body: Buffer; is: 'event' | 'not-event' };
	/** The valid event's id: of a deliberately valid delivery, or of the one a replay repeats. */
	eventId?: string;
}

const MiB = 1024 * 1024;
/** n8n's N8N_PAYLOAD_SIZE_MAX default, in bytes as raw-body counts `16mb`. */
export const N8N_BODY_LIMIT = 16 * MiB;

const JSON_TYPES = [
	'application/json',
	'application/vnd.api+json',
	'application/json; charset=utf-8',
];

/** Whether n8n parses the body itself (middlewares/body-parser.js: exact type application/json). */
const n8nParsesJson = (contentType: string | undefined) =>
	(contentType ?? '').split(';')[0].toLowerCase() === 'application/json';

/** The answer to a body that is not JSON at all: n8n's 422 when it parses, else the trigger's 400. */
const unparsable = (contentType: string): Expectation =>
	n8nParsesJson(contentType)
		? { kind: 'rejected', status: 422, by: 'n8n' }
		: { kind: 'rejected', status: 400, by: 'trigger' };

const notAnEvent: Expectation = { kind: 'rejected', status: 400, by: 'trigger' };
const unauthorised: Expectation = { kind: 'rejected', status: 401, by: 'trigger' };
const started: Expectation = { kind: 'started' };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

/** A webhook event as the service sends it (contract 2.3, 2.4); fresh ids from the generator. */
function validEvent(rng: Rng, target: TriggerTarget, eventType = target.selectedEvent) {
	const subject = rng.uuid();
	const file = (name: string) =>
		`http://127.0.0.1:9/files/${subject}/${name}?expires=1767225600&signature=${rng.string(16, '0123456789abcdef')}`;
	return {
		data: {
			id: rng.uuid(),
			type: 'webhook_event',
			attributes: {
				created_at: new Date(Date.UTC(2025, 0, 1) + rng.int(0, 3e10)).toISOString(),
				event_type: eventType,
				uri: target.callbackUri,
			},
			relationships: { subject: { data: { id: subject, type: 'transcription' } } },
		},
		included: [
			{
				id: subject,
				type: 'transcription',
				attributes: {
					title: `Faults suite ${rng.string(8)}`,
					duration: rng.int(1, 72000) / 10,
					average_confidence: rng.int(0, 1000) / 1000,
					media: { url: file('media.wav') },
					transcriptions: [
						{ format: 'vtt', url: file('captions.vtt') },
						{ format: 'google_stt', url: file('captions.google_stt.json') },
					],
				},
			},
		],
	} as JsonObject & { data: { id: string } };
}

function post(
	target: TriggerTarget,
	body: Buffer | undefined,
	options: { contentType?: string | null; query?: string; headers?: Array<[string, string]> } = {},
): RawRequest {
	const headers: Array<[string, string]> = [];
	const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
	if (contentType !== null) headers.push(['content-type', contentType]);
	headers.push(...(options.headers ?? []));
	return {
		method: 'POST',
		path: `${target.path}${options.query ?? `?token=${target.token}`}`,
		headers,
		body,
	};
}

// ---------------------------------------------------------------------------------------------------
// Field table: each path of contract 2.3/2.4 with the JSON types it accepts and same-type values that
// are still wrong. Values of any other JSON type are wrong by type.

type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';
type Path = Array<string | number>;

interface Field {
	path: Path;
	accepts: JsonType[];
	alsoWrong?: Json[];
	/** Deleting it makes the event invalid. */
	required?: boolean;
}

const BAD_DATES = [
	'',
	'yesterday',
	'2025-01-01',
	'2025-01-01T00:00:00',
	'2025-13-01T00:00:00.000Z',
	'2025-02-30T00:00:00.000Z',
	'2025-01-01T25:00:00Z',
	'2025-01-01 00:00:00Z',
	'1735689600',
	'Wed, 01 Jan 2025 00:00:00 GMT',
];
const BAD_URLS = [
	'',
	'not a url',
	'/files/x.vtt',
	'http://',
	'//example.com/x',
	'example.com/x.vtt',
];
const TRANSCRIPTION: Path = ['included', 0];
const ATTRS: Path = [...TRANSCRIPTION, 'attributes'];
const FILE: Path = [...ATTRS, 'transcriptions', 0];
const SUBJECT: Path = ['data', 'relationships', 'subject', 'data'];

const FIELDS: Field[] = [
	{ path: ['data'], accepts: ['object'], required: true },
	{ path: ['data', 'id'], accepts: ['string'], alsoWrong: ['', 'i'.repeat(201)], required: true },
	{
		path: ['data', 'type'],
		accepts: ['string'],
		alsoWrong: ['', 'webhook_events', 'Webhook_Event', 'transcription', ' webhook_event'],
		required: true,
	},
	{ path: ['data', 'attributes'], accepts: ['object'], required: true },
	{
		path: ['data', 'attributes', 'created_at'],
		accepts: ['string'],
		alsoWrong: BAD_DATES,
		required: true,
	},
	{
		path: ['data', 'attributes', 'event_type'],
		accepts: ['string'],
		alsoWrong: ['', 'e'.repeat(201)],
		required: true,
	},
	{ path: ['data', 'attributes', 'uri'], accepts: ['string'] },
	{ path: ['data', 'relationships'], accepts: ['object'], required: true },
	{ path: ['data', 'relationships', 'subject'], accepts: ['object'], required: true },
	{ path: SUBJECT, accepts: ['object'], required: true },
	{ path: [...SUBJECT, 'id'], accepts: ['string'], alsoWrong: [''], required: true },
	{ path: [...SUBJECT, 'type'], accepts: ['string'], alsoWrong: [''], required: true },
	{ path: ['included'], accepts: ['array'] },
	{ path: TRANSCRIPTION, accepts: ['object'] },
	{ path: [...TRANSCRIPTION, 'id'], accepts: ['string'], alsoWrong: [''], required: true },
	{ path: [...TRANSCRIPTION, 'type'], accepts: ['string'], required: true },
	{ path: ATTRS, accepts: ['object'] },
	{ path: [...ATTRS, 'title'], accepts: ['string', 'null'] },
	{ path: [...ATTRS, 'duration'], accepts: ['number', 'null'] },
	{
		path: [...ATTRS, 'average_confidence'],
		accepts: ['number', 'null'],
		alsoWrong: [-0.01, 1.01, 2, -1e9, 1e300],
	},
	{ path: [...ATTRS, 'media'], accepts: ['object', 'null'] },
	{ path: [...ATTRS, 'media', 'url'], accepts: ['string', 'null'], alsoWrong: BAD_URLS },
	{ path: [...ATTRS, 'transcriptions'], accepts: ['array', 'null'] },
	{ path: FILE, accepts: ['object'] },
	{ path: [...FILE, 'format'], accepts: ['string'], alsoWrong: [''], required: true },
	{ path: [...FILE, 'url'], accepts: ['string'], alsoWrong: BAD_URLS, required: true },
];

const POOL: Record<JsonType, Json[]> = {
	null: [null],
	boolean: [true, false],
	number: [0, -1, 1.5, 42, 1e21, -1e-7, 2 ** 53 + 2],
	string: ['', 'x', 'null', '0', 'true', '{}', '[]', '💥', '\u0000', '   ', 'a'.repeat(300)],
	array: [[], [null], [1, 2, 3], [{}], [[]], ['a']],
	object: [{}, { id: 'x' }, { type: 'transcription' }, { nested: { deeper: [1] } }],
};
const JSON_TYPE_NAMES = Object.keys(POOL) as JsonType[];

/** Every wrong value of a field: each other JSON type's pool, and its same-type wrong values. */
function wrongValues(field: Field): Json[] {
	const byType = JSON_TYPE_NAMES.filter((t) => !field.accepts.includes(t)).flatMap((t) => POOL[t]);
	return [...byType, ...(field.alsoWrong ?? [])];
}

const DELETE = Symbol('delete');
type Mutation = { path: Path; value: Json | typeof DELETE };

/**
 * Applies mutations deepest first and skips one whose parent is gone, so the shallowest mutation
 * always survives: the result is wrong whenever every mutation is.
 */
function mutate(event: JsonObject, mutations: Mutation[]): JsonObject {
	const copy = structuredClone(event);
	for (const { path, value } of [...mutations].sort((a, b) => b.path.length - a.path.length)) {
		let parent: unknown = copy;
		for (const key of path.slice(0, -1)) {
			parent =
				parent !== null && typeof parent === 'object' ? (parent as JsonObject)[key] : undefined;
		}
		if (parent === null || typeof parent !== 'object') continue;
		const last = path[path.length - 1] as string;
		if (value === DELETE) delete (parent as JsonObject)[last];
		else (parent as JsonObject)[last] = structuredClone(value);
	}
	return copy;
}

const describePath = (path: Path) => path.join('.');

function randomJson(rng: Rng, depth: number): Json {
	const type =
		depth <= 0
			? rng.pick(['null', 'boolean', 'number', 'string'] as const)
			: rng.pick(JSON_TYPE_NAMES);
	switch (type) {
		case 'null':
		case 'boolean':
		case 'number':
		case 'string':
			return rng.chance(0.5)
				? rng.pick(POOL[type])
				: type === 'string'
					? rng.string(rng.int(0, 20))
					: rng.pick(POOL[type]);
		case 'array':
			return Array.from({ length: rng.int(0, 4) }, () => randomJson(rng, depth - 1));
		case 'object': {
			const keys = [
				'data',
				'id',
				'type',
				'attributes',
				'relationships',
				'subject',
				'included',
				'event_type',
				rng.string(5),
			];
			const out: JsonObject = {};
			for (let i = rng.int(0, 4); i > 0; i--) out[rng.pick(keys)] = randomJson(rng, depth - 1);
			return out;
		}
	}
}

// ---------------------------------------------------------------------------------------------------

export interface Plan {
	/** Sent first, one at a time: each starts one execution. */
	valid: Delivery[];
	/** Sent afterwards, shuffled, with bounded concurrency. */
	hostile: Delivery[];
	/** The XML-typed hostile ones, sent together with a short timeout: see 'shared-xml-parser'. */
	xml: Delivery[];
	/** One new valid event sent `size` times at once: exactly one execution, the rest duplicates. */
	burst: Delivery[];
}

export interface PlanOptions {
	seed: number;
	/** Generated deliveries on top of the hand-written ones. */
	generated: number;
	burstSize: number;
}

export function planDeliveries(target: TriggerTarget, options: PlanOptions): Plan {
	const rng = new Rng(options.seed);
	const valid = validDeliveries(rng, target);
	const hostile: Delivery[] = [
		...tokenCases(rng, target),
		...handWrittenBodyCases(rng, target),
		...contentTypeCases(rng, target),
		...deepNestingCases(rng, target),
		...hugeBodyCases(rng, target),
		...encodingCases(rng, target),
		...methodAndPathCases(rng, target),
		...oversizedHeadCases(rng, target),
	];
	const generators: Array<[number, (rng: Rng, target: TriggerTarget) => Delivery]> = [
		[8, randomWrongTypes],
		[3, randomMissingFields],
		[2, randomJunk],
		[3, randomInvalidJson],
		[2, randomInvalidUtf8],
		[1, randomBom],
		[2, randomWrongToken],
		[1, randomMissingToken],
		[1, randomDuplicatedToken],
		[2, randomUnselected],
		[2, randomContentType],
	];
	const weights = generators.reduce((sum, [w]) => sum + w, 0);
	// not the 16 MiB one, nor the deeply nested one (structuredClone would recurse through it)
	const replayable = valid.filter((d) => (d.body?.length ?? 0) < 100_000);
	const replays = Math.round(options.generated * 0.06);
	for (let i = 0; i < options.generated - replays; i++) {
		let roll = rng.next() * weights;
		const [, generate] = generators.find(([w]) => (roll -= w) < 0) ?? generators[0];
		hostile.push(generate(rng, target));
	}
	for (let i = 0; i < replays; i++) hostile.push(randomReplay(rng, target, rng.pick(replayable)));
	rng.shuffle(hostile);

	const burstEvent = validEvent(rng, target);
	const burst = Array.from({ length: options.burstSize }, (_, i) => ({
		...post(target, json(burstEvent)),
		category: 'replay' as const,
		label: `burst of one new event, copy ${i + 1}`,
		// exactly one of the copies starts an execution; the suite checks that
		expect: { kind: 'duplicate' } as Expectation,
		eventId: burstEvent.data.id,
	}));
	const isXml = (d: Delivery) =>
		d.expect.kind === 'n8n-exception' && d.expect.exception === 'shared-xml-parser';
	return { valid, hostile: hostile.filter((d) => !isXml(d)), xml: hostile.filter(isXml), burst };
}

// ---- deliberately valid ------------------------------------------------------------------------------

function validDeliveries(rng: Rng, target: TriggerTarget): Delivery[] {
	const out: Delivery[] = [];
	const add = (label: string, event: JsonObject & { data: { id: string } }, request: RawRequest) =>
		out.push({ ...request, category: 'valid', label, expect: started, eventId: event.data.id });
	const plain = (label: string, contentType: string, change?: (e: JsonObject) => void) => {
		const event = validEvent(rng, target);
		change?.(event);
		add(label, event, post(target, json(event), { contentType }));
	};
	plain('as the service sends it', 'application/json');
	plain('JSON:API media type', 'application/vnd.api+json');
	plain('charset parameter', 'application/json; charset=utf-8');
	plain('created_at with an offset', 'application/json', (e) => {
		((e.data as JsonObject).attributes as JsonObject).created_at = '2025-06-01T12:00:00.123+02:00';
	});
	plain('no included resources', 'application/json', (e) => {
		e.included = [];
	});
	for (const format of ['srt', 'dfxp', 'x'.repeat(100)]) {
		plain(`unknown caption format ${format.slice(0, 10)}`, 'application/json', (e) => {
			const attributes = (e.included as JsonObject[])[0].attributes as JsonObject;
			(attributes.transcriptions as JsonObject[]).push({ format, url: 'http://127.0.0.1:9/x' });
		});
	}
	{
		const event = validEvent(rng, target);
		add('UTF-8 BOM', event, post(target, Buffer.concat([BOM.utf8, json(event)])));
	}
	{
		const event = validEvent(rng, target);
		add(
			'Content-Encoding gzip',
			event,
			post(target, gzipSync(json(event)), { headers: [['content-encoding', 'gzip']] }),
		);
	}
	{
		const event = validEvent(rng, target);
		add(
			'Content-Encoding deflate',
			event,
			post(target, deflateSync(json(event)), { headers: [['content-encoding', 'deflate']] }),
		);
	}
	{
		// extra members pass through unvalidated: a 100,000-deep one must not hurt
		const event = validEvent(rng, target);
		const text = JSON.stringify(event).replace(
			/}$/,
			`,"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
		);
		add('extra member nested 100,000 deep', event, post(target, Buffer.from(text)));
	}
	{
		// near n8n's limit: the 16 MiB is n8n's, the trigger has none of its own
		const event = validEvent(rng, target);
		const body = padTo(event, N8N_BODY_LIMIT - 64 * 1024, ['included', 0, 'attributes', 'title']);
		add('16 MiB - 64 KiB (long title)', event, post(target, body));
	}
	return out;
}

// ---- tokens ------------------------------------------------------------------------------------------

function flipOneChar(rng: Rng, token: string): string {
	const i = rng.int(0, token.length - 1);
	const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_'.replace(
		token[i],
		'',
	);
	return token.slice(0, i) + rng.pick([...alphabet]) + token.slice(i + 1);
}

function wrongTokens(rng: Rng, token: string): Array<[string, string]> {
	return [
		['empty', ''],
		['random, same length', rng.string(token.length)],
		['one character changed', flipOneChar(rng, token)],
		['one character short', token.slice(0, -1)],
		['one character more', token + rng.string(1)],
		['upper-cased', token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase()],
		[
			'reversed',
			[...token].reverse().join('') === token
				? rng.string(token.length)
				: [...token].reverse().join(''),
		],
		['leading space', `%20${token}`],
		['trailing NUL', `${token}%00`],
		['plus sign (a space)', `+${token}`],
		['same length in multi-byte characters', encodeURIComponent('ä'.repeat(token.length))],
		['1,000 characters', rng.string(1000)],
		['8,000 characters', rng.string(8000)],
		['a previous guess', 'guess'],
	];
}

function tokenCases(rng: Rng, target: TriggerTarget): Delivery[] {
	const out: Delivery[] = [];
	const event = () => json(validEvent(rng, target));
	const add = (category: Category, label: string, request: RawRequest, expect = unauthorised) =>
		out.push({
			...request,
			category,
			label,
			expect,
			meant: request.body && { body: request.body, is: 'event' },
		});
	for (const [label, query] of [
		['no query', ''],
		['empty query', '?'],
		['token without a value', '?token'],
		['other parameter name', `?tok=${target.token}`],
		['parameter name upper-cased', `?TOKEN=${target.token}`],
		['parameter name capitalised', `?Token=${target.token}`],
	] as const) {
		add('token-missing', label, post(target, event(), { query }));
	}
	for (const [label, token] of wrongTokens(rng, target.token)) {
		add('token-wrong', label, post(target, event(), { query: `?token=${token}` }));
	}
	for (const [label, query] of duplicatedTokenQueries(rng, target.token)) {
		add('token-duplicated', label, post(target, event(), { query }));
	}
	// not as a path segment: n8n logs request paths ("Received webhook … for path", "unknown webhook"),
	// never query strings, which is why the trigger's token lives in the query
	const body = validEvent(rng, target) as JsonObject;
	for (const [label, request] of [
		['X-Token header', post(target, event(), { query: '', headers: [['x-token', target.token]] })],
		[
			'Authorization: Bearer',
			post(target, event(), { query: '', headers: [['authorization', `Bearer ${target.token}`]] }),
		],
		[
			'Cookie',
			post(target, event(), { query: '', headers: [['cookie', `token=${target.token}`]] }),
		],
		['in the body', post(target, json({ ...body, token: target.token }), { query: '' })],
	] as const) {
		add('token-elsewhere', label, request);
	}
	return out;
}

// the first value is the one the trigger reads: these all put a wrong one (or none) first
function duplicatedTokenQueries(rng: Rng, token: string): Array<[string, string]> {
	const wrong = flipOneChar(rng, token);
	return [
		['wrong, then right', `?token=${wrong}&token=${token}`],
		['empty, then right', `?token=&token=${token}`],
		['wrong, then right twice', `?token=${wrong}&token=${token}&token=${token}`],
		['array syntax, wrong first', `?token[]=${wrong}&token[]=${token}`],
		['object syntax', `?token[x]=${token}`],
		['index beyond qs arrayLimit (an object)', `?token[100]=${token}`],
		['nested object', `?token[a][b]=${token}`],
	];
}

function randomWrongToken(rng: Rng, target: TriggerTarget): Delivery {
	const [label, token] = rng.pick(
		wrongTokens(rng, target.token).filter(([, t]) => t.length < 2000),
	);
	const body = json(validEvent(rng, target));
	const request = post(target, body, {
		query: `?token=${token}`,
		contentType: rng.pick(JSON_TYPES),
	});
	return {
		...request,
		category: 'token-wrong',
		label: `generated: ${label}`,
		expect: unauthorised,
		meant: { body, is: 'event' },
	};
}

function randomMissingToken(rng: Rng, target: TriggerTarget): Delivery {
	const query = rng.pick([
		'',
		'?',
		'?token',
		'?token=',
		`?tok=${target.token}`,
		`?TOKEN=${target.token}`,
		`?x=${rng.string(8)}`,
	]);
	const body = json(validEvent(rng, target));
	const request = post(target, body, { query, contentType: rng.pick(JSON_TYPES) });
	return {
		...request,
		category: 'token-missing',
		label: `generated: "${query.slice(0, 12)}"`,
		expect: unauthorised,
		meant: { body, is: 'event' },
	};
}

function randomDuplicatedToken(rng: Rng, target: TriggerTarget): Delivery {
	const [label, query] = rng.pick(duplicatedTokenQueries(rng, target.token));
	const body = json(validEvent(rng, target));
	const request = post(target, body, { query, contentType: rng.pick(JSON_TYPES) });
	return {
		...request,
		category: 'token-duplicated',
		label: `generated: ${label}`,
		expect: unauthorised,
		meant: { body, is: 'event' },
	};
}

// ---- bodies ------------------------------------------------------------------------------------------

function handWrittenBodyCases(rng: Rng, target: TriggerTarget): Delivery[] {
	const out: Delivery[] = [];
	// every wrong value of every field, one at a time
	for (const field of FIELDS) {
		for (const value of wrongValues(field)) {
			const body = json(mutate(validEvent(rng, target), [{ path: field.path, value }]));
			out.push({
				...post(target, body),
				category: 'wrong-types',
				label: `${describePath(field.path)} = ${JSON.stringify(value).slice(0, 30)}`,
				expect: notAnEvent,
				meant: { body, is: 'not-event' },
			});
		}
		if (field.required) {
			const body = json(mutate(validEvent(rng, target), [{ path: field.path, value: DELETE }]));
			out.push({
				...post(target, body),
				category: 'missing-fields',
				label: `without ${describePath(field.path)}`,
				expect: notAnEvent,
				meant: { body, is: 'not-event' },
			});
		}
	}
	const roots: Array<[string, Json]> = [
		['null', null],
		['true', true],
		['0', 0],
		['a string', 'transcription.transcribed'],
		['empty string', ''],
		['empty array', []],
		['the event inside an array', [validEvent(rng, target)]],
		['empty object', {}],
		['data: null', { data: null }],
		['only included', { included: [] }],
		['data: {}', { data: {} }],
		['the event under another key', { event: validEvent(rng, target) }],
	];
	for (const [label, value] of roots) {
		for (const contentType of ['application/json', 'application/vnd.api+json']) {
			const body = json(value);
			out.push({
				...post(target, body, { contentType }),
				category: 'root-and-junk',
				label: `root ${label} (${contentType})`,
				expect: notAnEvent,
				meant: { body, is: 'not-event' },
			});
		}
	}
	for (const contentType of ['application/json', 'application/vnd.api+json']) {
		out.push({
			...post(target, Buffer.alloc(0), { contentType }),
			category: 'invalid-json',
			label: `empty body (${contentType})`,
			expect: notAnEvent,
		});
		out.push({
			...post(target, undefined, { contentType }),
			category: 'invalid-json',
			label: `no body at all (${contentType})`,
			expect: notAnEvent,
		});
		for (const [label, text] of fixedInvalidJson(rng, target)) {
			out.push({
				...post(target, Buffer.from(text), { contentType }),
				category: 'invalid-json',
				label: `${label} (${contentType})`,
				expect: unparsable(contentType),
			});
		}
		for (const [label, body] of bomBodies(rng, target)) {
			out.push({
				...post(target, body, { contentType }),
				category: 'bom',
				label: `${label} (${contentType})`,
				expect: label.startsWith('UTF-8 BOM, not an event') ? notAnEvent : unparsable(contentType),
			});
		}
	}
	for (const charset of ['utf-16le', 'utf16le', 'ucs2']) {
		// n8n decodes with the declared charset and parses; the trigger reads UTF-8 only
		for (const withBom of [true, false]) {
			const text = JSON.stringify(validEvent(rng, target));
			const body = Buffer.concat([
				withBom ? BOM.utf16le : Buffer.alloc(0),
				Buffer.from(text, 'utf16le'),
			]);
			out.push({
				...post(target, body, { contentType: `application/json; charset=${charset}` }),
				category: 'bom',
				label: `UTF-16LE${withBom ? ' with BOM' : ''}, declared charset=${charset}`,
				expect: notAnEvent,
			});
		}
	}
	return out;
}

function fixedInvalidJson(rng: Rng, target: TriggerTarget): Array<[string, string]> {
	const text = JSON.stringify(validEvent(rng, target));
	return [
		['trailing comma', text.replace(/}$/, ',}')],
		['single quotes', text.replace(/"/g, "'")],
		['unquoted keys', text.replace(/"(\w+)":/g, '$1:')],
		['NaN value', text.replace(/"duration":[\d.]+/, '"duration":NaN')],
		['Infinity value', text.replace(/"duration":[\d.]+/, '"duration":Infinity')],
		['hex number', text.replace(/"duration":[\d.]+/, '"duration":0x10')],
		['leading zeros', text.replace(/"duration":[\d.]+/, '"duration":007')],
		['comment', `/* event */${text}`],
		['two documents', `${text}${text}`],
		['raw newline in a string', text.replace(/Faults suite/, 'Faults\nsuite')],
		['raw tab in a string', text.replace(/Faults suite/, 'Faults\tsuite')],
		['undefined literal', text.replace(/"uri":"[^"]*"/, '"uri":undefined')],
		['whitespace only', '   \n\t  '],
		['no-break space before', `\u00a0${text}`],
		['truncated in the middle', text.slice(0, Math.floor(text.length / 2))],
		['only an opening brace', '{'],
		['unterminated string', '{"data":"'],
		['invalid escape', text.replace(/Faults suite/, 'Faults \\x41 suite')],
		['lone backslash', text.replace(/Faults suite/, 'Faults \\ suite')],
		['XML instead', '<event><id>1</id></event>'],
		['form-encoded instead', `data[id]=${rng.uuid()}&data[type]=webhook_event`],
	];
}

const BOM = {
	utf8: Buffer.from([0xef, 0xbb, 0xbf]),
	utf16le: Buffer.from([0xff, 0xfe]),
	utf16be: Buffer.from([0xfe, 0xff]),
	utf32le: Buffer.from([0xff, 0xfe, 0x00, 0x00]),
	utf32be: Buffer.from([0x00, 0x00, 0xfe, 0xff]),
};

function utf16be(text: string): Buffer {
	const le = Buffer.from(text, 'utf16le');
	for (let i = 0; i < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1], le[i]];
	return le;
}

function utf32le(text: string): Buffer {
	const out = Buffer.alloc(text.length * 4);
	for (let i = 0; i < text.length; i++) out.writeUInt32LE(text.charCodeAt(i), i * 4);
	return out;
}

function bomBodies(rng: Rng, target: TriggerTarget): Array<[string, Buffer]> {
	const text = JSON.stringify(validEvent(rng, target));
	const notEvent = JSON.stringify(
		mutate(validEvent(rng, target), [{ path: ['data', 'id'], value: DELETE }]),
	);
	return [
		['UTF-8 BOM, not an event', Buffer.concat([BOM.utf8, Buffer.from(notEvent)])],
		['two UTF-8 BOMs', Buffer.concat([BOM.utf8, BOM.utf8, Buffer.from(text)])],
		['a BOM only', BOM.utf8],
		['a BOM inside the object', Buffer.from(text.replace('{', '{\ufeff'))],
		['UTF-16LE with BOM', Buffer.concat([BOM.utf16le, Buffer.from(text, 'utf16le')])],
		['UTF-16BE with BOM', Buffer.concat([BOM.utf16be, utf16be(text)])],
		['UTF-16LE without BOM', Buffer.from(text, 'utf16le')],
		['UTF-32LE with BOM', Buffer.concat([BOM.utf32le, utf32le(text)])],
		['UTF-32BE BOM before UTF-8', Buffer.concat([BOM.utf32be, Buffer.from(text)])],
	];
}

function randomBom(rng: Rng, target: TriggerTarget): Delivery {
	const [label, body] = rng.pick(bomBodies(rng, target));
	const contentType = rng.pick(JSON_TYPES);
	return {
		...post(target, body, { contentType }),
		category: 'bom',
		label: `generated: ${label}`,
		expect: label.startsWith('UTF-8 BOM, not an event') ? notAnEvent : unparsable(contentType),
	};
}

function randomWrongTypes(rng: Rng, target: TriggerTarget): Delivery {
	const fields = rng.sample(FIELDS, rng.int(1, 3));
	const mutations = fields.map((field) => ({
		path: field.path,
		value: rng.pick(wrongValues(field)),
	}));
	const body = json(mutate(validEvent(rng, target), mutations));
	return {
		...post(target, body, { contentType: rng.pick(JSON_TYPES) }),
		category: 'wrong-types',
		label: `generated: ${fields.map((f) => describePath(f.path)).join(', ')}`,
		expect: notAnEvent,
		meant: { body, is: 'not-event' },
	};
}

function randomMissingFields(rng: Rng, target: TriggerTarget): Delivery {
	const fields = rng.sample(
		FIELDS.filter((f) => f.required),
		rng.int(1, 4),
	);
	const body = json(
		mutate(
			validEvent(rng, target),
			fields.map((f) => ({ path: f.path, value: DELETE })),
		),
	);
	return {
		...post(target, body, { contentType: rng.pick(JSON_TYPES) }),
		category: 'missing-fields',
		label: `generated: without ${fields.map((f) => describePath(f.path)).join(', ')}`,
		expect: notAnEvent,
		meant: { body, is: 'not-event' },
	};
}

function randomJunk(rng: Rng, target: TriggerTarget): Delivery {
	const value = randomJson(rng, rng.int(0, 6));
	// junk that happens to be shaped like an event is made one that is not
	const body = json(
		value !== null && typeof value === 'object' && !Array.isArray(value)
			? { ...value, data: rng.pick(POOL.string) }
			: value,
	);
	return {
		...post(target, body, { contentType: rng.pick(JSON_TYPES) }),
		category: 'root-and-junk',
		label: 'generated: random JSON',
		expect: notAnEvent,
		meant: { body, is: 'not-event' },
	};
}

function randomInvalidJson(rng: Rng, target: TriggerTarget): Delivery {
	const text = JSON.stringify(validEvent(rng, target));
	const contentType = rng.pick(JSON_TYPES);
	for (;;) {
		const at = rng.int(1, text.length - 1);
		const how = rng.pick(['truncate', 'insert', 'delete', 'replace'] as const);
		const junk = rng.pick(['{', '}', '[', ']', ',', ':', '"', '\\', "'", 'x', '\n']);
		const broken =
			how === 'truncate'
				? text.slice(0, at)
				: how === 'insert'
					? text.slice(0, at) + junk + text.slice(at)
					: how === 'delete'
						? text.slice(0, at) + text.slice(at + 1)
						: text.slice(0, at) + junk + text.slice(at + 1);
		if (!parses(broken)) {
			return {
				...post(target, Buffer.from(broken), { contentType }),
				category: 'invalid-json',
				label: `generated: ${how} at ${at}`,
				expect: unparsable(contentType),
			};
		}
	}
}

function parses(text: string): boolean {
	try {
		JSON.parse(text);
		return true;
	} catch {
		return false;
	}
}

const INVALID_UTF8: Array<[string, number[]]> = [
	['lone continuation byte', [0x80]],
	['lead byte without continuation', [0xc3, 0x28]],
	['overlong slash', [0xc0, 0xaf]],
	['overlong NUL', [0xc0, 0x80]],
	['overlong three-byte', [0xe0, 0x80, 0xaf]],
	['UTF-16 surrogate', [0xed, 0xa0, 0x80]],
	['beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
	['0xFF', [0xff]],
	['0xFE', [0xfe]],
	['truncated four-byte', [0xf0, 0x9f, 0x98]],
	['Latin-1 é', [0xe9]],
];
const STRING_FIELDS: Path[] = [
	[...ATTRS, 'title'],
	['data', 'attributes', 'event_type'],
	['data', 'id'],
	[...SUBJECT, 'id'],
	[...FILE, 'format'],
];

function randomInvalidUtf8(rng: Rng, target: TriggerTarget): Delivery {
	const [label, bytes] = rng.pick(INVALID_UTF8);
	const contentType = rng.pick(JSON_TYPES);
	const marker = `@@${rng.string(12)}@@`;
	const field = rng.pick(STRING_FIELDS);
	const inString = rng.chance(0.85);
	const event = inString
		? mutate(validEvent(rng, target), [{ path: field, value: `a${marker}b` }])
		: validEvent(rng, target);
	const text = inString ? JSON.stringify(event) : JSON.stringify(event).replace('{', `{${marker}`);
	const [before, after] = text.split(marker);
	return {
		...post(target, Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]), {
			contentType,
		}),
		category: 'invalid-utf8',
		label: `generated: ${label} ${inString ? `in ${describePath(field)}` : 'between tokens'}`,
		// n8n decodes leniently (U+FFFD) and parses; the trigger's strict decoder refuses
		expect: inString ? notAnEvent : unparsable(contentType),
	};
}

// ---- content types -----------------------------------------------------------------------------------

/** Types the trigger refuses with 415 (n8n parses some of them, successfully, before). */
const NOT_JSON_TYPES = [
	'text/plain',
	'text/plain; charset=utf-8',
	'application/x-www-form-urlencoded',
	'application/octet-stream',
	'text/json',
	'application/jsonp',
	'application/json-seq',
	'application/x-ndjson',
	'application/x-json',
	'application/json5',
	'application/javascript',
	'text/html',
	'image/png',
	'*/*',
	'application/*',
	'json',
	'application',
	'',
	'application/json, text/plain',
	'multipart/mixed; boundary=x',
];
/** Types n8n parses as XML itself (and fails to, for a JSON body): see 'shared-xml-parser'. */
const XML_TYPES = ['application/xml', 'text/xml', 'application/atom+xml', 'image/svg+xml'];
/** JSON with a charset Node cannot decode, or decodes into something else than this UTF-8 body. */
const CHARSET_TYPES = [
	'application/json; charset=utf-16le',
	'application/json; charset=bogus',
	'application/json; charset=utf-32',
];
const xmlParserRace: Expectation = {
	kind: 'n8n-exception',
	statuses: [415, 422, 0],
	exception: 'shared-xml-parser',
};

function contentTypeCases(rng: Rng, target: TriggerTarget): Delivery[] {
	const out: Delivery[] = [];
	const add = (label: string, request: RawRequest, expect: Expectation, body?: Buffer) =>
		out.push({
			...request,
			category: 'content-type',
			label,
			expect,
			meant: body && { body, is: 'event' },
		});
	for (const type of NOT_JSON_TYPES) {
		const body = json(validEvent(rng, target));
		add(
			`"${type}"`,
			post(target, body, { contentType: type }),
			{ kind: 'rejected', status: 415, by: 'trigger' },
			body,
		);
	}
	for (const type of CHARSET_TYPES) {
		const body = json(validEvent(rng, target));
		add(
			`"${type}"`,
			post(target, body, { contentType: type }),
			{ kind: 'rejected', status: 422, by: 'n8n' },
			body,
		);
	}
	for (const type of XML_TYPES) {
		const body = json(validEvent(rng, target));
		add(`"${type}"`, post(target, body, { contentType: type }), xmlParserRace, body);
	}
	const event = json(validEvent(rng, target));
	add(
		'no Content-Type',
		post(target, event, { contentType: null }),
		{ kind: 'rejected', status: 415, by: 'trigger' },
		event,
	);
	add(
		'text/plain, then application/json (Node keeps the first)',
		post(target, event, {
			contentType: null,
			headers: [
				['content-type', 'text/plain'],
				['content-type', 'application/json'],
			],
		}),
		{ kind: 'rejected', status: 415, by: 'trigger' },
		event,
	);
	for (const type of XML_TYPES) {
		add(
			`XML body, ${type}`,
			post(target, Buffer.from(`<event><data id="${rng.uuid()}" type="webhook_event"/></event>`), {
				contentType: type,
			}),
			xmlParserRace,
		);
	}
	add(
		'form body, form type',
		post(target, Buffer.from(`data[id]=${rng.uuid()}&data[type]=webhook_event`), {
			contentType: 'application/x-www-form-urlencoded',
		}),
		{ kind: 'rejected', status: 415, by: 'trigger' },
	);
	const boundary = `----faults${rng.string(16)}`;
	const multipart = Buffer.from(
		`--${boundary}\r\nContent-Disposition: form-data; name="event"\r\nContent-Type: application/json\r\n\r\n${event.toString()}\r\n--${boundary}--\r\n`,
	);
	add(
		'multipart/form-data with the event as a field',
		post(target, multipart, { contentType: `multipart/form-data; boundary=${boundary}` }),
		{ kind: 'rejected', status: 415, by: 'trigger' },
	);
	add(
		'multipart/form-data with a file part',
		post(
			target,
			Buffer.from(
				multipart.toString().replace('name="event"', 'name="event"; filename="event.json"'),
			),
			{ contentType: `multipart/form-data; boundary=${boundary}` },
		),
		{ kind: 'rejected', status: 415, by: 'trigger' },
	);
	return out;
}

function randomContentType(rng: Rng, target: TriggerTarget): Delivery {
	const body = json(validEvent(rng, target));
	const roll = rng.next();
	const [type, expect]: [string, Expectation] =
		roll < 0.8
			? [rng.pick(NOT_JSON_TYPES), { kind: 'rejected', status: 415, by: 'trigger' }]
			: roll < 0.95
				? [rng.pick(CHARSET_TYPES), { kind: 'rejected', status: 422, by: 'n8n' }]
				: [rng.pick(XML_TYPES), xmlParserRace];
	return {
		...post(target, body, { contentType: type }),
		category: 'content-type',
		label: `generated: "${type}"`,
		expect,
		meant: { body, is: 'event' },
	};
}

// ---- deep, huge, encoded -----------------------------------------------------------------------------

function deepNestingCases(rng: Rng, target: TriggerTarget): Delivery[] {
	const out: Delivery[] = [];
	const add = (label: string, text: string, contentType = 'application/json') =>
		out.push({
			...post(target, Buffer.from(text), { contentType }),
			category: 'deep-nesting',
			label,
			expect: notAnEvent,
			meant: { body: Buffer.from(text), is: 'not-event' },
		});
	for (const depth of [100, 1_000, 10_000, 100_000, 1_000_000]) {
		add(`arrays ${depth} deep`, '['.repeat(depth) + ']'.repeat(depth));
		add(
			`arrays ${depth} deep (JSON:API type)`,
			'['.repeat(depth) + ']'.repeat(depth),
			'application/vnd.api+json',
		);
	}
	for (const depth of [100, 1_000, 10_000, 100_000]) {
		add(`objects ${depth} deep`, '{"data":'.repeat(depth) + '{}' + '}'.repeat(depth));
	}
	const event = JSON.stringify(validEvent(rng, target));
	const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
	const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
	add('data.id nested 100,000 deep', event.replace(/"id":"[^"]+"/, `"id":${deep(100_000)}`));
	add(
		'event_type nested 100,000 deep',
		event.replace(/"event_type":"[^"]+"/, `"event_type":${deepObject(100_000)}`),
	);
	add('title nested 100,000 deep', event.replace(/"title":"[^"]+"/, `"title":${deep(100_000)}`));
	add(
		'included nested 100,000 deep',
		event.replace(/"included":\[/, `"included":[${deep(100_000)},`),
	);
	const xml = '<a>'.repeat(10_000) + '</a>'.repeat(10_000);
	out.push({
		...post(target, Buffer.from(xml), { contentType: 'application/xml' }),
		category: 'deep-nesting',
		label: 'XML 10,000 deep (n8n parses XML)',
		expect: xmlParserRace,
	});
	return out;
}

/** The event as JSON, padded through a string field to exactly `size` bytes. */
function padTo(event: JsonObject, size: number, path: Path): Buffer {
	const marker = 'PAD_MARKER';
	const text = JSON.stringify(mutate(event, [{ path, value: marker }]));
	const padding = size - Buffer.byteLength(text) + marker.length;
	if (padding < 0) throw new Error(`cannot pad to ${size}`);
	const body = Buffer.from(text.replace(marker, 'p'.repeat(padding)));
	if (body.length !== size) throw new Error(`padding missed: ${body.length} != ${size}`);
	return body;
}

function hugeBodyCases(rng: Rng, target: TriggerTarget): Delivery[] {
	const notEvent = () =>
		mutate(validEvent(rng, target), [{ path: ['data', 'type'], value: 'not_a_webhook_event' }]);
	const overLimit: Expectation = {
		kind: 'n8n-exception',
		statuses: [500, 0],
		exception: 'body-over-limit',
	};
	const out: Delivery[] = [];
	const add = (label: string, request: RawRequest, expect: Expectation) =>
		out.push({ ...request, category: 'huge-body', label, expect });
	add('1 MiB data.id', post(target, padTo(notEvent(), MiB, ['data', 'id'])), notAnEvent);
	const many = notEvent();
	many.included = Array.from({ length: 150_000 }, (_, i) => ({
		id: String(i),
		type: 'other',
		attributes: { n: i },
	}));
	add(
		`${(json(many).length / MiB).toFixed(1)} MiB: 150,000 included resources`,
		post(target, json(many)),
		notAnEvent,
	);
	add(
		'16 MiB - 1 KiB',
		post(target, padTo(notEvent(), N8N_BODY_LIMIT - 1024, [...ATTRS, 'title'])),
		notAnEvent,
	);
	add(
		'exactly 16 MiB (the limit)',
		post(target, padTo(notEvent(), N8N_BODY_LIMIT, [...ATTRS, 'title'])),
		notAnEvent,
	);
	add(
		'16 MiB + 1 byte',
		post(target, padTo(notEvent(), N8N_BODY_LIMIT + 1, [...ATTRS, 'title'])),
		overLimit,
	);
	add(
		'16 MiB + 1 byte, JSON:API type',
		post(target, padTo(notEvent(), N8N_BODY_LIMIT + 1, [...ATTRS, 'title']), {
			contentType: 'application/vnd.api+json',
		}),
		overLimit,
	);
	add(
		'32 MiB',
		post(target, padTo(notEvent(), 2 * N8N_BODY_LIMIT, [...ATTRS, 'title'])),
		overLimit,
	);
	add(
		'20 MiB with a wrong token',
		post(target, padTo(validEvent(rng, target), 20 * MiB, [...ATTRS, 'title']), {
			query: '?token=guess',
		}),
		overLimit,
	);
	return out;
}

function encodingCases(rng: Rng, target: TriggerTarget): Delivery[] {
	const out: Delivery[] = [];
	const corrupt: Expectation = {
		kind: 'n8n-exception',
		statuses: [500],
		exception: 'corrupt-content-encoding',
	};
	const add = (
		label: string,
		body: Buffer,
		encoding: string,
		expect: Expectation,
		contentType = 'application/json',
		query?: string,
	) =>
		out.push({
			...post(target, body, { contentType, query, headers: [['content-encoding', encoding]] }),
			category: 'content-encoding',
			label,
			expect,
		});
	const notEvent = () =>
		json(mutate(validEvent(rng, target), [{ path: ['data', 'id'], value: 42 }]));
	const event = () => json(validEvent(rng, target));
	add('gzip, not an event', gzipSync(notEvent()), 'gzip', notAnEvent);
	add('deflate, not an event', deflateSync(notEvent()), 'deflate', notAnEvent);
	add(
		'gzip, valid event, wrong token',
		gzipSync(event()),
		'gzip',
		unauthorised,
		'application/json',
		'?token=guess',
	);
	add('identity, not an event', notEvent(), 'identity', notAnEvent);
	for (const contentType of ['application/json', 'application/vnd.api+json']) {
		add(
			`br (n8n does not decode it), ${contentType}`,
			brotliCompressSync(event()),
			'br',
			unparsable(contentType),
			contentType,
		);
		add(
			`GZIP upper-cased (n8n does not decode it), ${contentType}`,
			gzipSync(event()),
			'GZIP',
			unparsable(contentType),
			contentType,
		);
		add(
			`"gzip, deflate" (n8n does not decode it), ${contentType}`,
			deflateSync(gzipSync(event())),
			'gzip, deflate',
			unparsable(contentType),
			contentType,
		);
	}
	for (let i = 0; i < 3; i++) {
		add(
			`gzip, random bytes ${i + 1}`,
			Buffer.from(rng.string(200, '\u0000\u0001abcdef\u00ff')),
			'gzip',
			corrupt,
		);
		add(
			`deflate, random bytes ${i + 1}`,
			Buffer.from(rng.string(200, '\u0000\u0001abcdef\u00ff')),
			'deflate',
			corrupt,
		);
	}
	add('gzip label on plain JSON', event(), 'gzip', corrupt);
	add('deflate label on plain JSON', event(), 'deflate', corrupt);
	const gz = gzipSync(event());
	add('gzip truncated', gz.subarray(0, gz.length >> 1), 'gzip', corrupt);
	add('gzip bomb: 64 MiB of zeros in ~64 KiB', gzipSync(Buffer.alloc(64 * MiB)), 'gzip', corrupt);
	return out;
}

// ---- methods, paths, heads ---------------------------------------------------------------------------

function methodAndPathCases(rng: Rng, target: TriggerTarget): Delivery[] {
	const out: Delivery[] = [];
	const body = json(validEvent(rng, target));
	const notFound: Expectation = { kind: 'rejected', status: 404, by: 'n8n' };
	for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
		out.push({
			...post(target, method === 'GET' || method === 'DELETE' ? undefined : body),
			method,
			category: 'method-and-path',
			label: method,
			expect: notFound,
		});
	}
	out.push({
		...post(target, undefined),
		method: 'HEAD',
		category: 'method-and-path',
		label: 'HEAD',
		expect: notFound,
	});
	out.push({
		...post(target, undefined, {
			headers: [
				['origin', 'http://evil.example'],
				['access-control-request-method', 'POST'],
			],
		}),
		method: 'OPTIONS',
		category: 'method-and-path',
		label: 'OPTIONS (CORS preflight)',
		expect: { kind: 'n8n-exception', statuses: [204], exception: 'options-preflight' },
	});
	for (const method of ['TRACE', 'PROPFIND', 'MKCOL']) {
		out.push({
			...post(target, body),
			method,
			category: 'method-and-path',
			label: method,
			expect: { kind: 'n8n-exception', statuses: [500], exception: 'unsupported-method' },
		});
	}
	const [prefix, id] = [target.path.split('/')[1], target.path.split('/')[2]];
	for (const [label, path] of [
		['test URL, nobody listening', `/webhook-test/${id}/webhook`],
		['path upper-cased', `/${prefix}/${id}/WEBHOOK`],
		['an extra segment', `${target.path}/extra`],
		['another webhook id', `/${prefix}/${rng.uuid()}/webhook`],
		['id only', `/${prefix}/${id}`],
	] as const) {
		out.push({
			...post(target, body),
			path: `${path}?token=${target.token}`,
			category: 'method-and-path',
			label,
			expect: notFound,
		});
	}
	return out;
}

function oversizedHeadCases(rng: Rng, target: TriggerTarget): Delivery[] {
	// Node's http server refuses a request head beyond --max-http-header-size (16 KiB) with 431
	const tooLarge: Expectation = { kind: 'rejected', status: 431, by: 'n8n' };
	const body = json(validEvent(rng, target));
	return [
		{
			...post(target, body, { headers: [['x-junk', 'j'.repeat(20 * 1024)]] }),
			category: 'oversized-head',
			label: 'a 20 KiB header',
			expect: tooLarge,
		},
		{
			...post(target, body, {
				headers: Array.from({ length: 1500 }, (_, i): [string, string] => [
					`x-h${i}`,
					'v'.repeat(10),
				]),
			}),
			category: 'oversized-head',
			label: '1,500 headers',
			expect: tooLarge,
		},
		{
			...post(target, body, { query: `?token=${rng.string(20 * 1024)}` }),
			category: 'oversized-head',
			label: 'a 20 KiB token',
			expect: tooLarge,
		},
		{
			...post(target, body, {
				query: `?token=${target.token}&${Array.from({ length: 2000 }, (_, i) => `p${i}=${i}`).join('&')}`,
			}),
			category: 'oversized-head',
			label: '2,000 query parameters',
			expect: tooLarge,
		},
	];
}

// ---- replays and unselected events -------------------------------------------------------------------

function randomReplay(rng: Rng, target: TriggerTarget, original: Delivery): Delivery {
	const base = { category: 'replay' as const, eventId: original.eventId };
	const roll = rng.next();
	if (roll < 0.5)
		return { ...original, ...base, label: 'exact replay', expect: { kind: 'duplicate' } };
	const event = JSON.parse(inflate(original)) as ReturnType<typeof validEvent>;
	if (roll < 0.7) {
		const changed = mutate(event, [
			{ path: [...ATTRS, 'title'], value: `Replayed ${rng.string(6)}` },
		]);
		return {
			...post(target, json(changed), { contentType: rng.pick(JSON_TYPES) }),
			...base,
			label: 'same id, other body',
			expect: { kind: 'duplicate' },
		};
	}
	if (roll < 0.85) {
		const unselected = mutate(event, [
			{ path: ['data', 'attributes', 'event_type'], value: target.unselectedEvent },
		]);
		return {
			...post(target, json(unselected)),
			...base,
			label: 'same id, unselected event type',
			expect: { kind: 'ignored' },
		};
	}
	return {
		...post(target, json(event), { query: `?token=${flipOneChar(rng, target.token)}` }),
		...base,
		label: 'same id, wrong token',
		expect: unauthorised,
	};
}

/** The JSON text of a valid delivery, without its BOM or content encoding. */
function inflate(delivery: Delivery): string {
	const encoding = delivery.headers.find(([name]) => name === 'content-encoding')?.[1];
	const body = delivery.body ?? Buffer.alloc(0);
	const plain =
		encoding === 'gzip' ? gunzipSync(body) : encoding === 'deflate' ? inflateSync(body) : body;
	return plain.toString('utf8').replace(/^\ufeff/, '');
}

const UNSELECTED_TYPES = (target: TriggerTarget) => [
	target.unselectedEvent,
	'transcription.deleted',
	'transcription.failed',
	target.selectedEvent.toUpperCase(),
	`${target.selectedEvent} `,
	` ${target.selectedEvent}`,
	target.selectedEvent.replace('.', '_'),
	`${target.selectedEvent}\u0000`,
	target.selectedEvent.replace('a', '\u0430'),
	'webhook_endpoint.created',
	'*',
];

function randomUnselected(rng: Rng, target: TriggerTarget): Delivery {
	const type = rng.chance(0.8) ? rng.pick(UNSELECTED_TYPES(target)) : rng.string(rng.int(1, 60));
	const body = json(validEvent(rng, target, type));
	return {
		...post(target, body, { contentType: rng.pick(JSON_TYPES) }),
		category: 'unselected-event',
		label: `generated: ${JSON.stringify(type).slice(0, 30)}`,
		expect: { kind: 'ignored' },
		meant: { body, is: 'event' },
	};
}
