import { displayWidth, fitsCue, joinText, tokenize, wrapTokens } from './layout';
import { DEFAULT_MAX_CUE_CHARS, DEFAULT_MAX_CUE_MS, DEFAULT_MAX_LINE_CHARS } from './options';
import { msToSeconds } from './time';
import type { CaptionFormat, Cue, CueLayoutOptions, Word } from './types';

/** The layout of cues built from words where an option is not given (Convert's editor shows the same). */
export const DEFAULT_CUE_LAYOUT: Readonly<Required<CueLayoutOptions>> = {
	maxCueMs: DEFAULT_MAX_CUE_MS,
	maxCueChars: DEFAULT_MAX_CUE_CHARS,
	maxLineChars: DEFAULT_MAX_LINE_CHARS,
	maxLines: 2,
	maxCueWords: Infinity,
	maxGapMs: 1500,
	minCueChars: 16,
};

// Sentence-final punctuation, optionally followed by closing quotes or brackets.
const SENTENCE_END = /[.!?…。！？‼⁇⁈⁉]["')\]»”’」』）]*$/u;
const CLAUSE_END = /[,;:.!?…、，；：。！？]["')\]»”’」』）]*$/u;
// How long a cue whose words carry no duration stays up, at most until the next cue.
const ZERO_DURATION_FALLBACK_MS = 1000;

function widthOf(words: Word[]): number {
	return displayWidth(joinText(words.map((word) => word.text)));
}

function speakerVoice(speakerTag: number | undefined): string | undefined {
	return speakerTag === undefined ? undefined : `Speaker ${speakerTag}`;
}

/** Words of a text spread over a time span in proportion to their length, for text without word timings. */
export function spreadWords(text: string, startMs: number, endMs: number): Word[] {
	const tokens = tokenize(text);
	const widths = tokens.map(displayWidth);
	const total = widths.reduce((sum, width) => sum + width, 0);
	const spanMs = endMs - startMs;
	let offset = 0;
	return tokens.map((token, index) => {
		const wordStartMs = startMs + Math.round((spanMs * offset) / total);
		offset += widths[index];
		return {
			startMs: wordStartMs,
			endMs: startMs + Math.round((spanMs * offset) / total),
			text: token,
		};
	});
}

/**
 * Groups timed words into readable cues of at most `maxLines` lines (two by default). A cue closes on a pause of
 * `maxGapMs`, a change of speaker, and after a sentence once the cue holds `minCueChars`. When the
 * next word would exceed `maxCueMs` or the character limits, the cue is cut after its last clause
 * (comma or sentence end) if that leaves `minCueChars`, otherwise before the word.
 */
export function wordsToCues(words: readonly Word[], options: CueLayoutOptions = {}): Cue[] {
	const {
		maxCueMs = DEFAULT_CUE_LAYOUT.maxCueMs,
		maxCueChars = DEFAULT_CUE_LAYOUT.maxCueChars,
		maxLineChars = DEFAULT_CUE_LAYOUT.maxLineChars,
		maxLines = DEFAULT_CUE_LAYOUT.maxLines,
		maxCueWords = DEFAULT_CUE_LAYOUT.maxCueWords,
		maxGapMs = DEFAULT_CUE_LAYOUT.maxGapMs,
		minCueChars = DEFAULT_CUE_LAYOUT.minCueChars,
	} = options;

	const mustBreak = (current: Word[], word: Word): boolean => {
		const last = current[current.length - 1];
		if (word.startMs - last.endMs >= maxGapMs) return true;
		if (word.speakerTag !== last.speakerTag) return true;
		return SENTENCE_END.test(last.text) && widthOf(current) >= minCueChars;
	};
	const fits = (words: Word[]): boolean =>
		words.length <= maxCueWords &&
		words[words.length - 1].endMs - words[0].startMs <= maxCueMs &&
		fitsCue(
			words.map((word) => word.text),
			maxLineChars,
			maxCueChars,
			maxLines,
		);
	// Where a full cue is better cut than before the next word: after the last clause that leaves
	// at least minCueChars behind, so "crème | brûlée." does not happen.
	const clauseEnd = (current: Word[]): number => {
		for (let index = current.length - 2; index >= 0; index--) {
			const head = current.slice(0, index + 1);
			if (CLAUSE_END.test(current[index].text) && widthOf(head) >= minCueChars) return index + 1;
		}
		return current.length;
	};

	const spoken = words
		.map((word) => ({ ...word, text: word.text.trim() }))
		.filter((word) => word.text !== '')
		.sort((a, b) => a.startMs - b.startMs);
	const groups: Word[][] = [];
	for (const word of spoken) {
		const current = groups[groups.length - 1];
		if (current === undefined || mustBreak(current, word)) {
			groups.push([word]);
		} else if (fits([...current, word])) {
			current.push(word);
		} else {
			const cut = clauseEnd(current);
			const carried = [...current.slice(cut), word];
			if (cut < current.length && fits(carried)) {
				groups[groups.length - 1] = current.slice(0, cut);
				groups.push(carried);
			} else {
				groups.push([word]);
			}
		}
	}

	return groups.map((group, index) => {
		const startMs = group[0].startMs;
		let endMs = Math.max(...group.map((word) => word.endMs));
		if (endMs <= startMs) {
			const nextStartMs = groups[index + 1]?.[0].startMs ?? Infinity;
			endMs = Math.max(startMs + 1, Math.min(nextStartMs, startMs + ZERO_DURATION_FALLBACK_MS));
		}
		const cue: Cue = {
			startMs,
			endMs,
			text: wrapTokens(
				group.map((word) => word.text),
				maxLineChars,
				maxLines,
			).join('\n'),
		};
		const voice = speakerVoice(group[0].speakerTag);
		if (voice !== undefined) cue.voice = voice;
		return cue;
	});
}

interface WordJson {
	start: number;
	end: number;
	text: string;
	confidence?: number;
	speakerTag?: number;
}

/** Words as JSON-friendly entries: seconds with three decimals, confidence and speaker when known. */
export function wordsToJson(words: readonly Word[]): WordJson[] {
	return words.map(({ startMs, endMs, text, confidence, speakerTag }) => ({
		start: msToSeconds(startMs),
		end: msToSeconds(endMs),
		text,
		...(confidence === undefined ? {} : { confidence }),
		...(speakerTag === undefined ? {} : { speakerTag }),
	}));
}

export const wordsFormat: CaptionFormat = {
	id: 'words',
	label: 'Words JSON',
	description:
		'Every word with its timing (Google Speech-to-Text input only), in the "words" field',
	mimeType: 'application/json',
	extension: 'json',
	producedByService: false,
	wordTimings: true,
	output: { kind: 'json', field: 'words' },
	needsWords: true,
	data: (document) => wordsToJson(document.words ?? []),
	render: (document) => JSON.stringify(wordsToJson(document.words ?? []), null, 2),
};
