// Long recordings for tests and the benchmark: hours of plausible speech, timed and written as the sandbox writes a
// transcription's files (WebVTT cues of up to 7 words per sentence, Google Speech-to-Text with every word's time).
// Deterministic for a seed. About 1.6 words a second, so 3 hours give about 17,500 words and 3,000 cues.
import { buildGoogleStt, buildVtt, timeWords, type TimedWord } from './transcripts';

const VOCABULARY = (
	'the a we our this that these captions search dashboard upload minutes seconds quarter team customer ' +
	'product update meeting question answer number report review plan week month year people video audio ' +
	'transcript speaker language model service workflow trigger event file format reading speed line ' +
	'subtitle broadcast stream archive release feature version budget growth market region partner ' +
	'café naïve résumé Zürich jalapeño is are was were will can should would have has had make made look ' +
	'looked see saw find found start started finish finished bring brought keep kept move moved show ' +
	'showed and but so because while when where after before with without into from about over under ' +
	'really quickly clearly almost always never often today tomorrow yesterday here there again'
).split(' ');

/** mulberry32 from a string's hash: cheap, and the same numbers for the same seed. */
function random(seed: string): () => number {
	let state = 2166136261;
	for (const char of seed) state = Math.imul(state ^ char.charCodeAt(0), 16777619);
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Sentences of 6 to 18 words, some with a comma, ending in a full stop or a question mark. */
export function longText(words: number, seed = 'long'): string {
	const next = random(seed);
	const pick = () => VOCABULARY[Math.floor(next() * VOCABULARY.length)];
	const sentences: string[] = [];
	let count = 0;
	while (count < words) {
		const length = Math.min(words - count, 6 + Math.floor(next() * 13));
		const sentence = Array.from({ length }, (_, i) => {
			const word = pick();
			const comma = i > 1 && i < length - 2 && next() < 0.08 ? ',' : '';
			return (i === 0 ? word[0].toUpperCase() + word.slice(1) : word) + comma;
		});
		sentences.push(`${sentence.join(' ')}${next() < 0.15 ? '?' : '.'}`);
		count += length;
	}
	return sentences.join(' ');
}

export interface LongTranscript {
	text: string;
	words: TimedWord[];
	durationSeconds: number;
	vtt: string;
	googleStt: string;
}

// about 620 ms a word as sandbox/transcripts.ts times them (180 ms + 55 ms a letter, then 80 or 600 ms)
const MS_PER_WORD = 620;

/** About `hours` of speech; `seed` makes another recording of the same length. */
export function longTranscript(hours: number, seed = 'long'): LongTranscript {
	const text = longText(Math.ceil((hours * 3_600_000) / MS_PER_WORD), seed);
	const words = timeWords(text, seed);
	return {
		text,
		words,
		durationSeconds: Math.round((words[words.length - 1]?.endMs ?? 0) / 1000),
		vtt: buildVtt(words),
		googleStt: buildGoogleStt(words),
	};
}
