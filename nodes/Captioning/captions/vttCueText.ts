// WebVTT cue text: read as the WebVTT cue text parser builds it (https://w3c.github.io/webvtt/#cue-text-parsing-rules)
// into plain text with runs of italics, bold, underline and voice; written back as tags. One scan of the payload with
// indexOf, no regular expression per token: a styled file is read as fast as a plain one (BENCHMARKS.md, item 7).
import { HTML_TAGS, runsOf, styledRun, taggedText, voiceGroups } from './styling';
import type { Cue, TextRun } from './types';

const NAMED_ENTITIES: Record<string, string> = {
	amp: '&',
	lt: '<',
	gt: '>',
	quot: '"',
	apos: "'",
	nbsp: '\u00a0',
	lrm: '\u200e',
	rlm: '\u200f',
};

/** Decodes the character references WebVTT allows: the named ones above and `&#...;`/`&#x...;`; others stay. */
export function decodeEntities(text: string): string {
	if (!text.includes('&')) return text;
	return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (reference, body: string) => {
		if (body[0] !== '#') return NAMED_ENTITIES[body] ?? reference;
		const code =
			body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : Number(body.slice(1));
		const isScalar = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
		return isScalar ? String.fromCodePoint(code) : reference;
	});
}

export interface CueText {
	text: string;
	voice?: string;
	runs?: TextRun[];
	/** Ruby annotations (furigana) left out: the other formats have no place for them. */
	rubyText?: string;
	/** A tag without its ">": the tag as written and the text after it, kept as text. */
	unclosed?: { tag: string; text: string };
}

/** The elements the reader keeps track of; other tags leave their text as it is. */
const ELEMENTS = new Set(['i', 'b', 'u', 'c', 'lang', 'ruby', 'v']);
const isSpace = (code: number) =>
	code === 32 || code === 9 || code === 10 || code === 12 || code === 13;

/** A tag's name: up to the first white space or full stop (classes follow a full stop). */
function tagName(tag: string): string {
	let end = 0;
	while (end < tag.length) {
		const code = tag.charCodeAt(end);
		if (code === 46 || isSpace(code)) break;
		end++;
	}
	return end === tag.length ? tag : tag.slice(0, end);
}

/** A start tag's annotation: after the name and classes, white space trimmed and collapsed, as the spec does. */
function annotation(tag: string): string {
	let at = 0;
	while (at < tag.length && !isSpace(tag.charCodeAt(at))) at++;
	const text = tag.slice(at);
	return text === '' ? '' : decodeEntities(text.replace(/\s+/g, ' ').trim());
}

/** An element open where the text is read: its name, and the voice of a `v`. */
interface Open {
	name: string;
	voice?: string;
}

/**
 * The state of one reading: the elements open, innermost last, and the runs read so far, each new piece of text
 * joined to the last run when it has the same style (no list of pieces copied into runs afterwards). One reading
 * at a time, so one state, reset for each cue: a cue costs its runs, not a reader's arrays and sets.
 */
class CueTextReading {
	readonly open: Open[] = [];
	italic = 0;
	bold = 0;
	underline = 0;
	ruby = 0;
	voice: string | undefined;
	text = '';
	runs: TextRun[] = [];
	styled = false;
	/** The voice of the text read, '' while none, undefined once several have spoken. */
	onlyVoice: string | undefined = '';
	rubyText: string[] = [];

	reset(): void {
		this.open.length = 0;
		this.italic = this.bold = this.underline = this.ruby = 0;
		this.voice = undefined;
		this.text = '';
		this.runs = [];
		this.styled = false;
		this.onlyVoice = '';
		this.rubyText = [];
	}

	addText(raw: string): void {
		const text = decodeEntities(raw);
		if (this.ruby > 0) {
			const said = text.trim();
			if (said !== '') this.rubyText.push(said);
			return;
		}
		this.text += text;
		const { italic, bold, underline, voice } = this;
		if (voice !== undefined && text.trim() !== '') {
			if (this.onlyVoice === '') this.onlyVoice = voice;
			else if (this.onlyVoice !== voice) this.onlyVoice = undefined;
		}
		const last = this.runs[this.runs.length - 1];
		if (
			last !== undefined &&
			(last.italic === true) === italic > 0 &&
			(last.bold === true) === bold > 0 &&
			(last.underline === true) === underline > 0 &&
			last.voice === voice
		) {
			last.text += text;
			return;
		}
		const run = styledRun(text, italic > 0, bold > 0, underline > 0);
		if (voice !== undefined) run.voice = voice;
		if (italic > 0 || bold > 0 || underline > 0 || voice !== undefined) this.styled = true;
		this.runs.push(run);
	}

