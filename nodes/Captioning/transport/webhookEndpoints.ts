// The API's one resource, webhook endpoints: their answers read by need (an endpoint is its callback_uri, with an
// id and enabled_events when usable; ASSUMPTIONS.md A7, A9), and at the end the calls, thin wiring over the
// transport, that the action node and the trigger's lifecycle share.
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { statusOf } from './errors';
import { captioningApiCall } from './index';
import type { ApiRequest, ApiResponse, CaptioningContext } from './types';
import { CREDENTIAL_TYPE } from '../shared/constants';
import { normaliseBaseUrl } from '../tokens/values';
import {
	headerValue,
	headerValues,
	isInexactInteger,
	isObject,
	memberOf,
	parseBody,
	readId,
	readText,
	recordIn,
	sameResourceType,
} from '../shared/schemas';
import { callbackTokensIn, redactOutput, redactPathToken } from '../shared/redact';
import { settle } from '../shared/settle';

export const ENDPOINTS_PATH = '/webhook_endpoints';
/** The resource's JSON:API type, and the name of a Rails serializer's root key (`{"webhook_endpoint": {…}}`). */
export const ENDPOINT_TYPE = 'webhook_endpoint';

/** The path of one endpoint. */
export const endpointPath = (id: string) => `${ENDPOINTS_PATH}/${encodeURIComponent(id)}`;

/**
 * The JSON:API resource's own members besides id and attributes (type, links, relationships, meta), as the service
 * sent them: the Captioning node's version 1 outputs the resource whole, as 0.1.0 did. A symbol, so that no
 * attribute the service sends can take its place, and no flat output carries it.
 */
export const RESOURCE_MEMBERS: unique symbol = Symbol('JSON:API resource members');

/** An endpoint in the one shape the package uses and outputs; other attributes the service sent pass through. */
export interface WebhookEndpoint extends IDataObject {
	/** null when the service did not say it. */
	id: string | null;
	callback_uri: string;
	enabled_events: string[];
	/** What the service's answer did not show of the endpoint, and what the item holds instead. */
	note?: string;
	/** Only when read with `{ resourceMembers: true }`, and only from a JSON:API resource. */
	[RESOURCE_MEMBERS]?: IDataObject;
}

/** How an endpoint is read: flat (what every caller uses), or also with its resource's own members. */
export interface ReadOptions {
	/** Keep the JSON:API resource's type, links, relationships and meta under RESOURCE_MEMBERS. */
	resourceMembers?: boolean;
}

/** The members a JSON:API resource object holds besides its id and attributes (JSON:API 1.1, 7.2). */
const ENVELOPE_MEMBERS = ['type', 'links', 'relationships', 'meta'] as const;

/** The sentences of an item's note, one per member the answer did not show as it is. */
export const UNSHOWN = {
	inexactId:
		'The service wrote the endpoint’s ID as a number beyond 2^53, which a JSON number cannot carry exactly: that ID is not used. Ask the service to send IDs as strings.',
	noId: 'The service created the endpoint but its answer did not include the endpoint’s ID. Get Many lists the endpoints with their IDs where the service offers it; otherwise find it in the service’s developers dashboard.',
	events: 'The service’s answer did not show the endpoint’s enabled_events.',
	oddEvents: 'Some of the endpoint’s enabled_events are not event names (text): they are left out.',
	listedNoId: 'The service listed the endpoint without its ID.',
	sentEvents:
		'The service’s answer did not show the enabled_events it stored: enabled_events are the ones sent.',
	sentUri:
		'The service’s answer did not show the callback URI it stored: callback_uri is the one sent.',
} as const;

export type Unshown = keyof typeof UNSHOWN;

/** The endpoint with the sentences of what its answer did not show added to its note. */
export function withNote(endpoint: WebhookEndpoint, unshown: Unshown[]): WebhookEndpoint {
	if (!unshown.length) return endpoint;
	const sentences = [endpoint.note, ...unshown.map((u) => UNSHOWN[u])];
	return { ...endpoint, note: sentences.filter(Boolean).join(' ') };
}

