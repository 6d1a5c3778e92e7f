// The words a service's error body may lend a message: JSON:API `detail` (else `title`) of each error, or an RFC 9457
// problem's, and nothing else of the body (it may echo the request, its Authorization header with it). Redacted
// first, then bounded, on one line.

/** About how much of a service's words a message quotes. */
export const SERVICE_WORDS_MAX = 300;

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown) =>
	typeof value === 'string' && value.trim() !== '' ? value : undefined;

function parsed(body: unknown): unknown {
	if (typeof body !== 'string' && !Buffer.isBuffer(body)) return body;
	try {
		return JSON.parse(body.toString()) as unknown;
	} catch {
		return undefined;
	}
}

/** `words` on one line, cut at a word before `max` characters with "…" when longer. */
export function boundWords(words: string, max = SERVICE_WORDS_MAX): string {
	// eslint-disable-next-line no-control-regex
	const line = words.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
	if (line.length <= max) return line;
	const cut = line.slice(0, max - 1);
	const space = cut.lastIndexOf(' ');
	return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/**
 * The service's own words in an error body (a JSON value or its text): each JSON:API error's `detail`, else its
 * `title`; else the body's own `detail` or `title` (RFC 9457). `redact` is applied before the words are cut, so
 * that no cut leaves part of a secret. Undefined when the body has none.
 */
export function readServiceWords(
	body: unknown,
	redact: (text: string) => string,
	max = SERVICE_WORDS_MAX,
): string | undefined {
	const document = parsed(body);
	if (!isObject(document)) return undefined;
	const errors = Array.isArray(document.errors)
		? document.errors
		: isObject(document.errors)
			? [document.errors]
			: [document];
	const words = errors
		.filter(isObject)
		.map((error) => text(error.detail) ?? text(error.title))
		.filter((said): said is string => said !== undefined);
	if (words.length === 0) return undefined;
	const bounded = boundWords(redact(words.join('; ')), max);
	return bounded === '' ? undefined : bounded;
}
