// SubRip (.srt) as people have it: numbered blocks of a timing line and text, blank lines between them, often
// missing or doubled. A block whose timing line cannot be read is left out and the rest read; text after a blank
// line inside a cue is kept in that cue; each is named in `warnings`. Italics, bold and underline (<i>, <b>, <u>,
// and the {\i1} of ASS) are read into the cue's runs and written back as <i>, <b> and <u>; <br> is a line break.
// Times are read as the players and the other libraries read them: the digits after the comma are milliseconds
// (",5" is 5 ms), and text after the end time on the timing line is not the cue's (subtitle reads it as settings).
import { CaptionFormatError } from './errors';
import { carryStyles, htmlTaggedText, namedRuns, runsOf, styledRun, toRuns } from './styling';
import { formatSrtTimestamp, parseSrtTimestamp, usualTimestampAt } from './time';
import type { CaptionDocument, CaptionFormat, Cue, TextRun, TextStyle, WarningSink } from './types';
import { excerpt, lineWarning, linesLabel, Warnings } from './warnings';
import { isBlank, isTrimmed, LineCursor, spaceAt, trimmedLines } from './lines';
import {
	EmptyCuesLeftOut,
	inTimeOrder,
	TextBuilder,
	writtenTimes,
	CUES_PER_CHECK,
} from './writing';

interface SrtFormatOptions {
	/** Prefix each cue with its speaker (`Roger: ...`), since SRT has no voice markup. */
	includeVoice?: boolean;
}

// Formatting tags of SRT and WebVTT, line breaks (<br>, <br/>), timestamp tags and ASS overrides ({\an8}); other
// text in angle brackets is dialogue (e.g. "<year over year>") and stays.
const MARKUP =
	/<\/?(?:b|br|c|font|i|lang|rt|ruby|s|span|u|v)(?:[\s.][^<>]*)?\/?>|<\d+(?::\d+)+[.,]\d+>|\{\\[^{}]*\}/gi;
const STYLE_OF: Record<string, keyof TextStyle> = { i: 'italic', b: 'bold', u: 'underline' };

// lines as SRT keeps them: trimmed, empty ones left out (an empty line ends the cue)
const keptLines = trimmedLines;

/** How deep each style is nested where the text is read (a count: <i><i>x</i> stays italic). */
interface Depth {
	italic: number;
	bold: number;
	underline: number;
}

function addPiece(pieces: TextRun[], text: string, depth: Depth): void {
	if (text === '') return;
	pieces.push(styledRun(text, depth.italic > 0, depth.bold > 0, depth.underline > 0));
}

/**
 * What a tag does to the styles: <i> opens italics, </i> closes them, {\i1} and {\i0} as ASS writes them; `br` for a
 * line break; undefined for markup without a style (<font>, {\an8}, a timestamp), which is left out.
 */
function tagEffect(tag: string): { style: keyof TextStyle; on: boolean } | 'br' | undefined {
	const code = tag.charCodeAt(1);
	if (tag.charCodeAt(0) === 123) {
		// {\i1}
		if (tag.length !== 5) return undefined;
		const style = STYLE_OF[tag[2].toLowerCase()];
		const flag = tag[3];
		return style && (flag === '0' || flag === '1') ? { style, on: flag === '1' } : undefined;
	}
	const closing = code === 47;
	const name = tag.slice(closing ? 2 : 1, tag.length - 1).toLowerCase();
	if (name.startsWith('br') && /^br[\s/]*$/.test(name)) return 'br';
	const style = name.length === 1 ? STYLE_OF[name] : undefined;
	return style ? { style, on: !closing } : undefined;
}

/** The text of a cue's lines without their tags, as pieces with their styles; `<br>` as a line break. */
function piecesOf(raw: string): { plain: string; pieces: TextRun[] } {
	const depth: Depth = { italic: 0, bold: 0, underline: 0 };
	const pieces: TextRun[] = [];
	let plain = '';
	let last = 0;
	MARKUP.lastIndex = 0;
	for (let match = MARKUP.exec(raw); match !== null; match = MARKUP.exec(raw)) {
		const text = raw.slice(last, match.index);
		plain += text;
		addPiece(pieces, text, depth);
		last = match.index + match[0].length;
		const effect = tagEffect(match[0]);
		if (effect === 'br') {
			plain += '\n';
			addPiece(pieces, '\n', depth);
		} else if (effect) {
			depth[effect.style] = effect.on
				? depth[effect.style] + 1
				: Math.max(0, depth[effect.style] - 1);
		}
	}
	const rest = raw.slice(last);
	plain += rest;
	addPiece(pieces, rest, depth);
	return { plain, pieces };
}

