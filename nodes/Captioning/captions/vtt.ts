// WebVTT as the W3C's WebVTT parser algorithm reads it (https://w3c.github.io/webvtt/#file-parsing), block by
// block: a block that is not a cue is left out and the rest read, identifiers kept verbatim, settings read into
// fields (the last valid one of a name wins), regions and style sheets kept. Every block left out that is not a
// comment is named in `warnings` with its lines and text. The W3C's own tests of the algorithm run in npm test
// (test/unit/captions/wpt.test.ts, docs/captions.md).
import { CaptionFormatError } from './errors';
import { formatVttTimestamp } from './time';
import { carryStyles, htmlTaggedText } from './styling';
import { blankText, LineCursor } from './lines';
import { cueTextToVtt, escapeVttText, needsVttEscape, parseCueText, voiceTag } from './vttCueText';
import { CUES_PER_CHECK, inTimeOrder, TextBuilder, writtenTimes } from './writing';
import type {
	CaptionDocument,
	CaptionFormat,
	CaptionRegion,
	CaptionWarning,
	Cue,
	CueSettings,
	WarningSink,
} from './types';
import { excerpt, lineWarning, linesLabel, Warnings } from './warnings';

interface VttFormatOptions {
	/** Text written after `WEBVTT` on the first line, e.g. `Kind: captions`. */
	header?: string;
	/** REGION blocks written before the cues; a cue's `region` setting is written when it names one of them. */
	regions?: readonly CaptionRegion[];
	/** STYLE blocks written before the cues. */
	styles?: readonly string[];
}

const TIMESTAMP_HELP =
	'write times as mm:ss.ttt or hh:mm:ss.ttt with two-digit minutes and seconds (00-59) and three millisecond digits after a full stop, e.g. "00:01.500 --> 00:04.000"';

// ---- reading: the parser algorithm ------------------------------------------------------------------------------

/** The input as the algorithm reads it: one byte order mark removed, NUL as U+FFFD, CR and CRLF as LF. */
function preprocess(content: string): string {
	let input = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
	if (input.includes('\0')) input = input.replace(/\0/g, '\ufffd');
	if (input.includes('\r')) input = input.replace(/\r\n?/g, '\n');
	return input;
}

// ASCII whitespace as the spec's "skip whitespace" and "split on spaces" read it: space, tab, LF, FF, CR
const isSpace = (code: number) =>
	code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
const isDigit = (code: number) => code >= 48 && code <= 57;

// The timing line's reader: the position it reached, and where it stopped when it failed (for the message).
let cursor = 0;
let failedAt: 'start' | 'arrow' | 'end' = 'start';

function skipSpaces(line: string): void {
	while (isSpace(line.charCodeAt(cursor))) cursor++;
}

/** The value of the digits from the cursor, which it moves past them (none: 0, the cursor unmoved). */
function digits(line: string): number {
	let value = 0;
	let code = line.charCodeAt(cursor);
	while (isDigit(code)) {
		value = value * 10 + (code - 48);
		code = line.charCodeAt(++cursor);
	}
	return value;
}

/** "Collect a WebVTT timestamp" at the cursor: milliseconds, or NaN when it is not one. */
function timestamp(line: string): number {
	if (!isDigit(line.charCodeAt(cursor))) return NaN;
	let from = cursor;
	let v1 = digits(line);
	const hours = cursor - from !== 2 || v1 > 59;
	if (line.charCodeAt(cursor) !== 58) return NaN;
	from = ++cursor;
	let v2 = digits(line);
	if (cursor - from !== 2) return NaN;
	let v3: number;
	if (hours || line.charCodeAt(cursor) === 58) {
		if (line.charCodeAt(cursor) !== 58) return NaN;
		from = ++cursor;
		v3 = digits(line);
		if (cursor - from !== 2) return NaN;
	} else {
		v3 = v2;
		v2 = v1;
		v1 = 0;
	}
	if (line.charCodeAt(cursor) !== 46) return NaN;
	from = ++cursor;
	const v4 = digits(line);
	if (cursor - from !== 3 || v2 > 59 || v3 > 59) return NaN;
	const ms = v1 * 3_600_000 + v2 * 60_000 + v3 * 1000 + v4;
	// hours beyond what a double holds exactly cannot be written back: not a time this package can keep
	return Number.isSafeInteger(ms) ? ms : NaN;
}

