// Scripts written without spaces between words: Han, kana, CJK punctuation, full-width forms.
const UNSPACED =
	/[\u2e80-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/u;
// Glyphs that take two columns on screen, so 42 of them would not fit a 42-character line.
const WIDE_BMP =
	/[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/g;
const WIDE = new RegExp(`${WIDE_BMP.source}|\\p{Extended_Pictographic}`, 'u');
// Code units that do not stand for one character each: surrogate pairs, combining marks, joiners.
const SURROGATE = /[\ud800-\udfff]/;
const COMBINING = /\p{M}|\u200d/u;
// Text the quick count would measure wrongly: the above, and pictographs outside WIDE_BMP (e.g. ⛩ U+26E9).
const NEEDS_SEGMENTS = /[\ud800-\udfff]|\p{M}|\u200d|\p{Extended_Pictographic}/u;
const CLOSING_PUNCTUATION = /^[,.!?;:%)\]}…»”’、。，．！？：；）」』】]/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const cjkWords = new Intl.Segmenter('ja', { granularity: 'word' });

/** Screen width in character cells: one per grapheme, two for CJK and emoji. */
export function displayWidth(text: string): number {
	// cue layout measures every candidate line, so only segment text that needs it
	if (!NEEDS_SEGMENTS.test(text)) return text.length + (text.match(WIDE_BMP)?.length ?? 0);
	let width = 0;
	for (const { segment } of graphemes.segment(text)) width += WIDE.test(segment) ? 2 : 1;
	return width;
}

/** Characters as a reader counts them: one per grapheme, whatever its width or code units. */
export function graphemeCount(text: string): number {
	if (!SURROGATE.test(text) && !COMBINING.test(text)) return text.length;
	return Array.from(graphemes.segment(text)).length;
}

// a token of punctuation alone closes the word before it; one with a word in it ("...the", "}0") is a word of its
// own, and joining it would change both words
const HAS_WORD = /[\p{L}\p{N}]/u;

function needsSpace(left: string, right: string): boolean {
	if (CLOSING_PUNCTUATION.test(right) && !HAS_WORD.test(right)) return false;
	const last = left.slice(-1);
	if (UNSPACED.test(last)) return false;
	// a Latin sentence or clause followed by CJK text still reads better with a space
	return !UNSPACED.test(right[0]) || /[.!?,;:]/.test(last);
}

/** Joins words or text pieces with a space, except around CJK text and before closing punctuation. */
export function joinText(parts: readonly string[]): string {
	let result = '';
	// compared with the previous part, not `result`: reading a long concatenated string flattens it
	let previous = '';
	for (const raw of parts) {
		const part = raw.trim();
		if (part === '') continue;
		result += previous !== '' && needsSpace(previous, part) ? ` ${part}` : part;
		previous = part;
	}
	return result;
}

/** Splits plain text into word-sized tokens, using dictionary word breaks for CJK runs. */
export function tokenize(text: string): string[] {
	const tokens: string[] = [];
	for (const chunk of text.split(/\s+/)) {
		if (chunk === '') continue;
		if (!UNSPACED.test(chunk)) {
			tokens.push(chunk);
			continue;
		}
		for (const { segment } of cjkWords.segment(chunk))
			if (segment.trim() !== '') tokens.push(segment);
	}
	return tokens;
}

interface Measured {
	parts: string[];
	/** Width of `parts[from..to)` joined as `joinText` would. */
	width(from: number, to: number): number;
}

function measure(tokens: readonly string[]): Measured {
	const parts = tokens.map((token) => token.trim()).filter((token) => token !== '');
	const widths = [0];
	const spaces = [0];
	parts.forEach((part, index) => {
		widths.push(widths[index] + displayWidth(part));
		const space = index > 0 && needsSpace(parts[index - 1], part) ? 1 : 0;
		spaces.push(spaces[index] + space);
	});
	return {
		parts,
		width: (from, to) =>
			to > from ? widths[to] - widths[from] + spaces[to] - spaces[from + 1] : 0,
	};
}

