// SubViewer as YouTube reads and writes it (.sbv): a block per cue, "h:mm:ss.ttt,h:mm:ss.ttt" and then its lines.
import { CaptionFormatError } from './errors';
import { byStart, formatSbvTimestamp, parseSbvTimestamp } from './time';
import type { CaptionFormat, Cue } from './types';

interface SbvFormatOptions {
	/** Prefix each cue with its speaker (`Roger: ...`), since SBV has no voice markup. */
	includeVoice?: boolean;
}

const TIMING = /^\s*([^,\s]+)\s*,\s*([^,\s]+)\s*$/;

function isBlank(line: string | undefined): boolean {
	return line === undefined || line.trim() === '';
}

const LINE_BREAK = /[\r\n]/;

/** The lines of a cue as SBV keeps them, joined: trimmed, empty ones left out (they would end the block). */
function sbvText(text: string): string {
	return LINE_BREAK.test(text) ? textLines(text).join('\n') : text.trim();
}

function textLines(text: string): string[] {
	return text
		.split(/\r\n|\r|\n/)
		.map((line) => line.trim())
		.filter((line) => line !== '');
}

/** Parses SBV: blocks separated by blank lines, each a timing line followed by its text. */
export function parseSbv(content: string): Cue[] {
	const lines = content.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
	const cues: Cue[] = [];
	let i = 0;
	while (i < lines.length) {
		if (isBlank(lines[i])) {
			i++;
			continue;
		}
		const timing = TIMING.exec(lines[i]);
		const startMs = timing ? parseSbvTimestamp(timing[1]) : undefined;
		const endMs = timing ? parseSbvTimestamp(timing[2]) : undefined;
		if (startMs === undefined || endMs === undefined) {
			throw new CaptionFormatError(
				`expected an SBV timing line such as "0:00:01.500,0:00:04.000" but found ${JSON.stringify(lines[i].slice(0, 60))}; check that the right caption format was chosen.`,
				{ line: i + 1 },
			);
		}
		i++;
		const payload: string[] = [];
		while (!isBlank(lines[i])) payload.push(lines[i++]);
		cues.push({ startMs, endMs, text: sbvText(payload.join('\n')) });
	}
	return cues;
}

/** Writes SBV: cues ordered by start, without empty ones (a blank line would end the block). */
export function formatSbv(cues: readonly Cue[], options: SbvFormatOptions = {}): string {
	let out = '';
	for (const cue of byStart(cues)) {
		let text = sbvText(cue.text);
		if (text === '') continue;
		const voice = options.includeVoice ? cue.voice?.replace(/\s+/g, ' ').trim() : undefined;
		if (voice) text = `${voice}: ${text}`;
		const startMs = Math.max(0, Math.round(cue.startMs));
		const endMs = Math.max(startMs + 1, Math.round(cue.endMs));
		out += `${out === '' ? '' : '\n'}${formatSbvTimestamp(startMs)},${formatSbvTimestamp(endMs)}\n${text}\n`;
	}
	return out;
}

export const sbvFormat: CaptionFormat = {
	id: 'sbv',
	label: 'SBV (YouTube)',
	description: 'A SubViewer file, as YouTube Studio uploads and downloads captions',
	mimeType: 'text/plain',
	extension: 'sbv',
	producedByService: false,
	wordTimings: false,
	output: { kind: 'file' },
	detect: (start) => /^\d+:\d{2}:\d{2}\.\d{3},/.test(start),
	urlPattern: /\.sbv(\?|$)/i,
	parse: (content) => ({ cues: parseSbv(content) }),
	render: (document, options) => formatSbv(document.cues, options),
};