/** One endpoint record, and what it did not show: an id beyond 2^53, enabled_events as a list. */
function readRecord(
	value: unknown,
	options: ReadOptions = {},
): { endpoint: WebhookEndpoint; unshown: Array<'inexactId' | 'events' | 'oddEvents'> } | undefined {
	if (!isObject(value)) return undefined;
	const attributes = memberOf(value, 'attributes');
	const source = isObject(attributes) ? attributes : value;
	const callbackUri = readText(memberOf(source, 'callback_uri'));
	if (callbackUri === undefined) return undefined;
	const events = memberOf(source, 'enabled_events');
	const rest: IDataObject = { ...(source as IDataObject) };
	// the envelope's members describe the document, not the endpoint
	for (const key of ['id', 'type', 'attributes', 'links', 'relationships', 'meta'])
		delete rest[key];
	const id = memberOf(value, 'id');
	const names = Array.isArray(events)
		? events.filter((e): e is string => typeof e === 'string')
		: [];
	const endpoint: WebhookEndpoint = {
		...rest,
		id: readId(id) ?? null,
		callback_uri: callbackUri,
		enabled_events: names,
	};
	if (options.resourceMembers && isObject(attributes)) {
		const members = ENVELOPE_MEMBERS.filter((key) => Object.hasOwn(value, key));
		endpoint[RESOURCE_MEMBERS] = Object.fromEntries(
			members.map((key) => [key, value[key]]),
		) as IDataObject;
	}
	return {
		endpoint,
		unshown: [
			...(isInexactInteger(id) ? (['inexactId'] as const) : []),
			...(!Array.isArray(events)
				? (['events'] as const)
				: names.length < events.length
					? (['oddEvents'] as const)
					: []),
		],
	};
}

/**
 * One endpoint from a JSON:API resource (`{id, type, attributes}`) or a flat object (`{id, callback_uri, …}`),
 * with a note of what it did not show.
 */
export function readEndpoint(value: unknown, options?: ReadOptions): WebhookEndpoint | undefined {
	const record = readRecord(value, options);
	return record && withNote(record.endpoint, record.unshown);
}

/**
 * The endpoint of a create or read answer: a JSON:API document (`{data:{…}}`), the record under a root key named
 * after the resource (`webhook_endpoint`, `webhookEndpoint`), or the flat object itself.
 */
export function readEndpointDocument(
	body: unknown,
	options?: ReadOptions,
): WebhookEndpoint | undefined {
	return readEndpoint(recordIn(parseBody(body), ENDPOINT_TYPE), options);
}

/** What a create or read answer must hold, for the error that says it did not. */
export const ITEM_SHAPE =
	'Expected {"data": {"attributes": {"callback_uri": …}}}, an object with a callback_uri, or either under a root key named after the resource ({"webhook_endpoint": {…}}).';

/**
 * The endpoint id a `Location` header names, absolute or relative: the segment after `webhook_endpoints`, and only
 * there (`/webhook_endpoints/42` → `42`; a Location elsewhere, say a job's, names no endpoint).
 */
