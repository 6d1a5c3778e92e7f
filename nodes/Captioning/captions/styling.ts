// Italics, bold, underline and speakers of cue text, as runs of text with one style each (Cue.runs). Readers build
// runs from pieces of text with their style; writers turn runs into their format's tags; Fix, which lays text out
// again without changing a character but spaces, carries each character's style over to the new text. A cue of one
// speaker names it in Cue.voice; only a cue that several speakers share gives its runs a voice.
import type { Cue, TextRun, TextStyle } from './types';

const STYLES = ['bold', 'italic', 'underline'] as const;
export type StyleName = (typeof STYLES)[number];

/** A run's style: italics, bold, underline and voice. */
type RunStyle = TextStyle & { voice?: string };

function sameStyle(a: RunStyle, b: RunStyle): boolean {
	return (
		a.italic === b.italic && a.bold === b.bold && a.underline === b.underline && a.voice === b.voice
	);
}

function styleOf(run: RunStyle): RunStyle {
	const style: RunStyle = {};
	if (run.italic) style.italic = true;
	if (run.bold) style.bold = true;
	if (run.underline) style.underline = true;
	if (run.voice !== undefined) style.voice = run.voice;
	return style;
}

const isStyled = (run: RunStyle) =>
	run.italic === true || run.bold === true || run.underline === true || run.voice !== undefined;

/**
 * A run of text with the styles given, in one literal for no style or one: styles added to a run one by one take a
 * second allocation, kept as long as the cue.
 */
export function styledRun(text: string, italic: boolean, bold: boolean, underline: boolean): TextRun {
	if (!bold && !underline) return italic ? { text, italic: true } : { text };
	if (!italic && !underline) return { text, bold: true };
	if (!italic && !bold) return { text, underline: true };
	const run: TextRun = { text };
	if (italic) run.italic = true;
	if (bold) run.bold = true;
	if (underline) run.underline = true;
	return run;
}

/** Pieces of text with their style as runs: neighbours of one style joined; undefined when none is styled. */
export function toRuns(pieces: readonly TextRun[]): TextRun[] | undefined {
	let styled = false;
	for (const piece of pieces) if (isStyled(piece)) styled = true;
	if (!styled) return undefined;
	const runs: TextRun[] = [];
	for (const piece of pieces) {
		if (piece.text === '') continue;
		const last = runs[runs.length - 1];
		if (last && sameStyle(last, piece)) {
			last.text += piece.text;
			continue;
		}
		// each style written out, not spread: a reader makes a run or two of every styled cue
		const run = styledRun(
			piece.text,
			piece.italic === true,
			piece.bold === true,
			piece.underline === true,
		);
		if (piece.voice !== undefined) run.voice = piece.voice;
		runs.push(run);
	}
	return runs.some(isStyled) ? runs : undefined;
}

// The styles a run wants, in the order tags open them, for each combination (bold 1, italic 2, underline 4).
const WANTED: readonly StyleName[][] = Array.from({ length: 8 }, (_, mask) =>
	STYLES.filter((_, bit) => (mask & (1 << bit)) !== 0),
);

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
 * only the innermost open one, so a style that ends inside another closes and reopens the one inside it. Voices are
 * left to the caller (voiceGroups).
 */
export function taggedText(
	runs: readonly TextRun[],
	tags: StyleTags,
	escape: (text: string) => string,
): string {
	const table = tags === HTML_TAGS ? HTML_TRANSITIONS : transitions(tags);
	let out = '';
	let open = 0;
	for (let index = 0; index < runs.length; index++) {
		const run = runs[index];
		const wanted = (run.bold ? 1 : 0) | (run.italic ? 2 : 0) | (run.underline ? 4 : 0);
		out += table[open * 8 + wanted] + escape(run.text);
		open = wanted;
	}
	return out + table[open * 8];
}

/** taggedText with HTML_TAGS of text written as it is (SRT's, made safe as a whole before). */
export function htmlTaggedText(runs: readonly TextRun[]): string {
	let out = '';
	let open = 0;
	for (let index = 0; index < runs.length; index++) {
		const run = runs[index];
		const wanted = (run.bold ? 1 : 0) | (run.italic ? 2 : 0) | (run.underline ? 4 : 0);
		out += HTML_TRANSITIONS[open * 8 + wanted] + run.text;
		open = wanted;
	}
	return out + HTML_TRANSITIONS[open * 8];
}

const TRANSITIONS = new WeakMap<StyleTags, readonly string[]>();

/**
 * The tags that go from the styles open (a combination, bold 1, italic 2, underline 4) to those a run wants, for
 * each of the 64 pairs: the styles after the common start of both closed innermost first, the wanted ones opened.
 * Made once for each set of tags, so a cue costs one look-up a run.
 */
function transitions(tags: StyleTags): readonly string[] {
	let table = TRANSITIONS.get(tags);
	if (table) return table;
	table = Array.from({ length: 64 }, (_, pair) => {
		const open = WANTED[pair >> 3];
		const wanted = WANTED[pair & 7];
		let common = 0;
		while (common < open.length && common < wanted.length && open[common] === wanted[common])
			common++;
		let out = '';
		for (let at = open.length - 1; at >= common; at--) out += tags.close[open[at]];
		for (let at = common; at < wanted.length; at++) out += tags.open[wanted[at]];
		return out;
	});
	TRANSITIONS.set(tags, table);
	return table;
}

