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
 * The callback tokens a request carries: the `token` query parameter of each URL among its form values (the
 * trigger registers its callback URI with one). The service may quote them back in its words.
 */
export function callbackTokensIn(form: ReadonlyArray<[string, string]> | undefined): string[] {
	const tokens: string[] = [];
	for (const [, value] of form ?? []) {
		try {
			const token = new URL(value).searchParams.get('token');
			if (token) tokens.push(token);
		} catch {
			// not a URL: nothing of the kind to hide
		}
	}
	return tokens;
}
