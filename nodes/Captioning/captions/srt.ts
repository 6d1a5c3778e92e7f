import { CaptionFormatError } from './errors';
import { byStart, formatSrtTimestamp, parseSrtTimestamp } from './time';
import type { CaptionFormat, Cue } from './types';

interface SrtFormatOptions {
	/** Prefix each cue with its speaker (`Roger: ...`), since SRT has no voice markup. */
	includeVoice?: boolean;
}

// Formatting tags of SRT and WebVTT, timestamp tags and ASS overrides ({\an8}); other text in
// angle brackets is dialogue (e.g. "<year over year>") and stays.
const MARKUP =
	/<\/?(?:b|c|font|i|lang|rt|ruby|s|span|u|v)(?:[\s.][^<>]*)?>|<\d+(?::\d+)+[.,]\d+>|\{\\[^{}]*\}/gi;

function isBlank(line: string | undefined): boolean {
	return line === undefined || line.trim() === '';
}

// Removing one tag can join the text around it into another ("<<i>b>"): removed until none is left.
function withoutMarkup(line: string): string {
	let previous: string;
	let current = line;
	do {
		previous = current;
		current = current.replace(MARKUP, '');
	} while (current !== previous);
	return current;
}

// Characters that start markup, an arrow or a line: text without them only needs trimming.
const NEEDS_CLEANING = /[<>{\r\n]/;

// A text line with "-->" would be read as a timing line; any run of dashes before ">" becomes "->".
function cleanLines(text: string): string[] {
	return text
		.split(/\r\n|\r|\n/)
		.map((line) =>
			withoutMarkup(line)
				.replace(/-{2,}>/g, '->')
				.trim(),
		)
		.filter((line) => line !== '');
}

/** The lines cleanLines keeps, joined; the usual one-line text without markup only trimmed. */
function cleanText(text: string): string {
	if (!NEEDS_CLEANING.test(text)) return text.trim();
	return cleanLines(text).join('\n');
}

/** Parses SubRip subtitles; tolerates a BOM, CRLF, missing numbers and missing blank lines. */
export function parseSrt(content: string): Cue[] {
	const lines = content.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
	const cues: Cue[] = [];
	let i = 0;
	while (i < lines.length) {
		const line = lines[i];
		if (!line.includes('-->')) {
			i++;
			continue;
		}
		const arrow = line.indexOf('-->');
		const startMs = parseSrtTimestamp(line.slice(0, arrow));
		// coordinates such as "X1:40 X2:600" may follow the end time
		const rest = line.slice(arrow + 3).trim();
		const endMs = parseSrtTimestamp(/\s/.test(rest) ? rest.split(/\s+/)[0] : rest);
		if (startMs === undefined || endMs === undefined) {
			throw new CaptionFormatError(
				`malformed SRT timing line ${JSON.stringify(line)}: ${startMs === undefined ? 'start' : 'end'} time is not an SRT timestamp; write times as hh:mm:ss,ttt, e.g. "00:00:01,500 --> 00:00:04,000".`,
				{ line: i + 1 },
			);
		}
		i++;
		const payload: string[] = [];
		while (!isBlank(lines[i]) && !lines[i].includes('-->')) payload.push(lines[i++]);
		// without a blank line before the next cue, its number was read as text
		const nextIsTiming = i < lines.length && lines[i].includes('-->');
		if (nextIsTiming && payload.length > 0 && /^\d+$/.test(payload[payload.length - 1].trim())) {
			payload.pop();
		}
		cues.push({ startMs, endMs, text: cleanText(payload.join('\n')) });
	}
	if (cues.length === 0 && content.trim() !== '') {
		const firstLine = lines.findIndex((line) => !isBlank(line));
		throw new CaptionFormatError(
			'no SRT cue found: SRT cues need a timing line like "00:00:01,500 --> 00:00:04,000"; check that the right caption format was chosen.',
			{ line: firstLine + 1 },
		);
	}
	return cues;
}

/**
 * Writes SubRip: cues ordered by start and numbered from 1, markup removed. Cues without text are
 * left out because many players stop reading at an empty subtitle.
 */
export function formatSrt(cues: readonly Cue[], options: SrtFormatOptions = {}): string {
	let out = '';
	let number = 0;
	for (const cue of byStart(cues)) {
		let text = cleanText(cue.text);
		if (text === '') continue;
		const voice = options.includeVoice ? cue.voice?.replace(/\s+/g, ' ').trim() : undefined;
		if (voice) text = `${voice}: ${text}`;
		const startMs = Math.max(0, Math.round(cue.startMs));
		const endMs = Math.max(startMs + 1, Math.round(cue.endMs));
		number++;
		out += `${number === 1 ? '' : '\n'}${number}\n${formatSrtTimestamp(startMs)} --> ${formatSrtTimestamp(endMs)}\n${text}\n`;
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
	parse: (content) => ({ cues: parseSrt(content) }),
	render: (document, options) => formatSrt(document.cues, options),
};
