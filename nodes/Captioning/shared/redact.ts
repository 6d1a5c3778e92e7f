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