	startTag(tag: string): void {
		const name = tagName(tag);
		const innermost = this.open[this.open.length - 1]?.name;
		if (name === 'rt') {
			if (innermost === 'ruby') this.push({ name });
		} else if (ELEMENTS.has(name)) {
			if (name === 'v') {
				const voice = annotation(tag);
				this.push({ name, voice: voice === '' ? undefined : voice });
			} else {
				this.push({ name });
			}
		}
	}

	endTag(tag: string): void {
		const name = tag.slice(1).trim();
		const open = this.open;
		const current = open[open.length - 1];
		if (current?.name === name) {
			this.pop();
		} else if (name === 'ruby' && current?.name === 'rt' && open[open.length - 2]?.name === 'ruby') {
			this.pop();
			this.pop();
		}
	}

	private push(element: Open): void {
		this.open.push(element);
		this.count(element.name, 1);
		if (element.name === 'v') this.voice = element.voice;
	}

	private pop(): void {
		const element = this.open.pop()!;
		this.count(element.name, -1);
		if (element.name === 'v') {
			// the voice of the next v element out, if any
			this.voice = undefined;
			for (let at = this.open.length - 1; at >= 0; at--) {
				if (this.open[at].name === 'v') {
					this.voice = this.open[at].voice;
					break;
				}
			}
		}
	}

	private count(name: string, by: number): void {
		if (name === 'i') this.italic += by;
		else if (name === 'b') this.bold += by;
		else if (name === 'u') this.underline += by;
		else if (name === 'rt') this.ruby += by;
	}

	/** Text after a tag that has no ">": the rest of the cue, without the tag's name, classes (and language). */
	unclosed(tag: string): CueText['unclosed'] {
		const name = tagName(tag);
		if (name.startsWith('/')) return undefined;
		let rest = tag.slice(name.length).replace(/^(?:\.[^\s.]*)*/, '');
		if (name === 'lang') rest = rest.replace(/^\s*\S+/, '');
		rest = rest.replace(/^\s+/, '');
		if (rest === '') return undefined;
		this.addText(rest);
		return { tag: `<${name}`, text: rest };
	}

	result(unclosed: CueText['unclosed']): CueText {
		const result: CueText = { text: this.text };
		const { onlyVoice } = this;
		if (onlyVoice !== undefined) {
			// one speaker (or none): the cue's voice, not the runs'
			if (onlyVoice !== '') result.voice = onlyVoice;
			if (this.runs.some((run) => run.voice !== undefined)) {
				const runs: TextRun[] = [];
				for (const run of this.runs) {
					delete run.voice;
					const last = runs[runs.length - 1];
					if (last && last.italic === run.italic && last.bold === run.bold && last.underline === run.underline) {
						last.text += run.text;
					} else {
						runs.push(run);
					}
				}
				this.runs = runs;
				this.styled = runs.some((run) => run.italic || run.bold || run.underline);
			}
		}
		if (this.styled) result.runs = this.runs.slice();
		if (this.rubyText.length > 0) result.rubyText = this.rubyText.join(' ');
		if (unclosed) result.unclosed = unclosed;
		return result;
	}
}

const reading = new CueTextReading();

// the element an ASCII letter after "<" or "</" names among <b>, <i> and <u>: 1, 2 and 3 (two bits); others 0
const simpleElement = (code: number) => (code === 105 ? 2 : code === 98 ? 1 : code === 117 ? 3 : 0);
// the runs being read, kept between cues: each cue's are copied out at their own length
const scratchRuns: TextRun[] = [];

/**
 * The usual styled cue, with no tags but <b>, <i>, <u> and their end tags and no character reference, read as the
 * full reader reads it (an end tag closes only the innermost element) in one scan whose state is numbers: the open
 * elements two bits each in one integer, innermost lowest. Undefined for any other cue, which the full reader reads.
 */
