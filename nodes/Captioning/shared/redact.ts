// The last line of defence: no client secret, assertion or token may appear in an error, an item or a log. One
// redaction for every message built from outside: every form of every secret (shared/secretForms.ts).
import { formsOfSecrets, replaceForms } from './secretForms';

const QUERY_STRING = /(https?:\/\/[^\s?#"'<>]+)\?[^\s#"'<>]*/gi;

/** Removes query strings from URLs: token calls carry the client secret and assertion there. */
export function stripQueryStrings(text: string): string {
	return text.replace(QUERY_STRING, '$1?[redacted]');
}

/**
 * Replaces every occurrence of each secret with [redacted]: as sent, URL- and form-encoded, escaped in JSON, in hex
 * and in base64 (also inside a longer base64 value), after stripping query strings.
 */
export function redact(text: string, secrets: Array<string | undefined | null>): string {
	return replaceForms(stripQueryStrings(text), formsOfSecrets(secrets));
}

/** A JSON value with `redact` applied to every string in it, names of members included. */
export function redactJson<T>(value: T, secrets: Array<string | undefined | null>): T {
	const forms = formsOfSecrets(secrets);
	const text = (item: string) => replaceForms(stripQueryStrings(item), forms);
	try {
		return JSON.parse(JSON.stringify(value), (_key, item: unknown) => {
			if (typeof item !== 'object' || item === null || Array.isArray(item)) {
				return typeof item === 'string' ? text(item) : item;
			}
			return Object.fromEntries(Object.entries(item).map(([name, member]) => [text(name), member]));
		}) as T;
	} catch {
		return { redacted: true } as T;
	}
}

/** Member names that say their value is a secret, once case and separators are set aside: `signing_secret`. */
const SECRET_NAMES = [
	'secret',
	'password',
	'passphrase',
	'token',
	'apikey',
	'accesskey',
	'privatekey',
	'signingkey',
	'hmackey',
	'credential',
	'credentials',
];

/** Whether a member's name says it holds a secret (`secret`, `signing_secret`, `webhookSecret`, `access_token`). */
export function namesASecret(name: string): boolean {
	const plain = name.toLowerCase().replace(/[^a-z0-9]/g, '');
	return SECRET_NAMES.some((word) => plain.endsWith(word));
}

/**
 * Output passed through from the service (an endpoint's attributes), made safe to show: every member named as a
 * secret replaced whole, every form of each of `secrets` replaced in every string and name. Query strings are kept:
 * the values are the service's data, not a message.
 */
export function redactOutput<T>(value: T, secrets: Array<string | undefined | null>): T {
	const forms = formsOfSecrets(secrets);
	const text = (item: string) => replaceForms(item, forms);
	const walk = (item: unknown): unknown => {
		if (typeof item === 'string') return text(item);
		if (Array.isArray(item)) return item.map(walk);
		if (typeof item !== 'object' || item === null) return item;
		return Object.fromEntries(
			Object.entries(item).map(([name, member]) => [
				text(name),
				namesASecret(name) && member !== null && member !== '' && typeof member !== 'object'
					? '[redacted]'
					: walk(member),
			]),
		);
	};
	return walk(value) as T;
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
