// The readings the sandbox can play of what the contract leaves "not shown" (issue 12, ASSUMPTIONS.md): one
// dimension per open question, each with its plausible answers, the first being the sandbox's original reading.
// Everything here is pure: the server asks these functions how to shape an answer and only writes it.
import { type Answer, HttpError, JSON_API, JSON_TYPE, jsonApiError } from './http';

export const VARIANT_DIMENSIONS = {
	/** Answer of POST /webhook_endpoints (A7); `root-key`: the flat object under a Rails root key. */
	create: ['jsonapi', 'flat', 'location', 'empty', 'no-content', 'root-key'],
	/** Whether GET /webhook_endpoints, GET and DELETE /webhook_endpoints/{id} exist (A9). */
	manage: ['full', 'absent-404', 'absent-405'],
	/** Shape of read answers (A9); `root-key`: flat objects under Rails root keys (`webhook_endpoint(s)`). */
	resource: ['jsonapi', 'flat', 'root-key'],
	/** The list in one answer or in pages (A9). */
	list: ['single', 'paged'],
	/** Status of the token endpoint's refusals (A2). */
	'token-refusal': ['rfc', '401', '400'],
	/** The 429's Retry-After (A18). */
	'retry-after': ['seconds', 'zero', 'date', 'absent'],
	/** Content-Type of deliveries (A11). */
	delivery: ['json', 'jsonapi'],
	/** One event id per endpoint, or one for every endpoint an event goes to (A10). */
	'event-id': ['per-endpoint', 'shared'],
	/** duration and average_confidence in deliveries as JSON numbers or decimal strings (A15). */
	numbers: ['number', 'string'],
	/**
	 * The token answer's members (A2, A3): as 2.1 shows them, or `loose`: expires_in a string, scope null, no
	 * token_type, a fractional created_at, and refresh tokens that are not rotated (a refresh answers none).
	 */
	'token-answer': ['contract', 'loose'],
	/**
	 * The webhook-endpoint resource's members (A7, A9): as the sandbox first wrote them, or `loose`: integer ids
	 * (sequential), extra and null members, and members no client needs in other casing.
	 */
	members: ['contract', 'loose'],
	/**
	 * The ids of new webhook endpoints (A7, A9): UUIDs, `bigint`: integers past 2^32 sent as JSON numbers (a Rails
	 * bigint primary key), or `zero-padded`: numeric strings with leading zeros, which are part of the id.
	 */
	'endpoint-ids': ['uuid', 'bigint', 'zero-padded'],
	/**
	 * JSON:API resource types in deliveries (A21): as 2.3 and 2.4 show them (`webhook_event`, `transcription`),
	 * plural (`webhook_events`, `transcriptions`), or capitalised (`WebhookEvent`, `Transcription`).
	 */
	'resource-types': ['singular', 'plural', 'capitalised'],
	/**
	 * What a delivery's `included` holds (A21): the subject transcription alone, the related resources around it
	 * (its media, under the transcription's own id, first; the user who made it last), or those without it.
	 */
	included: ['subject', 'related', 'without-subject'],
	/**
	 * How the API refuses an access token it was sent but does not accept: expired, revoked or unknown (A6). `401`
	 * as 5.3 shows it; `403` with the same `WWW-Authenticate` and JSON:API error (code `invalid_token`); `400` with
	 * an OAuth error body (`invalid_token`) and no `WWW-Authenticate`. A request without a token is 401 in every
	 * reading (RFC 6750 section 3.1).
	 */
	'expired-token': ['401', '403', '400'],
	/**
	 * The token endpoint's own rate limit (A18): `none`, or `every-other`: the 1st, 3rd, 5th … token request of each
	 * client is refused 429 with `Retry-After: 1`, so that every grant meets it once.
	 */
	'token-rate-limit': ['none', 'every-other'],
	/** Whether each grant revokes the client's earlier access tokens (A3): `kept`, or `revoked`. */
	'earlier-tokens': ['kept', 'revoked'],
	/**
	 * What POST /webhook_endpoints does with a callback_uri that has a query string (A8, issue 32): `keep` it,
	 * `strip` it (store, echo and deliver to the URI without its query) or `refuse` it (422).
	 */
	'callback-query': ['keep', 'strip', 'refuse'],
	/**
	 * What an error answer says of the request (issue 38): `none`, or `request`: every 4xx/5xx of the API, the token
	 * endpoint and the signed files echoes the request's Authorization header and query string, as they came, in
	 * base64 and in hex, in each error's `detail` and `meta`, an OAuth error's `error_description`, and `message`.
	 */
	'error-echo': ['none', 'request'],
} as const satisfies Record<string, readonly [string, ...string[]]>;

