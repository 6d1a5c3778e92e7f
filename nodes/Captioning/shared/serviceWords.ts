// The words a service's error body may lend a message (shared/schemas.ts reads them: JSON:API or RFC 9457 `detail`,
// else `title`, nothing else), redacted first, then bounded, on one line.
import { readErrorWords } from './schemas';

/** About how much of a service's words a message quotes. */
export const SERVICE_WORDS_MAX = 300;

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
 * The service's own words in an error body, or undefined when it has none. `redact` is applied before the words
 * are cut, so that no cut leaves part of a secret.
 */
export function readServiceWords(
	body: unknown,
	redact: (text: string) => string,
	max = SERVICE_WORDS_MAX,
): string | undefined {
	const words = readErrorWords(Buffer.isBuffer(body) ? body.toString('utf8') : body);
	if (words === undefined) return undefined;
	const bounded = boundWords(redact(words), max);
	return bounded === '' ? undefined : bounded;
}
