// The value oracle's shapes (issue 39): for every answer and delivery shape the nodes read, the values a service
// may send (generate.ts), the answer built from them, what model.ts says the nodes must output for those values,
// and the package's own reading of that answer, through the same functions the nodes run. values.test.ts
// compares the two field by field.
import { Readable } from 'node:stream';

import fc from 'fast-check';
import { type INodeExecutionData, NodeApiError } from 'n8n-workflow';

import { createdItem } from '../../nodes/Captioning/actions/webhookEndpoint/create.operation';
import { gotItem } from '../../nodes/Captioning/actions/webhookEndpoint/get.operation';
import { listedItems } from '../../nodes/Captioning/actions/webhookEndpoint/getAll.operation';
import { convertCaptions } from '../../nodes/Captioning/captions';
import { obtainTokens } from '../../nodes/Captioning/tokens/obtain';
import { handOver } from '../../nodes/Captioning/tokens/renewal';
import { credentialValues, valuesFingerprint } from '../../nodes/Captioning/tokens/values';
import {
	readRetryAfter,
	readAnnouncement,
	headerValue,
} from '../../nodes/Captioning/shared/schemas';
import { retryDelayMs } from '../../nodes/Captioning/shared/pacing';
import { captioningApiCall, type CaptioningContext } from '../../nodes/Captioning/transport';
import {
	collectEndpoints,
	createdEndpoint,
	ITEM_SHAPE,
	UnexpectedListError,
} from '../../nodes/Captioning/transport/webhookEndpoints';
import { compareStored } from '../../nodes/Captioning/trigger/callback';
import type { DedupeAccess } from '../../nodes/Captioning/trigger/dedupe/staticData';
import { attachDownloads } from '../../nodes/Captioning/trigger/downloads';
import { receiveNow } from '../../nodes/Captioning/trigger/pipeline';
import { hashToken } from '../../nodes/Captioning/trigger/token';
import {
	asStringSpelling,
	headerCase,
	httpDate,
	type HttpDateForm,
	type IdValue,
	idText,
	idValue,
	idWire,
	linkText,
	linkValue,
	listOf,
	text,
	timestamp,
	timeZone,
	word,
} from './generate';
import { ABSENT, Digits, jsonText, parsed, type Wire } from './jsonText';
import {
	type AttributesValue,
	clock,
	downloadPlan,
	endpointId,
	type ErrorValues,
	eventItem,
	type EventValues,
	fileName,
	fractionMs,
	type IncludedValue,
	type Member,
	mediaType,
	nextPage,
	redactedUri,
	renews,
	type RetryAfter,
	retryAfterMs,
	retryDelayAfter429,
	savedTokens,
	serviceWords,
	type Stored,
	type TokenValues,
} from './model';
import type { Outcome } from './oracle';

/** What the model says an answer must give: a value with the fields it must explain, or an error that names. */
export type Prediction =
	| { ok: true; value: Record<string, unknown>; said: string[] }
	| { ok: false; names: RegExp };

export interface ValueShape<V> {
	name: string;
	values: fc.Arbitrary<V>;
	/** For each field the model may say must be explained, the words that name it in a warning or note. */
	names: Record<string, RegExp>;
	/** Values that may never appear in an outcome. */
	secrets: string[];
	/** The package's reading of the answer built from `v`, and the model's prediction for `v`. */
	check(v: V): Promise<{ outcome: Outcome; predicted: Prediction }>;
}

const shape = <V>(s: ValueShape<V>) => s as unknown as ValueShape<unknown>;

/** The type of the values an arbitrary generates. */
type GeneratedValueType<A> = A extends fc.Arbitrary<infer T> ? T : never;

const NOW = Date.parse('2026-01-01T00:00:00Z');
const BASE_URL = 'https://api.example.com';
const CALLBACK_TOKEN = 'Cb7okenValueSuite0123456789abcdef';
const WEBHOOK_URL = 'https://n8n.example.com/webhook/4f1c/webhook';
const EVENTS = ['transcription.created', 'transcription.transcribed'];
const predicted = (value: Record<string, unknown>, said: string[] = []): Prediction => ({
	ok: true,
	value,
	said,
});

/** A member as generated: a value of its kind (ok), or absent, null or another type, with what goes on the wire. */
const member = <T>(
	ok: fc.Arbitrary<{ value: T; wire: Wire }>,
	others: Wire[] = [7, true, [], {}],
) =>
	fc.oneof(
		{
			weight: 4,
			arbitrary: ok.map((o) => ({ m: { ok: true as const, value: o.value }, wire: o.wire })),
		},
		fc.constant({ m: { ok: false as const, wire: 'absent' as const }, wire: ABSENT as Wire }),
		fc.constant({ m: { ok: false as const, wire: 'null' as const }, wire: null as Wire }),
		fc
			.constantFrom(...others)
			.map((wire) => ({ m: { ok: false as const, wire: 'other' as const }, wire })),
	);

/** A count and the ways a service spells it: a number, a numeric string, with leading zeros or white space. */
const count = (min: number, max: number) =>
	fc
		.tuple(
			fc.integer({ min, max }),
			fc.constantFrom('number', 'string', 'zeros', 'spaces', 'decimal'),
		)
		.map(([n, how]) => {
			switch (how) {
				case 'number':
					return { value: n, wire: n as Wire };
				case 'string':
					return { value: n, wire: String(n) };
				case 'zeros':
					return { value: n, wire: `00${n}` };
				case 'spaces':
					return { value: n, wire: ` ${n} ` };
				default:
					return { value: n + 0.5, wire: `${n}.5` };
			}
		});

// ---- the token endpoint ------------------------------------------------------------------------------------------