/**
 * The runs in an array of their length (the one they were pushed into holds room for more, kept as long as the
 * cue), each run's text cut from the cue's `text` they spell: cut from the tagged text, a run kept all of it alive.
 */
function exactly(runs: readonly TextRun[], text: string): TextRun[] {
	const out = runs.slice();
	let at = 0;
	for (const run of out) {
		const end = at + run.text.length;
		// V8 copies a cut of fewer than 13 characters; a longer one points into the text it was cut from
		if (end - at >= 13) run.text = text.slice(at, end);
		at = end;
	}
	return out;
}

// Where the pieces of plainTags's text end and their styles (bold 1, italic 2, underline 4): kept from cue to cue.
const pieceEnds: number[] = [];
const pieceStyles: number[] = [];
const STYLE_BIT: Record<number, number> = { 98: 1, 105: 2, 117: 4 };

/** A piece of plainTags's text up to `end`, of one style: the one before it longer when it has that style. */
function endPiece(style: number, end: number): void {
	if (pieceStyles.length > 0 && pieceStyles[pieceStyles.length - 1] === style) {
		pieceEnds[pieceEnds.length - 1] = end;
	} else {
		pieceEnds.push(end);
		pieceStyles.push(style);
	}
}

/**
 * readText for text whose only markup is <i>, <b> and <u> and their end tags, as nearly every styled file has it:
 * the text and runs piecesOf, toRuns and exactly give, read in one scan without a match, a piece or a style object
 * a tag (a cue's garbage was most of the time of reading a styled file). Undefined for any other text, and for text
 * whose lines need trimming, which the general reading lays out again.
 */
export function plainTags(raw: string): Pick<Cue, 'text' | 'runs'> | undefined {
	if (raw.includes('{')) return undefined;
	let italic = 0;
	let bold = 0;
	let underline = 0;
	let plain = '';
	let last = 0;
	let styled = false;
	pieceEnds.length = 0;
	pieceStyles.length = 0;
	for (let open = raw.indexOf('<'); open !== -1; open = raw.indexOf('<', last)) {
		const closing = raw.charCodeAt(open + 1) === 47;
		const at = closing ? open + 2 : open + 1;
		// a letter's lower case (<I> is <i>)
		const bit = raw.charCodeAt(at + 1) === 62 ? STYLE_BIT[raw.charCodeAt(at) | 32] : undefined;
		if (bit === undefined) return undefined;
		if (open > last) {
			const style = (bold > 0 ? 1 : 0) | (italic > 0 ? 2 : 0) | (underline > 0 ? 4 : 0);
			plain += raw.slice(last, open);
			endPiece(style, plain.length);
			if (style !== 0) styled = true;
		}
		const change = closing ? -1 : 1;
		if (bit === 1) bold = Math.max(0, bold + change);
		else if (bit === 2) italic = Math.max(0, italic + change);
		else underline = Math.max(0, underline + change);
		last = at + 2;
	}
	if (last < raw.length) {
		const style = (bold > 0 ? 1 : 0) | (italic > 0 ? 2 : 0) | (underline > 0 ? 4 : 0);
		plain += raw.slice(last);
		endPiece(style, plain.length);
		if (style !== 0) styled = true;
	}
	if (!styled) return { text: keptLines(plain) };
	if (!isTrimmed(plain)) return undefined;
	const runs: TextRun[] = new Array<TextRun>(pieceEnds.length);
	let from = 0;
	for (let index = 0; index < pieceEnds.length; index++) {
		const style = pieceStyles[index];
		const end = pieceEnds[index];
		const text = plain.slice(from, end);
		runs[index] = styledRun(text, (style & 2) !== 0, (style & 1) !== 0, (style & 4) !== 0);
		from = end;
	}
	return { text: plain, runs };
}

/** A cue's text lines read once: tags removed, the styles they set kept as runs. */
function readText(lines: readonly string[]): Pick<Cue, 'text' | 'runs'> {
	let raw = '';
	for (let index = 0; index < lines.length; index++) {
		raw += index === 0 ? lines[index].trim() : `\n${lines[index].trim()}`;
	}
	if (!raw.includes('<') && !raw.includes('{')) return { text: raw };
	const tagged = plainTags(raw);
	if (tagged) return tagged;
	return generalText(raw);
}