export type VariantDimension = keyof typeof VARIANT_DIMENSIONS;
export type Variants = {
	-readonly [D in VariantDimension]: (typeof VARIANT_DIMENSIONS)[D][number];
};

export const DIMENSIONS = Object.keys(VARIANT_DIMENSIONS) as VariantDimension[];

/** Today's behaviour: the first value of every dimension. */
export function defaultVariants(): Variants {
	return Object.fromEntries(DIMENSIONS.map((d) => [d, VARIANT_DIMENSIONS[d][0]])) as Variants;
}

/** A variant the sandbox does not know; the message names it and what is allowed instead. */
export class VariantError extends Error {
	constructor(
		message: string,
		readonly dimension?: string,
	) {
		super(message);
	}
}

function isDimension(name: string): name is VariantDimension {
	return Object.prototype.hasOwnProperty.call(VARIANT_DIMENSIONS, name);
}

/** Checks one `dimension=value` pair and returns it typed, or throws a VariantError naming the fix. */
export function checkVariant(
	dimension: string,
	value: unknown,
): { dimension: VariantDimension; value: string } {
	if (!isDimension(dimension)) {
		throw new VariantError(
			`Unknown variant dimension "${dimension}". Dimensions: ${DIMENSIONS.join(', ')}.`,
			dimension,
		);
	}
	const allowed: readonly string[] = VARIANT_DIMENSIONS[dimension];
	if (typeof value !== 'string' || !allowed.includes(value)) {
		throw new VariantError(
			`Unknown value ${JSON.stringify(value)} for variant dimension "${dimension}". Allowed: ${allowed.join(', ')} (default ${allowed[0]}).`,
			dimension,
		);
	}
	return { dimension, value };
}

/**
 * Validates an object of dimensions to change (start options, control API); nothing else may be in it. A
 * dimension given as undefined is left as it is.
 */
export function parseVariantPatch(input: Record<string, unknown>): Partial<Variants> {
	const patch: Record<string, string> = {};
	for (const [dimension, value] of Object.entries(input)) {
		if (value !== undefined) patch[dimension] = checkVariant(dimension, value).value;
	}
	return patch as Partial<Variants>;
}

/**
 * Parses CLI arguments such as `create=flat` or `create=flat,manage=absent-405` (each `--variant` value);
 * the same dimension twice with different values is an error rather than a silent last-one-wins.
 */
export function parseVariantArgs(args: readonly string[]): Partial<Variants> {
	const patch: Record<string, string> = {};
	for (const item of args.flatMap((arg) => arg.split(','))) {
		const text = item.trim();
		if (text === '') continue;
		const eq = text.indexOf('=');
		if (eq <= 0) {
			throw new VariantError(
				`Write a variant as dimension=value, e.g. create=flat (got "${text}"). Dimensions: ${DIMENSIONS.join(', ')}.`,
			);
		}
		const { dimension, value } = checkVariant(text.slice(0, eq).trim(), text.slice(eq + 1).trim());
		if (patch[dimension] !== undefined && patch[dimension] !== value) {
			throw new VariantError(
				`Variant dimension "${dimension}" is given twice (${patch[dimension]} and ${value}); choose one.`,
				dimension,
			);
		}
		patch[dimension] = value;
	}
	return patch as Partial<Variants>;
}

/** The dimensions that differ from today's behaviour, as `dimension=value` (empty when all are defaults). */
export function nonDefaultVariants(variants: Variants): string[] {
	const defaults = defaultVariants();
	return DIMENSIONS.filter((d) => variants[d] !== defaults[d]).map((d) => `${d}=${variants[d]}`);
}

// ---- webhook endpoints (A7, A9) ---------------------------------------------------------------------------------

/** A webhook endpoint as a flat object: the fields of 2.2 plus an id and a creation time. */
export interface FlatEndpoint {
	id: string;
	callback_uri: string;
	enabled_events: string[];
	created_at: string;
}

export function jsonApiEndpoint(endpoint: FlatEndpoint, selfUrl: string) {
	const { id, ...attributes } = endpoint;
	return { id, type: 'webhook_endpoint', attributes, links: { self: selfUrl } };
}