let clients = 0;
const tokenShape = shape({
	name: 'token answer (both grants; renewal before the call)',
	values: fc.record({
		grant: fc.constantFrom<TokenValues['grant']>('assertion', 'refresh_token'),
		access: member(
			text(40).map((t) => ({ value: t, wire: t })),
			['', '   ', 7, true, {}],
		),
		expires: member(count(1, 200_000), ['0', '-60', 'soon', 0, -1, true, '']),
		refresh: member(
			text(40).map((t) => ({ value: t, wire: t })),
			['', '  ', 7, {}],
		),
		// how long before the saved expiry the next call comes
		leftMs: fc.oneof(
			fc.integer({ min: -120_000, max: 120_000 }),
			fc.integer({ min: 25_000, max: 65_000 }),
		),
		seed: fc.uuid(),
	}),
	names: { access_token: /access_token/ },
	secrets: ['cs-values-secret', 'as-values-assertion'],
	async check(v) {
		const values: TokenValues = {
			grant: v.grant,
			accessToken: v.access.m,
			expiresIn: v.expires.m as Member<number>,
			refreshToken: v.refresh.m,
		};
		clients++;
		const held = `rt-values-held-${clients}`;
		const data: Record<string, unknown> = {
			baseUrl: BASE_URL,
			clientId: `values-client-${clients}`,
			clientSecret: 'cs-values-secret',
			assertion: 'as-values-assertion',
			mediaType: 'application/vnd.service.v1',
			...(v.grant === 'refresh_token' ? { accessToken: 'at-old', refreshToken: held } : {}),
		};
		data.tokenFingerprint = valuesFingerprint(credentialValues(data));
		const body = parsed({
			access_token: v.access.wire,
			token_type: 'Bearer',
			expires_in: v.expires.wire,
			refresh_token: v.refresh.wire,
			scope: 'write_transcriptions write_media',
			created_at: NOW / 1000,
		});
		const grants: string[] = [];
		const http = async (options: { qs?: unknown }) => {
			const grant = String((options.qs as Record<string, string>).grant_type);
			grants.push(grant);
			// a refresh that yields no token falls back to the assertion grant, which answers a good token
			const answer = grant === v.grant ? body : { access_token: 'at-fallback', expires_in: 60 };
			return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: answer };
		};
		const model = savedTokens(values, held, NOW);
		const renewal = renews(v.leftMs);
		let outcome: Outcome;
		try {
			const saved = await obtainTokens(http, data, () => NOW);
			// the next call, leftMs before the saved expiry: renewed first, or sent with the token it holds
			const handed = handOver(
				{ ...data, ...saved },
				{ deadline: Number.MAX_SAFE_INTEGER, handBackRefusedRefresh: false },
				saved.expiresAt - v.leftMs,
				{ processSeed: v.seed },
			);
			outcome = {
				ok: true,
				value: {
					accessToken: saved.accessToken,
					refreshToken: saved.refreshToken,
					expiresAt: saved.expiresAt,
					renewed: renewal === 'either' ? 'either' : handed.accessToken === '',
					grants: grants.join(),
				},
				warnings: [],
			};
		} catch (error) {
			outcome = failure(error);
		}
		if (!('error' in model)) {
			return { outcome, predicted: predicted({ ...model, renewed: renewal, grants: v.grant }) };
		}
		// a refresh that gives no token is followed by the assertion grant, once; an assertion grant fails
		return {
			outcome,
			predicted:
				v.grant === 'refresh_token'
					? predicted({
							accessToken: 'at-fallback',
							refreshToken: '',
							expiresAt: NOW + 60_000,
							renewed: renewal,
							grants: 'refresh_token,assertion',
						})
					: { ok: false, names: /access_token/ },
		};
	},
});

function failure(error: unknown): Outcome {
	if (error instanceof Error && !(error instanceof TypeError) && !(error instanceof RangeError)) {
		const description = (error as NodeApiError).description;
		return { ok: false, message: [error.message, description].filter(Boolean).join(' — ') };
	}
	throw error;
}

// ---- webhook endpoints -------------------------------------------------------------------------------------------

/** A callback URI as a service may store it: its base and query, written as given, and how it relates to the sent. */
interface Echo {
	text: string;
	base: string;
	query: Array<[string, string]>;
	stored: Stored;
}

const SENT_QUERIES: Array<Array<[string, string]>> = [
	[['token', CALLBACK_TOKEN]],
	[
		['src', 'n8n'],
		['token', CALLBACK_TOKEN],
	],
];
const uriText = (base: string, query: Array<[string, string]>) =>
	query.length ? `${base}?${query.map(([n, v]) => `${n}=${v}`).join('&')}` : base;

/** What a service may store of the URI sent: the same by meaning, the token gone, or another URI. */
const echoOf = (sentQuery: Array<[string, string]>): fc.Arbitrary<Echo> =>
	fc
		.tuple(
			fc.constantFrom(
				'same',
				'host-case',
				'default-port',
				'trailing-slash',
				'reordered',
				'token-gone',
				'query-gone',
				'token-empty',
				'other-token',
				'other-path',
				'extra-param',
			),
			word,
		)
		.map(([how, other]) => {
			let base = WEBHOOK_URL;
			let query = sentQuery.map(([n, v]): [string, string] => [n, v]);
			let stored: Stored = 'kept';
			switch (how) {
				case 'host-case':
					base = base.replace('n8n.example.com', 'N8N.Example.COM');
					break;
				case 'default-port':
					base = base.replace('.com/', '.com:443/');
					break;
				case 'trailing-slash':
					base = `${base}/`;
					break;
				case 'reordered':
					query = [...query].reverse();
					break;
				case 'token-gone':
					query = query.filter(([n]) => n !== 'token');
					stored = 'token-dropped';
					break;
				case 'query-gone':
					query = [];
					stored = 'token-dropped';
					break;
				case 'token-empty':
					query = query.map(([n, v]) => [n, n === 'token' ? '' : v]);
					stored = 'token-dropped';
					break;
				case 'other-token':
					query = query.map(([n, v]) => [n, n === 'token' ? `${v}${other}` : v]);
					stored = 'changed';
					break;
				case 'other-path':
					base = `${base}-${other}`;
					stored = 'changed';
					break;
				case 'extra-param':
					query = [...query, [`x${other}`, '1']];
					stored = 'changed';
					break;
			}
			return { text: uriText(base, query), base, query, stored };
		});

/** Other members of an endpoint's record: passed through as the service sent them. */
const extras = fc.dictionary(
	fc.constantFrom('created_at', 'updated_at', 'description', 'secret_hint', 'status', 'version'),
	fc.oneof(timestamp, text(8) as fc.Arbitrary<Wire>, fc.integer() as fc.Arbitrary<Wire>),
	{ maxKeys: 3 },
);

