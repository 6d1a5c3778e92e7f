// SubRip (.srt) as people have it: numbered blocks of a timing line and text, blank lines between them, often
// missing or doubled. A block whose timing line cannot be read is left out and the rest read; text after a blank
// line inside a cue is kept in that cue; each is named in `warnings`. Italics, bold and underline (<i>, <b>, <u>,
// and the {\i1} of ASS) are read into the cue's runs and written back as <i>, <b> and <u>.
import { CaptionFormatError } from './errors';
import { carryStyles, HTML_TAGS, runsOf, taggedText, toRuns } from './styling';
import { byStart, formatSrtTimestamp, parseSrtTimestamp } from './time';
import type {
	CaptionDocument,
	CaptionFormat,
	CaptionWarning,
	Cue,
	TextRun,
	TextStyle,
	WarningSink,
} from './types';
import { excerpt, lineWarning, linesLabel } from './warnings';
import { fileLines, isBlank, trimmedLines } from './lines';

interface SrtFormatOptions {
	/** Prefix each cue with its speaker (`Roger: ...`), since SRT has no voice markup. */
	includeVoice?: boolean;
}

// Formatting tags of SRT and WebVTT, timestamp tags and ASS overrides ({\an8}); other text in
// angle brackets is dialogue (e.g. "<year over year>") and stays.
const MARKUP =
	/<\/?(?:b|c|font|i|lang|rt|ruby|s|span|u|v)(?:[\s.][^<>]*)?>|<\d+(?::\d+)+[.,]\d+>|\{\\[^{}]*\}/gi;
// The tags that carry a style: <i>, </b>, and ASS's {\i1}, {\b0}, {\u1}.
const STYLE_TAG = /^<(\/?)([ibu])>$|^\{\\([ibu])([01])\}$/i;
const STYLE_OF: Record<string, keyof TextStyle> = { i: 'italic', b: 'bold', u: 'underline' };

// lines as SRT keeps them: trimmed, empty ones left out (an empty line ends the cue)
const keptLines = trimmedLines;