let startMs = 0;
let endMs = 0;

/** "Collect WebVTT cue timings": sets startMs, endMs and the cursor at the settings; false when it fails. */
function readTiming(line: string): boolean {
	cursor = 0;
	failedAt = 'start';
	skipSpaces(line);
	startMs = timestamp(line);
	if (Number.isNaN(startMs)) return false;
	failedAt = 'arrow';
	skipSpaces(line);
	if (
		line.charCodeAt(cursor) !== 45 ||
		line.charCodeAt(cursor + 1) !== 45 ||
		line.charCodeAt(cursor + 2) !== 62
	) {
		return false;
	}
	cursor += 3;
	failedAt = 'end';
	skipSpaces(line);
	endMs = timestamp(line);
	return !Number.isNaN(endMs);
}

/** Why a timing line failed, in words, with the fix. */
function timingProblem(line: string): string {
	const shown = (text: string) => JSON.stringify(excerpt(text.trim()));
	const arrow = line.indexOf('-->');
	const before = line.slice(0, arrow).trim();
	const after = line.slice(arrow + 3).trim();
	const endText = after.split(/[ \t\f]/, 1)[0];
	const comma = /\d[,]\d{1,3}\b/.test(line)
		? ' WebVTT writes a full stop before the milliseconds where SRT writes a comma.'
		: '';
	if (failedAt === 'start') {
		return before === ''
			? 'the start time before "-->" is missing.'
			: `the start time ${shown(before)} is not a WebVTT timestamp.${comma}`;
	}
	if (failedAt === 'arrow') return 'the start and end times must be separated by " --> ".';
	return endText === ''
		? 'the end time after "-->" is missing.'
		: `the end time ${shown(endText)} is not a WebVTT timestamp.${comma}`;
}

// ---- settings -------------------------------------------------------------------------------------------------

const PERCENTAGE = /^\d+(?:\.\d+)?%$/;

/** "Parse a percentage string": 0 to 100, or undefined. */
function percentage(text: string): number | undefined {
	if (!PERCENTAGE.test(text)) return undefined;
	const value = Number(text.slice(0, -1));
	return value <= 100 ? value + 0 : undefined;
}

/** A line position without %: digits, one leading minus, at most one dot between digits (the spec's checks). */
const LINE_NUMBER = /^-?\d+(?:\.\d+)?$/;

function lineNumber(text: string): number | undefined {
	if (!LINE_NUMBER.test(text)) return undefined;
	const value = Number(text);
	// HTML's number rules: no -0, and a value beyond a double's range is an error
	return Number.isFinite(value) ? value + 0 : undefined;
}

/** "Split a string on spaces". */
function splitOnSpaces(text: string): string[] {
	return text.split(/[ \t\n\f\r]+/).filter((token) => token !== '');
}

/** The name and value of a setting, or undefined when it has no colon or starts or ends with one. */
function nameAndValue(setting: string): [string, string] | undefined {
	const colon = setting.indexOf(':');
	if (colon <= 0 || colon === setting.length - 1) return undefined;
	return [setting.slice(0, colon), setting.slice(colon + 1)];
}

function applyLine(settings: CueSettings, value: string): void {
	const comma = value.indexOf(',');
	const position = comma === -1 ? value : value.slice(0, comma);
	const align = comma === -1 ? undefined : value.slice(comma + 1);
	if (!/\d/.test(position)) return;
	const percent = position.endsWith('%');
	const number = percent ? percentage(position) : lineNumber(position);
	if (number === undefined) return;
	if (align === 'start' || align === 'center' || align === 'end') settings.lineAlign = align;
	else if (align !== undefined) return;
	settings.line = number;
	if (percent) settings.snapToLines = false;
	else delete settings.snapToLines;
	// a cue placed on a line leaves its region
	delete settings.region;
}

function applyPosition(settings: CueSettings, value: string): void {
	const comma = value.indexOf(',');
	const number = percentage(comma === -1 ? value : value.slice(0, comma));
	if (number === undefined) return;
	const align = comma === -1 ? undefined : value.slice(comma + 1);
	if (align === 'line-left' || align === 'center' || align === 'line-right') {
		settings.positionAlign = align;
	} else if (align !== undefined) {
		return;
	}
	settings.position = number;
}