const eventsList = listOf(fc.oneof(fc.constantFrom(...EVENTS), text(8)));

type Envelope = 'jsonapi' | 'flat' | 'root-key' | 'id-only' | 'location-only' | 'empty';

/** The record a create or read answer holds, under the envelope the service uses. */
function record(
	envelope: Envelope,
	rootKey: string,
	id: IdValue | undefined,
	members: Record<string, Wire>,
): Wire {
	const idMember: Record<string, Wire> = id === undefined ? {} : { id: idWire(id) };
	switch (envelope) {
		case 'jsonapi':
			return {
				data: {
					...idMember,
					type: 'webhook_endpoint',
					attributes: members,
					links: { self: `${BASE_URL}/webhook_endpoints/x` },
				},
			};
		case 'flat':
			return { ...idMember, ...members };
		case 'root-key':
			return { [rootKey]: { ...idMember, ...members } };
		case 'id-only':
			return idMember;
		default:
			return ABSENT;
	}
}

const locationOf = (id: IdValue, form: 'absolute' | 'relative', base = BASE_URL) =>
	`${form === 'absolute' ? base : ''}/webhook_endpoints/${encodeURIComponent(idText(id))}`;

export const createValues = fc
	.record({
		sentQuery: fc.constantFrom(...SENT_QUERIES),
		events: fc.shuffledSubarray(EVENTS, { minLength: 1 }),
		envelope: fc.constantFrom<Envelope>(
			'jsonapi',
			'flat',
			'root-key',
			'id-only',
			'location-only',
			'empty',
		),
		rootKey: fc.constantFrom('webhook_endpoint', 'webhookEndpoint', 'WebhookEndpoint'),
		id: fc.option(idValue, { nil: undefined }),
		location: fc.option(fc.constantFrom<'absolute' | 'relative'>('absolute', 'relative'), {
			nil: undefined,
		}),
		echo: fc.option(fc.constant(true), { nil: undefined }),
		echoedEvents: fc.option(eventsList, { nil: undefined }),
		extras,
	})
	.chain((v) => echoOf(v.sentQuery).map((echo) => ({ ...v, echoValue: echo })));

export const ENDPOINT_NAMES = {
	id: /\bID\b/,
	callback_uri: /callback_uri|callback URI/,
	enabled_events: /enabled_events/,
};

/**
 * A creation answer built from the values (`base`: where its Location points), what Create sent, and the model's
 * item: the record's id, else the Location's; what was stored as echoed, else what was sent, said.
 */
export function createCase(v: GeneratedValueType<typeof createValues>, base = BASE_URL) {
	const sent = { callbackUri: uriText(WEBHOOK_URL, v.sentQuery), events: v.events };
	const hasRecord = ['jsonapi', 'flat', 'root-key'].includes(v.envelope);
	const echo = hasRecord && v.echo ? v.echoValue : undefined;
	const events = echo ? v.echoedEvents : undefined;
	const members: Record<string, Wire> = {
		...v.extras,
		callback_uri: echo ? echo.text : ABSENT,
		enabled_events: events ?? ABSENT,
	};
	// an answer without the callback URI is no endpoint record: its other members are not read
	const body = record(v.envelope, v.rootKey, v.id, echo ? members : {});
	const locationId = v.location && v.id ? v.id : undefined;
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		...(locationId ? { location: locationOf(locationId, v.location!, base) } : {}),
	};
	const bodyId = v.envelope === 'location-only' || v.envelope === 'empty' ? undefined : v.id;
	const id = endpointId(bodyId).value ?? (locationId ? idText(locationId) : null);
	// an id beyond 2^53 is said even where the Location gives it exactly: the answer's own was not used
	const said = [
		...(id === null || bodyId?.kind === 'big' ? ['id'] : []),
		...(echo ? [] : ['callback_uri']),
		...(events ? [] : ['enabled_events']),
	];
	const passed = echo
		? Object.fromEntries(Object.entries(v.extras).map(([k, w]) => [k, parsed(w)]))
		: {};
	return {
		answer: { status: 201, headers, body },
		sent,
		echo,
		predicted: predicted(
			{
				...passed,
				id,
				callback_uri: echo
					? redactedUri(echo)
					: redactedUri({ base: WEBHOOK_URL, query: v.sentQuery }),
				enabled_events: events ?? v.events,
			},
			said,
		) as Extract<Prediction, { ok: true }>,
	};
}

/** An output item as the oracle compares it: its note is what it says. */
export function itemOutcome(item: Record<string, unknown>): Outcome {
	const { note, ...value } = item;
	return { ok: true, value, warnings: typeof note === 'string' ? [note] : [] };
}

const createShape = shape({
	name: 'create answer (every envelope; the echo as stored)',
	values: createValues,
	names: ENDPOINT_NAMES,
	secrets: [CALLBACK_TOKEN],
	async check(v) {
		const c = createCase(v);
		const { headers, body } = c.answer;
		const response = { headers, body: body === ABSENT ? '' : parsed(body) };
		const outcome = itemOutcome(createdItem(createdEndpoint(response, c.sent)));
		// and what the trigger makes of the echo: the URI stored with the token, without it, or another
		const stored = c.echo ? compareStored(c.sent.callbackUri, c.echo.text) : 'not shown';
		if (outcome.ok) outcome.value.stored = stored;
		c.predicted.value.stored = c.echo ? c.echo.stored : 'not shown';
		return { outcome, predicted: c.predicted };
	},
});

export const readValues = fc.record({
	envelope: fc.constantFrom<Envelope>('jsonapi', 'flat', 'root-key'),
	rootKey: fc.constantFrom('webhook_endpoint', 'webhookEndpoint', 'WebhookEndpoint'),
	asked: idValue,
	// the record's own id: the one asked for, none, or the same in another spelling
	idForm: fc.constantFrom('same', 'none', 'as-string'),
	echo: fc.option(echoOf(SENT_QUERIES[0]), { nil: undefined }),
	events: fc.option(eventsList, { nil: undefined }),
	extras,
});