/** A cue's text lines read once: tags removed, the styles they set kept as runs. */
function readText(lines: readonly string[]): Pick<Cue, 'text' | 'runs'> {
	const raw = lines.length === 1 ? lines[0] : lines.join('\n');
	if (!/[<{]/.test(raw)) return { text: keptLines(raw) };
	const depth = { italic: 0, bold: 0, underline: 0 };
	const pieces: TextRun[] = [];
	let last = 0;
	const addText = (text: string) => {
		if (text === '') return;
		pieces.push({
			text,
			...(depth.italic > 0 ? { italic: true as const } : {}),
			...(depth.bold > 0 ? { bold: true as const } : {}),
			...(depth.underline > 0 ? { underline: true as const } : {}),
		});
	};
	for (const match of raw.matchAll(MARKUP)) {
		addText(raw.slice(last, match.index));
		last = match.index + match[0].length;
		const style = STYLE_TAG.exec(match[0]);
		if (!style) continue;
		const name = STYLE_OF[(style[2] ?? style[3]).toLowerCase()];
		const on = style[2] !== undefined ? style[1] === '' : style[4] === '1';
		depth[name] = on ? depth[name] + 1 : Math.max(0, depth[name] - 1);
	}
	addText(raw.slice(last));
	const plain = pieces.map((piece) => piece.text).join('');
	const text = keptLines(plain);
	const runs = toRuns(pieces);
	if (!runs) return { text };
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

/** Reads a timing line: the times, or what is wrong with it. */
function readTiming(line: string): { startMs: number; endMs: number } | string {
	const arrow = line.indexOf('-->');
	const startMs = parseSrtTimestamp(line.slice(0, arrow));
	// coordinates such as "X1:40 X2:600" may follow the end time
	const rest = line.slice(arrow + 3).trim();
	const endMs = parseSrtTimestamp(/\s/.test(rest) ? rest.split(/\s+/)[0] : rest);
	if (startMs !== undefined && endMs !== undefined) return { startMs, endMs };
	return `its ${startMs === undefined ? 'start' : 'end'} time is not an SRT timestamp`;
}

/**
 * Reads SubRip subtitles block by block; tolerates a BOM, CRLF, missing numbers and missing blank lines. Throws
 * `CaptionFormatError` only when the content holds no cue at all.
 */
export function readSrt(content: string): CaptionDocument {
	const lines = fileLines(content.replace(/^\uFEFF/, ''));
	const cues: Cue[] = [];
	const warnings: CaptionWarning[] = [];
	// a cue starts at its timing line, or at its number right before it
	const startsCue = (at: number) =>
		isTimingLine(lines[at]) || (isNumberLine(lines[at]) && isTimingLine(lines[at + 1]));
	let i = 0;
	let lastBlockWasCue = false;
	while (i < lines.length) {
		if (isBlank(lines[i])) {
			i++;
			continue;
		}
		if (isNumberLine(lines[i]) && isTimingLine(lines[i + 1])) i++;
		const first = i;
		if (!isTimingLine(lines[i])) {
			// text outside any cue: after a blank line inside a cue it belongs to that cue
			while (i < lines.length && !isBlank(lines[i]) && !(i > first && startsCue(i))) i++;
			const stray = lines.slice(first, i);
			const where = linesLabel(first + 1, i);
			if (lastBlockWasCue) {
				const cue = cues[cues.length - 1];
				const more = readText(stray);
				if (more.text !== '') cues[cues.length - 1] = joinText(cue, more);
				warnings.push(
					lineWarning(
						first + 1,
						stray.join('\n'),
						`The text at ${where} follows a blank line inside cue ${cues.length}: kept in that cue. Players end a cue at a blank line; remove it to show this text with the cue.`,
					),
				);
			} else {
				warnings.push(
					lineWarning(
						first + 1,
						stray.join('\n'),
						`The text at ${where} is not part of a cue (no timing line such as "00:00:01,500 --> 00:00:04,000" before it) and was left out.`,
					),
				);
			}
			continue;
		}
		const timing = readTiming(lines[i]);
		i++;
		const payload: string[] = [];
		while (i < lines.length && !isBlank(lines[i]) && !startsCue(i)) payload.push(lines[i++]);
		if (typeof timing === 'string') {
			const text = payload.join('\n');
			warnings.push(
				lineWarning(
					first + 1,
					lines[first],
					`The timing line ${JSON.stringify(excerpt(lines[first]))} cannot be read: ${timing}; write times as hh:mm:ss,ttt, e.g. "00:00:01,500 --> 00:00:04,000". The cue was left out${text === '' ? '.' : ` with its text: "${excerpt(text)}"`}`,
				),
			);
			lastBlockWasCue = false;
			continue;
		}
		const text = readText(payload);
		const cue: Cue = { startMs: timing.startMs, endMs: timing.endMs, text: text.text };
		if (text.runs) cue.runs = text.runs;
		cues.push(cue);
		lastBlockWasCue = true;
	}
	if (cues.length === 0 && content.trim() !== '') {
		const firstLine = lines.findIndex((line) => !isBlank(line));
		throw new CaptionFormatError(
			'no SRT cue found: SRT cues need a timing line like "00:00:01,500 --> 00:00:04,000"; check that the right caption format was chosen.',
			{ line: firstLine + 1 },
		);
	}
	return warnings.length > 0 ? { cues, warnings } : { cues };
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

/**
 * Writes SubRip: cues ordered by start and numbered from 1, italics, bold and underline as <i>, <b> and <u>. Cues
 * without text are left out because many players stop reading at an empty subtitle. Text SRT cannot hold (text
 * that reads as a tag, "-->") is changed and reported to `warn`.
 */
export function formatSrt(
	cues: readonly Cue[],
	options: SrtFormatOptions = {},
	warn?: WarningSink,
): string {
	let out = '';
	let number = 0;
	for (const cue of byStart(cues)) {
		// made safe as a whole: a tag can be cut between two runs ("{\\" then "an8}")
		const safe = srtSafe(cue.text);
		const text = keptLines(safe);
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
		if (text === '') continue;
		number++;
		let body = text;
		if (cue.runs) {
			// tags never join the text around them into another: each starts with "<" and is whole
			const [styled] = carryStyles([cue], [{ ...cue, text }]);
			if (styled.runs) body = taggedText(styled.runs, HTML_TAGS, (part) => part);
		}
		const voice = options.includeVoice ? cue.voice?.replace(/\s+/g, ' ').trim() : undefined;
		if (voice) body = `${voice}: ${body}`;
		const startMs = Math.max(0, Math.round(cue.startMs));
		const endMs = Math.max(startMs + 1, Math.round(cue.endMs));
		out += `${number === 1 ? '' : '\n'}${number}\n${formatSrtTimestamp(startMs)} --> ${formatSrtTimestamp(endMs)}\n${body}\n`;
	}
	return out;
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
