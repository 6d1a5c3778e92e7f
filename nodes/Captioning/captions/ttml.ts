// TTML in the IMSC 1.1 Text Profile (W3C, 2018): the delivery format of streaming services and broadcasters.
// docs/captions.md lists what the profile asks of a document and what this writer does for each.
import { byStart, formatVttTimestamp } from './time';
import type { CaptionFormat, Cue } from './types';

interface TtmlFormatOptions {
	/** `xml:lang` of the document; `und` (undetermined) when not given. */
	language?: string;
	/** Prefix each cue with its speaker (`Roger: ...`). */
	includeVoice?: boolean;
}

export const IMSC_TEXT_PROFILE = 'http://www.w3.org/ns/ttml/profile/imsc1.1/text';
export const TTML_NAMESPACES = {
	tt: 'http://www.w3.org/ns/ttml',
	ttp: 'http://www.w3.org/ns/ttml#parameter',
	tts: 'http://www.w3.org/ns/ttml#styling',
} as const;

// Characters XML 1.0 does not allow anywhere in a document, and unpaired surrogates.
const NOT_XML =
	// eslint-disable-next-line no-control-regex
	/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const LANGUAGE_TAG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;

/** Text as XML character data or attribute value: markup characters escaped, characters XML forbids removed. */
export function escapeXml(text: string): string {
	return text
		.replace(NOT_XML, '')
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;');
}

function textLines(cue: Cue, includeVoice: boolean): string[] {
	const lines = cue.text
		.split(/\r\n|\r|\n/)
		// XML's white space only: a no-break space stays
		.map((line) =>
			line
				.replace(NOT_XML, '')
				.replace(/[ \t]+/g, ' ')
				.replace(/^ | $/g, ''),
		)
		.filter((line) => line !== '');
	const voice = cue.voice?.replace(/\s+/g, ' ').trim();
	if (includeVoice && voice && lines.length > 0) lines[0] = `${voice}: ${lines[0]}`;
	return lines;
}

/**
 * Writes an IMSC 1.1 Text Profile document: the profile signalled in `ttp:contentProfiles`, media time base,
 * clock times (hh:mm:ss.ttt, hours beyond 99 too), one bottom region with centred text, a `p` per cue with
 * `br` between its lines. Cues are ordered by start; cues without text are left out.
 */
export function formatTtml(cues: readonly Cue[], options: TtmlFormatOptions = {}): string {
	const language = LANGUAGE_TAG.test(options.language ?? '') ? options.language! : 'und';
	const paragraphs: string[] = [];
	for (const cue of byStart(cues)) {
		const lines = textLines(cue, options.includeVoice === true);
		if (lines.length === 0) continue;
		const startMs = Math.max(0, Math.round(cue.startMs));
		const endMs = Math.max(startMs + 1, Math.round(cue.endMs));
		paragraphs.push(
			`      <p xml:id="c${paragraphs.length + 1}" begin="${formatVttTimestamp(startMs)}" end="${formatVttTimestamp(endMs)}">${lines.map(escapeXml).join('<br/>')}</p>`,
		);
	}
	return [
		'<?xml version="1.0" encoding="UTF-8"?>',
		`<tt xmlns="${TTML_NAMESPACES.tt}" xmlns:ttp="${TTML_NAMESPACES.ttp}" xmlns:tts="${TTML_NAMESPACES.tts}" xml:lang="${language}" ttp:timeBase="media" ttp:contentProfiles="${IMSC_TEXT_PROFILE}">`,
		'  <head>',
		'    <styling>',
		'      <style xml:id="caption" tts:textAlign="center" tts:color="white" tts:backgroundColor="black"/>',
		'    </styling>',
		'    <layout>',
		'      <region xml:id="bottom" tts:origin="10% 10%" tts:extent="80% 80%" tts:displayAlign="after"/>',
		'    </layout>',
		'  </head>',
		'  <body region="bottom" style="caption">',
		'    <div>',
		...paragraphs,
		'    </div>',
		'  </body>',
		'</tt>',
		'',
	].join('\n');
}

export const ttmlFormat: CaptionFormat = {
	id: 'ttml',
	label: 'TTML (IMSC 1.1)',
	description:
		'A TTML file in the IMSC 1.1 Text Profile, as streaming services and broadcasters take captions',
	mimeType: 'application/ttml+xml',
	extension: 'ttml',
	producedByService: false,
	wordTimings: false,
	output: { kind: 'file' },
	render: (document, options) =>
		formatTtml(document.cues, { ...options, language: document.language ?? options.language }),
};
