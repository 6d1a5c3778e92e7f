import { CaptionFormatError } from './errors';
import { byStart, formatVttTimestamp, parseVttTimestamp } from './time';
import type { CaptionFormat, Cue } from './types';

interface VttFormatOptions {
	/** Text written after `WEBVTT` on the first line, e.g. `Kind: captions`. */
	header?: string;
}

const SIGNATURE = /^\uFEFF?WEBVTT(?:[ \t].*)?$/;
const COMMENT_BLOCK = /^NOTE(?:$|[ \t])/;
// STYLE and REGION are only blocks before the first cue; afterwards they are ordinary text.
const HEADER_BLOCK = /^(?:STYLE|REGION)(?:$|[ \t])/;
// A line starting like a timestamp, used to report a timing line that lost its "-->".
const TIMESTAMP_START = /^\s*\d+:\d{2}[:.,]/;
const TIMESTAMP_HELP =
	'write times as mm:ss.ttt or hh:mm:ss.ttt with two-digit minutes and seconds (00-59) and three millisecond digits, e.g. "00:01.500 --> 00:04.000"';

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

// Only an empty line ends a block: auto-generated captions put lines of a single space inside cues.
function isBlank(line: string | undefined): boolean {
	return line === undefined || line === '';
}

function quote(line: string): string {
	return JSON.stringify(line.length > 60 ? `${line.slice(0, 57)}...` : line);
}

/** Decodes the character references WebVTT allows: the named ones above and `&#...;`/`&#x...;`. */
export function decodeEntities(text: string): string {
	return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (reference, body: string) => {
		if (body[0] !== '#') return NAMED_ENTITIES[body] ?? reference;
		const code =
			body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : Number(body.slice(1));
		const isScalar = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
		return isScalar ? String.fromCodePoint(code) : reference;
	});
}

const MARKUP_CHARACTERS = /[&<>]/;
const NEEDS_CARE = /[&<>\r\n]/;