/** A read answer for the id asked, and Get's item the model expects: the id asked when the record has no exact one. */
export function readCase(v: GeneratedValueType<typeof readValues>) {
	const id =
		v.idForm === 'none'
			? undefined
			: v.idForm === 'same'
				? v.asked
				: ({ kind: 'text', text: idText(v.asked) } as IdValue);
	const members: Record<string, Wire> = {
		...v.extras,
		callback_uri: v.echo ? v.echo.text : ABSENT,
		enabled_events: v.events ?? ABSENT,
	};
	const asked = idText(v.asked);
	const prediction: Prediction = !v.echo
		? { ok: false, names: /callback_uri/ }
		: predicted(
				{
					...Object.fromEntries(Object.entries(v.extras).map(([k, w]) => [k, parsed(w)])),
					id: asked,
					callback_uri: redactedUri(v.echo),
					enabled_events: v.events ?? [],
				},
				[...(id?.kind === 'big' ? ['id'] : []), ...(v.events ? [] : ['enabled_events'])],
			);
	return {
		answer: { status: 200, headers: {}, body: record(v.envelope, v.rootKey, id, members) },
		asked,
		predicted: prediction,
	};
}

const readShape = shape({
	name: 'item read (Get: every envelope)',
	values: readValues,
	names: ENDPOINT_NAMES,
	secrets: [CALLBACK_TOKEN],
	async check(v) {
		const c = readCase(v);
		const item = gotItem(parsed(c.answer.body), c.asked);
		const outcome: Outcome = item ? itemOutcome(item) : { ok: false, message: ITEM_SHAPE };
		return { outcome, predicted: c.predicted };
	},
});

/** One item of a listed page: an endpoint, or something that is none (no callback_uri, or not an object). */
type Listed =
	| { kind: 'endpoint'; id?: IdValue; uri: string; events?: Wire[] }
	| { kind: 'not-an-endpoint'; wire: Wire };

const listed: fc.Arbitrary<Listed> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record(
			{
				kind: fc.constant('endpoint' as const),
				id: idValue,
				uri: fc
					.tuple(word, fc.nat())
					.map(([w, n]) => `https://n8n.example.com/webhook/${w}${n}/webhook`),
				events: eventsList as fc.Arbitrary<Wire[]>,
			},
			{ requiredKeys: ['kind', 'uri'] },
		),
	},
	fc
		.constantFrom<Wire>(
			{ id: 'x' },
			{ callback_uri: null },
			{ callback_uri: ' ' },
			{ callback_uri: 7 },
			'endpoint',
			7,
			null,
		)
		.map((wire) => ({ kind: 'not-an-endpoint' as const, wire })),
);

export const listValues = fc.record({
	envelope: fc.constantFrom('jsonapi', 'bare', 'root-key', 'data-flat'),
	items: fc.array(listed, { maxLength: 5 }),
	next: fc.constantFrom('none', 'links', 'links-href', 'header', 'header-lines'),
	links: fc.array(
		linkValue(
			fc.constantFrom('', '2', '3', 'x').map((p) => `${BASE_URL}/webhook_endpoints?page=${p}`),
		),
		{ minLength: 1, maxLength: 3 },
	),
	linkName: headerCase('link'),
});

export const LIST_NAMES = {
	id: /\bID\b/,
	enabled_events: /enabled_events/,
	skipped: /not a webhook endpoint/,
};

/**
 * A first page of the list built from the values, and the model's Get Many: each endpoint as stored, in order,
 * with what it did not show said; items that are no endpoint counted and said; the next page asked for.
 */
export function listCase(v: GeneratedValueType<typeof listValues>) {
	const items: Wire[] = v.items.map((item) => {
		if (item.kind === 'not-an-endpoint') return item.wire;
		const members: Record<string, Wire> = {
			callback_uri: item.uri,
			enabled_events: item.events ?? ABSENT,
		};
		const id: Record<string, Wire> = item.id === undefined ? {} : { id: idWire(item.id) };
		return v.envelope === 'jsonapi'
			? { ...id, type: 'webhook_endpoints', attributes: members }
			: { ...id, ...members };
	});
	const linksNext = v.links[0].target;
	// a bare array has no links member: its next page can only be in a Link header
	const inBody = v.envelope !== 'bare' && (v.next === 'links' || v.next === 'links-href');
	const links = !inBody
		? ABSENT
		: v.next === 'links'
			? { next: linksNext }
			: { next: { href: linksNext } };
	const body: Wire =
		v.envelope === 'bare'
			? items
			: v.envelope === 'root-key'
				? { webhook_endpoints: items, links }
				: { data: items, links };
	const texts = v.links.map(linkText);
	const headers: Record<string, string | string[]> =
		v.next === 'header'
			? { [v.linkName]: texts.join(', ') }
			: v.next === 'header-lines'
				? { [v.linkName]: texts }
				: {};
	const next = inBody
		? nextPage(linksNext, [])
		: v.next === 'header' || v.next === 'header-lines'
			? nextPage(undefined, v.links)
			: undefined;
	const endpoints = v.items.flatMap((item) => {
		if (item.kind !== 'endpoint') return [];
		const id = endpointId(item.id);
		return [
			{
				id: id.value,
				callback_uri: item.uri,
				enabled_events: item.events ?? [],
				said: [...id.said, ...(item.events ? [] : ['enabled_events'])],
			},
		];
	});
	const said = [
		...new Set([
			...endpoints.flatMap((e) => e.said),
			...(v.items.some((i) => i.kind !== 'endpoint') ? ['skipped'] : []),
		]),
	];
	return {
		first: { headers, body },
		predicted: predicted(
			{
				endpoints: endpoints.map(({ said: _, ...e }) => e),
				nextAsked: next === undefined ? null : next.slice(BASE_URL.length),
			},
			said,
		),
	};
}

/** Get Many's items as the oracle compares them: the endpoints, the notes on them and the hints beside them. */
export function listOutcome(
	items: Array<Record<string, unknown>>,
	hints: string[],
	nextAsked: string | undefined,
): Outcome {
	const notes = items.flatMap((e) => (typeof e.note === 'string' ? [e.note] : []));
	return {
		ok: true,
		value: { endpoints: items.map(({ note: _, ...e }) => e), nextAsked: nextAsked ?? null },
		warnings: [...hints, ...notes],
	};
}