/** readText for any markup: pieces read with MARKUP, laid out again when tags leave white space at a line's edge. */
export function generalText(raw: string): Pick<Cue, 'text' | 'runs'> {
	const { plain, pieces } = piecesOf(raw);
	const text = keptLines(plain);
	const runs = toRuns(pieces);
	if (!runs) return { text };
	// tags at a line's edge can leave white space there, and <br> an empty line: laid out again, styles kept
	if (text === plain) return { text, runs: exactly(runs, text) };
	const [styled] = carryStyles(
		[{ startMs: 0, endMs: 0, text: plain, runs }],
		[{ startMs: 0, endMs: 0, text }],
	);
	return styled.runs ? { text, runs: styled.runs } : { text };
}

/** A cue with more text after it on a new line, styles kept. */
function joinText(cue: Cue, more: Pick<Cue, 'text' | 'runs'>): Cue {
	const separator = cue.text === '' ? [] : [{ text: '\n' }];
	const joined: Cue = { ...cue, text: `${cue.text}${cue.text === '' ? '' : '\n'}${more.text}` };
	delete joined.runs;
	const runs =
		cue.runs || more.runs ? toRuns([...runsOf(cue), ...separator, ...runsOf(more)]) : undefined;
	if (runs) joined.runs = runs;
	return joined;
}

const isTimingLine = (line: string | undefined) => line !== undefined && line.includes('-->');
// a cue number is short: longer lines are text without a test
const isNumberLine = (line: string | undefined) =>
	line !== undefined && line.length < 16 && /^\s*\d+\s*$/.test(line);
// SubRip's position extension: "X1:40 X2:600 Y1:20 Y2:50" after the end time
const COORDINATES = /^(?:[XY][12]:\s*-?\d+\s*)+$/i;

interface Timing {
	startMs: number;
	endMs: number;
	/** What follows the end time on the line, when it is not the position extension. */
	after?: string;
	coordinates?: true;
}

/** Reads a timing line: the times and what follows them, or what is wrong with it. */
function readTiming(line: string): Timing | string {
	// nearly every line is "00:00:01,500 --> 00:00:04,000": read in place, without the cuts, trims and search below
	if (line.length === 29 && line.startsWith(' --> ', 12)) {
		const startMs = usualTimestampAt(line, 0, ',');
		const endMs = usualTimestampAt(line, 17, ',');
		if (startMs !== undefined && endMs !== undefined) return { startMs, endMs };
	}
	const arrow = line.indexOf('-->');
	const startMs = parseSrtTimestamp(line.slice(0, arrow));
	const rest = line.slice(arrow + 3).trim();
	const space = rest.search(/\s/);
	const endMs = parseSrtTimestamp(space === -1 ? rest : rest.slice(0, space));
	if (startMs === undefined || endMs === undefined) {
		return `its ${startMs === undefined ? 'start' : 'end'} time is not an SRT timestamp`;
	}
	if (space === -1) return { startMs, endMs };
	const after = rest.slice(space).trim();
	return COORDINATES.test(after)
		? { startMs, endMs, coordinates: true }
		: { startMs, endMs, after };
}

/** The reading of one file: its lines, the cues read and what could not be read as it was. */
interface SrtReading {
	cues: Cue[];
	warnings: Warnings;
	/** Cues whose timing line carries the position extension, which no other format has a place for. */
	withCoordinates: number;
}

/** Text outside any cue, from line `first` (0-based): after a blank line inside a cue it belongs to that cue. */
function strayText(reading: SrtReading, first: number, stray: string[], afterCue: boolean): void {
	const { cues, warnings } = reading;
	const where = linesLabel(first + 1, first + stray.length);
	if (afterCue) {
		const more = readText(stray);
		if (more.text !== '') cues[cues.length - 1] = joinText(cues[cues.length - 1], more);
		const cue = cues.length;
		warnings.add(() =>
			lineWarning(
				first + 1,
				stray.join('\n'),
				`The text at ${where} follows a blank line inside cue ${cue}: kept in that cue. Players end a cue at a blank line; remove it to show this text with the cue.`,
			),
		);
	} else {
		warnings.add(() =>
			lineWarning(
				first + 1,
				stray.join('\n'),
				`The text at ${where} is not part of a cue (no timing line such as "00:00:01,500 --> 00:00:04,000" before it) and was left out.`,
			),
		);
	}
}

