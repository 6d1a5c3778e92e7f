// TTML in the IMSC 1.1 Text Profile (W3C, 2018): the delivery format of streaming services and broadcasters.
// docs/captions.md lists what the profile asks of a document and what this writer does for each.
import {
	carryStyles,
	cleanVoice,
	runsOf,
	type StyleTags,
	taggedText,
	voiceGroups,
	voicesOf,
} from './styling';
import { formatVttTimestamp } from './time';
import type { CaptionFormat, Cue, TextRun, WarningSink } from './types';
import { excerpt } from './warnings';
import { inTimeOrder, TextBuilder, writtenTimes } from './writing';

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
	ttm: 'http://www.w3.org/ns/ttml#metadata',
} as const;

/** IMSC SHOULDs a line height other than "normal": 125% of the font size, the common choice of its examples. */
export const TTML_LINE_HEIGHT = '125%';

const SPAN_TAGS: StyleTags = {
	open: {
		bold: '<span tts:fontWeight="bold">',
		italic: '<span tts:fontStyle="italic">',
		underline: '<span tts:textDecoration="underline">',
	},
	close: { bold: '</span>', italic: '</span>', underline: '</span>' },
};

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

/** XML's white space: runs of spaces and tabs collapse, line ends trimmed; a no-break space stays. */
function xmlSpace(line: string): string {
	return line
		.replace(NOT_XML, '')
		.replace(/[ \t]+/g, ' ')
		.replace(/^ | $/g, '');
}

/** The cue's lines as the document holds them, empty ones left out. */
function paragraphText(cue: Cue): string {
	return cue.text
		.split(/\r\n|\r|\n/)
		.map(xmlSpace)
		.filter((line) => line !== '')
		.join('\n');
}

const textWithBreaks = (text: string) => escapeXml(text).replace(/\n/g, '<br/>');

/** Runs with `br` between lines, italics, bold and underline as styled spans. */
const styledContent = (runs: readonly TextRun[]) => taggedText(runs, SPAN_TAGS, textWithBreaks);

/**
 * A paragraph's content: its text with `br` between lines, italics, bold and underline as styled spans; in a cue
 * several speakers share, each one's part a span naming its agent (and its name first when asked).
 */
function paragraphContent(
	cue: Cue,
	text: string,
	agents: ReadonlyMap<string, string>,
	includeVoice: boolean,
): string {
	if (!cue.runs) return textWithBreaks(text);
	const [styled] = text === cue.text ? [cue] : carryStyles([cue], [{ ...cue, text }]);
	if (styled.voice !== undefined || !styled.runs?.some((run) => run.voice !== undefined)) {
		return styledContent(runsOf(styled));
	}
	let out = '';
	for (const group of voiceGroups(runsOf(styled))) {
		const voice = cleanVoice(group.voice);
		const agent = voice === undefined ? undefined : agents.get(voice);
		if (agent === undefined) {
			out += styledContent(group.runs);
			continue;
		}
		const said = includeVoice ? `${escapeXml(voice!)}: ` : '';
		out += `<span ttm:agent="${agent}">${said}${styledContent(group.runs)}</span>`;
	}
	return out;
}

/** The speakers of the cues, each an agent with an identifier (a1, a2, ...) in order of first appearance. */
function agentsOf(cues: readonly Cue[]): Map<string, string> {
	const agents = new Map<string, string>();
	for (const cue of cues) {
		for (const name of voicesOf(cue)) {
			const voice = cleanVoice(name);
			if (voice && !agents.has(voice)) agents.set(voice, `a${agents.size + 1}`);
		}
	}
	return agents;
}

