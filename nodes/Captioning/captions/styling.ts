// Italics, bold and underline of cue text, as runs of text with one style each (Cue.runs). Readers build runs from
// pieces of text with their style; writers turn runs into their format's tags; Fix, which lays text out again
// without changing a character but spaces, carries each character's style over to the new text.
import type { Cue, TextRun, TextStyle } from './types';

const STYLES = ['bold', 'italic', 'underline'] as const;
export type StyleName = (typeof STYLES)[number];

function sameStyle(a: TextStyle, b: TextStyle): boolean {
	return a.italic === b.italic && a.bold === b.bold && a.underline === b.underline;
}

function styleOf(run: TextStyle): TextStyle {
	const style: TextStyle = {};
	if (run.italic) style.italic = true;
	if (run.bold) style.bold = true;
	if (run.underline) style.underline = true;
	return style;
}

const isStyled = (run: TextStyle) =>
	run.italic === true || run.bold === true || run.underline === true;

/** Pieces of text with their style as runs: neighbours of one style joined; undefined when none is styled. */
export function toRuns(pieces: readonly TextRun[]): TextRun[] | undefined {
	if (!pieces.some(isStyled)) return undefined;
	const runs: TextRun[] = [];
	for (const piece of pieces) {
		if (piece.text === '') continue;
		const last = runs[runs.length - 1];
		if (last && sameStyle(last, piece)) last.text += piece.text;
		else runs.push({ text: piece.text, ...styleOf(piece) });
	}
	return runs.some(isStyled) ? runs : undefined;
}

export interface StyleTags {
	open: Record<StyleName, string>;
	close: Record<StyleName, string>;
}

/** HTML-like tags as WebVTT and SRT write them. */
export const HTML_TAGS: StyleTags = {
	open: { bold: '<b>', italic: '<i>', underline: '<u>' },
	close: { bold: '</b>', italic: '</i>', underline: '</u>' },
};

/**
 * Runs as text with tags, always well nested: styles open in one order (bold, italic, underline) and a tag closes
 * only the innermost open one, so a style that ends inside another closes and reopens the one inside it.
 */
export function taggedText(
	runs: readonly TextRun[],
	tags: StyleTags,
	escape: (text: string) => string,
): string {
	let out = '';
	const open: StyleName[] = [];
	for (const run of runs) {
		const wanted = STYLES.filter((name) => run[name]);
		let common = 0;
		while (common < open.length && open[common] === wanted[common]) common++;
		while (open.length > common) out += tags.close[open.pop()!];
		for (const name of wanted.slice(common)) {
			open.push(name);
			out += tags.open[name];
		}
		out += escape(run.text);
	}
	while (open.length > 0) out += tags.close[open.pop()!];
	return out;
}

const SPACE = /\s/;

/** The characters of the runs that are not white space, each with its style, in order. */
function visibleChars(runs: readonly TextRun[]): Array<{ char: string; style: TextStyle }> {
	const chars: Array<{ char: string; style: TextStyle }> = [];
	for (const run of runs) {
		const style = styleOf(run);
		for (const char of run.text) if (!SPACE.test(char)) chars.push({ char, style });
	}
	return chars;
}

/**
 * The cues Fix made, with the styles of the cues their text came from carried over. Fix keeps every character but
 * spaces in order and leaves out only lines that roll-up captions repeat, so the characters of `made` are found in
 * `source` in order: each takes the style of the one it matches, and a space the style of the characters around it
 * when both have it. Cues of an unstyled source come back as they are.
 */
export function carryStyles(source: readonly Cue[], made: readonly Cue[]): Cue[] {
	if (!source.some((cue) => cue.runs)) return [...made];
	const from = source.flatMap((cue) => visibleChars(runsOf(cue)));
	let at = 0;
	const styleFor = (char: string): TextStyle => {
		let index = at;
		while (index < from.length && from[index].char !== char) index++;
		if (index === from.length) return {};
		at = index + 1;
		return from[index].style;
	};
	return made.map((cue) => {
		const chars = Array.from(cue.text);
		const styles = chars.map((char) => (SPACE.test(char) ? undefined : styleFor(char)));
		// a space between two characters of one style has it too: the nearest styles on either side, in two passes
		const after: Array<TextStyle | undefined> = [];
		for (let index = chars.length - 1, next: TextStyle | undefined; index >= 0; index--) {
			after[index] = next;
			next = styles[index] ?? next;
		}
		let before: TextStyle | undefined;
		const pieces = chars.map((char, index): TextRun => {
			const own = styles[index];
			if (own) {
				before = own;
				return { text: char, ...own };
			}
			const next = after[index];
			return before && next && sameStyle(before, next) ? { text: char, ...before } : { text: char };
		});
		const rest: Cue = { ...cue };
		delete rest.runs;
		const runs = toRuns(pieces);
		return runs ? { ...rest, runs } : rest;
	});
}

/** The runs of a cue for writing: its runs, or its text as one unstyled run. */
export function runsOf(cue: Pick<Cue, 'text' | 'runs'>): readonly TextRun[] {
	return cue.runs ?? [{ text: cue.text }];
}
