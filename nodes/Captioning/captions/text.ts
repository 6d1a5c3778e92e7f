import { joinText } from './layout';
import { carryStyles } from './styling';
import { byStart, formatVttTimestamp, msToSeconds } from './time';
import type { CaptionFormat, Cue, Segment } from './types';

interface TextOptions {
	/** A silence at least this long between cues starts a new paragraph. */
	paragraphGapMs?: number;
}

const DEFAULT_PARAGRAPH_GAP_MS = 2000;

function textLines(text: string): string[] {
	return text
		.split(/\r\n|\r|\n/)
		.map((line) => line.replace(/\s+/g, ' ').trim())
		.filter((line) => line !== '');
}

// Roll-up captions flash the finished line for a moment before adding the next one.
const FLASH_MS = 50;

interface Previous {
	lines: string[];
	voice?: string;
	endMs: number;
}

/**
 * How many leading lines of the cue repeat the trailing lines of the previous cue, as roll-up
 * captions do. A cue that only repeats is dropped when it is clearly part of a roll-up (it
 * repeats the tail of a longer cue, flashes, or overlaps it), so a chorus sung twice stays.
 */
function rolledOverLines(previous: Previous | undefined, cue: Cue, lines: string[]): number {
	if (previous === undefined || previous.voice !== cue.voice) return 0;
	for (let count = Math.min(previous.lines.length, lines.length); count > 0; count--) {
		const tail = previous.lines.slice(previous.lines.length - count);
		if (!tail.every((line, index) => line === lines[index])) continue;
		const rollsUp =
			count < lines.length ||
			count < previous.lines.length ||
			cue.endMs - cue.startMs <= FLASH_MS ||
			cue.startMs < previous.endMs;
		return rollsUp ? count : 0;
	}
	return 0;
}

/** What a cue adds to the transcript: its lines not rolled over from the previous cue. */
export interface TranscriptPiece {
	startMs: number;
	endMs: number;
	voice?: string;
	lines: string[];
	/** A pause of `paragraphGapMs` or a change of speaker comes before it. */
	startsParagraph: boolean;
}

/**
 * The transcript of the cues, piece by piece. Lines that roll over from the previous cue (as in live or
 * auto-generated captions) are written once; a pause of `paragraphGapMs` or a change of speaker starts a
 * paragraph.
 */
export function transcriptPieces(
	cues: readonly Cue[],
	options: TextOptions = {},
): TranscriptPiece[] {
	const { paragraphGapMs = DEFAULT_PARAGRAPH_GAP_MS } = options;
	const pieces: TranscriptPiece[] = [];
	let previous: Previous | undefined;
	for (const cue of byStart(cues)) {
		const lines = textLines(cue.text);
		if (lines.length === 0) continue;
		const fresh = lines.slice(rolledOverLines(previous, cue, lines));
		const startsParagraph =
			previous === undefined ||
			previous.voice !== cue.voice ||
			cue.startMs - previous.endMs >= paragraphGapMs;
		previous = { lines, voice: cue.voice, endMs: Math.max(cue.endMs, previous?.endMs ?? 0) };
		if (fresh.length === 0) continue;
		pieces.push({
			startMs: cue.startMs,
			endMs: cue.endMs,
			voice: cue.voice,
			lines: fresh,
			startsParagraph,
		});
	}
	return pieces;
}

/**
 * Roll-up captions as pop-on ones: cues in time order, each without the lines it repeats from the cue before
 * (as transcriptPieces reads them); a cue that only repeats is left out. `removedLines` counts what went.
 */
export function withoutRolledOverLines(cues: readonly Cue[]): {
	cues: Cue[];
	removedLines: number;
} {
	const out: Cue[] = [];
	let removedLines = 0;
	let previous: Previous | undefined;
	for (const cue of byStart(cues)) {
		const lines = textLines(cue.text);
		const rolled = lines.length === 0 ? 0 : rolledOverLines(previous, cue, lines);
		if (lines.length > 0) {
			previous = { lines, voice: cue.voice, endMs: Math.max(cue.endMs, previous?.endMs ?? 0) };
		}
		removedLines += rolled;
		if (rolled === 0) out.push(cue);
		else if (rolled < lines.length) {
			const rest = { ...cue, text: lines.slice(rolled).join('\n') };
			out.push(cue.runs ? carryStyles([cue], [rest])[0] : rest);
		}
	}
	return { cues: out, removedLines };
}

/** Pieces as paragraphs, each opening with `Speaker: ` when the cues name one. */
export function piecesToText(pieces: readonly TranscriptPiece[]): string {
	const paragraphs: { voice?: string; parts: string[] }[] = [];
	for (const piece of pieces) {
		if (piece.startsParagraph || paragraphs.length === 0) {
			paragraphs.push({ voice: piece.voice, parts: [] });
		}
		paragraphs[paragraphs.length - 1].parts.push(...piece.lines);
	}
	return paragraphs
		.map(({ voice, parts }) => (voice ? `${voice}: ${joinText(parts)}` : joinText(parts)))
		.join('\n\n');
}

/** Plain transcript of the cues: see transcriptPieces. */
export function cuesToText(cues: readonly Cue[], options: TextOptions = {}): string {
	return piecesToText(transcriptPieces(cues, options));
}

/** Cues as JSON-friendly segments (seconds and `hh:mm:ss.ttt`), in time order, without empty cues. */
export function cuesToSegments(cues: readonly Cue[]): Segment[] {
	const segments: Segment[] = [];
	for (const cue of byStart(cues)) {
		const text = joinText(textLines(cue.text));
		if (text === '') continue;
		const segment: Segment = {
			start: msToSeconds(cue.startMs),
			end: msToSeconds(cue.endMs),
			startTime: formatVttTimestamp(cue.startMs),
			endTime: formatVttTimestamp(cue.endMs),
			text,
		};
		if (cue.voice) segment.voice = cue.voice;
		segments.push(segment);
	}
	return segments;
}

export const textFormat: CaptionFormat = {
	id: 'text',
	label: 'Plain Text',
	description: 'The transcript as text, in the "text" field',
	mimeType: 'text/plain',
	extension: 'txt',
	producedByService: false,
	wordTimings: false,
	output: { kind: 'json', field: 'text' },
	data: (document, options) => cuesToText(document.cues, options),
	render: (document, options) => cuesToText(document.cues, options),
};

export const segmentsFormat: CaptionFormat = {
	id: 'segments',
	label: 'Segments JSON',
	description: 'One entry per cue with start, end and text, in the "segments" field',
	mimeType: 'application/json',
	extension: 'json',
	producedByService: false,
	wordTimings: false,
	output: { kind: 'json', field: 'segments' },
	data: (document) => cuesToSegments(document.cues),
	render: (document) => JSON.stringify(cuesToSegments(document.cues), null, 2),
};
