// README's and the docs' stated defaults and limits, held to the code's constants: each fact is read from the
// pages' text (a number, a list) and compared with what the code exports or does, so that a number changed on
// one side fails here until the other side says the same.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CaptioningWebhookSecretApi } from '../../credentials/CaptioningWebhookSecretApi.credentials';
import { CAPTION_FORMATS } from '../../nodes/Captioning/captions/formats';
import { DEFAULT_DOWNLOAD_TIMEOUT_S } from '../../nodes/Captioning/actions/captionFile/downloads';
import {
	DOWNLOAD_BUDGET_MS,
	TRANSCRIPT_SOURCE_MAX_BYTES,
} from '../../nodes/Captioning/trigger/downloads';
import { MIN_SECRET_LENGTH, secretTokenProblem } from '../../nodes/Captioning/trigger/token';
import { DEFAULT_MAX_FILE_MB, IDLE_TIMEOUT_MS } from '../../nodes/Captioning/transport/download';

const ROOT = join(__dirname, '..', '..');

/** A page's text with every run of white space one space: the pages wrap their sentences anywhere. */
function page(file: string): string {
	return readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' ');
}

/** What each match of `pattern` (global, one capture group) captured on the page; at least one is required. */
function stated(file: string, pattern: RegExp): string[] {
	const found = [...page(file).matchAll(pattern)].map((match) => match[1]);
	if (found.length === 0) {
		throw new Error(
			`${file} no longer says it in the words ${pattern} looks for: update the pattern or the page`,
		);
	}
	return found;
}

/** The numbers a page states for a fact, each as a number. */
const numbers = (file: string, pattern: RegExp) => stated(file, pattern).map(Number);

const KIB = 1024;