/** A cue from its timing line (line `first`, 0-based) and text lines, or the warning for a timing line it cannot read. */
function addCue(
	reading: SrtReading,
	first: number,
	timingLine: string,
	payload: string[],
): boolean {
	const { warnings } = reading;
	const timing = readTiming(timingLine);
	if (typeof timing === 'string') {
		warnings.add(() => {
			const text = payload.join('\n');
			return lineWarning(
				first + 1,
				timingLine,
				`The timing line ${JSON.stringify(excerpt(timingLine))} cannot be read: ${timing}; write times as hh:mm:ss,ttt, e.g. "00:00:01,500 --> 00:00:04,000". The cue was left out${text === '' ? '.' : ` with its text: "${excerpt(text)}"`}`,
			);
		});
		return false;
	}
	if (timing.coordinates) reading.withCoordinates++;
	const after = timing.after;
	if (after !== undefined) {
		warnings.add(() =>
			lineWarning(
				first + 1,
				after,
				`The text after the times on line ${first + 1}, "${excerpt(after)}", is not part of the cue: players show only the lines after the timing line (the subtitle library reads it as cue settings). Left out; move it to a line of its own to show it.`,
			),
		);
	}
	const { text, runs } = readText(payload);
	// runs given with the rest: added afterwards, they took a second allocation for the cue's properties
	const cue: Cue = runs
		? { startMs: timing.startMs, endMs: timing.endMs, text, runs }
		: { startMs: timing.startMs, endMs: timing.endMs, text };
	reading.cues.push(cue);
	return true;
}

