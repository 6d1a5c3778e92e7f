import fc from 'fast-check';

import {
	CaptionFormatError,
	type Cue,
	cuesFromItems,
	cuesToSegments,
	parseVtt,
	readCaptions,
	tokenize,
	writeCaptionFile,
} from '../../../nodes/Captioning/captions';
import { cleanVoice } from '../../../nodes/Captioning/captions/styling';
import { cues, RUNS } from './arbitraries';
import { fixture, thrown } from './helpers';

describe('cuesFromItems', () => {
	it('reads items as Convert writes segments: times, text, speaker and styles', () => {
		const { cues: read, warnings } = cuesFromItems([
			{
				start: 1.5,
				end: 4,
				startTime: '00:00:01.500',
				endTime: '00:00:04.000',
				text: 'Hello there.',
				voice: 'Anna',
			},
			{ startTime: '00:00:05.000', endTime: '01:00:07.250', text: 'Second', speaker: 'Ben' },
			{ start: '8', end: '9.125', text: 'It is fine.', styledText: 'It is <i>fine</i>.' },
			{ start: 10, end: 11, text: 'Ready? Yes.', styledText: '<v Anna>Ready?</v> <v Ben>Yes.</v>' },
			{ start: 12, end: 13, text: '' },
		]);
		expect(read).toEqual([
			{ startMs: 1500, endMs: 4000, text: 'Hello there.', voice: 'Anna' },
			{ startMs: 5000, endMs: 3_607_250, text: 'Second', voice: 'Ben' },
			{
				startMs: 8000,
				endMs: 9125,
				text: 'It is fine.',
				runs: [{ text: 'It is ' }, { text: 'fine', italic: true }, { text: '.' }],
			},
			{
				startMs: 10_000,
				endMs: 11_000,
				text: 'Ready? Yes.',
				runs: [{ text: 'Ready?', voice: 'Anna' }, { text: ' ' }, { text: 'Yes.', voice: 'Ben' }],
			},
			{ startMs: 12_000, endMs: 13_000, text: '' },
		]);
		expect(warnings).toEqual([]);
	});

	it('takes the text of a field that holds it, and the text rather than a styledText that says otherwise', () => {
		const { cues: read, warnings } = cuesFromItems(
			[
				{
					start: 1,
					end: 2,
					text: 'Good <i>morning</i>',
					styledText: 'Good <i>morning</i>',
					german: 'Guten Morgen',
				},
			],
			{ textField: 'german' },
		);
		expect(read).toEqual([{ startMs: 1000, endMs: 2000, text: 'Guten Morgen' }]);
		expect(warnings).toEqual([
			{
				cue: 1,
				text: 'Guten Morgen',
				message:
					'Item 1: its styledText says something else than its text (the text was changed, e.g. translated, and styledText not): the text is taken, without its styles and speakers. Translate styledText instead, or remove it.',
			},
		]);
	});

	it('lays lines out again to a profile’s limits, styles kept', () => {
		const { cues: read } = cuesFromItems(
			[
				{
					start: 0,
					end: 4,
					text: 'Nobody had ever seen the enormous red balloon over the village',
					styledText: 'Nobody had ever seen the <i>enormous</i> red balloon over the village',
				},
			],
			{ layout: { maxLineChars: 42, maxLines: 2 } },
		);
		expect(read[0].text).toBe('Nobody had ever seen the enormous\nred balloon over the village');
		expect(read[0].runs?.find((run) => run.italic)).toEqual({ text: 'enormous', italic: true });
	});

	it.each([
		[[{ end: 2, text: 'x' }], 'Item 1: it has neither "start" nor "startTime".'],
		[
			[
				{ start: 1, end: 2, text: 'x' },
				{ start: 'soon', end: 2, text: 'y' },
			],
			'Item 2: "start" ',
		],
		[
			[{ startTime: 'noon', endTime: '00:00:02.000', text: 'x' }],
			'Item 1: "startTime" is "noon", not a time',
		],
		[[{ start: 1, end: 2 }], 'Item 1: it has no "text" field.'],
		[[{ start: 1, end: 2, text: 42 }], 'Item 1: "text" is number, not text.'],
		[['a string'], 'Item 1: it is not an object with the fields of a cue'],
	])('refuses items that are no cue, naming the item and the field: %j', (items, message) => {
		const error = thrown(() => cuesFromItems(items));
		expect(error).toBeInstanceOf(CaptionFormatError);
		expect(error.message.startsWith(message)).toBe(true);
		expect(error.message).toContain('as Convert writes Segments JSON');
		expect(error.item).toBe(Number(/^Item (\d+)/.exec(message)![1]) - 1);
	});
});