export function idFromLocation(location: string | undefined): string | undefined {
	// characters no URI reference holds: the header is something else (JSON, a sentence), and names no id
	if (!location || /[\s"<>\\^`{|}]/.test(location.trim())) return undefined;
	let pathname: string;
	try {
		pathname = new URL(location, 'http://relative.invalid/').pathname;
	} catch {
		return undefined;
	}
	const segments = pathname.split('/').filter(Boolean);
	if (segments.length < 2 || segments[segments.length - 2] !== ENDPOINTS_PATH.slice(1)) {
		return undefined;
	}
	const segment = segments[segments.length - 1];
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

/**
 * The created endpoint's id: the record's (`data.id`, under a root key, or top-level), a top-level `id`, or the
 * `Location` header's last segment; else none.
 */
export function createdEndpointId(
	response: Pick<ApiResponse, 'headers' | 'body'>,
): string | undefined {
	const body = parseBody(response.body);
	const id = readId(memberOf(recordIn(body, ENDPOINT_TYPE), 'id')) ?? readId(memberOf(body, 'id'));
	return id ?? idFromLocation(headerValue(response.headers, 'location'));
}

/**
 * The endpoint a creation answer describes, as the service stored it: a body may be a whole resource, an id alone
 * or nothing at all. What it does not show is completed with what was sent, and said in the note.
 */
export function createdEndpoint(
	response: Pick<ApiResponse, 'headers' | 'body'>,
	sent: { callbackUri: string; events: string[] },
	options?: ReadOptions,
): WebhookEndpoint {
	const body = parseBody(response.body);
	const record = recordIn(body, ENDPOINT_TYPE);
	const described = readRecord(record, options);
	const id = described?.endpoint.id ?? createdEndpointId(response) ?? null;
	const inexact = [memberOf(record, 'id'), memberOf(body, 'id')].some(isInexactInteger);
	const eventsShown = described !== undefined && !described.unshown.includes('events');
	const unshown: Unshown[] = [
		...(inexact ? (['inexactId'] as const) : id === null ? (['noId'] as const) : []),
		...(described ? [] : (['sentUri'] as const)),
		...(eventsShown ? [] : (['sentEvents'] as const)),
		...(described?.unshown.includes('oddEvents') ? (['oddEvents'] as const) : []),
	];
	return withNote(
		{
			...(described?.endpoint ?? {}),
			id,
			callback_uri: described?.endpoint.callback_uri ?? sent.callbackUri,
			enabled_events: eventsShown ? described.endpoint.enabled_events : sent.events,
		},
		unshown,
	);
}

const TOKEN_CHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

/**
 * The links of an RFC 8288 `Link` header (its lines joined by commas): each target with its parameters, names in
 * lower case, the first of a name kept (8288 3.3). A quoted value may hold commas, semicolons and angle brackets.
 */
export function readLinks(header: string): Array<{ target: string; params: Map<string, string> }> {
	const links: Array<{ target: string; params: Map<string, string> }> = [];
	let at = 0;
	const skipSpace = () => {
		while (at < header.length && /\s/.test(header[at])) at++;
	};
	const read = (allowed: RegExp) => {
		const start = at;
		while (at < header.length && allowed.test(header[at])) at++;
		return header.slice(start, at);
	};
	while (at < header.length) {
		const open = header.indexOf('<', at);
		const close = open === -1 ? -1 : header.indexOf('>', open);
		if (close === -1) break;
		const link = { target: header.slice(open + 1, close), params: new Map<string, string>() };
		at = close + 1;
		for (skipSpace(); header[at] === ';'; skipSpace()) {
			at++;
			skipSpace();
			const name = read(TOKEN_CHAR).toLowerCase();
			skipSpace();
			let value = '';
			if (header[at] === '=') {
				at++;
				skipSpace();
				if (header[at] === '"') {
					for (at++; at < header.length && header[at] !== '"'; at++) {
						if (header[at] === '\\') at++;
						value += header[at] ?? '';
					}
					at++;
				} else {
					value = read(TOKEN_CHAR);
				}
			}
			if (name && !link.params.has(name)) link.params.set(name, value);
		}
		links.push(link);
		// anything up to the next link is not understood and skipped
		while (at < header.length && header[at] !== ',') at++;
	}
	return links;
}

/** The `rel="next"` target of an RFC 8288 `Link` header: rel is a list of relation types, in any case. */
export function nextFromLinkHeader(link: string | undefined): string | undefined {
	if (!link) return undefined;
	return readLinks(link).find(({ params }) =>
		(params.get('rel') ?? '').toLowerCase().split(/\s+/).includes('next'),
	)?.target;
}

interface EndpointPage {
	endpoints: WebhookEndpoint[];
	/** Items of the list that are no webhook endpoint (no callback_uri), left out. */
	unreadable: number;
	/** The next page's URL as the service gave it (`links.next` or a `Link` header), if any. */
	next?: string;
}

/**
 * The list in an answer: a bare array, `data`, or a member named after the resource (`webhook_endpoints`), each
 * unwrapped at most three times, as recordIn does.
 */
function listIn(body: unknown, depth = 0): unknown {
	if (Array.isArray(body) || !isObject(body)) return body;
	const key = Object.hasOwn(body, 'data')
		? 'data'
		: Object.keys(body).find((name) => sameResourceType(name, ENDPOINT_TYPE));
	const inner = key === undefined ? undefined : body[key];
	return isObject(inner) && depth < 2 ? listIn(inner, depth + 1) : inner;
}

/** One page of the list: `{data:[…], links:{next}}` or a bare array (next page in a `Link` header). */
export function readEndpointPage(
	response: Pick<ApiResponse, 'headers' | 'body'>,
	options?: ReadOptions,
) {
	const body = parseBody(response.body);
	const items = listIn(body);
	if (!Array.isArray(items)) return undefined;
	const next = memberOf(memberOf(body, 'links'), 'next');
	const linkNext = readText(isObject(next) ? memberOf(next, 'href') : next);
	const endpoints = items
		.map((item) => readEndpoint(item, options))
		.filter((e): e is WebhookEndpoint => e !== undefined);
	const page: EndpointPage = { endpoints, unreadable: items.length - endpoints.length };
	const nextUrl = linkNext ?? nextFromLinkHeader(headerValues(response.headers, 'link').join(', '));
	if (nextUrl) page.next = nextUrl;
	return page;
}

type NextPage = { path: string } | { refused: string };

/**
 * Where the next page is, as a path below the Base URL: only the Base URL's own origin and path are followed,
 * so a list answer can never send the bearer token elsewhere.
 */
export function nextPagePath(next: string, currentUrl: string, baseUrl: string): NextPage {
	let target: URL;
	let base: URL;
	try {
		base = new URL(baseUrl);
		target = new URL(next, currentUrl);
	} catch {
		return { refused: `the next page's address "${next.slice(0, 200)}" is not a URL` };
	}
	if (target.origin !== base.origin) {
		return { refused: `the next page is at another origin (${target.origin})` };
	}
	const basePath = base.pathname.replace(/\/+$/, '');
	if (basePath && target.pathname !== basePath && !target.pathname.startsWith(`${basePath}/`)) {
		return { refused: `the next page (${target.pathname}) is outside the Base URL's path` };
	}
	return { path: `${target.pathname.slice(basePath.length)}${target.search}` };
}

/** Pages a list is followed for at most; a service that pages on beyond this is stopped with a reason. */
const MAX_LIST_PAGES = 50;

interface CollectedEndpoints {
	endpoints: WebhookEndpoint[];
	/** Why the list may be incomplete (a next page not followed); absent when every page was read. */
	incomplete?: string;
	/** Items left out because they are no webhook endpoint (no callback_uri), said; absent when there were none. */
	skipped?: string;
}

/**
 * Reads the list page after page until there is no next page, `limit` endpoints are in hand, or `maxPages`
 * pages were read. `fetchPage` answers one path below the Base URL; an answer that is no list throws.
 */
export async function collectEndpoints(
	fetchPage: (path: string) => Promise<Pick<ApiResponse, 'headers' | 'body'>>,
	options: { baseUrl: string; limit?: number; maxPages?: number } & ReadOptions,
): Promise<CollectedEndpoints> {
	const baseUrl = normaliseBaseUrl(options.baseUrl);
	const maxPages = options.maxPages ?? MAX_LIST_PAGES;
	const endpoints: WebhookEndpoint[] = [];
	const visited = new Set<string>();
	let unreadable = 0;
	const collected = (list: WebhookEndpoint[], incomplete?: string): CollectedEndpoints => ({
		endpoints: list,
		...(incomplete ? { incomplete } : {}),
		...(unreadable ? { skipped: skippedItems(unreadable) } : {}),
	});
	let path = ENDPOINTS_PATH;
	for (let pages = 1; ; pages++) {
		visited.add(path);
		const page = readEndpointPage(await fetchPage(path), options);
		if (!page) throw new UnexpectedListError(path);
		endpoints.push(...page.endpoints);
		unreadable += page.unreadable;
		if (options.limit !== undefined && endpoints.length >= options.limit) {
			return collected(endpoints.slice(0, options.limit));
		}
		if (!page.next) return collected(endpoints);
		const next = nextPagePath(page.next, `${baseUrl}${path}`, baseUrl);
		if ('refused' in next) return collected(endpoints, `${next.refused}, not followed`);
		// a next link back to a page already read would loop for ever: the list has ended
		if (visited.has(next.path)) return collected(endpoints);
		if (pages >= maxPages) {
			return collected(endpoints, `the list goes on beyond ${maxPages} pages`);
		}
		path = next.path;
	}
}

const skippedItems = (count: number) =>
	`${count} item${count === 1 ? '' : 's'} of the list ${count === 1 ? 'is' : 'are'} not a webhook endpoint (no callback_uri) and ${count === 1 ? 'is' : 'are'} left out`;

/** What a list answer must hold, for the error that says it did not. */
export const LIST_SHAPE =
	'Expected {"data": [...]} or a JSON array of webhook endpoints, each with a callback_uri.';

/** A 2xx answer to a list request whose body is no list in any known shape. */
export class UnexpectedListError extends Error {
	constructor(readonly path: string) {
		super(`The service answered GET ${path} with a body that is not a list of webhook endpoints`);
	}
}

type ManagementCall = 'collection' | 'item';
type FailureKind = 'gone' | 'unsupported' | 'error';

/**
 * What a failed list, read or delete means. The contract publishes only the creation of endpoints, so a service
 * may lack the rest: 404/405/501 on the collection, or 405/501 on an item, say the route is not offered. A 404 on
 * an item means the endpoint is gone only where the service has reads at all; elsewhere it is the missing route.
 */
export function classifyFailure(
	status: number | undefined,
	call: ManagementCall,
	serviceHasReads: boolean,
): FailureKind {
	if (status === 405 || status === 501) return 'unsupported';
	if (status === 404) {
		if (call === 'collection') return 'unsupported';
		return serviceHasReads ? 'gone' : 'unsupported';
	}
	return 'error';
}

/**
 * The callback URI with the value of its `token` query parameter, and the token route's token at the end of its
 * path, replaced; everything else is kept as it is.
 */
export function redactCallbackToken(uri: string): string {
	const hash = uri.indexOf('#');
	const beforeHash = hash === -1 ? uri : uri.slice(0, hash);
	const fragment = hash === -1 ? '' : uri.slice(hash);
	const question = beforeHash.indexOf('?');
	if (question === -1) return `${redactPathToken(beforeHash)}${fragment}`;
	const query = beforeHash
		.slice(question + 1)
		.split('&')
		.map((pair) => {
			const [name] = pair.split('=', 1);
			let decoded = name;
			try {
				decoded = decodeURIComponent(name.replace(/\+/g, ' '));
			} catch {
				// a malformed escape is compared as written
			}
			return decoded === 'token' && pair.includes('=') ? `${name}=[redacted]` : pair;
		})
		.join('&');
	return `${redactPathToken(beforeHash.slice(0, question))}?${query}${fragment}`;
}

/**
 * The endpoint as the node outputs it: never with the trigger's callback token (in its callback URI, or in any other
 * attribute that holds it), a member named as a secret (`signing_secret`), or one of `secrets` (the credential's).
 */
export function redactEndpoint(endpoint: WebhookEndpoint, secrets: string[] = []): WebhookEndpoint {
	const { callback_uri: uri, ...rest } = endpoint;
	const tokens = [...callbackTokensIn([['callback_uri', uri]]), ...secrets];
	const redacted = Object.entries(redactOutput(rest, tokens));
	// the members in the order the service gave them
	const out: IDataObject = {};
	for (const key of Object.keys(endpoint)) {
		if (key === 'callback_uri') out.callback_uri = redactCallbackToken(uri);
		else {
			const [name, value] = redacted.shift() ?? [key, undefined];
			out[name] = value;
		}
	}
	const shown = out as WebhookEndpoint;
	// version 1's resource members (type, links, relationships, meta), redacted as the attributes are
	const members = endpoint[RESOURCE_MEMBERS];
	if (members) shown[RESOURCE_MEMBERS] = redactOutput(members, tokens);
	return shown;
}

// ---- calls: thin wiring over the transport, shared by the trigger's lifecycle and the action node ----

export type CallOutcome =
	| { ok: true; response: ApiResponse }
	| { ok: false; status?: number; error: Error };

/** One call whose failure the caller classifies instead of throwing it. */
export async function tryCall(ctx: CaptioningContext, request: ApiRequest): Promise<CallOutcome> {
	try {
		return { ok: true, response: await captioningApiCall.call(ctx, request) };
	} catch (error) {
		// as the transport threw it: a NodeApiError, or a NodeOperationError for a cancelled wait
		return { ok: false, status: statusOf(error), error: error as Error };
	}
}

type Failed = Extract<CallOutcome, { ok: false }>;

/**
 * Registers an endpoint (contract 4.3: form-encoded, one `enabled_events[]` field per event). The answer is "not
 * shown": the endpoint is read from a resource, an id, a Location header or nothing at all, and completed with
 * what was sent.
 */
export async function createEndpoint(
	ctx: CaptioningContext,
	callbackUri: string,
	events: string[],
	itemIndex?: number,
	read?: ReadOptions,
): Promise<{ ok: true; endpoint: WebhookEndpoint; echoed?: string } | Failed> {
	const form: Array<[string, string]> = [['callback_uri', callbackUri]];
	for (const event of events) form.push(['enabled_events[]', event]);
	const outcome = await tryCall(ctx, { method: 'POST', path: ENDPOINTS_PATH, form, itemIndex });
	if (!outcome.ok) return outcome;
	const endpoint = createdEndpoint(outcome.response, { callbackUri, events }, read);
	// what the service said it stored, when it said it (the trigger checks that the token survived)
	const echoed = readEndpointDocument(outcome.response.body)?.callback_uri;
	return { ok: true, endpoint, ...(echoed === undefined ? {} : { echoed }) };
}

type ListOutcome =
	| ({ supported: true } & CollectedEndpoints)
	| { supported: false; status?: number };

/** The credential's Base URL, against which next-page links are checked. */
async function baseUrlOf(ctx: CaptioningContext, itemIndex?: number): Promise<string> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE, itemIndex);
	return normaliseBaseUrl(credentials.baseUrl);
}

/** The service's webhook endpoints, every page followed; `supported: false` when it offers no list. */
export async function listEndpoints(
	ctx: CaptioningContext,
	options: { limit?: number; itemIndex?: number } & ReadOptions = {},
): Promise<ListOutcome> {
	const { itemIndex } = options;
	const first = await tryCall(ctx, { method: 'GET', path: ENDPOINTS_PATH, itemIndex });
	if (!first.ok) {
		if (classifyFailure(first.status, 'collection', false) === 'unsupported') {
			return { supported: false, status: first.status };
		}
		throw first.error;
	}
	let pending: ApiResponse | undefined = first.response;
	const fetchPage = async (path: string) => {
		const response =
			pending ?? (await captioningApiCall.call(ctx, { method: 'GET', path, itemIndex }));
		pending = undefined;
		return response;
	};
	const baseUrl = await baseUrlOf(ctx, itemIndex);
	const outcome = await settle(
		collectEndpoints(fetchPage, {
			baseUrl,
			limit: options.limit,
			resourceMembers: options.resourceMembers,
		}),
	);
	if (outcome.ok) return { supported: true, ...outcome.value };
	// the transport's own error passes as it was thrown; a body that is no list is said here
	const { error } = outcome;
	if (!(error instanceof UnexpectedListError)) throw error;
	throw new NodeApiError(
		ctx.getNode(),
		{ message: error.message },
		{
			message: error.message,
			description: LIST_SHAPE,
			itemIndex,
		},
	);
}
