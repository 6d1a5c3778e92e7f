// The deliveries of the faults suite: a seeded generator plus hand-written cases, each with the answer
// it must get from the Captioning Trigger inside a real n8n 2.41.1. The answers follow the trigger's
// receiving contract (issue 13), not its code: refuse only what is hostile, accept and pass through what
// is merely unusual.
//   - no or a wrong token: 401;  a body n8n has already consumed (multipart/form-data): 415
//   - a body that is not JSON: 400 (n8n's own 422 first when it parses the type, application/json)
//   - no event id (`data` not an object, `data.id` not a string of 1-200 characters, or its bytes not
//     UTF-8): 400
//   - an event type that is not exactly a selected one: 200 ignored;  an id seen before: 200 duplicate
//   - anything else: the workflow starts, once per event id, whatever the rest of the body holds.
// Hostile deliveries start nothing; the unusual but valid ones (each with its own id) start one
// execution each, or are ignored. Where n8n answers before the trigger runs, the expectation says so
// (`by: 'n8n'`), and `n8n-exception` marks the answers that are neither a 4xx nor a deliberate 2xx:
// see KNOWN_N8N_EXCEPTIONS.
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
	/** 200 "Workflow was started": one execution. Only for valid events, each with its own id. */
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
		'the trigger answer, or never answers (status 0: the client gave up). The trigger reads the ' +
		'raw bytes whatever the type: a valid JSON event would start or not by chance, so every ' +
		'XML-typed delivery here is hostile to it (XML, or JSON without an event id: 400). Any ' +
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
	| 'token-in-body'
	| 'valid';