/** The Rails serializer's root key of one endpoint and of a list of them. */
export const ROOT_KEY = 'webhook_endpoint';
export const LIST_ROOT_KEY = 'webhook_endpoints';

/** The answer of POST /webhook_endpoints; `selfUrl` is the new endpoint's absolute address. */
export function creationAnswer(
	variant: Variants['create'],
	endpoint: FlatEndpoint,
	selfUrl: string,
): Answer {
	const location = { location: selfUrl };
	switch (variant) {
		case 'jsonapi':
			return {
				status: 201,
				body: { data: jsonApiEndpoint(endpoint, selfUrl) },
				contentType: JSON_API,
				headers: location,
			};
		case 'flat':
			return { status: 201, body: endpoint, contentType: JSON_TYPE };
		case 'location':
			return { status: 201, headers: location };
		case 'empty':
			return { status: 201 };
		case 'no-content':
			return { status: 204 };
		case 'root-key':
			return { status: 201, body: { [ROOT_KEY]: endpoint }, contentType: JSON_TYPE };
	}
}

/** The answer of GET /webhook_endpoints/{id}. */
export function readAnswer(
	variant: Variants['resource'],
	endpoint: FlatEndpoint,
	selfUrl: string,
): Answer {
	if (variant === 'flat') return { status: 200, body: endpoint, contentType: JSON_TYPE };
	if (variant === 'root-key') {
		return { status: 200, body: { [ROOT_KEY]: endpoint }, contentType: JSON_TYPE };
	}
	return { status: 200, body: { data: jsonApiEndpoint(endpoint, selfUrl) }, contentType: JSON_API };
}

export const DEFAULT_PAGE_SIZE = 2;
export const MAX_PAGE_SIZE = 100;

export type PageRequest = { number: number; size: number };

/**
 * Reads `page[number]` (default 1) and `page[size]` (default 2, at most 100) from a list's query; a value that
 * is not a positive whole number is an error naming the parameter.
 */
export function parsePage(
	query: URLSearchParams,
): PageRequest | { error: string; parameter: string } {
	const read = (parameter: string, fallback: number) => {
		const raw = query.get(parameter);
		if (raw === null || raw === '') return fallback;
		return /^[1-9]\d*$/.test(raw) ? Number(raw) : { error: raw, parameter };
	};
	const number = read('page[number]', 1);
	if (typeof number !== 'number') {
		return {
			...number,
			error: `page[number] must be a whole number from 1 (got "${number.error}").`,
		};
	}
	const size = read('page[size]', DEFAULT_PAGE_SIZE);
	if (typeof size !== 'number') {
		return { ...size, error: `page[size] must be a whole number from 1 (got "${size.error}").` };
	}
	return { number, size: Math.min(size, MAX_PAGE_SIZE) };
}

/** The absolute address of one page of a list, as Rails-style services write it (brackets encoded). */
export function pageUrl(collectionUrl: string, page: PageRequest): string {
	const query = new URLSearchParams({
		'page[number]': String(page.number),
		'page[size]': String(page.size),
	});
	return `${collectionUrl}?${query.toString()}`;
}

/**
 * The answer of GET /webhook_endpoints. `single`: every endpoint in one answer, as ever. `paged`: the requested
 * page, with the next page announced (absolute URL) on every page but the last: in `links.next` for JSON:API, in a
 * `Link: <…>; rel="next"` header for a flat (bare array) list.
 */
export function listAnswer(
	variants: Pick<Variants, 'resource' | 'list'>,
	endpoints: FlatEndpoint[],
	page: PageRequest,
	collectionUrl: string,
	selfUrlOf: (id: string) => string,
): Answer {
	const flat = variants.resource !== 'jsonapi';
	const shape = (list: FlatEndpoint[]) =>
		flat ? list : list.map((e) => jsonApiEndpoint(e, selfUrlOf(e.id)));
	// a flat list is a bare array, or with root-key the array under the Rails root key
	const body = (list: FlatEndpoint[]) =>
		variants.resource === 'root-key' ? { [LIST_ROOT_KEY]: shape(list) } : shape(list);
	if (variants.list === 'single') {
		return flat
			? { status: 200, body: body(endpoints), contentType: JSON_TYPE }
			: { status: 200, body: { data: shape(endpoints) }, contentType: JSON_API };
	}
	const start = (page.number - 1) * page.size;
	const items = endpoints.slice(start, start + page.size);
	const next =
		start + page.size < endpoints.length
			? pageUrl(collectionUrl, { number: page.number + 1, size: page.size })
			: undefined;
	if (flat) {
		return {
			status: 200,
			body: body(items),
			contentType: JSON_TYPE,
			headers: next ? { link: `<${next}>; rel="next"` } : {},
		};
	}
	return {
		status: 200,
		body: {
			data: shape(items),
			links: { self: pageUrl(collectionUrl, page), ...(next ? { next } : {}) },
		},
		contentType: JSON_API,
	};
}