/** Characters XML cannot hold, removed from a cue: one warning per cue that had them. */
function xmlLoss(cue: Cue, number: number, warn?: WarningSink): void {
	if (!warn) return;
	const removed = `${cue.text}${cue.voice ?? ''}`.match(NOT_XML);
	if (!removed) return;
	const codes = [...new Set(removed)]
		.slice(0, 5)
		.map((char) => `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
	warn({
		cue: number,
		text: excerpt(cue.text),
		message: `Cue ${number}: ${removed.length === 1 ? 'a character' : `${removed.length} characters`} that XML cannot hold (${codes.join(', ')}${removed.length > 5 ? ', …' : ''}: control characters, U+FFFE, U+FFFF or lone surrogates) removed; they show nothing.`,
	});
}

/**
 * Writes an IMSC 1.1 Text Profile document: the profile signalled in `ttp:contentProfiles`, media time base,
 * clock times (hh:mm:ss.ttt, hours beyond 99 too), one bottom region with centred text, a `p` per cue with
 * `br` between its lines and `tts:lineHeight`, italics, bold and underline as styled spans, each speaker a
 * `ttm:agent` the cues name. Cues are ordered by start; a cue without text is an empty `p`. What is not written as
 * it was (the order, characters XML cannot hold, an end before the start) is reported to `warn`.
 */
export function formatTtml(
	cues: readonly Cue[],
	options: TtmlFormatOptions = {},
	warn?: WarningSink,
): string {
	const language = LANGUAGE_TAG.test(options.language ?? '') ? options.language! : 'und';
	const ordered = inTimeOrder(cues, 'TTML', warn);
	const agents = agentsOf(ordered);
	const out = new TextBuilder();
	for (const line of head(language, agents)) out.add(`${line}\n`);
	let number = 0;
	for (const cue of ordered) {
		number++;
		xmlLoss(cue, number, warn);
		const text = paragraphText(cue);
		const voice = cleanVoice(cue.voice);
		const said = options.includeVoice && voice && text !== '' ? `${escapeXml(voice)}: ` : '';
		const { startMs, endMs } = writtenTimes(cue, number, warn);
		const agent = voice === undefined ? undefined : agents.get(voice);
		const content =
			text === '' ? '' : paragraphContent(cue, text, agents, options.includeVoice === true);
		out.add(
			`      <p xml:id="c${number}" begin="${formatVttTimestamp(startMs)}" end="${formatVttTimestamp(endMs)}" tts:lineHeight="${TTML_LINE_HEIGHT}"${agent ? ` ttm:agent="${agent}"` : ''}>${said}${content}</p>\n`,
		);
	}
	out.add('    </div>\n  </body>\n</tt>\n');
	return out.toString();
}

/** The document up to the first paragraph: root, head (agents, styling, layout), body and div opened. */
function head(language: string, agents: ReadonlyMap<string, string>): string[] {
	const metadata =
		agents.size === 0
			? []
			: [
					'    <metadata>',
					...[...agents].map(
						([name, id]) =>
							`      <ttm:agent xml:id="${id}" type="person"><ttm:name type="full">${escapeXml(name)}</ttm:name></ttm:agent>`,
					),
					'    </metadata>',
				];
	return [
		'<?xml version="1.0" encoding="UTF-8"?>',
		`<tt xmlns="${TTML_NAMESPACES.tt}" xmlns:ttp="${TTML_NAMESPACES.ttp}" xmlns:tts="${TTML_NAMESPACES.tts}" xmlns:ttm="${TTML_NAMESPACES.ttm}" xml:lang="${language}" ttp:timeBase="media" ttp:contentProfiles="${IMSC_TEXT_PROFILE}">`,
		'  <head>',
		...metadata,
		'    <styling>',
		'      <style xml:id="caption" tts:textAlign="center" tts:color="white" tts:backgroundColor="black"/>',
		'    </styling>',
		'    <layout>',
		'      <region xml:id="bottom" tts:origin="10% 10%" tts:extent="80% 80%" tts:displayAlign="after"/>',
		'    </layout>',
		'  </head>',
		'  <body region="bottom" style="caption">',
		'    <div>',
	];
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
	render: (document, options, warn) =>
		formatTtml(
			document.cues,
			{ ...options, language: document.language ?? options.language },
			warn,
		),
};
