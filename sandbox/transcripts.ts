// Generates the caption files a transcription produces: a WebVTT file and a Google Speech-to-Text JSON file,
// both derived from the same word timings so that they agree with each other.
import { createHash } from 'node:crypto';

export const DEFAULT_TEXT =
	'Welcome to the quarterly product update. Today we look at three things: captions, search and the new ' +
	'dashboard. Captions now arrive within minutes of an upload. Search finds every word that was spoken. ' +
	'The dashboard shows what is transcribed, and what is still waiting.';

export interface TimedWord {
	word: string;
	startMs: number;
	endMs: number;
	confidence: number;
}

export interface GeneratedTranscript {
	words: TimedWord[];
	durationSeconds: number;
	averageConfidence: number;
	vtt: string;
	googleStt: string;
}

/** Deterministic pseudo-random numbers in [0, 1) from a seed, so that a transcript is reproducible. */
function seededRandom(seed: string): () => number {
	let counter = 0;
	return () => {
		const digest = createHash('sha256').update(`${seed}:${counter++}`).digest();
		return digest.readUInt32BE(0) / 0x1_0000_0000;
	};
}

const SENTENCE_END = /[.!?。！？]$/;

export function timeWords(text: string, seed: string): TimedWord[] {
	const random = seededRandom(seed);
	const words = text.split(/\s+/).filter(Boolean);
	let cursor = 300;
	return words.map((word) => {
		const length = [...word].length;
		const duration = 180 + length * 55 + Math.round(random() * 60);
		const timed = {
			word,
			startMs: cursor,
			endMs: cursor + duration,
			confidence: 0.82 + random() * 0.17,
		};
		cursor = timed.endMs + (SENTENCE_END.test(word) ? 600 : 80);
		return timed;
	});
}

const pad = (value: number, size: number) => String(value).padStart(size, '0');

export function vttTimestamp(ms: number): string {
	const hours = Math.floor(ms / 3_600_000);
	const minutes = Math.floor((ms % 3_600_000) / 60_000);
	const seconds = Math.floor((ms % 60_000) / 1000);
	return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(ms % 1000, 3)}`;
}

/** Protobuf Duration as Google's JSON renders it: "1.300s", "0s", "12s". */
export function googleDuration(ms: number): string {
	const seconds = Math.floor(ms / 1000);
	const millis = ms % 1000;
	return millis === 0 ? `${seconds}s` : `${seconds}.${pad(millis, 3)}s`;
}

function sentences(words: TimedWord[]): TimedWord[][] {
	const groups: TimedWord[][] = [[]];
	for (const word of words) {
		groups[groups.length - 1].push(word);
		if (SENTENCE_END.test(word.word)) groups.push([]);
	}
	return groups.filter((group) => group.length > 0);
}

function escapeVtt(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function buildVtt(words: TimedWord[]): string {
	const cues: string[] = [];
	for (const sentence of sentences(words)) {
		for (let i = 0; i < sentence.length; i += 7) {
			const chunk = sentence.slice(i, i + 7);
			const text = escapeVtt(chunk.map((w) => w.word).join(' '));
			cues.push(
				`${cues.length + 1}\n${vttTimestamp(chunk[0].startMs)} --> ${vttTimestamp(chunk[chunk.length - 1].endMs)}\n${text}`,
			);
		}
	}
	return `WEBVTT\n\n${cues.join('\n\n')}\n`;
}

const round = (value: number, places: number) => Number(value.toFixed(places));

export function buildGoogleStt(words: TimedWord[], languageCode = 'en-us'): string {
	const results = sentences(words).map((sentence) => ({
		alternatives: [
			{
				transcript: sentence.map((w) => w.word).join(' '),
				confidence: round(sentence.reduce((sum, w) => sum + w.confidence, 0) / sentence.length, 8),
				words: sentence.map((w) => ({
					startTime: googleDuration(w.startMs),
					endTime: googleDuration(w.endMs),
					word: w.word,
				})),
			},
		],
		resultEndTime: googleDuration(sentence[sentence.length - 1].endMs),
		languageCode,
	}));
	return JSON.stringify({ results }, null, 2);
}

export function generateTranscript(text: string, seed: string): GeneratedTranscript {
	const words = timeWords(text, seed);
	const last = words[words.length - 1];
	const durationSeconds = last ? round((last.endMs + 500) / 1000, 3) : 0;
	const averageConfidence = words.length
		? words.reduce((sum, w) => sum + w.confidence, 0) / words.length
		: 0;
	return {
		words,
		durationSeconds,
		averageConfidence,
		vtt: buildVtt(words),
		googleStt: buildGoogleStt(words),
	};
}