/**
 * With `manage` absent the only webhook-endpoint route is POST /webhook_endpoints: any other method or path
 * answers as a router would (404 "no such route", or 405 naming POST as the one method allowed). Null: served.
 */
export function absentRouteAnswer(
	variant: Variants['manage'],
	method: string,
	isCollection: boolean,
): { status: 404 | 405; headers: Record<string, string> } | null {
	if (variant === 'full' || (isCollection && method === 'POST')) return null;
	return variant === 'absent-404'
		? { status: 404, headers: {} }
		: { status: 405, headers: { allow: 'POST' } };
}

/** A string id that is a whole number, as the integer a service that numbers its records would send. */
const asInteger = (id: unknown) =>
	typeof id === 'string' && /^[1-9]\d{0,14}$/.test(id) ? Number(id) : id;

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** Members no client needs, some null, one of them in another casing. */
function looseAttributes(attributes: Record<string, unknown>): Record<string, unknown> {
	const { created_at: createdAt, ...rest } = attributes;
	return {
		...rest,
		Created_At: createdAt,
		description: null,
		disabled_at: null,
		metadata: { source: 'api', tags: [], retries: 5 },
	};
}

/** One endpoint resource (JSON:API or flat) as the `loose` reading writes it. */
function looseResource(resource: unknown): unknown {
	if (!isRecord(resource)) return resource;
	if (isRecord(resource.attributes)) {
		return {
			...resource,
			id: asInteger(resource.id),
			attributes: looseAttributes(resource.attributes),
			relationships: { owner: { data: null } },
			meta: null,
		};
	}
	return { ...looseAttributes(resource), id: asInteger(resource.id) };
}

/**
 * A webhook-endpoint answer (create, read, list) as the `members` reading writes it: `contract` leaves it as it
 * is; `loose` gives integer ids, extra and null members, and created_at as Created_At, in each resource and
 * around them (a JSON:API document's `jsonapi` and `meta`). What a client needs (ids, callback_uri,
 * enabled_events, links.next) keeps its meaning.
 */
export function withMembers(variant: Variants['members'], answer: Answer): Answer {
	if (variant === 'contract') return answer;
	const loosened = eachResource(answer, looseResource);
	const body = loosened.body;
	// a JSON:API document gets members of its own around the resources
	if (isRecord(body) && 'data' in body) {
		return { ...loosened, body: { jsonapi: { version: '1.1' }, ...body, meta: null } };
	}
	return loosened;
}

/** The answer with `change` applied to each endpoint resource in it: a list, a root key's, `data`'s, or the body. */
function eachResource(answer: Answer, change: (resource: unknown) => unknown): Answer {
	const body = answer.body;
	if (body === undefined) return answer;
	if (Array.isArray(body)) return { ...answer, body: body.map(change) };
	const list = isRecord(body) ? body[LIST_ROOT_KEY] : undefined;
	if (Array.isArray(list)) return { ...answer, body: { [LIST_ROOT_KEY]: list.map(change) } };
	const record = isRecord(body) ? body[ROOT_KEY] : undefined;
	if (isRecord(record)) return { ...answer, body: { [ROOT_KEY]: change(record) } };
	if (isRecord(body) && 'data' in body) {
		const data = Array.isArray(body.data) ? body.data.map(change) : change(body.data);
		return { ...answer, body: { ...body, data } };
	}
	return { ...answer, body: change(body) };
}

/** A new endpoint's id as the `endpoint-ids` reading numbers them, `n` being the service's sequence. */
export function endpointIdFor(variant: Variants['endpoint-ids'], n: number): string | undefined {
	if (variant === 'bigint') return String(2 ** 32 + n);
	if (variant === 'zero-padded') return String(n).padStart(12, '0');
	return undefined;
}

/** With `endpoint-ids=bigint`, every endpoint's id is sent as the JSON integer it spells. */
export function withEndpointIds(variant: Variants['endpoint-ids'], answer: Answer): Answer {
	if (variant !== 'bigint') return answer;
	const integer = (id: unknown) =>
		typeof id === 'string' && /^[1-9]\d*$/.test(id) ? Number(id) : id;
	return eachResource(answer, (resource) =>
		isRecord(resource) ? { ...resource, id: integer(resource.id) } : resource,
	);
}

