// Captions as a transcript (Plain Text, and the chunks built on it) and as segments (one JSON entry per cue). Roll-up
// captions, as live and auto-generated captions scroll, repeat each line in the next cue: only a file that is roll-up
// as a whole (isRollUp) has its repeated lines written once. Ordinary subtitles repeat a line because someone said
// it again, and keep it.
import { joinText } from './layout';
import { carryStyles, cleanVoice, voiceGroups } from './styling';
import { byStart, formatVttTimestamp, msToSeconds } from './time';
import type { CaptionFormat, Cue, Segment, WarningSink } from './types';
import { cueTextToVtt } from './vttCueText';
import { inTimeOrder } from './writing';

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

/**
 * Whether the cues are roll-up captions, read over the whole file: in at least half of the pairs of neighbouring
 * cues the later one starts with the earlier one's last line, and at least twice it adds a line after it (a
 * file where every cue is "Okay." repeats, but does not roll). Cues in time order.
 */
export function isRollUp(cues: readonly Cue[]): boolean {
	let pairs = 0;
	let rolling = 0;
	let adding = 0;
	let previous: string[] | undefined;
	for (const cue of cues) {
		const lines = textLines(cue.text);
		if (lines.length === 0) continue;
		if (previous !== undefined) {
			pairs++;
			if (lines[0] === previous[previous.length - 1]) {
				rolling++;
				if (lines.length > 1) adding++;
			}
		}
		previous = lines;
	}
	return adding >= 2 && rolling * 2 >= pairs;
}

interface Previous {
	lines: string[];
	voice?: string;
	endMs: number;
}

/**
 * How many leading lines of the cue repeat the trailing lines of the previous cue, as roll-up captions do. A cue
 * that only repeats is dropped when it is clearly part of the roll-up (it repeats the tail of a longer cue, flashes,
 * or overlaps it), so a chorus sung twice stays.
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

/** What a cue says, by speaker: one part per speaker of a cue that several share, else the cue itself. */
function spokenParts(cue: Cue): Cue[] {
	if (cue.voice !== undefined || !cue.runs?.some((run) => run.voice !== undefined)) return [cue];
	return voiceGroups(cue.runs).map((group) => {
		const part: Cue = {
			startMs: cue.startMs,
			endMs: cue.endMs,
			text: group.runs.map((run) => run.text).join(''),
		};
		if (group.voice !== undefined) part.voice = group.voice;
		return part;
	});
}

/**
 * The transcript of the cues, piece by piece. In roll-up captions the lines that roll over from the previous cue
 * are written once; a pause of `paragraphGapMs` or a change of speaker starts a paragraph.
 */
export function transcriptPieces(
	cues: readonly Cue[],
	options: TextOptions = {},
): TranscriptPiece[] {
	const { paragraphGapMs = DEFAULT_PARAGRAPH_GAP_MS } = options;
	const ordered = byStart(cues);
	const rollUp = isRollUp(ordered);
	const pieces: TranscriptPiece[] = [];
	let previous: Previous | undefined;
	for (const cue of ordered) {
		for (const part of spokenParts(cue)) {
			const lines = textLines(part.text);
			if (lines.length === 0) continue;
			const fresh = rollUp ? lines.slice(rolledOverLines(previous, part, lines)) : lines;
			const startsParagraph =
				previous === undefined ||
				previous.voice !== part.voice ||
				part.startMs - previous.endMs >= paragraphGapMs;
			previous = { lines, voice: part.voice, endMs: Math.max(part.endMs, previous?.endMs ?? 0) };
			if (fresh.length === 0) continue;
			pieces.push({
				startMs: part.startMs,
				endMs: part.endMs,
				voice: part.voice,
				lines: fresh,
				startsParagraph,
			});
		}
	}
	return pieces;
}

/**
 * Roll-up captions as pop-on ones: cues in time order, each without the lines it repeats from the cue before
 * (as transcriptPieces reads them); a cue that only repeats is left out. `removedLines` counts what went. Call it
 * for roll-up captions only (isRollUp).
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

// A sentence cut between two cues is written with continuation dots at the end of one and the start of the next
// ("accelerated..." / "...the"): in running text they are written once, as "accelerated... the".
const TRAILING_DOTS = /(?:\.{2,}|…)$/;
const LEADING_DOTS = /^(?:\.{2,}|…)\s*(?=[\p{L}\p{N}])/u;

/** The lines of a paragraph, continuation dots written once where a line continues the one before. */
function paragraphParts(lines: readonly string[]): string[] {
	const parts: string[] = [];
	for (const line of lines) {
		const previous = parts[parts.length - 1];
		parts.push(
			previous !== undefined && TRAILING_DOTS.test(previous)
				? line.replace(LEADING_DOTS, '')
				: line,
		);
	}
	return parts;
}

/** Pieces as paragraphs, each opening with `Speaker: ` when the cues name one. */
export function piecesToText(pieces: readonly TranscriptPiece[]): string {
	const paragraphs: { voice?: string; lines: string[] }[] = [];
	for (const piece of pieces) {
		if (piece.startsParagraph || paragraphs.length === 0) {
			paragraphs.push({ voice: piece.voice, lines: [] });
		}
		const lines = paragraphs[paragraphs.length - 1].lines;
		for (const line of piece.lines) lines.push(line);
	}
	return paragraphs
		.map(({ voice, lines }) => {
			const text = joinText(paragraphParts(lines));
			const name = cleanVoice(voice);
			return name ? `${name}: ${text}` : text;
		})
		.join('\n\n');
}

/** Plain transcript of the cues: see transcriptPieces. */
export function cuesToText(cues: readonly Cue[], options: TextOptions = {}): string {
	return piecesToText(transcriptPieces(cues, options));
}

/**
 * A cue as a segment: its lines joined into one, and when it has styles or several speakers, `styledText` with them
 * as WebVTT writes them (<i>, <b>, <u>, <v Name>), which translation services and language models keep.
 */
function segmentOf(cue: Cue): Segment {
	const text = joinText(textLines(cue.text));
	const segment: Segment = {
		start: msToSeconds(cue.startMs),
		end: msToSeconds(cue.endMs),
		startTime: formatVttTimestamp(cue.startMs),
		endTime: formatVttTimestamp(cue.endMs),
		text,
	};
	const voice = cleanVoice(cue.voice);
	if (voice) segment.voice = voice;
	if (cue.runs && text !== '') {
		const [styled] = text === cue.text ? [cue] : carryStyles([cue], [{ ...cue, text }]);
		if (styled.runs) segment.styledText = cueTextToVtt(styled);
	}
	return segment;
}

/** Cues as JSON-friendly segments (seconds and `hh:mm:ss.ttt`): every cue, in time order (said when it was not). */
export function cuesToSegments(cues: readonly Cue[], warn?: WarningSink): Segment[] {
	return inTimeOrder(cues, 'Segments JSON', warn).map(segmentOf);
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
	description:
		'One entry per cue with start, end and text (and speaker and styles when it has them), in the "segments" field',
	mimeType: 'application/json',
	extension: 'json',
	producedByService: false,
	wordTimings: false,
	output: { kind: 'json', field: 'segments' },
	data: (document, _options, warn) => cuesToSegments(document.cues, warn),
	render: (document, _options, warn) =>
		JSON.stringify(cuesToSegments(document.cues, warn), null, 2),
};