function simpleStyledText(payload: string): CueText | undefined {
	let text = '';
	let count = 0;
	let styled = false;
	let open = 0;
	let depth = 0;
	let italic = 0;
	let bold = 0;
	let underline = 0;
	let at = 0;
	for (;;) {
		const lt = payload.indexOf('<', at);
		const end = lt === -1 ? payload.length : lt;
		if (end > at) {
			const piece = payload.slice(at, end);
			text += piece;
			const last = count > 0 ? scratchRuns[count - 1] : undefined;
			if (
				last !== undefined &&
				(last.italic === true) === italic > 0 &&
				(last.bold === true) === bold > 0 &&
				(last.underline === true) === underline > 0
			) {
				last.text += piece;
			} else {
				if (italic > 0 || bold > 0 || underline > 0) styled = true;
				scratchRuns[count++] = styledRun(piece, italic > 0, bold > 0, underline > 0);
			}
		}
		if (lt === -1) break;
		const closing = payload.charCodeAt(lt + 1) === 47;
		const nameAt = closing ? lt + 2 : lt + 1;
		const element = simpleElement(payload.charCodeAt(nameAt));
		if (element === 0 || payload.charCodeAt(nameAt + 1) !== 62) return undefined;
		if (!closing) {
			if (depth === 15) return undefined;
			open = (open << 2) | element;
			depth++;
		} else if (depth > 0 && (open & 3) === element) {
			open >>= 2;
			depth--;
		} else {
			at = nameAt + 2;
			continue;
		}
		const by = closing ? -1 : 1;
		if (element === 2) italic += by;
		else if (element === 1) bold += by;
		else underline += by;
		at = nameAt + 2;
	}
	return styled ? { text, runs: scratchRuns.slice(0, count) } : { text };
}

/**
 * The cue text as the WebVTT cue text parser builds it, as plain text with its runs: tags removed, character
 * references decoded, white space kept. `<v>` gives the voice: the cue's when one speaker says everything, the runs'
 * when several share the cue. An end tag closes an element only when it is the one open innermost, as in the spec;
 * class, language and timestamp tags leave their text as it is. The one place this reader leaves the spec: the text
 * after a tag without its ">" is kept as text (`unclosed`), where the spec reads it as the tag's annotation.
 */
export function parseCueText(payload: string): CueText {
	const entities = payload.includes('&');
	if (!entities && !payload.includes('<')) return { text: payload };
	const simple = entities ? undefined : simpleStyledText(payload);
	if (simple) return simple;
	reading.reset();
	let unclosed: CueText['unclosed'];
	let at = 0;
	while (at < payload.length) {
		const lt = payload.indexOf('<', at);
		if (lt === -1) {
			reading.addText(payload.slice(at));
			break;
		}
		if (lt > at) reading.addText(payload.slice(at, lt));
		const gt = payload.indexOf('>', lt + 1);
		if (gt === -1) {
			unclosed = reading.unclosed(payload.slice(lt + 1));
			break;
		}
		const tag = payload.slice(lt + 1, gt);
		if (tag.charCodeAt(0) === 47) reading.endTag(tag);
		else reading.startTag(tag);
		at = gt + 1;
	}
	return reading.result(unclosed);
}

// ---- writing ----------------------------------------------------------------------------------------------------

/** Whether text has a character WebVTT cue text writes as a character reference (`&`, `<`, `>`). */
export function needsVttEscape(text: string): boolean {
	// three searches for one character each take half the time of one character class
	return text.includes('&') || text.includes('<') || text.includes('>');
}

/** Text as WebVTT cue text holds it: `&`, `<` and `>` as character references. */
export function escapeVttText(text: string): string {
	if (!needsVttEscape(text)) return text;
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A voice as its start tag: "<v A-->" would read as a timing line, so a space ends such a tag. */
export function voiceTag(voice: string): string {
	const name = escapeVttText(voice.replace(/\s+/g, ' ').trim());
	return name.endsWith('-') ? `<v ${name} >` : `<v ${name}>`;
}

/** Runs as WebVTT cue text: styles as <i>, <b>, <u>, always well nested, each speaker's part in its <v>. */
export function runsToVtt(runs: readonly TextRun[]): string {
	let voiced = false;
	for (const run of runs) if (run.voice !== undefined) voiced = true;
	if (!voiced) return taggedText(runs, HTML_TAGS, escapeVttText);
	let out = '';
	for (const group of voiceGroups(runs)) {
		const text = taggedText(group.runs, HTML_TAGS, escapeVttText);
		out += group.voice === undefined ? text : `${voiceTag(group.voice)}${text}</v>`;
	}
	return out;
}

/** A cue's text as WebVTT cue text (its voice aside), from its runs when it has them. */
export function cueTextToVtt(cue: Pick<Cue, 'text' | 'runs'>): string {
	return cue.runs ? runsToVtt(runsOf(cue)) : escapeVttText(cue.text);
}