/** The message of a `refuse`d callback_uri, as a service that forbids query strings would word it. */
export const QUERY_REFUSED = 'callback_uri must not contain a query string';

/** The callback URI the service stores for one that was sent, or why it refuses it (`callback-query`). */
export function storedCallbackUri(
	variant: Variants['callback-query'],
	sent: string,
): { stored: string } | { refused: string } {
	const url = new URL(sent);
	if (variant === 'keep' || url.search === '') return { stored: sent };
	if (variant === 'refuse') return { refused: QUERY_REFUSED };
	url.search = '';
	return { stored: url.toString() };
}

// ---- tokens and limits (A2, A3, A18) ----------------------------------------------------------------------------

/** What the token endpoint issued for one grant, before the `token-answer` reading writes it. */
export interface IssuedTokens {
	accessToken: string;
	/** Absent when a refresh grant issued none (refresh tokens not rotated). */
	refreshToken?: string;
	expiresInSeconds: number;
	scope: string;
	issuedAtMs: number;
}

/** Whether a refresh grant spends its refresh token and issues a new one (`contract`), or keeps it (`loose`). */
export function rotatesRefreshTokens(variant: Variants['token-answer']): boolean {
	return variant === 'contract';
}

/** The token answer's body as the reading writes it (2.1, or the members a client can do without, loosened). */
export function tokenAnswerBody(
	variant: Variants['token-answer'],
	issued: IssuedTokens,
): Record<string, unknown> {
	if (variant === 'contract') {
		return {
			access_token: issued.accessToken,
			token_type: 'Bearer',
			expires_in: issued.expiresInSeconds,
			refresh_token: issued.refreshToken,
			scope: issued.scope,
			created_at: Math.floor(issued.issuedAtMs / 1000),
		};
	}
	return {
		access_token: issued.accessToken,
		expires_in: String(issued.expiresInSeconds),
		...(issued.refreshToken === undefined ? {} : { refresh_token: issued.refreshToken }),
		scope: null,
		created_at: issued.issuedAtMs / 1000,
	};
}

/** The status of a refusal of the token endpoint, given the status RFC 6749 §5.2 would use. */
export function tokenRefusalStatus(variant: Variants['token-refusal'], rfcStatus: number): number {
	if (variant === '401') return 401;
	if (variant === '400') return 400;
	return rfcStatus;
}

/**
 * The API's answer to an access token it was sent but does not accept (expired, revoked, unknown), as the
 * `expired-token` reading writes it; `realm` is the service's name, `description` says which of the three.
 */
export function refusedTokenAnswer(
	variant: Variants['expired-token'],
	realm: string,
	description: string,
): Answer {
	if (variant === '400') {
		return {
			status: 400,
			body: { error: 'invalid_token', error_description: description },
			contentType: JSON_TYPE,
		};
	}
	return {
		status: Number(variant),
		body: jsonApiError(new HttpError(Number(variant), 'invalid_token', description)),
		contentType: JSON_API,
		headers: {
			'www-authenticate': `Bearer realm="${realm}", error="invalid_token", error_description="${description}"`,
		},
	};
}

/** Whether the token endpoint refuses a client's `ordinal`-th token request (1, 2, …) for its rate limit. */
export function tokenRequestLimited(
	variant: Variants['token-rate-limit'],
	ordinal: number,
): boolean {
	return variant === 'every-other' && ordinal % 2 === 1;
}

/** The token endpoint's 429 (`token-rate-limit`): its words end with a full stop, as services write them. */
export const TOKEN_RATE_LIMITED: Answer = {
	status: 429,
	body: {
		error: 'rate_limited',
		error_description: 'Too many requests to the token endpoint. Retry after 1 second.',
	},
	contentType: JSON_TYPE,
	headers: { 'retry-after': '1', 'cache-control': 'no-store' },
};

/** The 429's Retry-After for a window that reopens at `resetAtMs`; undefined: no header. */
export function retryAfterValue(
	variant: Variants['retry-after'],
	resetAtMs: number,
	nowMs: number,
): string | undefined {
	switch (variant) {
		case 'seconds':
			return String(Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000)));
		case 'zero':
			return '0';
		case 'date':
			// an HTTP date has whole seconds: round up so that it never names a moment before the reset
			return new Date(Math.ceil(resetAtMs / 1000) * 1000).toUTCString();
		case 'absent':
			return undefined;
	}
}