/** The file's text with LF line ends (CR and CRLF as LF) and without its byte order mark. */
function normalized(content: string): string {
	const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
	return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/**
 * Reads SubRip subtitles block by block; tolerates a BOM, CRLF, missing numbers and missing blank lines. Throws
 * `CaptionFormatError` only when the content holds no cue at all.
 */
export function readSrt(content: string): CaptionDocument {
	const lines = new LineCursor(normalized(content));
	const reading: SrtReading = { cues: [], warnings: new Warnings(), withCoordinates: 0 };
	// a cue starts at its timing line, or at its number right before it
	const startsCue = () =>
		isTimingLine(lines.peek()) || (isNumberLine(lines.peek()) && isTimingLine(lines.peek(1)));
	let lastBlockWasCue = false;
	let firstText = -1;
	while (!lines.done) {
		if (isBlank(lines.peek())) {
			lines.next();
			continue;
		}
		if (firstText === -1) firstText = lines.index;
		if (isNumberLine(lines.peek()) && isTimingLine(lines.peek(1))) lines.next();
		const first = lines.index;
		if (!isTimingLine(lines.peek())) {
			const stray: string[] = [];
			while (!lines.done && !isBlank(lines.peek()) && !(stray.length > 0 && startsCue())) {
				stray.push(lines.next());
			}
			strayText(reading, first, stray, lastBlockWasCue);
			continue;
		}
		const timingLine = lines.next();
		const payload: string[] = [];
		while (!lines.done && !isBlank(lines.peek()) && !startsCue()) payload.push(lines.next());
		lastBlockWasCue = addCue(reading, first, timingLine, payload);
	}
	if (reading.cues.length === 0 && content.trim() !== '') {
		throw new CaptionFormatError(
			'no SRT cue found: SRT cues need a timing line like "00:00:01,500 --> 00:00:04,000"; check that the right caption format was chosen.',
			{ line: firstText + 1 },
		);
	}
	if (reading.withCoordinates > 0) {
		const count = reading.withCoordinates;
		reading.warnings.add({
			message: `${count === 1 ? 'A timing line carries' : `${count} timing lines carry`} SubRip position coordinates (X1: X2: Y1: Y2:), which the other caption formats have no place for: left out. The cues and their text are kept.`,
		});
	}
	const { cues, warnings } = reading;
	return warnings.count > 0 ? { cues, warnings: warnings.list() } : { cues };
}

/** The cues of an SRT file (readSrt without its warnings). */
export function parseSrt(content: string): Cue[] {
	return readSrt(content).cues;
}

// Removing one tag can join the text around it into another ("<<i>b>"): removed until none is left.
function withoutMarkup(text: string): string {
	let previous: string;
	let current = text;
	do {
		previous = current;
		current = current.replace(MARKUP, '');
	} while (current !== previous);
	return current;
}

/** A run's text as SRT can hold it: no text that reads as a tag, no "-->" (it would read as a timing line). */
function srtSafe(text: string): string {
	// text without a character that starts markup or ends an arrow is written as it is (three searches for one
	// character each take half the time of one character class)
	if (!text.includes('<') && !text.includes('>') && !text.includes('{')) return text;
	return withoutMarkup(text).replace(/-{2,}>/g, '->');
}

/**
 * Whether srtSafe and keptLines give the text of each cue of a block (from `from`) back as it is: each cue's first
 * and last character looked at, then their texts joined, where a line break has white space next to it exactly when
 * a line of theirs needs trimming. Three searches and a scan of each cue's text were a third of the time of writing
 * a styled file; the texts joined with `+=` and without breaks between them (flattened once by the first search)
 * take half the pieces of an array joined by breaks.
 */
function writtenAsTheyAre(cues: readonly Cue[], from: number): boolean {
	let joined = '';
	for (let index = from; index < cues.length && index < from + CUES_PER_CHECK; index++) {
		const text = cues[index].text;
		if (text === '' || spaceAt(text, 0) || spaceAt(text, text.length - 1)) return false;
		joined += text;
	}
	return (
		!joined.includes('<') && !joined.includes('>') && !joined.includes('{') && isTrimmed(joined)
	);
}

/** What SRT could not write of a cue as it was, for the writer's warning. */
function lossOf(before: string, after: string): string {
	const tags = before.match(MARKUP) ?? [];
	const parts: string[] = [];
	if (tags.length > 0) {
		parts.push(
			`${tags.map((tag) => JSON.stringify(tag)).join(', ')} would read as formatting, which SRT cannot write as text: left out`,
		);
	}
	if (/-{2,}>/.test(before) && !/-{2,}>/.test(after)) {
		parts.push('"-->" would read as a timing line: written as "->"');
	}
	return parts.join('; ');
}

/** A cue's text as SRT writes it, its speaker's name first when asked: tags for styles, lines kept. */
function srtBody(cue: Cue, text: string, includeVoice: boolean): string {
	if (!includeVoice && !cue.runs) return text;
	const styled: Pick<Cue, 'text' | 'runs' | 'voice'> =
		text === cue.text ? cue : carryStyles([cue], [{ ...cue, text }])[0];
	const runs = includeVoice ? namedRuns(styled) : runsOf(styled);
	// tags never join the text around them into another: each starts with "<" and is whole
	return htmlTaggedText(runs);
}

/**
 * Writes SubRip: cues ordered by start and numbered from 1, italics, bold and underline as <i>, <b> and <u>. A cue
 * without text is left out (a blank line ends a cue) and reported to `warn`, as is text SRT cannot hold (text that
 * reads as a tag, "-->") and a cue that ends before it starts (written as it is).
 */
export function formatSrt(
	cues: readonly Cue[],
	options: SrtFormatOptions = {},
	warn?: WarningSink,
): string {
	const out = new TextBuilder();
	let number = 0;
	const empty = new EmptyCuesLeftOut();
	const ordered = inTimeOrder(cues, 'SRT', warn);
	let asTheyAre = false;
	for (let index = 0; index < ordered.length; index++) {
		if (index % CUES_PER_CHECK === 0) asTheyAre = writtenAsTheyAre(ordered, index);
		const cue = ordered[index];
		// made safe as a whole: a tag can be cut between two runs ("{\\" then "an8}")
		const safe = asTheyAre ? cue.text : srtSafe(cue.text);
		const text = asTheyAre ? safe : keptLines(safe);
		if (warn && safe !== cue.text) {
			warn(
				text === ''
					? {
							text: excerpt(cue.text),
							message: `The cue at ${formatSrtTimestamp(Math.max(0, cue.startMs))} was left out: ${lossOf(cue.text, safe)}, and nothing else was in it.`,
						}
					: {
							cue: number + 1,
							text: excerpt(cue.text),
							message: `Cue ${number + 1}: ${lossOf(cue.text, safe)}.`,
						},
			);
		}
		if (text === '') {
			if (safe === cue.text) empty.add(cue);
			continue;
		}
		number++;
		const body = srtBody(cue, text, options.includeVoice === true);
		const { startMs, endMs } = writtenTimes(cue, number, warn);
		out.add(
			`${number === 1 ? '' : '\n'}${number}\n${formatSrtTimestamp(startMs)} --> ${formatSrtTimestamp(endMs)}\n${body}\n`,
		);
	}
	empty.report('SRT', warn);
	return out.toString();
}

// A cue number on its own line followed by a timing line, or a timing line with comma milliseconds.
const SRT_START = /^(?:\d+[ \t]*\r?\n[ \t]*)?\d+:\d{1,2}:\d{1,2}[,.]\d{1,3}[ \t]*-->/;

export const srtFormat: CaptionFormat = {
	id: 'srt',
	label: 'SRT',
	description: 'A SubRip subtitle file',
	mimeType: 'application/x-subrip',
	extension: 'srt',
	producedByService: false,
	wordTimings: false,
	output: { kind: 'file' },
	detect: (start) => SRT_START.test(start),
	urlPattern: /\.srt(\?|$)/i,
	parse: (content) => readSrt(content),
	render: (document, options, warn) => formatSrt(document.cues, options, warn),
};