/**
 * The words of text in scripts written with spaces: tokens with a letter or digit, without the punctuation around
 * them (segments join a cue's lines into one, which joins a line of punctuation alone to the word before it). Text
 * written without spaces (CJK) is joined without them, and is compared by its characters (shown).
 */
const words = (text: string) =>
	// the ideographic space (U+3000) is white space, not CJK text: a cue of it and a digit has the digit's word
	/[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/.test(text.replace(/\s/gu, ''))
		? []
		: tokenize(text)
				.filter((token) => /[\p{L}\p{N}]/u.test(token))
				.map((token) => token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));

/** The characters shown, each with its style and speaker: what the round trip must keep. */
function shown(cue: Cue): string[] {
	return (cue.runs ?? [{ text: cue.text }]).flatMap((run) =>
		Array.from(run.text)
			.filter((char) => !/\s/.test(char))
			.map(
				(char) =>
					`${char}${run.italic ? 'i' : ''}${run.bold ? 'b' : ''}${run.underline ? 'u' : ''}${run.voice ?? cleanVoice(cue.voice) ?? ''}`,
			),
	);
}

describe('segments out, items in', () => {
	const roundTrip = (list: readonly Cue[]) =>
		cuesFromItems(JSON.parse(JSON.stringify(cuesToSegments(list))) as unknown[]).cues;

	it('gives the same cues: times to the millisecond, words, speakers and styles', () => {
		// found by a random run: an ideographic space before a digit once counted the cue as CJK (no words)
		const spaced = [{ startMs: 0, endMs: 1000, text: '\u3000 \n0' }];
		expect(roundTrip(spaced).map((cue) => words(cue.text))).toEqual([['0']]);
		expect(words('\u3000 \n0')).toEqual(['0']);
		fc.assert(
			fc.property(cues(), (list) => {
				const back = roundTrip(list);
				expect(back.map((cue) => [cue.startMs, cue.endMs])).toEqual(
					list.map((cue) => [cue.startMs, cue.endMs]),
				);
				expect(back.map((cue) => words(cue.text))).toEqual(list.map((cue) => words(cue.text)));
				expect(back.map(shown)).toEqual(list.map(shown));
			}),
			RUNS,
		);
	});

	it.each(['keynote.vtt', 'panel-overlapping.vtt', 'marathon-stream.vtt'])(
		'gives the cues of %s back, and writes them as WebVTT with the same times',
		(name) => {
			// segments are in time order
			const list = parseVtt(fixture(name)).sort((a, b) => a.startMs - b.startMs);
			const back = roundTrip(list);
			expect(back.map(shown)).toEqual(list.map(shown));
			const vtt = writeCaptionFile('vtt', { cues: back }).content;
			expect(readCaptions('vtt', vtt).cues.map((cue) => [cue.startMs, cue.endMs])).toEqual(
				list.map((cue) => [cue.startMs, cue.endMs]),
			);
		},
	);
});

describe('writeCaptionFile', () => {
	it('writes caption files only, naming them when asked for another format', () => {
		expect(writeCaptionFile('srt', { cues: [{ startMs: 0, endMs: 1000, text: 'Hi' }] })).toEqual({
			content: '1\n00:00:00,000 --> 00:00:01,000\nHi\n',
			warnings: [],
			mimeType: 'application/x-subrip',
			fileExtension: 'srt',
		});
		expect(() => writeCaptionFile('segments', { cues: [] })).toThrow(
			'Cannot write captions as "segments": the caption files this package writes are vtt (WebVTT), srt (SRT), sbv (SBV (YouTube)), ttml (TTML (IMSC 1.1)).',
		);
	});
});