/**
 * "Parse the WebVTT cue settings": each setting in turn, the last valid one of a name winning; a region is kept only
 * when `regions` has one of that identifier, and dropped by a vertical, line or size setting as the spec says.
 */
export function parseCueSettings(
	text: string,
	regions: readonly CaptionRegion[] = [],
): CueSettings | undefined {
	const settings: CueSettings = {};
	for (const setting of splitOnSpaces(text)) {
		const pair = nameAndValue(setting);
		if (!pair) continue;
		const [name, value] = pair;
		if (name === 'region') {
			if (regions.some((region) => region.id === value)) settings.region = value;
			else delete settings.region;
		} else if (name === 'vertical') {
			if (value === 'rl' || value === 'lr') settings.vertical = value;
			if (settings.vertical !== undefined) delete settings.region;
		} else if (name === 'line') {
			applyLine(settings, value);
		} else if (name === 'position') {
			applyPosition(settings, value);
		} else if (name === 'size') {
			const size = percentage(value);
			if (size === undefined) continue;
			settings.size = size;
			if (size !== 100) delete settings.region;
		} else if (name === 'align') {
			if (
				value === 'start' ||
				value === 'center' ||
				value === 'end' ||
				value === 'left' ||
				value === 'right'
			) {
				settings.align = value;
			}
		}
	}
	return Object.keys(settings).length > 0 ? settings : undefined;
}

/** "Collect WebVTT region settings" from a REGION block's text. */
export function parseRegion(text: string): CaptionRegion {
	const region: CaptionRegion = {
		id: '',
		width: 100,
		lines: 3,
		regionAnchorX: 0,
		regionAnchorY: 100,
		viewportAnchorX: 0,
		viewportAnchorY: 100,
		scroll: '',
	};
	const anchor = (value: string): [number, number] | undefined => {
		const comma = value.indexOf(',');
		if (comma === -1) return undefined;
		const x = percentage(value.slice(0, comma));
		const y = percentage(value.slice(comma + 1));
		return x === undefined || y === undefined ? undefined : [x, y];
	};
	for (const setting of splitOnSpaces(text)) {
		const pair = nameAndValue(setting);
		if (!pair) continue;
		const [name, value] = pair;
		if (name === 'id') {
			region.id = value;
		} else if (name === 'width') {
			region.width = percentage(value) ?? region.width;
		} else if (name === 'lines') {
			if (/^\d+$/.test(value)) region.lines = Number(value);
		} else if (name === 'regionanchor') {
			const point = anchor(value);
			if (point) [region.regionAnchorX, region.regionAnchorY] = point;
		} else if (name === 'viewportanchor') {
			const point = anchor(value);
			if (point) [region.viewportAnchorX, region.viewportAnchorY] = point;
		} else if (name === 'scroll' && value === 'up') {
			region.scroll = 'up';
		}
	}
	return region;
}

// ---- blocks -----------------------------------------------------------------------------------------------------

interface Reading {
	lines: LineCursor;
	cues: Cue[];
	regions: CaptionRegion[];
	styles: string[];
	warnings: Warnings;
	seenCue: boolean;
}

const isComment = (line: string) =>
	line.startsWith('NOTE') && (line.length === 4 || line[4] === ' ' || line[4] === '\t');
const isBlockKeyword = (buffer: string, keyword: 'STYLE' | 'REGION') =>
	buffer.startsWith(keyword) && /^[ \t\n\f\r]*$/.test(buffer.slice(keyword.length));

/** A timing line that was read, with its number (0-based). */
interface TimingLine {
	line: string;
	index: number;
}

/**
 * "Collect a WebVTT block" at the cursor: adds what it is (a cue, a style sheet, a region) to the reading, or a
 * warning when it is none of them and not a comment; leaves the cursor where the next block starts.
 */