describe('the defaults and limits the pages state are the code’s', () => {
	test.each([
		['README.md', /Max File Size[^0-9]{0,20}(\d+)/g],
		['docs/operations.md', /Max File Size[^0-9]{0,20}(\d+)/g],
		['docs/trigger.md', /Max File Size[^0-9]{0,20}(\d+)/g],
		['docs/operating.md', /Max File Size[^0-9]{0,20}(\d+)/g],
		['CHANGELOG.md', /Max File Size[^0-9]{0,20}(\d+)/g],
	])('Max File Size: %s (DEFAULT_MAX_FILE_MB)', (file, pattern) => {
		for (const mb of numbers(file, pattern)) expect(mb).toBe(DEFAULT_MAX_FILE_MB);
	});

	test.each([
		['README.md', /Download Timeout[^0-9]{0,25}(\d+)/g],
		['docs/operations.md', /Download Timeout[^0-9]{0,25}(\d+)/g],
		['CHANGELOG.md', /Download Timeout[^0-9]{0,25}(\d+)/g],
	])('Download Timeout: %s (DEFAULT_DOWNLOAD_TIMEOUT_S)', (file, pattern) => {
		for (const seconds of numbers(file, pattern)) expect(seconds).toBe(DEFAULT_DOWNLOAD_TIMEOUT_S);
	});

	test('a download waits at most IDLE_TIMEOUT_MS between two packets (operations.md)', () => {
		for (const seconds of numbers('docs/operations.md', /at most (\d+) s between two packets/g)) {
			expect(seconds * 1000).toBe(IDLE_TIMEOUT_MS);
		}
	});

	test.each([
		['README.md', /files of one delivery have (\d+(?:\.\d+)?) s/g],
		['docs/trigger.md', /files of one delivery have \**(\d+(?:\.\d+)?) s/g],
		['docs/operating.md', /gives the files of one delivery (\d+(?:\.\d+)?) s/g],
		['docs/operations.md', /the trigger's files share (\d+(?:\.\d+)?) s/g],
		['docs/troubleshooting.md', /within the (\d+(?:\.\d+)?) s the trigger gives its downloads/g],
		['CHANGELOG.md', /(?:not fetched within|parses well within its) (\d+(?:\.\d+)?) s/g],
	])("the trigger's download budget: %s (DOWNLOAD_BUDGET_MS)", (file, pattern) => {
		for (const seconds of numbers(file, pattern)) expect(seconds * 1000).toBe(DOWNLOAD_BUDGET_MS);
	});

	test.each(['README.md', 'docs/trigger.md', 'CHANGELOG.md'])(
		'the transcript is read from Google STT and WebVTT files up to TRANSCRIPT_SOURCE_MAX_BYTES: %s',
		(file) => {
			for (const kb of numbers(file, /Google STT (?:file )?up to (\d+) KB/g)) {
				expect(kb * KIB).toBe(TRANSCRIPT_SOURCE_MAX_BYTES.google_stt);
			}
			for (const mb of numbers(file, /WebVTT (?:file )?up to (\d+) MB/g)) {
				expect(mb * KIB * KIB).toBe(TRANSCRIPT_SOURCE_MAX_BYTES.vtt);
			}
		},
	);
});

describe("the Secret Token's rule the pages state is the code's", () => {
	/** The ASCII punctuation secretTokenProblem accepts in a token otherwise long and plain enough. */
	const acceptedPunctuation = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~']
		.filter((c) => secretTokenProblem(c + 'a'.repeat(MIN_SECRET_LENGTH)) === undefined)
		.sort();

	/** The characters a list such as "`-`, `_`, `.` or `~`" (backticks or not) names. */
	const listed = (list: string) =>
		list
			.replace(/\bor\b|\band\b|`/g, ' ')
			.split(/[\s,]+/)
			.filter(Boolean)
			.sort();

	test('the code accepts letters, digits and some punctuation, from MIN_SECRET_LENGTH characters', () => {
		expect(secretTokenProblem('aZ09'.repeat(MIN_SECRET_LENGTH))).toBeUndefined();
		expect(acceptedPunctuation.length).toBeGreaterThan(0);
		expect(secretTokenProblem('a'.repeat(MIN_SECRET_LENGTH - 1))).toMatch(
			/characters: use at least/,
		);
	});

	test.each(['README.md', 'docs/trigger.md', 'docs/troubleshooting.md'])(
		'%s: at least MIN_SECRET_LENGTH characters, each a letter, a digit or that punctuation',
		(file) => {
			const pattern =
				/at least (\d+ characters, each a letter, a digit, (?:`[^`]+`(?:, | or ))+`[^`]+`)/g;
			for (const rule of stated(file, pattern)) {
				const [, count, list] = /^(\d+) characters, each a letter, a digit, (.*)$/.exec(rule)!;
				expect(Number(count)).toBe(MIN_SECRET_LENGTH);
				expect(listed(list)).toEqual(acceptedPunctuation);
			}
		},
	);

	test("the credential's Secret Token description and the trigger's own message", () => {
		const field = new CaptioningWebhookSecretApi().properties.find((p) => p.name === 'secretToken');
		const [, count, list] = /At least (\d+) characters, each a letter, a digit, (.*?), e\.g\./.exec(
			String(field?.description),
		)!;
		expect(Number(count)).toBe(MIN_SECRET_LENGTH);
		expect(listed(list)).toEqual(acceptedPunctuation);
		const message = secretTokenProblem('!'.repeat(MIN_SECRET_LENGTH))!;
		expect(listed(/use letters, digits, (.*) only/.exec(message)![1])).toEqual(acceptedPunctuation);
	});
});

describe('the formats the pages say Convert reads and writes are the registry’s', () => {
	/** A format's name as the pages may write it: its label or id, without a parenthesis, a "JSON" or case. */
	const plain = (name: string) =>
		name
			.replace(/\([^)]*\)/g, '')
			.replace(/\bjson\b/gi, '')
			.replace(/_/g, ' ')
			.trim()
			.toLowerCase();
	const namesOf = (format: (typeof CAPTION_FORMATS)[number]) =>
		new Set([plain(format.label), plain(format.id), plain(format.label).split(' ')[0]]);

	/** Whether an item of a list ("transcript chunks for AI agents") names the format: it starts with a name. */
	const names = (item: string, format: (typeof CAPTION_FORMATS)[number]) =>
		[...namesOf(format)].some((name) => item === name || item.startsWith(`${name} `));

	/** The registry's format ids that a list such as "A, B, C or D" names, each item naming exactly one. */
	function formatsNamed(list: string): string[] {
		return list
			.replace(/\([^)]*\)/g, '')
			.split(/, | or | and /)
			.map((item) => {
				const matches = CAPTION_FORMATS.filter((f) => names(plain(item), f));
				if (matches.length !== 1) throw new Error(`"${item}" names ${matches.length} formats`);
				return matches[0].id;
			})
			.sort();
	}

	const read = CAPTION_FORMATS.filter((f) => f.parse)
		.map((f) => f.id)
		.sort();
	const written = CAPTION_FORMATS.filter((f) => f.render)
		.map((f) => f.id)
		.sort();

	test.each([
		['README.md', /Convert reads (.*?), in UTF-8/g, /Windows-1252, and writes (.*?)\. /g],
		['README.md', /\*\*Convert\*\* from (.*?) to /g, /\*\*Convert\*\* from .*? to (.*?) · /g],
		[
			'docs/operations.md',
			/\*\*Convert\*\* \| From (.*?) \(detected/g,
			/\(detected on its own\) to (.*?)\. /g,
		],
	])('%s: %s', (file, readsPattern, writesPattern) => {
		for (const list of stated(file, readsPattern)) expect(formatsNamed(list)).toEqual(read);
		for (const list of stated(file, writesPattern)) expect(formatsNamed(list)).toEqual(written);
	});
});
