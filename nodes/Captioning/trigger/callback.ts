// The callback URI: where the trigger's token travels (the query of n8n's webhook URL, or the last path segment of
// its token route), read back from what a service stored, and compared with what was sent by meaning. Why the query
// comes first and the path is the fallback: docs/design.md, "Where the token travels".
import { TOKEN_PARAMETER } from './token';

/** Where a callback URI carries the token: `?token=…` on the webhook URL, or `…/<token>` on the token route. */
export type TokenRoute = 'query' | 'path';

/** The two URLs n8n receives a trigger's deliveries at, as n8n renders them for the current mode. */
export interface TriggerUrls {
	/** getNodeWebhookUrl('default'): the token goes into its query. */
	webhookUrl: string;
	/** getNodeWebhookUrl('setup'), ending in `/:token`; absent where n8n cannot route it (no webhook ID). */
	pathUrl?: string;
}

/** The token route's path parameter as n8n renders it in the URL. */
export const PATH_PLACEHOLDER = `/:${TOKEN_PARAMETER}`;

/**
 * The URL that reaches the token route, from the one n8n renders for it (getNodeWebhookUrl('setup')), else
 * undefined (no webhook ID: no route). n8n keeps the route's path as `<id>/:token` and routes a request by its
 * first segment, the webhook ID, then that path: `<id>/<id>/<token>`; it renders `<id>/:token`, which answers 404.
 * An n8n that renders the route as it routes it is taken as it is (docs/design.md, "Where the token travels").
 */
export function tokenRouteUrl(
	rendered: string | undefined,
	webhookId: string | undefined,
): string | undefined {
	if (!rendered || !webhookId) return undefined;
	const once = `/${webhookId}${PATH_PLACEHOLDER}`;
	const routed = `/${webhookId}${once}`;
	if (rendered.endsWith(routed)) return rendered;
	return rendered.endsWith(once) ? `${rendered.slice(0, -once.length)}${routed}` : undefined;
}

/** The callback URI to register: the token in the webhook URL's query, or as the token route's last segment. */
export function callbackUri(urls: TriggerUrls, route: TokenRoute, token: string): string {
	if (route === 'path') {
		if (!urls.pathUrl) throw new Error('The trigger has no token route to register');
		return `${urls.pathUrl.slice(0, -TOKEN_PARAMETER.length - 1)}${encodeURIComponent(token)}`;
	}
	const url = new URL(urls.webhookUrl);
	url.searchParams.set(TOKEN_PARAMETER, token);
	return url.toString();
}

/** A URI by meaning: scheme, host and port as WHATWG URL normalises them, the path's escapes normalised. */
interface Meaning {
	/** Origin, credentials and path, without a trailing slash (n8n ignores one). */
	base: string;
	/** The query's decoded pairs, sorted: the order of parameters carries no meaning. */
	query: Array<[string, string]>;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** `%7e` and `%7E` are `~`; `%2f` is `%2F`: escapes of unreserved characters decoded, the others upper-cased. */
function normaliseEscapes(path: string): string {
	return path.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => {
		const char = String.fromCharCode(parseInt(hex, 16));
		return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
	});
}

const byPair = (a: [string, string], b: [string, string]) =>
	a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1;

function meaningOf(uri: string): Meaning | undefined {
	let url: URL;
	try {
		url = new URL(uri);
	} catch {
		return undefined;
	}
	const credentials = url.username
		? `${url.username}${url.password ? `:${url.password}` : ''}@`
		: '';
	const path = normaliseEscapes(url.pathname).replace(/\/+$/, '');
	return {
		base: `${url.protocol}//${credentials}${url.host}${path}`,
		query: [...url.searchParams.entries()].sort(byPair),
	};
}

const sameQuery = (a: Meaning['query'], b: Meaning['query']) =>
	a.length === b.length && a.every(([name, value], i) => b[i][0] === name && b[i][1] === value);

function decodeSegment(segment: string): string {
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

/**
 * Whether a callback URI delivers to this trigger, on which route, and with which token (undefined: none, or an
 * empty one). Any other URI is not this trigger's (undefined).
 */
export function readCallback(
	uri: string,
	urls: TriggerUrls,
): { route: TokenRoute; token: string | undefined } | undefined {
	const meaning = meaningOf(uri);
	const webhook = meaningOf(urls.webhookUrl);
	if (!meaning || !webhook) return undefined;
	if (meaning.base === webhook.base) {
		// the first value, as n8n's query parser hands it to checkToken
		return { route: 'query', token: new URL(uri).searchParams.get(TOKEN_PARAMETER) || undefined };
	}
	const route = urls.pathUrl
		? meaningOf(urls.pathUrl.slice(0, -PATH_PLACEHOLDER.length))
		: undefined;
	if (!route || !meaning.base.startsWith(`${route.base}/`)) return undefined;
	const segment = meaning.base.slice(route.base.length + 1);
	if (segment.includes('/')) return undefined;
	return { route: 'path', token: decodeSegment(segment) || undefined };
}

/**
 * What the service stored, compared with the callback URI sent: `kept` (the same URI by meaning: scheme and host
 * case, default port, escapes, parameter order and a trailing slash aside), `token-dropped` (the same URI but for
 * the token: its parameter gone or empty, or the whole query) or `changed` (anything else, a token of another
 * value included).
 */
export type StoredCallback = 'kept' | 'token-dropped' | 'changed';

export function compareStored(sent: string, stored: string): StoredCallback {
	const a = meaningOf(sent);
	const b = meaningOf(stored);
	if (!a || !b || a.base !== b.base) return 'changed';
	if (sameQuery(a.query, b.query)) return 'kept';
	const hasToken = (m: Meaning) => m.query.some(([n, v]) => n === TOKEN_PARAMETER && v !== '');
	const others = (m: Meaning) => m.query.filter(([name]) => name !== TOKEN_PARAMETER);
	const gone = hasToken(a) && !hasToken(b);
	return gone && (b.query.length === 0 || sameQuery(others(a), others(b)))
		? 'token-dropped'
		: 'changed';
}
