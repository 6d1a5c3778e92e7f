// SubViewer as YouTube reads and writes it (.sbv): a block per cue, "h:mm:ss.ttt,h:mm:ss.ttt" and then its lines.
import { CaptionFormatError } from './errors';
import { byStart, formatSbvTimestamp, parseSbvTimestamp } from './time';
import type { CaptionDocument, CaptionFormat, CaptionWarning, Cue } from './types';
import { fileLines, isBlank, trimmedLines } from './lines';
import { excerpt, lineWarning, linesLabel } from './warnings';

interface SbvFormatOptions {
	/** Prefix each cue with its speaker (`Roger: ...`), since SBV has no voice markup. */
	includeVoice?: boolean;
}

const TIMING = /^\s*([^,\s]+)\s*,\s*([^,\s]+)\s*$/;

/** The lines of a cue as SBV keeps them, joined: trimmed, empty ones left out (they would end the block). */
const sbvText = trimmedLines;

const looksLikeTiming = (line: string) => /^\s*\d+:\d/.test(line);

/**
 * Reads SBV: blocks separated by blank lines, each a timing line and its text. A block whose timing line cannot be
 * read is left out; a block of text without one, after a cue, is kept in that cue (it followed a blank line inside
 * it); each is named in `warnings`. Throws `CaptionFormatError` when the content holds no cue at all.
 */
export function readSbv(content: string): CaptionDocument {
	const lines = fileLines(content.replace(/^\uFEFF/, ''));
	const cues: Cue[] = [];
	const warnings: CaptionWarning[] = [];
	let lastBlockWasCue = false;
	let i = 0;
	while (i < lines.length) {
		if (isBlank(lines[i])) {
			i++;
			continue;
		}
		const first = i;
		while (i < lines.length && !isBlank(lines[i])) i++;
		const block = lines.slice(first, i);
		const timing = TIMING.exec(block[0]);
		const startMs = timing ? parseSbvTimestamp(timing[1]) : undefined;
		const endMs = timing ? parseSbvTimestamp(timing[2]) : undefined;
		if (startMs !== undefined && endMs !== undefined) {
			cues.push({ startMs, endMs, text: sbvText(block.slice(1).join('\n')) });
			lastBlockWasCue = true;
			continue;
		}
		const where = linesLabel(first + 1, i);
		if (looksLikeTiming(block[0])) {
			const text = sbvText(block.slice(1).join('\n'));
			warnings.push(
				lineWarning(
					first + 1,
					block[0],
					`The timing line ${JSON.stringify(excerpt(block[0]))} cannot be read; write it as "0:00:01.500,0:00:04.000". The cue was left out${text === '' ? '.' : ` with its text: "${excerpt(text)}"`}`,
				),
			);
			lastBlockWasCue = false;
		} else if (lastBlockWasCue) {
			const cue = cues[cues.length - 1];
			const more = sbvText(block.join('\n'));
			cue.text = cue.text === '' ? more : `${cue.text}\n${more}`;
			warnings.push(
				lineWarning(
					first + 1,
					block.join('\n'),
					`The text at ${where} follows a blank line inside cue ${cues.length}: kept in that cue. Remove the blank line to show this text with the cue.`,
				),
			);
		} else {
			warnings.push(
				lineWarning(
					first + 1,
					block.join('\n'),
					`The text at ${where} has no timing line such as "0:00:01.500,0:00:04.000" before it and was left out.`,
				),
			);
		}
	}
	if (cues.length === 0 && content.trim() !== '') {
		const firstLine = lines.findIndex((line) => !isBlank(line));
		throw new CaptionFormatError(
			`expected an SBV timing line such as "0:00:01.500,0:00:04.000" but found ${JSON.stringify(excerpt(lines[firstLine].trim()))}; check that the right caption format was chosen.`,
			{ line: firstLine + 1 },
		);
	}
	return warnings.length > 0 ? { cues, warnings } : { cues };
}

/** The cues of an SBV file (readSbv without its warnings). */
export function parseSbv(content: string): Cue[] {
	return readSbv(content).cues;
}

/** Writes SBV: cues ordered by start, without empty ones (a blank line would end the block). */
export function formatSbv(cues: readonly Cue[], options: SbvFormatOptions = {}): string {
	let out = '';
	for (const cue of byStart(cues)) {
		let text = sbvText(cue.text);
		if (text === '') continue;
		const voice = options.includeVoice ? cue.voice?.replace(/\s+/g, ' ').trim() : undefined;
		if (voice) text = `${voice}: ${text}`;
		const startMs = Math.max(0, Math.round(cue.startMs));
		const endMs = Math.max(startMs + 1, Math.round(cue.endMs));
		out += `${out === '' ? '' : '\n'}${formatSbvTimestamp(startMs)},${formatSbvTimestamp(endMs)}\n${text}\n`;
	}
	return out;
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
	render: (document, options) => formatSbv(document.cues, options),
};