const listShape = shape({
	name: 'list page (every envelope; next in links or Link)',
	values: listValues,
	names: LIST_NAMES,
	secrets: [],
	async check(v) {
		const c = listCase(v);
		const first = { headers: c.first.headers, body: parsed(c.first.body) };
		const asked: string[] = [];
		const fetchPage = async (path: string) => {
			asked.push(path);
			return asked.length === 1 ? first : { headers: {}, body: { data: [] } };
		};
		let outcome: Outcome;
		try {
			const list = await collectEndpoints(fetchPage, { baseUrl: BASE_URL });
			const { items, hints } = listedItems(list);
			outcome = listOutcome(items, hints, asked[1]);
		} catch (error) {
			if (!(error instanceof UnexpectedListError)) throw error;
			outcome = { ok: false, message: error.message };
		}
		return { outcome, predicted: c.predicted };
	},
});

// ---- API errors and rate-limit headers -------------------------------------------------------------------------

/** The transport's context, with n8n's request helper answering as n8n-core throws a failed request. */
function transportContext(status: number, headers: Record<string, string>, data: unknown) {
	return {
		getCredentials: async () => ({ baseUrl: BASE_URL, clientId: 'values-client' }),
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
				throw Object.assign(new Error(`Request failed with status code ${status}`), {
					cause: { response: { status, headers, data } },
				});
			},
		},
	} as unknown as CaptioningContext;
}

const errorValue: fc.Arbitrary<{ e: ErrorValues; wire: Wire }> = fc
	.record(
		{
			detail: fc.oneof(text(20), fc.constant(`callback_uri is taken (token ${CALLBACK_TOKEN})`)),
			title: text(12),
			code: word,
		},
		{ requiredKeys: [] },
	)
	.chain((e) =>
		fc.constantFrom(ABSENT, null, '', '  ', 7).map((blank) => ({
			e,
			wire: {
				status: '422',
				detail: e.detail ?? blank,
				title: e.title ?? ABSENT,
				code: e.code ?? ABSENT,
				source: { pointer: '/data/attributes/callback_uri' },
			} as Wire,
		})),
	);

export const errorValues = fc.record({
	errors: fc.array(errorValue, { maxLength: 5 }),
	single: fc.boolean(),
});

