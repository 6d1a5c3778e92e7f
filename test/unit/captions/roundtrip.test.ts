// Property tests over generated cues (any Unicode, markup-like text, lines that look like numbers or timing lines,
// blank-looking lines, styles, settings, times beyond 99 hours), for every format this package writes:
// - no word is lost: what a format's reader gives back holds every word written, except what the writer said it
//   could not write (SRT has no escape for text that reads as a tag);
// - each format reads back what it wrote, on the common model (parse(render(cues)) equals the cues as the format
//   keeps them);
// - an independent parser reads what it wrote alike: webvtt-parser (WebVTT), subtitle and subsrt-ts (SRT),
//   subsrt-ts (SBV), fast-xml-parser with the IMSC 1.1 Text Profile's structure (TTML).
// CAPTIONS_PROPERTY_RUNS sets the runs of each (150 in npm test).
import fc from 'fast-check';
import subsrt from 'subsrt-ts';
import { parseSync } from 'subtitle';

import {
	type CaptionWarning,
	carryStyles,
	type Cue,
	formatCueSettings,
	formatSbv,
	formatSrt,
	formatTtml,
	formatVtt,
	parseCueSettings,
	parseSbv,
	parseSrt,
	parseVtt,
	tokenize,
} from '../../../nodes/Captioning/captions';
import { cues, keptLines, RUNS } from './arbitraries';
import { independentParse, parseImscText, timings } from './helpers';

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();
// WebVTT reads NUL as U+FFFD (the spec's preprocessing)
const nul = (text: string) => text.replace(/\0/g, '\ufffd');
const words = (text: string) => tokenize(text);

/** The characters of a cue that are not white space, each with its style: what styling must keep. */
function visibleStyles(cue: Pick<Cue, 'text' | 'runs'>): string[] {
	return (cue.runs ?? [{ text: cue.text }]).flatMap((run) =>
		Array.from(run.text)
			.filter((char) => !/\s/.test(char))
			.map(
				(char) =>
					`${char}${run.italic ? 'i' : ''}${run.bold ? 'b' : ''}${run.underline ? 'u' : ''}`,
			),
	);
}

/** Text as a WebVTT payload holds it: LF line breaks, empty lines left out, nothing when it is blank. */
function vttText(text: string): string {
	const lines = nul(text)
		.split(/\r\n|\r|\n/)
		.filter((line) => line !== '')
		.join('\n');
	return lines.trim() === '' ? '' : lines;
}

/** A cue as WebVTT keeps it: its text as above, a usable identifier, the settings it can write, a voice with text. */
function asVtt(cue: Cue): Cue {
	const text = vttText(cue.text);
	const kept: Cue = { startMs: cue.startMs, endMs: cue.endMs, text };
	if (cue.runs && text !== '') {
		const runs = carryStyles(
			[
				{
					...cue,
					text: nul(cue.text),
					runs: cue.runs.map((run) => ({ ...run, text: nul(run.text) })),
				},
			],
			[{ ...cue, text }],
		)[0].runs;
		if (runs) kept.runs = runs;
	}
	const identifier = nul(cue.identifier ?? '').replace(/[\r\n]+/g, ' ');
	if (
		identifier !== '' &&
		!identifier.includes('-->') &&
		!/^(NOTE|STYLE|REGION)([ \t]|$)/.test(identifier)
	) {
		kept.identifier = identifier;
	}
	const voice = collapse(nul(cue.voice ?? ''));
	if (voice !== '' && text !== '') kept.voice = voice;
	const settings = parseCueSettings(formatCueSettings(cue.settings) ?? '');
	if (settings !== undefined) kept.settings = settings;
	return kept;
}

/** Compares what styling keeps (the style of each visible character) rather than where runs are cut. */
const comparable = (cue: Cue) => {
	const rest: Cue = { ...cue };
	delete rest.runs;
	return { ...rest, styles: visibleStyles(cue) };
};

describe('WebVTT', () => {
	it('loses no word: every cue reads back with the words it was written with', () => {
		fc.assert(
			fc.property(cues(), (list) => {
				const read = parseVtt(formatVtt(list));
				expect(read.map((cue) => words(cue.text))).toEqual(list.map((cue) => words(nul(cue.text))));
			}),
			RUNS,
		);
	});

	it('reads back every cue it writes: times, text, styles, voice, identifier, settings', () => {
		fc.assert(
			fc.property(cues(), (list) => {
				expect(parseVtt(formatVtt(list)).map(comparable)).toEqual(list.map(asVtt).map(comparable));
			}),
			RUNS,
		);
	});

	it('writes files the w3c parser reads without an error, with the same cues', () => {
		fc.assert(
			fc.property(cues(), (list) => {
				const vtt = formatVtt(list);
				const independent = independentParse(vtt);
				expect(independent.errors).toEqual([]);
				// it orders cues that start together by their end
				expect(timings(independent.cues)).toEqual(timings(list));
			}),
			RUNS,
		);
	});
});

/** subsrt-ts's raw text of a cue: CRLF lines, the file's last line break kept. */
const plainText = (content: string) => content.replace(/\r\n/g, '\n').replace(/\n+$/, '');

