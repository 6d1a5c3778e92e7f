// The last line of defence: no client secret, assertion or token may appear in an error, an item or a log.

const QUERY_STRING = /(https?:\/\/[^\s?#"'<>]+)\?[^\s#"'<>]*/gi;

/** Removes query strings from URLs: token calls carry the client secret and assertion there. */
export function stripQueryStrings(text: string): string {
	return text.replace(QUERY_STRING, '$1?[redacted]');
}

/** Replaces every occurrence of each secret (and its URL-encoded form) with [redacted]. */
export function redact(text: string, secrets: Array<string | undefined | null>): string {
	let result = stripQueryStrings(text);
	const values = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
	for (const secret of values.sort((a, b) => b.length - a.length)) {
		for (const form of new Set([secret, encodeURIComponent(secret)])) {
			result = result.split(form).join('[redacted]');
		}
	}
	return result;
}

/** A JSON value with `redact` applied to every string in it, names of members included. */
export function redactJson<T>(value: T, secrets: Array<string | undefined | null>): T {
	try {
		return JSON.parse(JSON.stringify(value), (_key, item: unknown) => {
			if (typeof item !== 'object' || item === null || Array.isArray(item)) {
				return typeof item === 'string' ? redact(item, secrets) : item;
			}
			return Object.fromEntries(
				Object.entries(item).map(([name, member]) => [redact(name, secrets), member]),
			);
		}) as T;
	} catch {
		return { redacted: true } as T;
	}
}

/**
 * The trigger's token route at the end of a URL's path (trigger/callback.ts): the node's webhook ID twice, then the
 * token. Matched on the path alone, before any query or fragment.
 */
const TOKEN_ROUTE_TAIL = /\/([^/?#]+)\/\1\/([^/?#]+)\/?$/;

/** A path with the token route's token replaced: `…/<id>/<id>/[redacted]`. */
export function redactPathToken(path: string): string {
	return path.replace(TOKEN_ROUTE_TAIL, '/$1/$1/[redacted]');
}

function pathTokenOf(url: URL): string | undefined {
	const segment = TOKEN_ROUTE_TAIL.exec(url.pathname)?.[2];
	if (segment === undefined) return undefined;
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

/**
 * The callback tokens a request carries: the `token` query parameter of each URL among its form values, or the
 * token route's last path segment (the trigger registers its callback URI with one of them). The service may
 * quote them back in its words.
 */
export function callbackTokensIn(form: ReadonlyArray<[string, string]> | undefined): string[] {
	const tokens: string[] = [];
	for (const [, value] of form ?? []) {
		try {
			const url = new URL(value);
			for (const token of [url.searchParams.get('token'), pathTokenOf(url)]) {
				if (token) tokens.push(token);
			}
		} catch {
			// not a URL: nothing of the kind to hide
		}
	}
	return tokens;
}
