// fast-check generators of cues for the property tests: unicode, markup-like text, empty and blank lines, long
// lines, times beyond 99 hours. Each test says what a format keeps of them (its canonical form).
import fc from 'fast-check';

import type { Cue } from '../../../nodes/Captioning/captions';

/** Pieces of text that have tripped caption parsers: markup, entities, arrows, timestamps, keywords. */
const TRICKY = [
	'&',
	'&amp;',
	'&lt;b&gt;',
	'<',
	'>',
	'<b>bold</b>',
	'<<i>b>',
	'{\\an8}',
	'-->',
	'--->',
	'->',
	'NOTE',
	'WEBVTT',
	'STYLE',
	'1',
	'00:00:01,000 --> 00:00:02,000',
	'0:00:01.000,0:00:02.000',
	'12:34:56.789',
	'\u00a0',
	'\t',
	'\u200b',
	'"quoted"',
	"it's",
	'漢字',
	'🎉',
	'e\u0301',
	'\u0000',
	'\ufffe',
	'\ud800',
];

const word = fc.oneof(
	{ weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }) },
	{ weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }) },
	{ weight: 2, arbitrary: fc.constantFrom(...TRICKY) },
);

const line = fc.oneof(
	{ weight: 8, arbitrary: fc.array(word, { minLength: 0, maxLength: 10 }).map((w) => w.join(' ')) },
	{ weight: 1, arbitrary: fc.constantFrom('', ' ', '   ') },
	// a long line, as live captions have
	{
		weight: 1,
		arbitrary: fc.array(word, { minLength: 20, maxLength: 60 }).map((w) => w.join(' ')),
	},
);

/** Cue text: lines joined by any line ending, empty lines included. */
export const cueText = fc
	.tuple(fc.array(line, { minLength: 0, maxLength: 4 }), fc.constantFrom('\n', '\r\n', '\r'))
	.map(([lines, eol]) => lines.join(eol));

export const voice = fc.option(
	fc.oneof(fc.constantFrom('Anna', 'Roger Bingham', ' Ben  ', 'A>B', '<v>', ''), fc.string()),
	{ nil: undefined },
);

/** Milliseconds up to `maxHours`. */
const time = (maxHours: number) => fc.integer({ min: 0, max: maxHours * 3_600_000 });

/** Cues in time order (equal starts keep their order), each lasting 1 ms to 10 minutes. */
export function cues(options: { maxHours?: number; maxLength?: number } = {}): fc.Arbitrary<Cue[]> {
	const { maxHours = 150, maxLength = 12 } = options;
	const cue = fc
		.record({
			startMs: time(maxHours),
			durationMs: fc.integer({ min: 1, max: 600_000 }),
			text: cueText,
			voice,
			identifier: fc.option(
				fc.oneof(fc.string(), fc.constantFrom('1', 'intro', '12:00:00.000', 'NOTE x', 'a --> b')),
				{
					nil: undefined,
				},
			),
			settings: fc.option(
				fc.constantFrom('align:start', 'line:0 position:10%', 'size:50% bogus:1', 'region:r1'),
				{
					nil: undefined,
				},
			),
		})
		.map(({ startMs, durationMs, voice, identifier, settings, text }) => {
			const made: Cue = { startMs, endMs: startMs + durationMs, text };
			if (voice !== undefined) made.voice = voice;
			if (identifier !== undefined) made.identifier = identifier;
			if (settings !== undefined) made.settings = settings;
			return made;
		});
	return fc
		.array(cue, { maxLength })
		.map((list) => [...list].sort((a, b) => a.startMs - b.startMs));
}

/** Lines as a format keeps them: split at any line ending, changed by `line`, empty ones dropped. */
export function keptLines(
	text: string,
	line: (text: string) => string = (l) => l.trim(),
): string[] {
	return text
		.split(/\r\n|\r|\n/)
		.map(line)
		.filter((l) => l !== '');
}