// looked up without the map: WebVTT and SRT write a cue's tags from it
const HTML_TRANSITIONS = transitions(HTML_TAGS);

/** The runs in groups of one voice each, in order (a cue of one speaker is one group without a voice). */
export function voiceGroups(
	runs: readonly TextRun[],
): Array<{ voice: string | undefined; runs: TextRun[] }> {
	const groups: Array<{ voice: string | undefined; runs: TextRun[] }> = [];
	for (const run of runs) {
		const last = groups[groups.length - 1];
		if (last && last.voice === run.voice) last.runs.push(run);
		else groups.push({ voice: run.voice, runs: [run] });
	}
	return groups;
}

/** The voices of a cue: its own, or those of its runs in the order they speak. */
export function voicesOf(cue: Pick<Cue, 'voice' | 'runs'>): string[] {
	if (cue.voice !== undefined) return [cue.voice];
	const voices: string[] = [];
	for (const run of cue.runs ?? []) {
		if (run.voice !== undefined && !voices.includes(run.voice)) voices.push(run.voice);
	}
	return voices;
}

/** A speaker's name as one line: white space collapsed; undefined when there is none. */
export const cleanVoice = (voice: string | undefined) =>
	voice?.replace(/\s+/g, ' ').trim() || undefined;

/** Runs with each speaker's name before what they say ("Anna: "), after the white space a part starts with. */
export function namedRuns(cue: Pick<Cue, 'text' | 'runs' | 'voice'>): TextRun[] {
	const voice = cleanVoice(cue.voice);
	if (voice) return [{ text: `${voice}: ` }, ...runsOf(cue)];
	const out: TextRun[] = [];
	for (const group of voiceGroups(runsOf(cue))) {
		const name = cleanVoice(group.voice);
		if (name && group.runs.some((run) => run.text.trim() !== '')) {
			const [first, ...rest] = group.runs;
			const lead = /^\s*/.exec(first.text)![0];
			if (lead !== '') out.push({ ...first, text: lead });
			out.push({ text: `${name}: ` }, { ...first, text: first.text.slice(lead.length) }, ...rest);
		} else {
			for (const run of group.runs) out.push(run);
		}
	}
	return out;
}

const SPACE = /\s/;

/** The characters of the runs that are not white space, each with its style, in order. */
function visibleChars(runs: readonly TextRun[]): Array<{ char: string; style: RunStyle }> {
	const chars: Array<{ char: string; style: RunStyle }> = [];
	for (const run of runs) {
		const style = styleOf(run);
		for (const char of run.text) if (!SPACE.test(char)) chars.push({ char, style });
	}
	return chars;
}

/**
 * A cue whose runs all have one voice names it as the cue's voice; a cue whose runs have no style left has none.
 * What a split or a merge of Fix leaves, in the model's one form.
 */
export function withVoiceOfRuns(cue: Cue): Cue {
	if (!cue.runs || cue.voice !== undefined) return cue;
	const voices = new Set<string | undefined>();
	for (const run of cue.runs) if (run.text.trim() !== '') voices.add(run.voice);
	if (voices.size !== 1) return cue;
	const [voice] = voices;
	const out: Cue = { ...cue };
	delete out.runs;
	const plain = toRuns(
		cue.runs.map((run) => {
			const unvoiced = { ...run };
			delete unvoiced.voice;
			return unvoiced;
		}),
	);
	if (plain) out.runs = plain;
	if (voice !== undefined) out.voice = voice;
	return out;
}

/**
 * The cues Fix made, with the styles of the cues their text came from carried over. Fix keeps every character but
 * spaces in order and leaves out only lines that roll-up captions repeat, so the characters of `made` are found in
 * `source` in order: each takes the style of the one it matches, and a space the style of the characters around it
 * when both have it. Cues of an unstyled source come back as they are.
 */
export function carryStyles(source: readonly Cue[], made: readonly Cue[]): Cue[] {
	if (!source.some((cue) => cue.runs)) return [...made];
	const from: Array<{ char: string; style: RunStyle }> = [];
	for (const cue of source) {
		for (const visible of visibleChars(runsOf(cue))) {
			// a cue of one speaker gives its voice to its characters, so a merge keeps who said what
			from.push(
				cue.voice === undefined
					? visible
					: { ...visible, style: { ...visible.style, voice: cue.voice } },
			);
		}
	}
	const voiced = source.some((cue) => cue.voice !== undefined || voicesOf(cue).length > 0);
	let at = 0;
	const styleFor = (char: string): RunStyle => {
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
		const after: Array<RunStyle | undefined> = [];
		for (let index = chars.length - 1, next: RunStyle | undefined; index >= 0; index--) {
			after[index] = next;
			next = styles[index] ?? next;
		}
		let before: RunStyle | undefined;
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
		if (voiced) delete rest.voice;
		const runs = toRuns(pieces);
		const styled = runs ? { ...rest, runs } : rest;
		return voiced ? withVoiceOfRuns(styled) : styled;
	});
}

/** The runs of a cue for writing: its runs, or its text as one unstyled run. */
export function runsOf(cue: Pick<Cue, 'text' | 'runs'>): readonly TextRun[] {
	return cue.runs ?? [{ text: cue.text }];
}
