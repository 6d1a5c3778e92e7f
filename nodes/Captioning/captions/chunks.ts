// Transcript chunks for language models: a long recording as time-bounded pieces of text, each with its start and
// end, so an agent can summarise part by part and cite timestamps.
import { DEFAULT_CHUNK_MINUTES } from './options';
import { formatVttTimestamp, msToSeconds } from './time';
import { piecesToText, transcriptPieces, type TranscriptPiece } from './text';
import type { CaptionFormat, Cue } from './types';

export interface ChunkOptions {
	/** Longest span of a chunk, in minutes. */
	chunkMinutes?: number;
	/** Largest chunk, in estimated tokens. */
	chunkTokens?: number;
	paragraphGapMs?: number;
}

export interface TranscriptChunk {
	/** 1-based. */
	index: number;
	/** Seconds with millisecond precision. */
	start: number;
	end: number;
	/** `hh:mm:ss.ttt` */
	startTime: string;
	endTime: string;
	text: string;
	/** Estimated as the characters ÷ 4, rounded up (see CHARS_PER_TOKEN). */
	tokens: number;
}

/** The usual estimate for English text and GPT-style tokenizers; other languages and models differ. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
	return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function chunkOf(index: number, pieces: TranscriptPiece[]): TranscriptChunk {
	// the first piece of a chunk opens a paragraph, so its speaker is named again
	const text = piecesToText([{ ...pieces[0], startsParagraph: true }, ...pieces.slice(1)]);
	const startMs = pieces[0].startMs;
	let endMs = startMs;
	for (const piece of pieces) endMs = Math.max(endMs, piece.endMs);
	return {
		index,
		start: msToSeconds(startMs),
		end: msToSeconds(endMs),
		startTime: formatVttTimestamp(startMs),
		endTime: formatVttTimestamp(endMs),
		text,
		tokens: estimateTokens(text),
	};
}

/**
 * Splits the transcript into chunks of at most `chunkMinutes` (5 when neither bound is given) and at most about
 * `chunkTokens` tokens; both bounds apply when both are given. A chunk ends between cues, so it holds at least one
 * cue even when that cue alone exceeds a bound. Rolled-over lines and paragraphs are handled as for plain text.
 */
export function cuesToChunks(cues: readonly Cue[], options: ChunkOptions = {}): TranscriptChunk[] {
	const { chunkTokens } = options;
	const chunkMinutes =
		options.chunkMinutes ?? (chunkTokens === undefined ? DEFAULT_CHUNK_MINUTES : undefined);
	const maxSpanMs = chunkMinutes === undefined ? Infinity : chunkMinutes * 60_000;
	const maxChars = chunkTokens === undefined ? Infinity : chunkTokens * CHARS_PER_TOKEN;
	const chunks: TranscriptChunk[] = [];
	let current: TranscriptPiece[] = [];
	let chars = 0;
	for (const piece of transcriptPieces(cues, options)) {
		// at most what the piece adds to the chunk's text: its lines, the spaces or paragraph break before
		// them and a "Speaker: " opening, so a chunk of several pieces stays within the budget
		const pieceChars =
			piece.lines.reduce((sum, line) => sum + line.length + 1, 1) +
			(piece.voice === undefined ? 0 : piece.voice.length + 2);
		const full =
			current.length > 0 &&
			(piece.endMs - current[0].startMs > maxSpanMs || chars + pieceChars > maxChars);
		if (full) {
			chunks.push(chunkOf(chunks.length + 1, current));
			current = [];
			chars = 0;
		}
		current.push(piece);
		chars += pieceChars;
	}
	if (current.length > 0) chunks.push(chunkOf(chunks.length + 1, current));
	return chunks;
}

export const chunksFormat: CaptionFormat = {
	id: 'chunks',
	label: 'Transcript Chunks',
	description:
		'The transcript in time-bounded chunks with start and end times, for AI agents, in the "chunks" field',
	mimeType: 'application/json',
	extension: 'json',
	producedByService: false,
	wordTimings: false,
	output: { kind: 'json', field: 'chunks' },
	data: (document, options) => cuesToChunks(document.cues, options),
	render: (document, options) => JSON.stringify(cuesToChunks(document.cues, options), null, 2),
};
