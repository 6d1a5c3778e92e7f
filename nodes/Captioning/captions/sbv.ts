// SubViewer as YouTube reads and writes it (.sbv): a block per cue, "h:mm:ss.ttt,h:mm:ss.ttt" and then its lines;
// "[br]" in a line is a line break (SubViewer's own, read as subsrt-ts reads it).
import { CaptionFormatError } from './errors';
import { cleanVoice, namedRuns } from './styling';
import { formatSbvTimestamp, parseSbvTimestamp } from './time';
import type { CaptionDocument, CaptionFormat, Cue, WarningSink } from './types';
import { isBlank, LineCursor, trimmedLines } from './lines';
import { excerpt, lineWarning, linesLabel, Warnings } from './warnings';
import { EmptyCuesLeftOut, inTimeOrder, TextBuilder, writtenTimes } from './writing';

interface SbvFormatOptions {
	/** Prefix each cue with its speaker (`Roger: ...`), since SBV has no voice markup. */
	includeVoice?: boolean;
}

const TIMING = /^\s*([^,\s]+)\s*,\s*([^,\s]+)\s*$/;

const BREAK = /\[br\]/gi;

/** The lines of a cue as SBV keeps them, joined: trimmed, empty ones left out (they would end the block). */
const sbvText = trimmedLines;

/** A cue's lines as read: "[br]" a line break, then trimmed as SBV keeps them. */
const readLines = (lines: readonly string[]) => {
	const text = lines.join('\n');
	return sbvText(text.includes('[') ? text.replace(BREAK, '\n') : text);
};

const looksLikeTiming = (line: string) => /^\s*\d+:\d/.test(line);

/**
 * Reads SBV: blocks separated by blank lines, each a timing line and its text. A block whose timing line cannot be
 * read is left out; a block of text without one, after a cue, is kept in that cue (it followed a blank line inside
 * it); each is named in `warnings`. Throws `CaptionFormatError` when the content holds no cue at all.
 */
export function readSbv(content: string): CaptionDocument {
	const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
	const lines = new LineCursor(text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text);
	const cues: Cue[] = [];
	const warnings = new Warnings();
	let lastBlockWasCue = false;
	let firstText = -1;
	let firstLine = '';
	while (!lines.done) {
		if (isBlank(lines.peek())) {
			lines.next();
			continue;
		}
		const first = lines.index;
		if (firstText === -1) {
			firstText = first;
			firstLine = lines.peek()!;
		}
		const block: string[] = [];
		while (!lines.done && !isBlank(lines.peek())) block.push(lines.next());
		const i = lines.index;
		const timing = TIMING.exec(block[0]);
		const startMs = timing ? parseSbvTimestamp(timing[1]) : undefined;
		const endMs = timing ? parseSbvTimestamp(timing[2]) : undefined;
		if (startMs !== undefined && endMs !== undefined) {
			cues.push({ startMs, endMs, text: readLines(block.slice(1)) });
			lastBlockWasCue = true;
			continue;
		}
		const where = linesLabel(first + 1, i);
		if (looksLikeTiming(block[0])) {
			const text = readLines(block.slice(1));
			warnings.add(
				lineWarning(
					first + 1,
					block[0],
					`The timing line ${JSON.stringify(excerpt(block[0]))} cannot be read; write it as "0:00:01.500,0:00:04.000". The cue was left out${text === '' ? '.' : ` with its text: "${excerpt(text)}"`}`,
				),
			);
			lastBlockWasCue = false;
		} else if (lastBlockWasCue) {
			const cue = cues[cues.length - 1];
			const more = readLines(block);
			cue.text = cue.text === '' ? more : `${cue.text}\n${more}`;
			warnings.add(
				lineWarning(
					first + 1,
					block.join('\n'),
					`The text at ${where} follows a blank line inside cue ${cues.length}: kept in that cue. Remove the blank line to show this text with the cue.`,
				),
			);
		} else {
			warnings.add(
				lineWarning(
					first + 1,
					block.join('\n'),
					`The text at ${where} has no timing line such as "0:00:01.500,0:00:04.000" before it and was left out.`,
				),
			);
		}
	}
	if (cues.length === 0 && content.trim() !== '') {
		throw new CaptionFormatError(
			`expected an SBV timing line such as "0:00:01.500,0:00:04.000" but found ${JSON.stringify(excerpt(firstLine.trim()))}; check that the right caption format was chosen.`,
			{ line: firstText + 1 },
		);
	}
	return warnings.count > 0 ? { cues, warnings: warnings.list() } : { cues };
}

/** The cues of an SBV file (readSbv without its warnings). */
export function parseSbv(content: string): Cue[] {
	return readSbv(content).cues;
}

/**
 * Writes SBV: cues ordered by start. A cue without text is left out (a blank line would end the block) and
 * reported to `warn`, as is a cue that ends before it starts (written as it is).
 */
export function formatSbv(
	cues: readonly Cue[],
	options: SbvFormatOptions = {},
	warn?: WarningSink,
): string {
	const out = new TextBuilder();
	let number = 0;
	const empty = new EmptyCuesLeftOut();
	for (const cue of inTimeOrder(cues, 'SBV', warn)) {
		let text = sbvText(cue.text);
		if (text === '') {
			empty.add(cue);
			continue;
		}
		if (options.includeVoice && (cleanVoice(cue.voice) || cue.runs)) {
			text = sbvText(
				namedRuns({ ...cue, text, runs: cue.runs && text === cue.text ? cue.runs : undefined })
					.map((run) => run.text)
					.join(''),
			);
		}
		const { startMs, endMs } = writtenTimes(cue, ++number, warn);
		out.add(
			`${number === 1 ? '' : '\n'}${formatSbvTimestamp(startMs)},${formatSbvTimestamp(endMs)}\n${text}\n`,
		);
	}
	empty.report('SBV', warn);
	return out.toString();
}

export const sbvFormat: CaptionFormat = {
	id: 'sbv',
	label: 'SBV (YouTube)',
	description: 'A SubViewer file, as YouTube Studio uploads and downloads captions',
	mimeType: 'text/plain',
	extension: 'sbv',
	producedByService: false,
	wordTimings: false,
	output: { kind: 'file' },
	detect: (start) => /^\d+:\d{2}:\d{2}\.\d{3},/.test(start),
	urlPattern: /\.sbv(\?|$)/i,
	parse: (content) => readSbv(content),
	render: (document, options, warn) => formatSbv(document.cues, options, warn),
};