// Where a line may break, by the style guides the profiles cite: Netflix's Timed Text Style Guide ("line breaks
// should not separate ... article and noun, ... subject pronoun and verb, ... auxiliary and verb") and the BBC's
// Subtitle Guidelines 3.4 ("break at natural linguistic points": after punctuation, before a conjunction or
// preposition). English words: the profiles are English; other languages get the punctuation rules.
const SENTENCE_END = /[.!?…。！？]["'’”»)\]]*$/u;
const CLAUSE_END = /[,;:–—、，；：]["'’”»)\]]*$/u;
/** Words a line never ends on: articles, possessives, subject pronouns, auxiliaries, prepositions, conjunctions. */
export const HOLDS_NEXT_WORD = new Set(
	(
		'a an the my your his her its our their this these those i we he she they ' +
		'am is are was were be been being will would can could should shall must may might do does did ' +
		"i'm we're they're he's she's don't doesn't didn't can't won't isn't aren't wasn't not no very " +
		'to of in on at by for with from into onto about over under after before than as and but or nor if ' +
		'mr. mrs. ms. dr. st.'
	).split(' '),
);
/** Words a line may well start with: conjunctions and prepositions open a phrase. */
const OPENS_PHRASE = new Set(
	(
		'and but or nor so because if when while although though unless until since after before that which ' +
		'who whom whose where why how to of in on at by for with from into about over under through without than as'
	).split(' '),
);

/** A word as the lists above hold it: lower case, without quotes and brackets around it. */
const bare = (word: string) => word.toLowerCase().replace(/^["'‘“«([]+|["'’”»)\]]+$/gu, '');

/** Whether a line ending on this word breaks badly: the word belongs with the one after it. */
export function endsBadly(lastWord: string): boolean {
	return (
		!CLAUSE_END.test(lastWord) &&
		!SENTENCE_END.test(lastWord) &&
		HOLDS_NEXT_WORD.has(bare(lastWord))
	);
}

/**
 * How good a break is between two words, lower is better: after a sentence (0), after a clause (1), before a
 * conjunction or preposition (2), between other words (3), after a word that holds the next one (8: only when no
 * other break fits).
 */
export function breakCost(before: string, after: string): number {
	if (SENTENCE_END.test(before)) return 0;
	if (CLAUSE_END.test(before)) return 1;
	if (endsBadly(before)) return 8;
	return OPENS_PHRASE.has(bare(after)) ? 2 : 3;
}

/** A step of breakCost is worth this many characters of imbalance between the two lines. */
const CHARS_PER_COST = 12;

/**
 * The split of two lines: the least overflow first; among those, the best break by breakCost, with the lines'
 * imbalance counted against it (CHARS_PER_COST characters a step), the longer bottom line on a tie (the guides'
 * bottom-heavy pyramid); undefined for one line.
 */
function bestSplit({ parts, width }: Measured, maxLineChars: number): number | undefined {
	const count = parts.length;
	if (count < 2 || width(0, count) <= maxLineChars) return undefined;
	let best = 1;
	let bestOverflow = Infinity;
	let bestScore = Infinity;
	let bestBottomHeavy = false;
	for (let split = 1; split < count; split++) {
		const top = width(0, split);
		const bottom = width(split, count);
		const overflow = Math.max(0, top - maxLineChars) + Math.max(0, bottom - maxLineChars);
		const score =
			breakCost(parts[split - 1], parts[split]) * CHARS_PER_COST + Math.abs(top - bottom);
		const bottomHeavy = bottom >= top;
		if (
			overflow < bestOverflow ||
			(overflow === bestOverflow &&
				(score < bestScore || (score === bestScore && bottomHeavy && !bestBottomHeavy)))
		) {
			best = split;
			bestOverflow = overflow;
			bestScore = score;
			bestBottomHeavy = bottomHeavy;
		}
	}
	return best;
}

/** Greedy lines no wider than `width`, or undefined when more than `maxLines` are needed. */
function fillLines(
	{ parts, width }: Measured,
	lineWidth: number,
	maxLines: number,
): number[] | undefined {
	const starts = [0];
	for (let index = 1; index < parts.length; index++) {
		if (width(starts[starts.length - 1], index + 1) > lineWidth) {
			if (starts.length === maxLines) return undefined;
			starts.push(index);
		}
	}
	return starts;
}

/** Line starts for three or more lines: the narrowest greedy fill that needs no more than `maxLines`. */
function balancedLines(measured: Measured, maxLineChars: number, maxLines: number): number[] {
	const total = measured.width(0, measured.parts.length);
	let low = Math.min(Math.ceil(total / maxLines), maxLineChars);
	let high = maxLineChars;
	if (fillLines(measured, high, maxLines) === undefined) {
		// even full lines overflow: lines as full as the limit allows, the rest on the last line
		return fillLines(measured, maxLineChars, Infinity)!.slice(0, maxLines);
	}
	while (low < high) {
		const middle = Math.floor((low + high) / 2);
		if (fillLines(measured, middle, maxLines) === undefined) low = middle + 1;
		else high = middle;
	}
	return fillLines(measured, low, maxLines)!;
}

/** Where each line starts: one line, a balanced pair, or balanced greedy lines for three or more. */
function lineStarts(measured: Measured, maxLineChars: number, maxLines: number): number[] {
	if (maxLines <= 1) return [0];
	if (maxLines === 2) {
		const split = bestSplit(measured, maxLineChars);
		return split === undefined ? [0] : [0, split];
	}
	if (measured.width(0, measured.parts.length) <= maxLineChars) return [0];
	return balancedLines(measured, maxLineChars, maxLines);
}

function linesAt(parts: string[], starts: number[]): string[] {
	return starts.map((start, index) => joinText(parts.slice(start, starts[index + 1])));
}

/**
 * Lays tokens out on at most `maxLines` lines (two by default), as evenly balanced as possible. Lines
 * only exceed `maxLineChars` when a single token is longer or the lines cannot hold the text.
 */
export function wrapTokens(
	tokens: readonly string[],
	maxLineChars: number,
	maxLines = 2,
): string[] {
	const measured = measure(tokens);
	if (measured.parts.length === 0) return [];
	return linesAt(measured.parts, lineStarts(measured, maxLineChars, maxLines));
}

/** Whether tokens fit a cue of at most `maxLines` lines of `maxLineChars` and `maxCueChars` in total. */
export function fitsCue(
	tokens: readonly string[],
	maxLineChars: number,
	maxCueChars: number,
	maxLines = 2,
): boolean {
	const measured = measure(tokens);
	const count = measured.parts.length;
	if (measured.width(0, count) > maxCueChars) return false;
	const starts = lineStarts(measured, maxLineChars, maxLines);
	return starts.every(
		(start, index) => measured.width(start, starts[index + 1] ?? count) <= maxLineChars,
	);
}
