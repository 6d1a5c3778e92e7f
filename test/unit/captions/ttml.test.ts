import { XMLParser } from 'fast-xml-parser';

import {
	type CaptionWarning,
	escapeXml,
	formatTtml,
	parseVtt,
	readVtt,
	toRuns,
} from '../../../nodes/Captioning/captions';
import { fixture, KEYNOTE_CUES, parseImscText } from './helpers';

describe('formatTtml (IMSC 1.1 Text Profile)', () => {
	it('writes the keynote as an IMSC text document: profile, namespaces, region, clock times, <br/> lines', () => {
		const ttml = formatTtml(parseVtt(fixture('keynote.vtt')), { language: 'en' });
		expect(ttml).toMatch(
			/^<\?xml version="1.0" encoding="UTF-8"\?>\n<tt xmlns="http:\/\/www.w3.org\/ns\/ttml" /,
		);
		expect(ttml).toContain(
			' xml:lang="en" ttp:timeBase="media" ttp:contentProfiles="http://www.w3.org/ns/ttml/profile/imsc1.1/text">',
		);
		expect(ttml).toContain(
			'<p xml:id="c2" begin="00:00:03.400" end="00:00:06.900" tts:lineHeight="125%" ttm:agent="a2">It\'s <span tts:fontWeight="bold">great</span> to see you all.<br/>Let’s get started.</p>',
		);
		expect(ttml).toContain('</span> grew by 12\u00a0% &lt;year over year&gt;.');
		expect(parseImscText(ttml).map((cue) => cue.text)).toEqual(
			parseVtt(fixture('keynote.vtt')).map((cue) => cue.text),
		);
	});

	it('says "und" when the language is not known or not a language tag', () => {
		expect(formatTtml([])).toContain('xml:lang="und"');
		expect(formatTtml([], { language: 'en" onload="x' })).toContain('xml:lang="und"');
		expect(formatTtml([], { language: 'pt-BR' })).toContain('xml:lang="pt-BR"');
	});

	it('writes times beyond 99 hours, speakers when asked and cues without text, saying what it changed', () => {
		const warnings: CaptionWarning[] = [];
		const ttml = formatTtml(
			[
				{ startMs: 360_000_000, endMs: 360_000_000, text: 'Late.', voice: 'Anna' },
				{ startMs: 0, endMs: 10, text: '\u0001 \n ' },
			],
			{ includeVoice: true },
			(warning) => warnings.push(warning),
		);
		expect(parseImscText(ttml)).toEqual([
			{ startMs: 0, endMs: 10, text: '' },
			{ startMs: 360_000_000, endMs: 360_000_000, text: 'Anna: Late.', agent: 'Anna' },
		]);
		expect(warnings.map((warning) => warning.message)).toEqual([
			'A cue starts before the cue ahead of it (the first: the cue at 00:00:00.000 comes after one at 100:00:00.000): written in the order of their start times (TTML is read in time order).',
			'Cue 1: a character that XML cannot hold (U+0001: control characters, U+FFFE, U+FFFF or lone surrogates) removed; they show nothing.',
			'Cue 2 ends when it starts (100:00:00.000): written as it is, and players never show it. Give it time on screen (Fix does).',
		]);
	});

	it('gives each speaker of a cue several share a span of their own', () => {
		const [cue] = parseVtt(
			'WEBVTT\n\n00:01.000 --> 00:03.000\n<v Anna>Ready?</v>\n<v Ben><i>Yes.</i></v>',
		);
		const ttml = formatTtml([cue], { includeVoice: true });
		expect(ttml).toContain(
			'<p xml:id="c1" begin="00:00:01.000" end="00:00:03.000" tts:lineHeight="125%"><span ttm:agent="a1">Anna: Ready?</span><br/><span ttm:agent="a2">Ben: <span tts:fontStyle="italic">Yes.</span></span></p>',
		);
		expect(parseImscText(formatTtml([cue]))[0].runs).toEqual([
			{ text: 'Ready?', voice: 'Anna' },
			{ text: '\n' },
			{ text: 'Yes.', italic: true, voice: 'Ben' },
		]);
	});

	it('keeps the italics, bold and voices of a styled WebVTT file, as an independent XML parser reads them', () => {
		const ttml = formatTtml(readVtt(fixture('keynote.vtt')).cues);
		// the same text, styles (a <br/> cuts a run in two: joined again) and speakers as the WebVTT reader gives
		expect(
			parseImscText(ttml).map(({ runs, ...paragraph }) =>
				runs ? { ...paragraph, runs: toRuns(runs) } : paragraph,
			),
		).toEqual(
			KEYNOTE_CUES.map(({ startMs, endMs, text, runs, voice }) => ({
				startMs,
				endMs,
				text,
				...(runs ? { runs } : {}),
				...(voice ? { agent: voice } : {}),
			})),
		);
		// the speakers are declared once each in the head, as TTML's metadata vocabulary says
		const head = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(ttml).tt
			.head;
		expect(head.metadata['ttm:agent']).toEqual([
			{ 'xml:id': 'a1', type: 'person', 'ttm:name': { '#text': 'Roger Bingham', type: 'full' } },
			{ 'xml:id': 'a2', type: 'person', 'ttm:name': { '#text': 'Esme', type: 'full' } },
		]);
	});
});

describe('escapeXml', () => {
	it('escapes markup characters and removes what XML 1.0 cannot hold', () => {
		expect(escapeXml('a & b < c > "d"')).toBe('a &amp; b &lt; c &gt; &quot;d&quot;');
		expect(escapeXml('x\u0000\u0008\u000b\ufffe\ud800y\tz\u{1f389}')).toBe('xy\tz\u{1f389}');
	});
});