describe('SRT', () => {
	it('loses no word of a cue it does not report, and reports what it cannot write', () => {
		fc.assert(
			fc.property(cues(), (list) => {
				for (const cue of list) {
					const warnings: CaptionWarning[] = [];
					const srt = formatSrt([cue], {}, (warning) => warnings.push(warning));
					const read = srt === '' ? [] : parseSrt(srt);
					if (warnings.length > 0) continue;
					expect(read.flatMap((one) => words(one.text))).toEqual(words(cue.text));
					expect(read.flatMap(visibleStyles)).toEqual(visibleStyles(cue));
				}
			}),
			RUNS,
		);
	});

	it('reports only text that reads as a tag or holds "-->", and cues without text (left out)', () => {
		fc.assert(
			fc.property(cues(), (list) => {
				for (const cue of list) {
					let warned = false;
					formatSrt([cue], {}, () => (warned = true));
					const blank = keptLines(cue.text).length === 0;
					if (warned) expect(blank || /<|>|\{|-->/.test(cue.text)).toBe(true);
					else expect(blank).toBe(false);
				}
			}),
			RUNS,
		);
	});

	it('writes any text so that reading it back and writing again changes nothing', () => {
		fc.assert(
			fc.property(cues(), (list) => {
				const srt = formatSrt(list);
				const read = parseSrt(srt);
				expect(formatSrt(read)).toBe(srt);
				expect(read.every((cue) => !cue.text.includes('-->'))).toBe(true);
			}),
			RUNS,
		);
	});

	it('writes files that subtitle and subsrt-ts read alike (subsrt-ts only below 100 hours)', () => {
		const read = (srt: string) =>
			parseSrt(srt).map(({ startMs, endMs, text }) => [startMs, endMs, text]);
		// they read the tags as text: the cues' plain text is compared
		const plain = (list: Cue[]) => list.map(({ runs: _runs, ...cue }) => cue);
		fc.assert(
			fc.property(cues({ maxHours: 99 }), (list) => {
				const srt = formatSrt(plain(list));
				const bySubsrt = subsrt
					.parse(srt, { format: 'srt' })
					.flatMap((c) => (c.type === 'caption' ? [[c.start, c.end, plainText(c.content)]] : []));
				expect(bySubsrt).toEqual(read(srt));
				// subtitle drops lines starting with NOTE (a WebVTT comment) in SRT as well
				const withoutNote = formatSrt(plain(list).filter((cue) => !/NOTE/.test(cue.text)));
				const bySubtitle = parseSync(withoutNote).flatMap((node) =>
					node.type === 'cue' ? [[node.data.start, node.data.end, node.data.text]] : [],
				);
				expect(bySubtitle).toEqual(read(withoutNote));
			}),
			RUNS,
		);
	});
});

/** Times and text only, as SRT and SBV keep them: cues without text left out (TTML keeps them: `keepEmpty`). */
function timedText(list: readonly Cue[], line?: (text: string) => string, keepEmpty = false) {
	return list
		.map((cue) => ({
			startMs: cue.startMs,
			endMs: cue.endMs,
			text: keptLines(cue.text, line).join('\n'),
		}))
		.filter((cue) => keepEmpty || cue.text !== '');
}

describe('SBV', () => {
	it('loses no word, and reads back the times and text of every cue it writes, beyond 99 hours too', () => {
		fc.assert(
			fc.property(cues(), (list) => {
				const read = parseSbv(formatSbv(list));
				expect(read).toEqual(timedText(list));
				expect(read.flatMap((cue) => words(cue.text))).toEqual(
					list.flatMap((cue) => words(cue.text)),
				);
			}),
			RUNS,
		);
	});

	it('writes files subsrt-ts reads alike (below 100 hours: it reads no more)', () => {
		fc.assert(
			fc.property(cues({ maxHours: 99 }), (list) => {
				const sbv = formatSbv(list);
				const bySubsrt = subsrt
					.parse(sbv, { format: 'sbv' })
					.flatMap((c) => (c.type === 'caption' ? [[c.start, c.end, plainText(c.content)]] : []));
				expect(bySubsrt).toEqual(
					parseSbv(sbv).map(({ startMs, endMs, text }) => [startMs, endMs, text]),
				);
			}),
			RUNS,
		);
	});
});

// Characters XML 1.0 cannot hold, and unpaired surrogates: left out of TTML.
const NOT_XML =
	// eslint-disable-next-line no-control-regex
	/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

describe('TTML (IMSC 1.1 Text Profile)', () => {
	const xmlSpace = (line: string) =>
		line
			.replace(NOT_XML, '')
			.replace(/[ \t]+/g, ' ')
			.replace(/^ | $/g, '');

	it('writes well-formed IMSC text documents that an XML parser reads back cue for cue, no word lost', () => {
		fc.assert(
			fc.property(cues(), (list) => {
				const read = parseImscText(formatTtml(list));
				expect(read.map(({ startMs, endMs, text }) => ({ startMs, endMs, text }))).toEqual(
					timedText(list, xmlSpace, true),
				);
				expect(read.flatMap((cue) => words(cue.text))).toEqual(
					list.flatMap((cue) => words(cue.text.replace(NOT_XML, ''))),
				);
			}),
			RUNS,
		);
	});

	it('keeps italics, bold and underline as styled spans', () => {
		fc.assert(
			fc.property(cues(), (list) => {
				const read = parseImscText(formatTtml(list));
				const written = list.map((cue) =>
					timedText([cue], xmlSpace).length > 0 ? cue : { ...cue, text: '', runs: undefined },
				);
				const notXml = new RegExp(NOT_XML.source);
				const strip = (styles: string[]) => styles.filter((entry) => !notXml.test(entry[0]));
				expect(read.map((cue) => strip(visibleStyles(cue)))).toEqual(
					written.map((cue) =>
						strip(
							visibleStyles({
								text: cue.text,
								runs: cue.runs?.map((run) => ({ ...run, text: run.text.replace(NOT_XML, '') })),
							}),
						),
					),
				);
			}),
			RUNS,
		);
	});
});
