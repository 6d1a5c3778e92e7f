import { escapeXml, formatTtml, parseVtt } from '../../../nodes/Captioning/captions';
import { fixture, parseImscText } from './helpers';

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
			'<p xml:id="c2" begin="00:00:03.400" end="00:00:06.900">It\'s great to see you all.<br/>Let’s get started.</p>',
		);
		expect(ttml).toContain('Revenue grew by 12\u00a0% &lt;year over year&gt;.');
		expect(parseImscText(ttml).map((cue) => cue.text)).toEqual(
			parseVtt(fixture('keynote.vtt')).map((cue) => cue.text),
		);
	});

	it('says "und" when the language is not known or not a language tag', () => {
		expect(formatTtml([])).toContain('xml:lang="und"');
		expect(formatTtml([], { language: 'en" onload="x' })).toContain('xml:lang="und"');
		expect(formatTtml([], { language: 'pt-BR' })).toContain('xml:lang="pt-BR"');
	});

	it('writes times beyond 99 hours and speakers when asked, and leaves out cues without text', () => {
		const ttml = formatTtml(
			[
				{ startMs: 360_000_000, endMs: 360_000_000, text: 'Late.', voice: 'Anna' },
				{ startMs: 0, endMs: 10, text: '\u0001 \n ' },
			],
			{ includeVoice: true },
		);
		expect(parseImscText(ttml)).toEqual([
			{ startMs: 360_000_000, endMs: 360_000_001, text: 'Anna: Late.' },
		]);
	});
});

describe('escapeXml', () => {
	it('escapes markup characters and removes what XML 1.0 cannot hold', () => {
		expect(escapeXml('a & b < c > "d"')).toBe('a &amp; b &lt; c &gt; &quot;d&quot;');
		expect(escapeXml('x\u0000\u0008\u000b\ufffe\ud800y\tz\u{1f389}')).toBe('xy\tz\u{1f389}');
	});
});