export interface Delivery extends RawRequest {
	category: Category;
	label: string;
	expect: Expectation;
	/**
	 * The body's bytes after n8n's Content-Encoding, when the generator means it to carry an event id
	 * (`event`: readable JSON with a usable `data.id`) or not (`not-event`): the suite checks the
	 * generator against the package's own reading before sending, so that a 401 is known to be about
	 * the token and a 400 about the id, not about something else in the body.
	 */
	meant?: { body: Buffer; is: 'event' | 'not-event' };
	/** The valid event's id: of a valid delivery (deliberate or unusual), or of the one a replay repeats. */
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
const ignored: Expectation = { kind: 'ignored' };

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
// Field table: each path of contract 2.3/2.4 with the JSON types it has there and same-type values that
// the contract does not show. Values of any other JSON type are wrong by type. What a wrong value (or
// the field's absence) makes of a delivery is the field's role in the receiving contract:
//   - 'event-type' (`data`, `data.attributes`, `data.attributes.event_type`): no selected type: 200 ignored,
//     whatever else is wrong (the type is read first)
//   - 'event-id' (`data.id`): a selected type without an event id, hostile: 400
//   - 'passed-through' (everything else): unusual but valid, the workflow starts with it as it came

type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';
type Path = Array<string | number>;
type FieldRole = 'event-id' | 'event-type' | 'passed-through';

interface Field {
	path: Path;
	accepts: JsonType[];
	alsoWrong?: Json[];
	/** Contract 2.3/2.4 always shows it: its absence is a case of its own. */
	required?: boolean;
	/** Passed through unless said otherwise. */
	role?: FieldRole;
}

const roleOf = (field: Field): FieldRole => field.role ?? 'passed-through';
/** Whether a wrong value or the absence of the field leaves the event without its id (`data`, `data.id`). */
const takesId = (field: Field) => ['data', 'data.id'].includes(field.path.join('.'));

/** The answer to a delivery whose only fault is a wrong value of the field, or its absence. */
function onlyFault(field: Field): Expectation {
	const role = roleOf(field);
	return role === 'event-id' ? notAnEvent : role === 'event-type' ? ignored : started;
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
	{ path: ['data'], accepts: ['object'], required: true, role: 'event-type' },
	{
		path: ['data', 'id'],
		// an exact non-negative integer is an id too (a service that numbers its events); other numbers are not
		accepts: ['string', 'number'],
		alsoWrong: ['', 'i'.repeat(201), -1, 1.5, 1e21, -1e-7],
		required: true,
		role: 'event-id',
	},
	{
		path: ['data', 'type'],
		accepts: ['string'],
		alsoWrong: ['', 'webhook_events', 'Webhook_Event', 'transcription', ' webhook_event'],
		required: true,
	},
	{ path: ['data', 'attributes'], accepts: ['object'], required: true, role: 'event-type' },
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
		role: 'event-type',
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
/** The fields without which a delivery has no event id. */
const ID_FIELDS = FIELDS.filter((field) => roleOf(field) === 'event-id');
/** What a generated hostile delivery may get wrong beside its id: anything but its selected type. */
const OTHER_FIELDS = FIELDS.filter((field) => roleOf(field) === 'passed-through');

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
	/** Sent first, one at a time: each starts one execution; the replays repeat them. */
	valid: Delivery[];
	/**
	 * Unusual but valid: what the receiving contract passes through (each with its own id: one
	 * execution each) or ignores (no selected event type). Sent next, with bounded concurrency.
	 */
	unusual: Delivery[];
	/** Sent afterwards, shuffled, with bounded concurrency: not one of them starts anything. */
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

/**
 * The trigger reads the event type right after the token: a JSON body without a selected type is acknowledged 200,
 * whatever else it lacks. False only for a delivery meant to be refused as no event that has no such type.
 */
function typeSelected(target: TriggerTarget, d: Delivery): boolean {
	if (d.expect !== notAnEvent) return true;
	const bytes = d.meant?.body ?? d.body;
	let body: unknown;
	try {
		body = JSON.parse((bytes ?? Buffer.alloc(0)).toString('utf8').replace(/^\uFEFF/, ''));
	} catch {
		return true;
	}
	const data = (body as { data?: { attributes?: { event_type?: unknown } } } | null)?.data;
	return data?.attributes?.event_type === target.selectedEvent;
}

/** Of the hand-written cases, the valid ones: started, or ignored for want of a selected type. */
const isUnusual = (d: Delivery) => d.expect.kind === 'started' || d.expect.kind === 'ignored';

export function planDeliveries(target: TriggerTarget, options: PlanOptions): Plan {
	const rng = new Rng(options.seed);
	const valid = validDeliveries(rng, target);
	// the hand-written groups hold both: each hostile case beside its unusual but valid twin
	const handWritten: Delivery[] = [
		...tokenCases(rng, target),
		...handWrittenBodyCases(rng, target),
		...invalidUtf8Cases(rng, target),
		...contentTypeCases(rng, target),
		...deepNestingCases(rng, target),
		...hugeBodyCases(rng, target),
		...tokenInBodyCases(rng, target),
		...encodingCases(rng, target),
		...methodAndPathCases(rng, target),
		...oversizedHeadCases(rng, target),
	];
	for (const d of handWritten) if (!typeSelected(target, d)) d.expect = ignored;
	const unusual = handWritten.filter(isUnusual);
	const hostile = handWritten.filter((d) => !isUnusual(d));
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
	return {
		valid,
		unusual,
		hostile: hostile.filter((d) => !isXml(d)),
		xml: hostile.filter(isXml),
		burst,
	};
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
	// every wrong value of every field, and every field's absence, one at a time: ignored where that takes
	// the selected type, hostile where it takes only the event id, unusual but valid anywhere else
	const alone = (category: Category, field: Field, value: Json | typeof DELETE, label: string) => {
		const event = validEvent(rng, target);
		const body = json(mutate(event, [{ path: field.path, value }]));
		const expect = onlyFault(field);
		out.push({
			...post(target, body),
			category,
			label,
			expect,
			meant: { body, is: takesId(field) ? 'not-event' : 'event' },
			eventId: takesId(field) ? undefined : event.data.id,
		});
	};
	for (const field of FIELDS) {
		for (const value of wrongValues(field)) {
			const label = `${describePath(field.path)} = ${JSON.stringify(value).slice(0, 30)}`;
			alone('wrong-types', field, value, label);
		}
		if (field.required) {
			alone('missing-fields', field, DELETE, `without ${describePath(field.path)}`);
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

// The generated ones are hostile by construction: one fault takes the event id (`data.id`), up to two more
// among the passed-through members must not change the answer (the selected type, then the id, is read first)
function randomWrongTypes(rng: Rng, target: TriggerTarget): Delivery {
	const fields = [rng.pick(ID_FIELDS), ...rng.sample(OTHER_FIELDS, rng.int(0, 2))];
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
	const fields = [
		rng.pick(ID_FIELDS),
		...rng.sample(
			OTHER_FIELDS.filter((f) => f.required),
			rng.int(0, 3),
		),
	];
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
	// junk around a selected type without an id: what the trigger must refuse once it reads the type
	const body = json({
		...(value !== null && typeof value === 'object' && !Array.isArray(value)
			? value
			: { junk: value }),
		data: { attributes: { event_type: target.selectedEvent } },
	});
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
/** String fields passed through: bytes that are not UTF-8 in them cost nothing (U+FFFD, as in n8n). */
const PASSED_STRINGS: Path[] = [
	[...ATTRS, 'title'],
	[...SUBJECT, 'id'],
	[...FILE, 'format'],
];
const EVENT_TYPE: Path = ['data', 'attributes', 'event_type'];

/** The event as JSON with `bytes` inside the string at `path`, or between two tokens when no path. */
function withBytes(event: JsonObject, bytes: number[], marker: string, path?: Path): Buffer {
	const text = path
		? JSON.stringify(mutate(event, [{ path, value: `a${marker}b` }]))
		: JSON.stringify(event).replace('{', `{${marker}`);
	const [before, after] = text.split(marker);
	return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
}

function invalidUtf8Cases(rng: Rng, target: TriggerTarget): Delivery[] {
	const out: Delivery[] = [];
	for (const [label, bytes] of INVALID_UTF8) {
		for (const path of [...PASSED_STRINGS, EVENT_TYPE]) {
			const event = validEvent(rng, target);
			const body = withBytes(event, bytes, `@@${rng.string(12)}@@`, path);
			out.push({
				...post(target, body),
				category: 'invalid-utf8',
				label: `${label} in ${describePath(path)}`,
				// the type with U+FFFD in it is no selected one
				expect: path === EVENT_TYPE ? ignored : started,
				meant: { body, is: 'event' },
				eventId: event.data.id,
			});
		}
	}
	return out;
}

// generated: in the event id (de-duplication needs it exactly: 400) or between tokens (not JSON)
function randomInvalidUtf8(rng: Rng, target: TriggerTarget): Delivery {
	const [label, bytes] = rng.pick(INVALID_UTF8);
	const contentType = rng.pick(JSON_TYPES);
	const marker = `@@${rng.string(12)}@@`;
	const inId = rng.chance(0.85);
	const body = withBytes(validEvent(rng, target), bytes, marker, inId ? ['data', 'id'] : undefined);
	return {
		...post(target, body, { contentType }),
		category: 'invalid-utf8',
		label: `generated: ${label} ${inId ? 'in data.id' : 'between tokens'}`,
		// n8n decodes leniently (U+FFFD) and parses; the trigger refuses an id it cannot know exactly
		expect: inId ? notAnEvent : unparsable(contentType),
		meant: { body, is: 'not-event' },
	};
}

// ---- content types -----------------------------------------------------------------------------------

/**
 * Types n8n does not parse as JSON (it parses text/plain as text and a form as a form, without failing):
 * the trigger reads the bytes whatever the type says, so the body decides.
 */
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
	statuses: [400, 422, 0],
	exception: 'shared-xml-parser',
};
const n8nUnprocessable: Expectation = { kind: 'rejected', status: 422, by: 'n8n' };

/** A JSON event without its id: hostile whatever the content type. */
const eventWithoutId = (rng: Rng, target: TriggerTarget) =>
	json(mutate(validEvent(rng, target), [{ path: ['data', 'id'], value: DELETE }]));

function contentTypeCases(rng: Rng, target: TriggerTarget): Delivery[] {
	const out: Delivery[] = [];
	const add = (
		label: string,
		request: RawRequest,
		expect: Expectation,
		body?: Buffer,
		is: 'event' | 'not-event' = expect.kind === 'started' ? 'event' : 'not-event',
	) =>
		out.push({ ...request, category: 'content-type', label, expect, meant: body && { body, is } });
	/** The type with an event (unusual, valid: it starts) and with one without its id (hostile). */
	const twins = (label: string, options: Parameters<typeof post>[2]) => {
		const event = validEvent(rng, target);
		const body = json(event);
		add(label, post(target, body, options), started, body);
		out[out.length - 1].eventId = event.data.id;
		const noId = eventWithoutId(rng, target);
		add(`${label}, no event id`, post(target, noId, options), notAnEvent, noId);
	};
	for (const type of NOT_JSON_TYPES) twins(`"${type}"`, { contentType: type });
	twins('no Content-Type', { contentType: null });
	twins('text/plain, then application/json (Node keeps the first)', {
		contentType: null,
		headers: [
			['content-type', 'text/plain'],
			['content-type', 'application/json'],
		],
	});
	for (const type of CHARSET_TYPES) {
		// n8n decodes with the declared charset and fails to parse before the trigger runs
		const event = json(validEvent(rng, target));
		add(`"${type}"`, post(target, event, { contentType: type }), n8nUnprocessable, event, 'event');
	}
	for (const type of XML_TYPES) {
		const body = eventWithoutId(rng, target);
		add(
			`"${type}", JSON without an event id`,
			post(target, body, { contentType: type }),
			xmlParserRace,
			body,
		);
	}
	for (const type of XML_TYPES) {
		const body = Buffer.from(`<event><data id="${rng.uuid()}" type="webhook_event"/></event>`);
		add(`XML body, ${type}`, post(target, body, { contentType: type }), xmlParserRace, body);
	}
	{
		const body = Buffer.from(`data[id]=${rng.uuid()}&data[type]=webhook_event`);
		add(
			'form body, form type',
			post(target, body, { contentType: 'application/x-www-form-urlencoded' }),
			notAnEvent,
			body,
		);
	}
	// n8n streams a multipart/form-data body into its form parser before the trigger runs: no bytes left
	const unreadable: Expectation = { kind: 'rejected', status: 415, by: 'trigger' };
	const boundary = `----faults${rng.string(16)}`;
	const multipart = Buffer.from(
		`--${boundary}\r\nContent-Disposition: form-data; name="event"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(validEvent(rng, target))}\r\n--${boundary}--\r\n`,
	);
	add(
		'multipart/form-data with the event as a field',
		post(target, multipart, { contentType: `multipart/form-data; boundary=${boundary}` }),
		unreadable,
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
		unreadable,
	);
	return out;
}

// generated: an event without its id, or a body that is not JSON, under a type that is not plain JSON
function randomContentType(rng: Rng, target: TriggerTarget): Delivery {
	const roll = rng.next();
	const [type, expect]: [string, Expectation] =
		roll < 0.8
			? [rng.pick(NOT_JSON_TYPES), notAnEvent]
			: roll < 0.95
				? [rng.pick(CHARSET_TYPES), n8nUnprocessable]
				: [rng.pick(XML_TYPES), xmlParserRace];
	const noId = rng.chance(0.5);
	const body = noId
		? eventWithoutId(rng, target)
		: Buffer.from(JSON.stringify(validEvent(rng, target)).slice(0, -1));
	return {
		...post(target, body, { contentType: type }),
		category: 'content-type',
		label: `generated: "${type}", ${noId ? 'no event id' : 'not JSON (truncated)'}`,
		expect,
		meant: { body, is: 'not-event' },
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
	const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
	const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
	add(
		'data.id nested 100,000 deep',
		JSON.stringify(validEvent(rng, target)).replace(/"id":"[^"]+"/, `"id":${deep(100_000)}`),
	);
	// deep values elsewhere pass through (an item holds them as null): an event starts (or, without a
	// type, is ignored) with one; without its id, it is refused all the same
	const elsewhere: Array<[string, (text: string) => string, Expectation]> = [
		[
			'event_type',
			(text) => text.replace(/"event_type":"[^"]+"/, `"event_type":${deepObject(100_000)}`),
			ignored,
		],
		['title', (text) => text.replace(/"title":"[^"]+"/, `"title":${deep(100_000)}`), started],
		['included', (text) => text.replace(/"included":\[/, `"included":[${deep(100_000)},`), started],
	];
	for (const [where, nest, expect] of elsewhere) {
		const event = validEvent(rng, target);
		const text = nest(JSON.stringify(event));
		out.push({
			...post(target, Buffer.from(text)),
			category: 'deep-nesting',
			label: `${where} nested 100,000 deep`,
			expect,
			meant: { body: Buffer.from(text), is: 'event' },
			eventId: event.data.id,
		});
		add(
			`${where} nested 100,000 deep, no event id`,
			nest(JSON.stringify(mutate(event, [{ path: ['data', 'id'], value: DELETE }]))),
		);
	}
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
	// without its id: what is under test is the size, the answer must not depend on anything else
	const notEvent = () => mutate(validEvent(rng, target), [{ path: ['data', 'id'], value: DELETE }]);
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
	{
		// other resources in `included` pass through: the subject's transcription is found among them
		const event = validEvent(rng, target);
		const others = Array.from({ length: 150_000 }, (_, i) => ({
			id: String(i),
			type: 'other',
			attributes: { n: i },
		}));
		event.included = [
			...others.slice(0, 75_000),
			...(event.included as Json[]),
			...others.slice(75_000),
		];
		const body = json(event);
		out.push({
			...post(target, body),
			category: 'huge-body',
			label: `${(body.length / MiB).toFixed(1)} MiB: the transcription among 150,000 other resources`,
			expect: started,
			meant: { body, is: 'event' },
			eventId: event.data.id,
		});
	}
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
		// n8n parses every body of a version-1 trigger itself (and fails with 500); from version 2 it leaves
		// types it does not parse to the trigger, whose read stops at the same limit: 413, naming the setting
		process.env.CAPTIONING_TRIGGER_VERSION === '1'
			? overLimit
			: { kind: 'rejected', status: 413, by: 'trigger' },
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

// The callback token where the service would never put it: each event starts, and the secret scan
// looks for the token in every execution's data (issue 13: no token in any output)
function tokenInBodyCases(rng: Rng, target: TriggerTarget): Delivery[] {
	const placements: Array<[string, Path, string]> = [
		['the callback URI as the title', [...ATTRS, 'title'], target.callbackUri],
		['the token as the title', [...ATTRS, 'title'], target.token],
		['the token inside the title', [...ATTRS, 'title'], `before ${target.token} after`],
		[
			'the token in the media URL’s query',
			[...ATTRS, 'media', 'url'],
			`http://127.0.0.1:9/media.wav?a=1&token=${encodeURIComponent(target.token)}&b=2`,
		],
		['the callback URI as a file URL', [...FILE, 'url'], target.callbackUri],
		['the token as created_at', ['data', 'attributes', 'created_at'], target.token],
		['the token as the subject id', [...SUBJECT, 'id'], target.token],
		// formats become member names of the item's `files`: the token must leave names too
		['the token as a file format', [...FILE, 'format'], target.token],
		['the callback URI as a file format', [...FILE, 'format'], target.callbackUri],
	];
	return placements.map(([label, path, value]) => {
		const event = validEvent(rng, target);
		const body = json(mutate(event, [{ path, value }]));
		return {
			...post(target, body),
			category: 'token-in-body' as const,
			label,
			expect: started,
			meant: { body, is: 'event' as const },
			eventId: event.data.id,
		};
	});
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
		// 42 would be an id (an exact integer); 4.2 is not
		json(mutate(validEvent(rng, target), [{ path: ['data', 'id'], value: 4.2 }]));
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