function collectBlock(reading: Reading, inHeader: boolean): void {
	const { lines } = reading;
	const first = lines.mark();
	const firstLine = lines.peek() ?? '';
	let lineCount = 0;
	let previous = first;
	let buffer = '';
	let seenArrow = false;
	let cue: Cue | undefined;
	let timing: TimingLine | undefined;
	let textStart = first;
	let kind: 'style' | 'region' | undefined;
	while (!lines.done) {
		const seenEof = lines.atLastLine;
		const line = lines.next();
		lineCount++;
		if (line.includes('-->')) {
			if (!inHeader && (lineCount === 1 || (lineCount === 2 && !seenArrow))) {
				seenArrow = true;
				previous = lines.mark();
				timing = { line, index: lines.index - 1 };
				textStart = previous;
				cue = cueOf(reading, line, buffer);
				buffer = '';
			} else {
				lines.reset(previous);
				break;
			}
		} else if (line === '') {
			break;
		} else {
			if (!inHeader && lineCount === 2 && !reading.seenCue) {
				if (isBlockKeyword(buffer, 'STYLE')) {
					kind = 'style';
					buffer = '';
				} else if (isBlockKeyword(buffer, 'REGION')) {
					kind = 'region';
					buffer = '';
				}
			}
			// a cue's text is taken from the file in one slice at the end: no string built a line at a time
			if (!cue) buffer = buffer === '' ? line : `${buffer}\n${line}`;
			previous = lines.mark();
		}
		if (seenEof) break;
	}
	if (inHeader) return;
	if (cue) {
		addCue(reading, cue, lines.textBetween(textStart, previous), textStart.index);
	} else if (kind === 'style') {
		reading.styles.push(buffer);
	} else if (kind === 'region') {
		reading.regions.push(parseRegion(buffer));
	} else if (timing !== undefined) {
		const { line, index } = timing;
		const text = lines.textBetween(textStart, previous);
		reading.warnings.add(() =>
			lineWarning(
				index + 1,
				line,
				`The timing line cannot be read: ${timingProblem(line)} ${TIMESTAMP_HELP[0].toUpperCase()}${TIMESTAMP_HELP.slice(1)}. The cue was left out${text === '' ? '.' : ` with its text: "${excerpt(text)}"`}`,
			),
		);
	} else if (!isComment(firstLine)) {
		const text = lines.textBetween(first, previous);
		const last = previous.index - 1;
		reading.warnings.add(() => droppedBlock(text, first.index, last));
	}
}

/** The cue a timing line starts, its identifier the buffer before it; undefined when the line cannot be read. */
function cueOf(reading: Reading, line: string, identifier: string): Cue | undefined {
	if (!readTiming(line)) return undefined;
	const cue: Cue = { startMs, endMs, text: '' };
	if (identifier !== '') cue.identifier = identifier;
	// most timing lines end with the end time: no settings to read
	skipSpaces(line);
	if (cursor < line.length) {
		const settings = parseCueSettings(line.slice(cursor), reading.regions);
		if (settings) cue.settings = settings;
	}
	reading.seenCue = true;
	return cue;
}

function addCue(reading: Reading, cue: Cue, buffer: string, textLine: number): void {
	const parsed = parseCueText(buffer);
	cue.text = parsed.text;
	if (parsed.runs) cue.runs = parsed.runs;
	if (parsed.voice !== undefined) cue.voice = parsed.voice;
	const line = textLine + 1;
	const { rubyText, unclosed } = parsed;
	if (rubyText !== undefined) {
		reading.warnings.add(() =>
			lineWarning(
				line,
				rubyText,
				`The ruby annotation (reading aid) "${excerpt(rubyText)}" was left out: the other caption formats have no place for it. The text it annotates is kept.`,
			),
		);
	}
	if (unclosed !== undefined) {
		reading.warnings.add(() =>
			lineWarning(
				line,
				unclosed.text,
				`The tag "${excerpt(unclosed.tag)}" has no ">": the text after it, "${excerpt(unclosed.text)}", is kept as text (the WebVTT parser algorithm would read it as part of the tag and show nothing). Close the tag with ">".`,
			),
		);
	}
	reading.cues.push(cue);
}

/** The warning for a block the parser leaves out that is not a comment: its text, first and last line (0-based). */
function droppedBlock(text: string, first: number, last: number): CaptionWarning {
	const where = linesLabel(first + 1, last + 1);
	const blockLines = text.split('\n');
	const keyword = /^(STYLE|REGION)\s*$/.exec(blockLines[0])?.[1];
	const timingLike = blockLines.findIndex((line) => /^\s*\d+:\d{2}[:.,]\d/.test(line));
	const message = keyword
		? `The ${keyword} block at ${where} comes after the first cue, where players do not read it: it was left out. Move it before the cues.`
		: timingLike !== -1
			? `Line ${first + timingLike + 1} looks like a timing line but has no "-->" between its times: the text at ${where} was left out. Write it as "00:01.000 --> 00:04.000".`
			: `The text at ${where} is not a cue (it has no timing line such as "00:01.000 --> 00:04.000") and was left out. If it belongs to the cue before it, remove the blank line before it.`;
	return lineWarning(first + 1, text, message);
}

