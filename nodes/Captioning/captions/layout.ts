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
const CLOSING_PUNCTUATION = /^[,.!?;:%)\]}…»”’、。，．！？：；）」』】]/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const cjkWords = new Intl.Segmenter('ja', { granularity: 'word' });

/** Screen width in character cells: one per grapheme, two for CJK and emoji. */
export function displayWidth(text: string): number {
	// cue layout measures every candidate line, so only segment text that needs it
	if (!SURROGATE.test(text) && !COMBINING.test(text)) {
		return text.length + (text.match(WIDE_BMP)?.length ?? 0);
	}
	let width = 0;
	for (const { segment } of graphemes.segment(text)) width += WIDE.test(segment) ? 2 : 1;
	return width;
}

function needsSpace(left: string, right: string): boolean {
	if (CLOSING_PUNCTUATION.test(right)) return false;
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

/** The split of two lines with the least overflow, then the best balance; undefined for one line. */
function bestSplit({ parts, width }: Measured, maxLineChars: number): number | undefined {
	const count = parts.length;
	if (count < 2 || width(0, count) <= maxLineChars) return undefined;
	let best = 1;
	let bestOverflow = Infinity;
	let bestImbalance = Infinity;
	for (let split = 1; split < count; split++) {
		const top = width(0, split);
		const bottom = width(split, count);
		const overflow = Math.max(0, top - maxLineChars) + Math.max(0, bottom - maxLineChars);
		const imbalance = Math.abs(top - bottom);
		if (overflow < bestOverflow || (overflow === bestOverflow && imbalance < bestImbalance)) {
			best = split;
			bestOverflow = overflow;
			bestImbalance = imbalance;
		}
	}
	return best;
}

/**
 * Lays tokens out on one line, or two lines as evenly balanced as possible. Lines only exceed
 * `maxLineChars` when a single token is longer or two lines cannot hold the text.
 */
export function wrapTokens(tokens: readonly string[], maxLineChars: number): string[] {
	const measured = measure(tokens);
	const { parts } = measured;
	if (parts.length === 0) return [];
	const split = bestSplit(measured, maxLineChars);
	if (split === undefined) return [joinText(parts)];
	return [joinText(parts.slice(0, split)), joinText(parts.slice(split))];
}

/** Whether tokens fit a cue of at most two lines of `maxLineChars` and `maxCueChars` in total. */
export function fitsCue(
	tokens: readonly string[],
	maxLineChars: number,
	maxCueChars: number,
): boolean {
	const measured = measure(tokens);
	const count = measured.parts.length;
	const total = measured.width(0, count);
	if (total > maxCueChars) return false;
	const split = bestSplit(measured, maxLineChars);
	if (split === undefined) return total <= maxLineChars;
	return measured.width(0, split) <= maxLineChars && measured.width(split, count) <= maxLineChars;
}
