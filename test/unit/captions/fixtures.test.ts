// Every caption file of the fixtures (ours, written for these tests, and the vendored vtt.js and W3C files) read, and
// written in every output format, Fix included with every profile: no word is lost or changed without a warning,
// and every cue keeps its times to the millisecond. The files written by a caption format are read back with this
// package's readers (TTML with an independent XML parser); plain text, segments and chunks are compared word by word.
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

import {
	CAPTION_PROFILES,
	captionData,
	type CaptionDocument,
	CaptionFormatError,
	type CaptionWarning,
	type Cue,
	decodeCaptionBytes,
	fixCaptions,
	MAX_WARNINGS,
	readCaptions,
	renderCaptions,
	type Segment,
	tokenize,
	type TranscriptChunk,
} from '../../../nodes/Captioning/captions';
import { cleanVoice, voicesOf } from '../../../nodes/Captioning/captions/styling';
import { isRollUp, withoutRolledOverLines } from '../../../nodes/Captioning/captions/text';
import { parseImscText } from './helpers';

const FIXTURES = join(__dirname, '../../fixtures');
const FORMAT_OF: Record<string, string> = {
	vtt: 'vtt',
	srt: 'srt',
	sbv: 'sbv',
	json: 'google_stt',
};

/** Every caption file of the fixtures, with the format its name says. */
function captionFiles(): Array<[name: string, format: string]> {
	const found: Array<[string, string]> = [];
	const walk = (folder: string) => {
		for (const entry of readdirSync(join(FIXTURES, folder), { withFileTypes: true })) {
			const path = `${folder}/${entry.name}`;
			if (entry.isDirectory()) {
				// the files the W3C parser must reject are no captions
				if (entry.name !== 'must-reject') walk(path);
				continue;
			}
			const extension = entry.name.split('.').pop()!;
			if (entry.name === 'manifest.json' || entry.name.endsWith('.json')) {
				// vtt.js's expectations and wpt's are JSON too: only Google STT files are captions
				if (!entry.name.endsWith('.google_stt.json') && !/^empty-/.test(entry.name)) continue;
			}
			if (FORMAT_OF[extension]) found.push([path, FORMAT_OF[extension]]);
		}
	};
	walk('captions');
	walk('vttjs');
	walk('wpt-webvtt');
	return found.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The file read as the nodes read it (bytes decoded), or undefined when it is not a file of its format at all. */
function read(name: string, format: string): CaptionDocument | undefined {
	const { text } = decodeCaptionBytes(readFileSync(join(FIXTURES, name)));
	try {
		return readCaptions(format, text);
	} catch (error) {
		if (error instanceof CaptionFormatError) return undefined;
		throw error;
	}
}

const UNSPACED = /[\u2e80-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/**
 * The words of a text: its tokens with a letter or digit, without the punctuation around them (continuation dots,
 * quotes), the characters of text written without spaces one by one (it is joined without them).
 */
function wordsOf(text: string): string[] {
	return tokenize(text).flatMap((token) => {
		const word = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
		if (!/[\p{L}\p{N}]/u.test(word)) return [];
		return UNSPACED.test(word) ? Array.from(word.replace(/[^\p{L}\p{N}]/gu, '')) : [word];
	});
}

const inTimeOrder = (cues: readonly Cue[]) =>
	cues
		.map((cue, index) => ({ cue, index }))
		.sort((a, b) => a.cue.startMs - b.cue.startMs || a.index - b.index)
		.map(({ cue }) => cue);

/** The warnings of a writer that name cue `number` (1-based, as written). */
const warnedCue = (warnings: readonly CaptionWarning[], number: number) =>
	warnings.some((warning) => warning.cue === number);

/** Whether `part` is found in `whole` in order (other words may come between). */
function inOrder(part: readonly string[], whole: readonly string[]): boolean {
	let at = 0;
	for (const word of whole) if (at < part.length && word === part[at]) at++;
	return at === part.length;
}

/** What a caption format gives back of cues it wrote: each cue's times and words, and the warnings of writing. */
function roundTrip(from: string, to: string, document: CaptionDocument) {
	const written = renderCaptions(from, to, document);
	const back =
		to === 'ttml'
			? parseImscText(written.content).map(({ startMs, endMs, text }) => ({ startMs, endMs, text }))
			: readCaptions(to, written.content).cues;
	return { back, warnings: written.warnings, content: written.content };
}

/**
 * Every cue the format holds comes back with its times and words, or a warning names it: SRT and SBV leave cues
 * without text out (one warning), SRT leaves out text that reads as a tag (a warning per cue).
 */
function expectKept(
	cues: readonly Cue[],
	to: string,
	document: CaptionDocument,
	from: string,
): void {
	const { back, warnings } = roundTrip(from, to, { ...document, cues: [...cues] });
	expect(warnings.length).toBeLessThanOrEqual(MAX_WARNINGS + 1);
	const holdsEmpty = to === 'vtt' || to === 'ttml';
	const expected = inTimeOrder(cues).filter((cue) => holdsEmpty || cue.text.trim() !== '');
	let at = 0;
	back.forEach((cue, index) => {
		// a cue left out (no text in SRT or SBV once its tags are gone) is skipped, with a warning
		while (
			at < expected.length &&
			(expected[at].startMs !== cue.startMs ||
				Math.max(0, Math.round(expected[at].endMs)) !== cue.endMs)
		) {
			expect(warnings.some((warning) => /left out/.test(warning.message))).toBe(true);
			at++;
		}
		const source = expected[at++];
		expect([to, index, cue.startMs, cue.endMs]).toEqual([
			to,
			index,
			source?.startMs,
			source?.endMs,
		]);
		if (!warnedCue(warnings, index + 1)) {
			expect([to, index, wordsOf(cue.text)]).toEqual([to, index, wordsOf(source.text)]);
		}
	});
	for (const missed of expected.slice(at)) {
		expect([to, missed.startMs, wordsOf(missed.text)]).toEqual([to, missed.startMs, []]);
	}
}

/** The words a transcript must hold: every cue's, in time order; roll-up captions' repeated lines once. */
function spokenWords(cues: readonly Cue[]): string[] {
	const ordered = inTimeOrder(cues);
	const kept = isRollUp(ordered) ? withoutRolledOverLines(ordered).cues : ordered;
	return kept.flatMap((cue) => wordsOf(cue.text));
}

/** The words speakers' names add to a transcript ("Anna: " at a paragraph's start). */
function nameWords(cues: readonly Cue[]): Set<string> {
	return new Set(
		cues.flatMap((cue) => voicesOf(cue).flatMap((voice) => wordsOf(cleanVoice(voice) ?? ''))),
	);
}

const files = captionFiles();

describe('every fixture, through every output format', () => {
	it('reads the fixtures: ours, vtt.js’s and the W3C’s', () => {
		expect(files.length).toBeGreaterThan(300);
		expect(files.filter(([name]) => name.startsWith('captions/')).length).toBeGreaterThanOrEqual(
			20,
		);
	});

	describe.each(files)('%s', (name, format) => {
		const document = read(name, format);
		if (document === undefined) {
			it('is not a file of its format (the reader refuses it, saying why)', () => {
				expect(read(name, format)).toBeUndefined();
			});
			return;
		}
		const cues = document.cues;

		it('lists at most 100 warnings and a count', () => {
			expect((document.warnings ?? []).length).toBeLessThanOrEqual(MAX_WARNINGS + 1);
		});

		it.each(['vtt', 'srt', 'sbv', 'ttml'])(
			'written as %s and read back: every cue’s times to the millisecond and its words, or a warning',
			(to) => expectKept(cues, to, document, format),
		);

		it('as plain text and transcript chunks: every word in order, roll-up lines once, speakers named', () => {
			const expected = spokenWords(cues);
			const names = nameWords(cues);
			for (const to of ['text', 'chunks']) {
				const value = captionData(to, document, {});
				const text =
					to === 'text'
						? (value as string)
						: (value as TranscriptChunk[]).map((chunk) => chunk.text).join('\n\n');
				const words = wordsOf(text);
				expect([to, inOrder(expected, words)]).toEqual([to, true]);
				// nothing else: the speakers' names are the only words a transcript adds
				expect([to, words.length - expected.length >= 0]).toEqual([to, true]);
				const extra = [...words];
				for (const word of expected) extra.splice(extra.indexOf(word), 1);
				expect([to, extra.filter((word) => !names.has(word))]).toEqual([to, []]);
			}
		});

		it('as segments: one per cue, with its times and words', () => {
			const segments = captionData('segments', document, {}) as Segment[];
			const ordered = inTimeOrder(cues);
			expect(
				segments.map((segment) => [
					Math.round(segment.start * 1000),
					Math.round(segment.end * 1000),
					wordsOf(segment.text),
				]),
			).toEqual(ordered.map((cue) => [cue.startMs, cue.endMs, wordsOf(cue.text)]));
		});

		it.each(CAPTION_PROFILES.map((profile) => [profile.id, profile.limits] as const))(
			'fixed to %s: every word in order (roll-up lines once, said in warnings), and every format keeps the fixed cues',
			(_, limits) => {
				const fixed = fixCaptions(document, limits, { maxUnfixable: 10 });
				const rollUp = isRollUp(inTimeOrder(cues));
				expect(fixed.cues.flatMap((cue) => wordsOf(cue.text))).toEqual(spokenWords(cues));
				expect(fixed.warnings.length > 0).toBe(rollUp && fixed.changes.removedRepeatedLines > 0);
				for (const to of ['vtt', 'srt', 'sbv', 'ttml'])
					expectKept(fixed.cues, to, document, format);
			},
		);
	});
});