function missingSignature(found: string, next: string | undefined, line: number): never {
	const looksLikeSrt = /^\d+$/.test(found.trim()) && /-->.*,\d/.test(next ?? '');
	const hint = looksLikeSrt
		? 'this looks like SRT subtitles, not WebVTT'
		: 'this content is not WebVTT';
	throw new CaptionFormatError(
		`expected the "WEBVTT" signature but found ${JSON.stringify(excerpt(found))}: ${hint}. A WebVTT file must start with a line "WEBVTT" (followed by a space, a tab or the end of the line); check that the right caption format was chosen.`,
		{ line },
	);
}

/**
 * Reads WebVTT by the WebVTT parser algorithm: the cues in file order, its regions and style sheets, and a
 * warning for each block left out that is not a comment. Throws `CaptionFormatError` when the file does not start
 * with the WebVTT signature (blank lines before it are read, with a warning: players reject such a file).
 */
export function readVtt(content: string): CaptionDocument {
	const lines = new LineCursor(preprocess(content));
	const warnings = new Warnings();
	let blank = 0;
	while (!lines.atLastLine && lines.peek()!.trim() === '') {
		lines.next();
		blank++;
	}
	if (blank > 0) {
		warnings.add({
			line: 1,
			message: `The file has ${blank === 1 ? 'a blank line' : `${blank} blank lines`} before "WEBVTT": read all the same, but players reject a WebVTT file that does not start with "WEBVTT". Remove ${blank === 1 ? 'it' : 'them'}.`,
		});
	}
	const signatureLine = lines.index + 1;
	const signature = lines.next();
	if (!signature.startsWith('WEBVTT') || !/^(?:$|[ \t])/.test(signature.slice(6))) {
		missingSignature(signature, lines.peek(), signatureLine);
	}
	const reading: Reading = { lines, cues: [], regions: [], styles: [], warnings, seenCue: false };
	const atEnd = () => lines.done || (lines.atLastLine && lines.peek() === '');
	const skipEmptyLines = () => {
		while (!lines.done && lines.peek() === '') lines.next();
	};
	if (!atEnd()) {
		if (lines.peek() !== '') collectBlock(reading, true);
		else lines.next();
		skipEmptyLines();
		while (!atEnd()) {
			collectBlock(reading, false);
			skipEmptyLines();
		}
	}
	const document: CaptionDocument = { cues: reading.cues };
	if (reading.regions.length > 0) document.regions = reading.regions;
	if (reading.styles.length > 0) document.styles = reading.styles;
	if (warnings.count > 0) document.warnings = warnings.list();
	return document;
}

/** The cues of a WebVTT file in file order (readVtt without regions, style sheets and warnings). */
export function parseVtt(content: string): Cue[] {
	return readVtt(content).cues;
}

// ---- writing ------------------------------------------------------------------------------------------------------