/** A 422 to POST /webhook_endpoints, and the model's error: every error's words, in order, without the token. */
export function errorCase(v: GeneratedValueType<typeof errorValues>) {
	const errors = v.single && v.errors.length === 1 ? v.errors[0].wire : v.errors.map((e) => e.wire);
	const words = serviceWords(
		v.errors.map((e) => e.e),
		CALLBACK_TOKEN,
	)?.trim();
	const escaped = (words ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	// the words right after the status, and nothing after them but the sentence's end
	const said = new RegExp(`\\(HTTP 422\\)${words ? `: ${escaped}` : ''}[.!?…]?(?: — |$)`, 'u');
	return {
		answer: {
			status: 422,
			headers: { 'content-type': 'application/vnd.api+json' },
			body: { errors } as Wire,
		},
		callbackUri: `${WEBHOOK_URL}?token=${CALLBACK_TOKEN}`,
		predicted: { ok: false, names: said } as Prediction,
	};
}

const errorShape = shape({
	name: 'JSON:API error document (422: 0 to 5 errors)',
	values: errorValues,
	names: {},
	secrets: [CALLBACK_TOKEN],
	async check(v) {
		const c = errorCase(v);
		const ctx = transportContext(c.answer.status, c.answer.headers, parsed(c.answer.body));
		const form: Array<[string, string]> = [['callback_uri', c.callbackUri]];
		let outcome: Outcome;
		try {
			await captioningApiCall.call(ctx, { method: 'POST', path: '/webhook_endpoints', form });
			outcome = { ok: true, value: { answered: true }, warnings: [] };
		} catch (error) {
			outcome = failure(error);
		}
		return { outcome, predicted: c.predicted };
	},
});

const retryAfterValue: fc.Arbitrary<{ meaning: RetryAfter; wire?: string }> = fc.oneof(
	fc.integer({ min: 0, max: 120 }).chain((seconds) =>
		fc.constantFrom(String(seconds), `00${seconds}`).map((wire) => ({
			meaning: { kind: 'seconds' as const, seconds },
			wire,
		})),
	),
	fc
		.tuple(
			fc.integer({ min: -100, max: 120 }),
			fc.constantFrom<HttpDateForm>('imf', 'rfc850', 'asctime'),
		)
		.map(([seconds, form]) => ({
			meaning: { kind: 'date' as const, atMs: NOW + seconds * 1000 },
			wire: httpDate(NOW + seconds * 1000, form),
		})),
	fc.constant({ meaning: { kind: 'none' as const } }),
);

/** X-RateLimit-Reset in its three units, decided by magnitude (ASSUMPTIONS.md A18). */
const resetValue = fc.oneof(
	fc.integer({ min: 0, max: 3600 }).map((s) => ({ atMs: NOW + s * 1000, wire: String(s) })),
	fc
		.integer({ min: 0, max: 3600 })
		.map((s) => ({ atMs: NOW + s * 1000, wire: String(NOW / 1000 + s) })),
	fc.integer({ min: 0, max: 3_600_000 }).map((ms) => ({ atMs: NOW + ms, wire: String(NOW + ms) })),
);

const rateShape = shape({
	name: 'rate-limit headers (429: Retry-After and X-RateLimit-* in all their forms)',
	values: fc.record({
		retryAfter: retryAfterValue,
		reset: fc.option(resetValue, { nil: undefined }),
		remaining: fc.option(fc.nat(20), { nil: undefined }),
		names: fc.tuple(
			headerCase('retry-after'),
			headerCase('x-ratelimit-reset'),
			headerCase('x-ratelimit-remaining'),
		),
		asList: fc.boolean(),
		zone: timeZone,
	}),
	names: {},
	secrets: [],
	async check(v) {
		const [retryName, resetName, remainingName] = v.names;
		const one = (value: string) => (v.asList ? [value] : value);
		const headers: Record<string, string | string[]> = {
			...(v.retryAfter.wire === undefined ? {} : { [retryName]: one(v.retryAfter.wire) }),
			...(v.reset ? { [resetName]: one(v.reset.wire) } : {}),
			...(v.remaining === undefined ? {} : { [remainingName]: one(String(v.remaining)) }),
		};
		const zone = process.env.TZ;
		process.env.TZ = v.zone;
		try {
			const asked = readRetryAfter(headerValue(headers, 'retry-after'), NOW);
			const announced = readAnnouncement(headers, NOW);
			const delay = retryDelayMs('POST', { status: 429, headers }, 1, NOW);
			const expectedAsked = retryAfterMs(v.retryAfter.meaning, NOW);
			const both = v.reset !== undefined && v.remaining !== undefined;
			return {
				outcome: {
					ok: true,
					value: { asked, delay, announced },
					warnings: [],
				},
				predicted: predicted({
					asked: expectedAsked,
					delay: retryDelayAfter429(expectedAsked),
					announced: both ? { remaining: v.remaining, resetAtMs: v.reset!.atMs } : undefined,
				}),
			};
		} finally {
			if (zone === undefined) delete process.env.TZ;
			else process.env.TZ = zone;
		}
	},
});

// ---- deliveries --------------------------------------------------------------------------------------------------

const TRANSCRIPTION_SPELLINGS = [
	'transcription',
	'transcriptions',
	'Transcription',
	'TRANSCRIPTIONS',
];
const OTHER_TYPES = ['media', 'users', 'transcription_file', 'TranscriptionSegment'];
const FORMATS = ['vtt', 'google_stt', 'srt', 'x-custom'];

const fileUrl = (format: string, n: number) =>
	`${BASE_URL}/files/${n}/captions.${format === 'google_stt' ? 'json' : format}?expires=1&signature=s`;

const file = fc.oneof(
	{
		weight: 5,
		arbitrary: fc.tuple(fc.constantFrom(...FORMATS), fc.nat(99)).map(([format, n]) => ({
			format,
			url: fileUrl(format, n) as unknown,
			wire: { format, url: fileUrl(format, n) } as Wire,
		})),
	},
	fc
		.tuple(
			fc.constantFrom(...FORMATS),
			fc.constantFrom<Wire>(ABSENT, null, 7, 'ftp://files.example.com/a.vtt', '/files/a.vtt'),
		)
		.map(([format, url]) => ({
			format,
			url: (url === ABSENT ? undefined : url) as unknown,
			wire: { format, url } as Wire,
		})),
	fc
		.constantFrom<Wire>(
			{ url: `${BASE_URL}/files/x.vtt` },
			{ format: '', url: 'x' },
			{ format: 7, url: 'x' },
			'vtt',
		)
		.map((wire) => ({ format: undefined as string | undefined, url: undefined as unknown, wire })),
);

/** A transcription's attributes: each promised member of its kind or not, media and files, and decoys beside them. */
const attributes = fc.record({
	title: member(text(20).map((t) => ({ value: t, wire: t as Wire }))),
	duration: member(
		fc.oneof(
			fc.double({ min: 0, max: 1e5, noNaN: true }).map((n) => ({ value: n, wire: n as Wire })),
			fc.tuple(fc.nat(99_999), fc.stringMatching(/^[0-9]{1,3}$/)).map(([i, f]) => ({
				value: Number(`${i}.${f}`),
				wire: `${i}.${f}`,
			})),
		),
		['soon', true, {}],
	),
	confidence: member(
		fc.double({ min: 0, max: 1, noNaN: true }).map((n) => ({ value: n, wire: n as Wire })),
		['high', true, []],
	),
	media: fc.oneof(
		text(20).map((t) => ({
			url: t as unknown,
			wire: { url: t, preview_url: 'https://decoy.example.com/p' } as Wire,
		})),
		fc.constant({ url: undefined as unknown, wire: ABSENT as Wire }),
		fc.constant({
			url: undefined as unknown,
			wire: { href: 'https://decoy.example.com/m' } as Wire,
		}),
	),
	files: fc.oneof(
		{ weight: 5, arbitrary: listOf(file) },
		fc.constantFrom<Wire>(ABSENT, null, 'vtt', {}).map((wire) => ({ not: wire })),
	),
});

type GeneratedAttributes = GeneratedValueType<typeof attributes>;

function attributesWire(a: GeneratedAttributes): Wire {
	return {
		title: a.title.wire,
		duration: a.duration.wire,
		average_confidence: a.confidence.wire,
		media: a.media.wire,
		// decoys: a member beside the ones read, of another meaning
		url: 'https://decoy.example.com/attributes-url',
		created_at: '1999-01-01T00:00:00.000Z',
		transcriptions: Array.isArray(a.files)
			? a.files.map((f) => f.wire)
			: (a.files as { not: Wire }).not,
	};
}

function attributesValue(a: GeneratedAttributes): AttributesValue {
	const withWire = <T>(m: { m: Member<T>; wire: Wire }) => ({ ...m.m, came: parsed(m.wire) });
	return {
		title: withWire(a.title) as AttributesValue['title'],
		duration: withWire(a.duration) as AttributesValue['duration'],
		confidence: withWire(a.confidence) as AttributesValue['confidence'],
		mediaUrl: a.media.url,
		files: Array.isArray(a.files)
			? a.files.map((f) => ({ format: f.format, url: f.url }))
			: { not: 'a-list' },
	};
}

/** A resource of `included`: the subject (perhaps twice), another transcription, a media resource under its id. */
const resource = (subjectId: IdValue) =>
	fc
		.record({
			role: fc.constantFrom(
				'subject',
				'subject',
				'subject-untyped',
				'other-transcription',
				'same-id-other-type',
				'no-attributes',
			),
			spelling: fc.constantFrom(...TRANSCRIPTION_SPELLINGS),
			otherType: fc.constantFrom(...OTHER_TYPES),
			otherId: idValue,
			asString: fc.boolean(),
			attributes,
		})
		.map((r) => ({ ...r, subjectId }));

type GeneratedResource = GeneratedValueType<ReturnType<typeof resource>>;

function resourceWire(r: GeneratedResource): { wire: Wire; value: IncludedValue } {
	const sameId = r.role !== 'other-transcription';
	const id = sameId ? r.subjectId : r.otherId;
	const idOnWire = r.asString ? asStringSpelling(id) : idWire(id);
	const type =
		r.role === 'subject-untyped'
			? ABSENT
			: r.role === 'same-id-other-type'
				? r.otherType
				: r.spelling;
	const attributes = r.role === 'no-attributes' ? 'none' : attributesWire(r.attributes);
	return {
		wire: {
			id: idOnWire,
			type,
			attributes: attributes === 'none' ? ABSENT : attributes,
		},
		value: {
			id: idText(id),
			type:
				r.role === 'subject-untyped'
					? 'none'
					: r.role === 'same-id-other-type'
						? 'other'
						: 'subject',
			attributes: attributes === 'none' ? 'not-an-object' : attributesValue(r.attributes),
		},
	};
}

const eventValues = idValue.chain((subjectId) =>
	fc.record({
		id: idValue.filter((id) => idText(id).length <= 200),
		eventType: fc.constantFrom(...EVENTS),
		createdAt: fc.oneof({ weight: 4, arbitrary: timestamp }, fc.constant(ABSENT as Wire)),
		subject: fc.constantFrom('named', 'named', 'named', 'no-id', 'no-relationships'),
		subjectType: fc.constantFrom(...TRANSCRIPTION_SPELLINGS, ABSENT),
		subjectId: fc.constant(subjectId),
		included: fc.oneof(
			{ weight: 6, arbitrary: fc.array(resource(subjectId), { maxLength: 4 }) },
			fc.constantFrom<Wire>(ABSENT, null, {}).map((not) => ({ not })),
		),
		secondId: idValue.filter((id) => idText(id).length <= 200),
		downloads: fc.subarray(['vtt', 'google_stt']),
		rawBody: fc.boolean(),
		disposition: fc.boolean(),
	}),
);

type GeneratedEvent = GeneratedValueType<typeof eventValues>;
export { eventValues };

function eventWire(v: GeneratedEvent, eventId: IdValue): { wire: Wire; value: EventValues } {
	const resources = Array.isArray(v.included) ? v.included.map(resourceWire) : undefined;
	const ref =
		v.subject === 'no-relationships'
			? ABSENT
			: {
					subject: {
						data: {
							id: v.subject === 'no-id' ? ABSENT : idWire(v.subjectId),
							type: v.subjectType,
						},
					},
				};
	const wire: Wire = {
		data: {
			id: idWire(eventId),
			type: 'webhook_event',
			// a decoy: the event's own time is in its attributes
			created_at: '1999-12-31T23:59:59.000Z',
			attributes: {
				created_at: v.createdAt,
				event_type: v.eventType,
				uri: `${WEBHOOK_URL}?token=${CALLBACK_TOKEN}`,
			},
			relationships: ref,
		},
		included: resources ? resources.map((r) => r.wire) : (v.included as { not: Wire }).not,
	};
	return {
		wire,
		value: {
			id: eventId,
			eventType: v.eventType,
			createdAt: v.createdAt === ABSENT ? undefined : parsed(v.createdAt),
			subjectId: v.subject === 'named' ? idText(v.subjectId) : undefined,
			included: resources ? resources.map((r) => r.value) : { not: 'a-list' },
		},
	};
}

/** The body as Raw Body gives it: the members as they came, an integer beyond 2^53 as its digits. */
function asDelivered(wire: Wire): unknown {
	if (wire instanceof Digits) return wire.digits;
	if (Array.isArray(wire)) return wire.map((w) => (w === ABSENT ? null : asDelivered(w)));
	if (wire !== null && typeof wire === 'object') {
		return Object.fromEntries(
			Object.entries(wire)
				.filter(([, w]) => w !== ABSENT)
				.map(([k, w]) => [k, asDelivered(w)]),
		);
	}
	return wire;
}

let deliveries = 0;
const VTT = 'WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHello there.\n';
const STT = JSON.stringify({
	results: [
		{
			alternatives: [
				{
					transcript: 'Hello there.',
					words: [
						{ word: 'Hello', startTime: '0s', endTime: '0.5s' },
						{ word: 'there.', startTime: '0.5s', endTime: '1.5s' },
					],
				},
			],
		},
	],
});

export const DELIVERY_NAMES = {
	subject: /subject|included(?!\[)/,
	attributes: /no attributes/,
	title: /attributes\.title\b/,
	duration: /attributes\.duration\b/,
	averageConfidence: /attributes\.average_confidence\b/,
	files: /attributes\.transcriptions\b/,
};

/** The file a test server serves for a signed URL: Google STT for a .json, else WebVTT. */
export const servedFile = (url: string) =>
	/\.json\?/.test(url) ? { format: 'google_stt', body: STT } : { format: 'vtt', body: VTT };

/** A server's Content-Disposition for a served file, when the values ask for one. */
export const DISPOSITION = 'attachment; filename="server-name.txt"';

/**
 * A delivery built from the values, and the model's item and files: the item, or the body as it came under Raw
 * Body; the files of the plan, each named after the transcription's title (or the server's name) with its media
 * type; the transcript from the best of them; each event id started once.
 */
export function deliveryCase(v: GeneratedEvent) {
	const { wire, value } = eventWire(v, v.id);
	const model = eventItem(value);
	const otherId =
		idText(v.secondId) === idText(v.id)
			? { kind: 'text' as const, text: `${idText(v.id)}-2` }
			: v.secondId;
	const plan = downloadPlan(model.value.files, v.downloads);
	const binary = Object.fromEntries(
		plan.fetched.map((format) => [
			format,
			{
				fileName: v.disposition ? 'server-name.txt' : fileName(model.value.title, format),
				mimeType: mediaType(format),
			},
		]),
	);
	const transcriptFrom = ['google_stt', 'vtt'].find((f) => plan.fetched.includes(f));
	const raw = asDelivered(wire) as { data: { attributes: { uri: string } } };
	raw.data.attributes.uri = WEBHOOK_URL;
	return {
		wire,
		other: eventWire(v, otherId).wire,
		options: { downloadFormats: v.downloads, rawBody: v.rawBody },
		token: CALLBACK_TOKEN,
		predicted: predicted(
			{
				...(v.rawBody ? { raw } : model.value),
				binary,
				downloadErrors: plan.refused,
				transcript: transcriptFrom ? 'Hello there.' : null,
			},
			v.rawBody ? [] : model.said,
		) as Extract<Prediction, { ok: true }>,
	};
}

/** The trigger's item as the oracle compares it: Raw Body's body apart, the files' names and types, the errors' formats. */
export function deliveryOutcome(item: INodeExecutionData, rawBody: boolean): Outcome {
	const { warnings, downloadErrors, transcript, ...fields } = item.json as Record<string, unknown>;
	return {
		ok: true,
		value: {
			...(rawBody ? { raw: fields } : fields),
			binary: Object.fromEntries(
				Object.entries(item.binary ?? {}).map(([format, b]) => [
					format,
					{ fileName: b.fileName, mimeType: b.mimeType },
				]),
			),
			downloadErrors: Array.isArray(downloadErrors)
				? downloadErrors.map((e) => (e as { format: string }).format)
				: [],
			transcript: transcript ?? null,
		},
		warnings: Array.isArray(warnings) ? warnings.map(String) : [],
	};
}

const deliveryShape = shape({
	name: 'webhook event (every member varied; dedupe, downloads, Raw Body)',
	values: eventValues,
	names: DELIVERY_NAMES,
	secrets: [CALLBACK_TOKEN],
	async check(v) {
		deliveries++;
		const c = deliveryCase(v);
		const listeners: Array<(ok: boolean) => void> = [];
		const dedupe = (key: string): DedupeAccess => ({
			key,
			answered: () => undefined,
			onAnswered: (listener) => listeners.push(listener),
		});
		const deliver = (body: Wire, key: string) =>
			receiveNow(
				{
					registration: 'api',
					manualToken: '',
					registeredTokenHash: hashToken(CALLBACK_TOKEN),
					givenToken: CALLBACK_TOKEN,
					contentType: 'application/json',
					rawBody: Buffer.from(jsonText(body)),
					selectedEvents: EVENTS,
					options: c.options,
				},
				dedupe(key),
				{ nowMs: () => NOW },
			);
		const key = `values-${deliveries}`;
		const decision = deliver(c.wire, key);
		if (decision.kind !== 'start') throw new Error(`a first delivery was a ${decision.kind}`);
		for (const listener of listeners.splice(0)) listener(true);
		// once per event and process: again in this process is a duplicate; a restarted process does not know
		// it (nothing is stored: the window README states); another event of the same transcription starts
		const dedupeKinds = [
			deliver(c.wire, key).kind,
			deliver(c.wire, `${key}-restarted`).kind,
			deliver(c.other, key).kind,
		];
		await attachDownloads(
			decision.item,
			decision.downloads,
			{
				// the files' hosts are public: each is asked for at its address, the name in Host
				resolve: async () => ['93.184.216.34'],
				http: async (o) => ({
					statusCode: 200,
					headers: {
						'content-type': 'application/octet-stream',
						...(v.disposition ? { 'content-disposition': DISPOSITION } : {}),
					},
					body: Readable.from([Buffer.from(servedFile(String(o.url)).body)]),
				}),
				prepareBinaryData: async (data, name, mimeType) => {
					for await (const _ of data) void _;
					return { data: '', fileName: name, mimeType } as never;
				},
			},
			{ maxBytes: 1e6, budgetMs: 5000, policy: { allowed: [], setting: 'Allowed File Hosts' } },
		);
		const outcome = deliveryOutcome(decision.item, v.rawBody);
		if (outcome.ok) outcome.value.dedupe = dedupeKinds;
		c.predicted.value.dedupe = ['duplicate', 'start', 'start'];
		return { outcome, predicted: c.predicted };
	},
});

// ---- caption files: the service's WebVTT, converted --------------------------------------------------------------

const cueTime = fc
	.tuple(
		fc.constantFrom(0, 1, 2, 10, 99, 100, 123),
		fc.constantFrom(0, 1, 30, 59),
		fc.nat(59),
		fc.nat(999),
	)
	.map(([h, m, s, ms]) => ((h * 60 + m) * 60 + s) * 1000 + ms);

const captionShape = shape({
	name: 'caption file (the service’s WebVTT to SRT, SubRip fractions back)',
	values: fc.record({
		cues: fc.array(fc.tuple(cueTime, fc.integer({ min: 1, max: 5000 })), {
			minLength: 1,
			maxLength: 8,
		}),
		fractions: fc.array(fc.stringMatching(/^[0-9]{1,3}$/), { minLength: 1, maxLength: 4 }),
	}),
	names: {},
	secrets: [],
	async check(v) {
		const cues = [...v.cues]
			.sort((a, b) => a[0] - b[0])
			.map(([start, length], i) => ({ start, end: start + length, text: `cue ${i + 1}` }));
		const vtt = `WEBVTT\n\n${cues.map((c) => `${clock(c.start, '.')} --> ${clock(c.end, '.')}\n${c.text}\n`).join('\n')}`;
		const srt = convertCaptions({ from: 'vtt', to: 'srt', content: vtt });
		// SubRip timings with 1 to 3 fraction digits, read back
		const short = v.fractions
			.map((f, i) => `${i + 1}\n00:00:0${i},${f} --> 00:00:0${i + 1},000\nline ${i + 1}\n`)
			.join('\n');
		const back = convertCaptions({ from: 'srt', to: 'vtt', content: short });
		const timings = (content: string) => content.split('\n').filter((line) => line.includes('-->'));
		return {
			outcome: {
				ok: true,
				value: {
					srt: timings(srt.content),
					mimeType: srt.mimeType,
					extension: srt.fileExtension,
					back: timings(back.content),
				},
				warnings: [],
			},
			predicted: predicted({
				srt: cues.map((c) => `${clock(c.start, ',')} --> ${clock(c.end, ',')}`),
				mimeType: mediaType('srt'),
				extension: 'srt',
				back: v.fractions.map(
					(f, i) => `${clock(i * 1000 + fractionMs(f), '.')} --> ${clock((i + 1) * 1000, '.')}`,
				),
			}),
		};
	},
});

export const VALUE_SHAPES: Array<ValueShape<unknown>> = [
	tokenShape,
	createShape,
	readShape,
	listShape,
	errorShape,
	rateShape,
	deliveryShape,
	captionShape,
];
