// fast-check generators of cues for the property tests: unicode, markup-like text, lines that look like numbers or
// timing lines, empty and blank-looking lines, long lines, styles, settings, times beyond 99 hours. Each test says
// what a format keeps of them (its canonical form).
import fc from 'fast-check';

import type { Cue, CueSettings, TextRun } from '../../../nodes/Captioning/captions';

/** Runs a property test this many times: CAPTIONS_PROPERTY_RUNS for a long run, a bounded number in npm test. */
export const RUNS = { numRuns: Number(process.env.CAPTIONS_PROPERTY_RUNS ?? 150) };

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
	{ weight: 1, arbitrary: fc.constantFrom('', ' ', '   ', '\u00a0', '\t \t') },
	// lines that look like a cue number or a timing line of some format
	{
		weight: 1,
		arbitrary: fc.oneof(
			fc.nat({ max: 9999 }).map(String),
			fc.constantFrom(
				'00:00:01,000 --> 00:00:02,000',
				'00:01.000 --> 00:02.000 align:start',
				'0:00:01.000,0:00:02.000',
				'NOTE',
				'WEBVTT',
				'STYLE',
			),
		),
	},
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

const percent = fc.integer({ min: 0, max: 1000 }).map((tenths) => tenths / 10);

/** Cue settings a WebVTT file can hold, each set or not. */
export const settings: fc.Arbitrary<CueSettings | undefined> = fc.option(
	fc
		.record(
			{
				vertical: fc.constantFrom('rl' as const, 'lr' as const),
				line: fc.oneof(fc.integer({ min: -20, max: 20 }), percent),
				lineAlign: fc.constantFrom('start' as const, 'center' as const, 'end' as const),
				position: percent,
				positionAlign: fc.constantFrom(
					'line-left' as const,
					'center' as const,
					'line-right' as const,
				),
				size: percent,
				align: fc.constantFrom(
					'start' as const,
					'center' as const,
					'end' as const,
					'left' as const,
					'right' as const,
				),
			},
			{ requiredKeys: [] },
		)
		.map((made) => {
			const kept: CueSettings = { ...made };
			// a percentage line is marked so; a line number is whole or a decimal
			if (kept.line !== undefined && !Number.isInteger(kept.line)) kept.snapToLines = false;
			if (kept.line === undefined) delete kept.lineAlign;
			if (kept.position === undefined) delete kept.positionAlign;
			return kept;
		}),
	{ nil: undefined },
);

/** Text cut into runs with random italics, bold and underline (undefined when none is styled). */
export function styledRuns(text: string): fc.Arbitrary<TextRun[] | undefined> {
	const chars = Array.from(text);
	return fc
		.array(
			fc.record({
				cut: fc.nat(),
				italic: fc.boolean(),
				bold: fc.boolean(),
				underline: fc.boolean(),
			}),
			{
				maxLength: 4,
			},
		)
		.map((marks) => {
			if (chars.length === 0 || marks.length === 0) return undefined;
			const cuts = [...new Set(marks.map((mark) => mark.cut % chars.length))].sort((a, b) => a - b);
			const runs: TextRun[] = [];
			cuts.forEach((at, index) => {
				if (index === 0 && at > 0) runs.push({ text: chars.slice(0, at).join('') });
				const mark = marks[index];
				const run: TextRun = { text: chars.slice(at, cuts[index + 1] ?? chars.length).join('') };
				if (mark.italic) run.italic = true;
				if (mark.bold) run.bold = true;
				if (mark.underline) run.underline = true;
				runs.push(run);
			});
			return runs.some((run) => run.italic || run.bold || run.underline) ? runs : undefined;
		});
}

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
			settings,
			styled: fc.boolean(),
		})
		.chain((made) =>
			(made.styled ? styledRuns(made.text) : fc.constant(undefined)).map((runs) => ({
				...made,
				runs,
			})),
		)
		.map(({ startMs, durationMs, voice, identifier, settings, text, runs }) => {
			const made: Cue = { startMs, endMs: startMs + durationMs, text };
			if (runs !== undefined) made.runs = runs;
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