// ---- deliveries (A10, A11, A15) ---------------------------------------------------------------------------------

export function deliveryContentType(variant: Variants['delivery']): string {
	return variant === 'jsonapi' ? 'application/vnd.api+json' : JSON_TYPE;
}

/**
 * The event ids of one emission: `per-endpoint` draws a new id for every endpoint, `shared` one id for all of
 * them. Returns the function that gives the id of the next endpoint's copy.
 */
export function eventIdAllocator(variant: Variants['event-id'], newId: () => string): () => string {
	if (variant === 'per-endpoint') return newId;
	let shared: string | undefined;
	return () => (shared ??= newId());
}

/** A number as a plain decimal string ("12.5", never "1e-7"), as services that serialise decimals write them. */
export function decimalString(value: number): string {
	const text = String(value);
	if (!/e/i.test(text)) return text;
	return value.toFixed(20).replace(/\.?0+$/, '');
}

/** The transcription attributes of a delivery, with duration and average_confidence as the variant writes them. */
export function encodeNumbers<T extends { duration: number; average_confidence: number | null }>(
	variant: Variants['numbers'],
	attributes: T,
): Omit<T, 'duration' | 'average_confidence'> & {
	duration: number | string;
	average_confidence: number | string | null;
} {
	if (variant === 'number') return attributes;
	const confidence = attributes.average_confidence;
	return {
		...attributes,
		duration: decimalString(attributes.duration),
		average_confidence: confidence === null ? null : decimalString(confidence),
	};
}

/** A resource type of a delivery as the `resource-types` reading writes it (`webhook_event` → `WebhookEvent`). */
export function resourceType(variant: Variants['resource-types'], type: string): string {
	if (variant === 'plural') return `${type}s`;
	if (variant === 'capitalised') {
		return type
			.split('_')
			.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
			.join('');
	}
	return type;
}

/**
 * A delivery's `included` as the reading writes it, around the subject transcription: `related` adds its media,
 * under the transcription's own id (ids are unique per type only), before it and the user after it;
 * `without-subject` keeps those two and leaves the transcription out.
 */
export function includedResources(
	variant: Variants['included'],
	types: Variants['resource-types'],
	subject: { id: string; type: string; attributes: Record<string, unknown> },
	related: { mediaUrl: string; userId: string },
): unknown[] {
	if (variant === 'subject') return [subject];
	const media = {
		id: subject.id,
		type: resourceType(types, 'media_object'),
		attributes: { url: related.mediaUrl, content_type: 'audio/wav' },
	};
	const user = {
		id: related.userId,
		type: resourceType(types, 'user'),
		attributes: { name: 'Sandbox user' },
	};
	return variant === 'related' ? [media, subject, user] : [media, user];
}

// ---- error echoes (issue 38) ---------------------------------------------------------------------------------------

/** What an echoing service repeats of a request. */
export interface EchoedRequest {
	authorization?: string;
	/** The query string without its "?". */
	query: string;
}

/** The words an echoing service adds to an error. */
function echoWords(request: EchoedRequest): string {
	const auth = request.authorization ?? '';
	return `request had Authorization: ${auth}, base64 ${Buffer.from(auth).toString('base64')}, hex ${Buffer.from(auth).toString('hex')}; query: ${request.query}`;
}

/** An error body as the `request` reading writes it: the request's credentials repeated everywhere a client reads. */
export function echoRequest(
	variant: Variants['error-echo'],
	body: unknown,
	request: EchoedRequest,
): unknown {
	if (variant === 'none' || typeof body !== 'object' || body === null || Array.isArray(body)) {
		return body;
	}
	const words = echoWords(request);
	const meta = {
		authorization: request.authorization ?? null,
		authorization_base64: Buffer.from(request.authorization ?? '').toString('base64'),
		query: request.query,
	};
	const document = body as Record<string, unknown>;
	const errors = Array.isArray(document.errors)
		? document.errors.map((error: Record<string, unknown>) => ({
				...error,
				detail: `${String(error.detail ?? error.title ?? 'error')} (${words})`,
				meta,
			}))
		: undefined;
	return {
		...document,
		...(errors ? { errors } : {}),
		...(typeof document.error === 'string'
			? { error_description: `${String(document.error_description ?? document.error)} (${words})` }
			: {}),
		message: words,
		request: meta,
	};
}