/** Numbers as WebVTT writes them: plain digits (no exponent), which read back as the same number. */
export function plainNumber(value: number): string {
	const text = String(value);
	const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
	if (!match) return text;
	const [, sign, lead, fraction = '', exponentText] = match;
	const exponent = Number(exponentText);
	const digitsText = lead + fraction;
	if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digitsText}`;
	return digitsText.length <= exponent + 1
		? sign + digitsText.padEnd(exponent + 1, '0')
		: `${sign}${digitsText.slice(0, exponent + 1)}.${digitsText.slice(exponent + 1)}`;
}

const percent = (value: number) => `${plainNumber(value)}%`;

/** Cue settings in one canonical form: vertical, line, position, size, align, region; each once. */
export function formatCueSettings(
	settings: CueSettings | undefined,
	regionIds: ReadonlySet<string> = new Set(),
): string | undefined {
	if (!settings) return undefined;
	const parts: string[] = [];
	if (settings.vertical) parts.push(`vertical:${settings.vertical}`);
	if (settings.line !== undefined && Number.isFinite(settings.line)) {
		const value =
			settings.snapToLines === false ? percent(settings.line) : plainNumber(settings.line);
		parts.push(`line:${value}${settings.lineAlign ? `,${settings.lineAlign}` : ''}`);
	}
	if (settings.position !== undefined) {
		const align = settings.positionAlign ? `,${settings.positionAlign}` : '';
		parts.push(`position:${percent(settings.position)}${align}`);
	}
	if (settings.size !== undefined) parts.push(`size:${percent(settings.size)}`);
	if (settings.align) parts.push(`align:${settings.align}`);
	if (settings.region !== undefined && regionIds.has(settings.region)) {
		parts.push(`region:${settings.region}`);
	}
	return parts.length > 0 ? parts.join(' ') : undefined;
}

/**
 * The identifier as one line (line breaks as spaces), or undefined when a parser would not read it back: empty, with
 * "-->" (a timing line), or read by validators as a comment or a block (NOTE, STYLE, REGION).
 */
function writableIdentifier(identifier: string | undefined): string | undefined {
	if (identifier === undefined || identifier === '') return undefined;
	const line =
		identifier.includes('\n') || identifier.includes('\r')
			? identifier.replace(/[\r\n]+/g, ' ')
			: identifier;
	if (line.includes('-->')) return undefined;
	// most identifiers are numbers: the block keywords are looked for only after a capital N, S or R
	const first = line.charCodeAt(0);
	const keyword =
		(first === 78 || first === 82 || first === 83) &&
		/^(?:NOTE|STYLE|REGION)(?:$|[ \t])/.test(line);
	return keyword ? undefined : line;
}

/** Text as a cue payload holds it: line breaks as LF, empty lines left out (an empty line would end the cue). */
function payloadText(text: string): string {
	const lines = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
	const empty = lines.startsWith('\n') || lines.endsWith('\n') || lines.includes('\n\n');
	return empty ? lines.replace(/\n{2,}/g, '\n').replace(/^\n|\n$/g, '') : lines;
}

/** The cue's text with its tags, its lines as payloadText keeps them (`text`). */
function cueTextVtt(cue: Cue, text: string): string {
	if (!cue.runs || text === cue.text) return cue.runs ? cueTextToVtt(cue) : escapeVttText(text);
	return cueTextToVtt(carryStyles([cue], [{ ...cue, text }])[0]);
}

/** The cue's text as its payload, tags and all; `asItIs` when writtenAsTheyAre found nothing in it to change. */
function cueBody(cue: Cue, asItIs: boolean): string {
	const payload = asItIs ? cue.text : payloadText(cue.text);
	// a cue of white space alone shows nothing: written without it, and without a speaker
	if (blankText(payload)) return '';
	if (!asItIs) return cueTextVtt(cue, payload);
	return cue.runs ? htmlTaggedText(cue.runs) : payload;
}

/**
 * Whether payloadText and cueTextVtt give the text of each cue of a block (from `from`) back as it is, its runs as
 * their tags alone: no CR, no empty line, nothing to escape, no speaker in the runs. Looked at in what is written,
 * a styled cue's runs (which spell its text and are all it writes of it), else its text: each cue's first and last
 * character, then all of them joined, where a line break is next to another exactly when a line is empty. Joined with
 * `+=` and flattened once by the first search: an array joined with breaks between the cues, and the texts of a
 * styled cue looked at as well as its runs, took twice the time, near half of writing a styled file.
 */
function writtenAsTheyAre(cues: readonly Cue[], from: number): boolean {
	let joined = '';
	for (let index = from; index < cues.length && index < from + CUES_PER_CHECK; index++) {
		const cue = cues[index];
		const runs = cue.runs;
		// an empty run at either end is left to the full writing, which lays out any cue
		const first = runs ? (runs.length > 0 ? runs[0].text : '') : cue.text;
		const last = runs ? (runs.length > 0 ? runs[runs.length - 1].text : '') : first;
		if (first === '' || last === '' || first.charCodeAt(0) === 10) return false;
		if (last.charCodeAt(last.length - 1) === 10) return false;
		if (!runs) {
			joined += first;
			continue;
		}
		for (let at = 0; at < runs.length; at++) {
			if (runs[at].voice !== undefined) return false;
			joined += runs[at].text;
		}
	}
	return !joined.includes('\r') && !joined.includes('\n\n') && !needsVttEscape(joined);
}

function formatCue(
	cue: Cue,
	number: number,
	regionIds: ReadonlySet<string>,
	asItIs: boolean,
	warn?: WarningSink,
): string {
	const { startMs, endMs } = writtenTimes(cue, number, warn);
	const settings = cue.settings && formatCueSettings(cue.settings, regionIds);
	const voice = cue.voice === undefined ? '' : cue.voice.replace(/\s+/g, ' ').trim();
	const text = cueBody(cue, asItIs);
	const identifier = writableIdentifier(cue.identifier);
	const timing =
		settings === undefined
			? `${formatVttTimestamp(startMs)} --> ${formatVttTimestamp(endMs)}`
			: `${formatVttTimestamp(startMs)} --> ${formatVttTimestamp(endMs)} ${settings}`;
	const body = text === '' ? '' : voice === '' ? text : `${voiceTag(voice)}${text}`;
	return identifier === undefined
		? body === ''
			? timing
			: `${timing}\n${body}`
		: body === ''
			? `${identifier}\n${timing}`
			: `${identifier}\n${timing}\n${body}`;
}

/** A REGION block: its identifier and the settings that differ from WebVTT's defaults. */
function formatRegion(region: CaptionRegion): string {
	const settings = [`id:${region.id}`];
	if (region.width !== 100) settings.push(`width:${percent(region.width)}`);
	if (region.lines !== 3) settings.push(`lines:${plainNumber(region.lines)}`);
	if (region.regionAnchorX !== 0 || region.regionAnchorY !== 100) {
		settings.push(`regionanchor:${percent(region.regionAnchorX)},${percent(region.regionAnchorY)}`);
	}
	if (region.viewportAnchorX !== 0 || region.viewportAnchorY !== 100) {
		settings.push(
			`viewportanchor:${percent(region.viewportAnchorX)},${percent(region.viewportAnchorY)}`,
		);
	}
	if (region.scroll === 'up') settings.push('scroll:up');
	return `REGION\n${settings.join(' ')}`;
}

// a region's identifier is one setting: no white space, no "-->"
const writableRegion = (region: CaptionRegion) =>
	region.id !== '' && !/[\s]/.test(region.id) && !region.id.includes('-->');
// a style sheet is one block: no empty line, no "-->"
const writableStyle = (style: string) => style.trim() !== '' && !style.includes('-->');

/**
 * Writes cues as WebVTT: style sheets and regions first, then every cue, ordered by start time (players read them
 * so). Empty lines in text are dropped because they would end the cue. What is not written as it was (the order, a
 * cue that ends before it starts) is reported to `warn`.
 */
export function formatVtt(
	cues: readonly Cue[],
	options: VttFormatOptions = {},
	warn?: WarningSink,
): string {
	const header = (options.header ?? '').replace(/\s+/g, ' ').trim();
	const out = new TextBuilder();
	out.add(header === '' || header.includes('-->') ? 'WEBVTT' : `WEBVTT ${header}`);
	for (const style of options.styles ?? []) {
		if (writableStyle(style)) out.add(`\n\nSTYLE\n${style.replace(/\n\s*\n/g, '\n')}`);
	}
	const regions = (options.regions ?? []).filter(writableRegion);
	for (const region of regions) out.add(`\n\n${formatRegion(region)}`);
	const regionIds = new Set(regions.map((region) => region.id));
	const ordered = inTimeOrder(cues, 'WebVTT', warn);
	let asTheyAre = false;
	for (let index = 0; index < ordered.length; index++) {
		if (index % CUES_PER_CHECK === 0) asTheyAre = writtenAsTheyAre(ordered, index);
		out.add(`\n\n${formatCue(ordered[index], index + 1, regionIds, asTheyAre, warn)}`);
	}
	out.add('\n');
	return out.toString();
}

export const vttFormat: CaptionFormat = {
	id: 'vtt',
	label: 'WebVTT',
	description: 'A WebVTT caption file',
	mimeType: 'text/vtt',
	extension: 'vtt',
	producedByService: true,
	wordTimings: false,
	output: { kind: 'file' },
	detect: (start) => start.startsWith('WEBVTT'),
	urlPattern: /\.vtt(\?|$)/i,
	parse: (content) => readVtt(content),
	render: (document, options, warn) =>
		formatVtt(
			document.cues,
			{ header: options.header, regions: document.regions, styles: document.styles },
			warn,
		),
};