function escapeText(text: string): string {
	if (!MARKUP_CHARACTERS.test(text)) return text;
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface VoiceSpan {
	voice?: string;
	text: string;
}

/**
 * Strips markup from cue text. With one voice it is returned separately; when several speakers
 * share a cue each keeps a `Name: ` prefix so lines are not attributed to the wrong person.
 */
function parseCueText(payload: string): { text: string; voice?: string } {
	if (!MARKUP_CHARACTERS.test(payload)) return { text: tidyLines(payload) };
	const spans: VoiceSpan[] = [{ text: '' }];
	let rubyTextDepth = 0;
	for (const [token, tag] of payload.matchAll(/<([^>]*)(?:>|$)|[^<]+/g)) {
		if (tag === undefined) {
			if (rubyTextDepth === 0) spans[spans.length - 1].text += decodeEntities(token);
			continue;
		}
		const name = tag.split(/[\s.]/, 1)[0];
		if (name === 'v') {
			const voice = decodeEntities(tag.replace(/^\S*/, '').replace(/\s+/g, ' ').trim());
			spans.push({ voice: voice === '' ? undefined : voice, text: '' });
		} else if (name === '/v') {
			spans.push({ text: '' });
		} else if (name === 'rt') {
			rubyTextDepth++;
		} else if (name === '/rt' || name === '/ruby') {
			rubyTextDepth = 0;
		}
	}
	const spoken = spans.filter((span) => span.text.trim() !== '');
	const voices = new Set(spoken.map((span) => span.voice).filter((voice) => voice !== undefined));
	const labelled = voices.size > 1;
	const text = spans
		.map((span) =>
			labelled && span.voice !== undefined && span.text.trim() !== ''
				? span.text.replace(/^(\s*)/, `$1${span.voice}: `)
				: span.text,
		)
		.join('');
	return {
		text: tidyLines(text),
		voice: labelled ? undefined : [...voices][0],
	};
}

const LINE_BREAK = /[\r\n]/;

function tidyLines(text: string): string {
	// most cues are one line
	if (!LINE_BREAK.test(text)) return text.trim();
	return text
		.split(/\r\n|\r|\n/)
		.map((line) => line.trim())
		.filter((line) => line !== '')
		.join('\n');
}

function badTiming(line: string, lineNumber: number, problem: string): CaptionFormatError {
	const message = `malformed cue timing line ${quote(line)}: ${problem}; ${TIMESTAMP_HELP}.`;
	return new CaptionFormatError(message, { line: lineNumber });
}

function parseTiming(
	line: string,
	lineNumber: number,
): Pick<Cue, 'startMs' | 'endMs' | 'settings'> {
	const arrow = line.indexOf('-->');
	const startText = line.slice(0, arrow).trim();
	const rest = line.slice(arrow + 3).trim();
	// the usual line has no settings: split only when there is something after the end time
	const [endText, ...settings] = /[ \t\f]/.test(rest) ? rest.split(/[ \t\f]+/) : [rest];
	if (startText === '') throw badTiming(line, lineNumber, 'the start time before "-->" is missing');
	if (endText === '') throw badTiming(line, lineNumber, 'the end time after "-->" is missing');
	const startMs = parseVttTimestamp(startText);
	if (startMs === undefined) {
		throw badTiming(
			line,
			lineNumber,
			`the start time ${quote(startText)} is not a WebVTT timestamp`,
		);
	}
	const endMs = parseVttTimestamp(endText);
	if (endMs === undefined) {
		throw badTiming(line, lineNumber, `the end time ${quote(endText)} is not a WebVTT timestamp`);
	}
	return { startMs, endMs, settings: settings.length > 0 ? settings.join(' ') : undefined };
}

function missingArrow(line: string, lineNumber: number): CaptionFormatError {
	return new CaptionFormatError(
		`malformed cue timing line ${quote(line)}: the start and end times must be separated by " --> "; ${TIMESTAMP_HELP}.`,
		{ line: lineNumber },
	);
}

function missingSignature(lines: string[], index: number): CaptionFormatError {
	const found = lines[index];
	const looksLikeSrt = /^\d+$/.test(found.trim()) && /-->.*,\d/.test(lines[index + 1] ?? '');
	const hint = looksLikeSrt
		? 'this looks like SRT subtitles, not WebVTT'
		: 'this content is not WebVTT';
	return new CaptionFormatError(
		`expected the "WEBVTT" signature but found ${quote(found)}: ${hint}. A WebVTT file must start with a line "WEBVTT" followed by a blank line; check that the right caption format was chosen.`,
		{ line: index + 1 },
	);
}

/** Parses WebVTT into cues in file order; throws `CaptionFormatError` naming the offending line. */
export function parseVtt(content: string): Cue[] {
	const lines = (content.includes('\0') ? content.replace(/\0/g, '\ufffd') : content).split(
		/\r\n|\r|\n/,
	);
	let i = 0;
	while (i < lines.length - 1 && lines[i].trim() === '') i++;
	if (!SIGNATURE.test(lines[i])) throw missingSignature(lines, i);
	i++;
	while (!isBlank(lines[i]) && !lines[i].includes('-->')) i++;

	const cues: Cue[] = [];
	const skipBlock = () => {
		while (!isBlank(lines[i])) i++;
	};
	while (i < lines.length) {
		if (isBlank(lines[i])) {
			i++;
			continue;
		}
		let identifier: string | undefined;
		if (!lines[i].includes('-->')) {
			const first = lines[i];
			if (COMMENT_BLOCK.test(first) || (cues.length === 0 && HEADER_BLOCK.test(first))) {
				skipBlock();
				continue;
			}
			if (TIMESTAMP_START.test(first)) throw missingArrow(first, i + 1);
			i++;
			if (isBlank(lines[i]) || !lines[i].includes('-->')) {
				if (!isBlank(lines[i]) && TIMESTAMP_START.test(lines[i])) {
					throw missingArrow(lines[i], i + 1);
				}
				// not a cue (the spec discards such blocks)
				skipBlock();
				continue;
			}
			if (first.trim() !== '') identifier = first.trim();
		}
		const timing = parseTiming(lines[i], i + 1);
		i++;
		const payload: string[] = [];
		while (!isBlank(lines[i]) && !lines[i].includes('-->')) payload.push(lines[i++]);
		const { text, voice } = parseCueText(payload.join('\n'));
		const cue: Cue = { startMs: timing.startMs, endMs: timing.endMs, text };
		if (identifier !== undefined) cue.identifier = identifier;
		if (voice !== undefined) cue.voice = voice;
		if (timing.settings !== undefined) cue.settings = timing.settings;
		cues.push(cue);
	}
	return cues;
}

const SETTING_RULES: Record<string, RegExp> = {
	vertical: /^(?:rl|lr)$/,
	line: /^(?:-?\d+(?:\.\d+)?|(?:100(?:\.0+)?|\d{1,2}(?:\.\d+)?)%)(?:,(?:start|center|end))?$/,
	position: /^(?:100(?:\.0+)?|\d{1,2}(?:\.\d+)?)%(?:,(?:line-left|center|line-right))?$/,
	size: /^(?:100(?:\.0+)?|\d{1,2}(?:\.\d+)?)%$/,
	align: /^(?:start|center|end|left|right)$/,
};

/**
 * Keeps the cue settings a WebVTT validator accepts. `region:` is dropped because REGION blocks
 * are not written, and an invalid or repeated setting would make the whole file fail validation.
 */
export function sanitizeCueSettings(settings: string | undefined): string | undefined {
	const kept = new Map<string, string>();
	for (const setting of (settings ?? '').split(/\s+/)) {
		const colon = setting.indexOf(':');
		const name = setting.slice(0, colon);
		const rule = SETTING_RULES[name];
		if (colon > 0 && rule?.test(setting.slice(colon + 1)) && !kept.has(name)) {
			kept.set(name, setting);
		}
	}
	return kept.size > 0 ? [...kept.values()].join(' ') : undefined;
}

/** The usual identifier, a number or a word ([A-Za-z0-9_]+), which needs none of the checks below. */
function isPlainIdentifier(identifier: string): boolean {
	if (identifier.length === 0) return false;
	for (let at = 0; at < identifier.length; at++) {
		const code = identifier.charCodeAt(at);
		const plain =
			(code >= 48 && code <= 57) || // 0-9
			(code >= 65 && code <= 90) || // A-Z
			(code >= 97 && code <= 122) || // a-z
			code === 95; // _
		if (!plain) return false;
	}
	return true;
}

function sanitizeIdentifier(identifier: string | undefined): string | undefined {
	if (identifier !== undefined && isPlainIdentifier(identifier)) {
		return identifier === 'NOTE' || identifier === 'STYLE' || identifier === 'REGION'
			? undefined
			: identifier;
	}
	const value = (identifier ?? '').replace(/\s+/g, ' ').trim();
	// an identifier that starts like a timestamp would be read as a timing line without "-->"
	const usable =
		value !== '' &&
		!value.includes('-->') &&
		!COMMENT_BLOCK.test(value) &&
		!HEADER_BLOCK.test(value) &&
		!TIMESTAMP_START.test(value);
	return usable ? value : undefined;
}

// "<v A-->" would read as a timing line: a space before ">" ends the tag all the same
function voiceTag(voice: string): string {
	const annotation = escapeText(voice);
	return annotation.endsWith('-') ? `<v ${annotation} >` : `<v ${annotation}>`;
}

function formatCue(cue: Cue): string {
	const startMs = Math.max(0, Math.round(cue.startMs));
	const endMs = Math.max(startMs + 1, Math.round(cue.endMs));
	const settings = cue.settings === undefined ? undefined : sanitizeCueSettings(cue.settings);
	const identifier = cue.identifier === undefined ? undefined : sanitizeIdentifier(cue.identifier);
	const voice = cue.voice === undefined ? '' : cue.voice.replace(/\s+/g, ' ').trim();
	// escaping ">" also turns any "-->" in the text into "--&gt;"; the usual plain line is only trimmed
	const text = NEEDS_CARE.test(cue.text) ? tidyLines(escapeText(cue.text)) : cue.text.trim();
	return (
		(identifier === undefined ? '' : `${identifier}\n`) +
		`${formatVttTimestamp(startMs)} --> ${formatVttTimestamp(endMs)}` +
		(settings === undefined ? '' : ` ${settings}`) +
		(text === '' ? '' : voice === '' ? `\n${text}` : `\n${voiceTag(voice)}${text}`)
	);
}

/**
 * Writes cues as WebVTT. Cues are ordered by start time (the format requires it), empty lines in
 * text are dropped because they would end the cue, and a cue that does not end after it starts is
 * stretched to 1 ms.
 */
export function formatVtt(cues: readonly Cue[], options: VttFormatOptions = {}): string {
	const header = (options.header ?? '').replace(/\s+/g, ' ').trim();
	const signature = header === '' || header.includes('-->') ? 'WEBVTT' : `WEBVTT ${header}`;
	let out = signature;
	for (const cue of byStart(cues)) out += `\n\n${formatCue(cue)}`;
	return `${out}\n`;
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
	parse: (content) => ({ cues: parseVtt(content) }),
	render: (document, options) => formatVtt(document.cues, options),
};
