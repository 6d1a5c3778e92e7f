import {
	CaptionFormatError,
	type Cue,
	decodeEntities,
	formatVtt,
	parseVtt,
	sanitizeCueSettings,
} from '../../../nodes/Captioning/captions';
import { expectValidVtt, fixture, independentParse, thrown } from './helpers';

const KEYNOTE_CUES: Cue[] = [
	{
		identifier: 'intro-1',
		startMs: 500,
		endMs: 3200,
		settings: 'align:start position:10%',
		voice: 'Roger Bingham',
		text: 'Good morning, everyone & welcome!',
	},
	{
		identifier: 'intro-2',
		startMs: 3400,
		endMs: 6900,
		settings: 'line:85% size:80%',
		voice: 'Esme',
		text: "It's great to see you all.\nLet\u2019s get started.",
	},
	{
		startMs: 7000,
		endMs: 10_250,
		settings: 'region:speaker align:end',
		voice: 'Roger Bingham',
		text: 'Revenue grew by 12\u00a0% <year over year>.',
	},
	{ startMs: 10_500, endMs: 13_000, text: 'Q3 numbers \u200eare in the appendix.' },
	{ startMs: 13_000, endMs: 16_000, text: '漢字 and café — all set.' },
];

const VTT_FIXTURES = [
	'keynote.vtt',
	'marathon-stream.vtt',
	'panel-overlapping.vtt',
	'rolling-auto-captions.vtt',
];

describe('parseVtt', () => {
	it('reads header metadata, NOTE, STYLE and REGION blocks, identifiers, settings, voices, tags and entities', () => {
		expect(parseVtt(fixture('keynote.vtt'))).toEqual(KEYNOTE_CUES);
	});

	it('reads the same cues with a BOM, CRLF or CR line endings, and blank lines before the signature', () => {
		const lf = fixture('keynote.vtt');
		expect(parseVtt(`\ufeff${lf}`)).toEqual(KEYNOTE_CUES);
		expect(parseVtt(lf.replace(/\n/g, '\r\n'))).toEqual(KEYNOTE_CUES);
		expect(parseVtt(lf.replace(/\n/g, '\r'))).toEqual(KEYNOTE_CUES);
		expect(parseVtt(`\n  \n${lf}`)).toEqual(KEYNOTE_CUES);
	});

	it('reads hours beyond 99 and the short mm:ss.ttt form', () => {
		expect(parseVtt(fixture('marathon-stream.vtt')).map((cue) => [cue.startMs, cue.endMs])).toEqual(
			[
				[3_598_000, 3_601_500],
				[359_998_000, 360_001_500],
				[442_800_000, 442_802_250],
			],
		);
	});

	it('keeps overlapping cues in file order', () => {
		const cues = parseVtt(fixture('panel-overlapping.vtt'));
		expect(cues.map((cue) => [cue.identifier, cue.startMs, cue.voice, cue.text])).toEqual([
			['1', 1000, 'Anna', 'So what did the client say?'],
			['2', 3000, 'Ben', 'They loved it.'],
			['3', 2000, undefined, '[crowd cheering]'],
		]);
	});

	it('keeps lines holding a single space inside a cue, as auto-generated captions write them', () => {
		const cues = parseVtt(fixture('rolling-auto-captions.vtt'));
		expect(cues).toHaveLength(5);
		expect(cues[0]).toEqual({
			startMs: 320,
			endMs: 2790,
			settings: 'align:start position:0%',
			text: "so today we're going to look",
		});
	});

	it('accepts a cue right after the header without a blank line', () => {
		const cues = parseVtt('WEBVTT\tlive\nKind: captions\n00:01.000 --> 00:02.000\nHi');
		expect(cues).toEqual([{ startMs: 1000, endMs: 2000, text: 'Hi' }]);
	});

	it('skips HLS header lines such as X-TIMESTAMP-MAP', () => {
		const vtt =
			'WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\n00:01.000 --> 00:02.000\nHi\n';
		expect(parseVtt(vtt)).toEqual([{ startMs: 1000, endMs: 2000, text: 'Hi' }]);
	});

	it('starts a new cue at a timing line even without a blank line before it', () => {
		const cues = parseVtt('WEBVTT\n\n00:01.000 --> 00:02.000\nOne\n00:02.000 --> 00:03.000\nTwo\n');
		expect(cues.map((cue) => cue.text)).toEqual(['One', 'Two']);
	});

	it('tolerates a missing space around the arrow and a comma before the milliseconds', () => {
		expect(parseVtt('WEBVTT\n\n00:01,000-->00:02.500   line:0\nHi')).toEqual([
			{ startMs: 1000, endMs: 2500, settings: 'line:0', text: 'Hi' },
		]);
	});

	it('skips blocks that are not cues, and STYLE blocks after the first cue', () => {
		const vtt = [
			'WEBVTT',
			'',
			'orphan identifier',
			'',
			'some stray text',
			'more stray text',
			'',
			'00:01.000 --> 00:02.000',
			'One',
			'',
			'STYLE',
			'::cue { color: red }',
			'',
			'NOTE a comment',
			'spanning two lines',
			'',
			'   ',
			'00:03.000 --> 00:04.000',
			'Two',
		].join('\n');
		expect(parseVtt(vtt)).toEqual([
			{ startMs: 1000, endMs: 2000, text: 'One' },
			{ startMs: 3000, endMs: 4000, text: 'Two' },
		]);
	});

	it('keeps a cue with an empty payload', () => {
		expect(parseVtt('WEBVTT\n\n00:01.000 --> 00:02.000\n\n')).toEqual([
			{ startMs: 1000, endMs: 2000, text: '' },
		]);
	});

	it('labels each speaker when one cue holds several voices', () => {
		const [cue] = parseVtt(
			'WEBVTT\n\n00:01.000 --> 00:03.000\n<v Anna>- Ready?</v>\n<v Ben>- Yes.</v>',
		);
		expect(cue.voice).toBeUndefined();
		expect(cue.text).toBe('Anna: - Ready?\nBen: - Yes.');
	});

	it('keeps the voice of a cue that also has unvoiced text, and ignores an empty voice tag', () => {
		const cues = parseVtt(
			[
				'WEBVTT',
				'',
				'00:01.000 --> 00:02.000',
				'<v   Dr.  Who >Run!</v> (footsteps)',
				'',
				'00:02.000 --> 00:03.000',
				'<v>Nobody</v>',
			].join('\n'),
		);
		expect(cues[0]).toEqual({
			startMs: 1000,
			endMs: 2000,
			voice: 'Dr. Who',
			text: 'Run! (footsteps)',
		});
		expect(cues[1]).toEqual({ startMs: 2000, endMs: 3000, text: 'Nobody' });
	});

	it('drops ruby annotations, class spans, timestamp tags and unclosed tags from the text', () => {
		const [cue] = parseVtt(
			'WEBVTT\n\n00:01.000 --> 00:05.000\n<ruby>東<rt>とう</rt>京</ruby><c.a.b>!</c> <00:00:02.000>ok <b',
		);
		expect(cue.text).toBe('東京! ok');
	});

	it('turns NUL characters into U+FFFD', () => {
		expect(parseVtt('WEBVTT\n\n00:01.000 --> 00:02.000\na\0b')[0].text).toBe('a\ufffdb');
	});

	describe('rejects input that is not WebVTT', () => {
		it.each([
			['an empty file', '', '""'],
			['a missing signature', 'WEBVT\n\n00:01.000 --> 00:02.000\nHi', '"WEBVT"'],
			['text glued to the signature', 'WEBVTTX\n', '"WEBVTTX"'],
			['JSON', '{"results":[]}', '"{\\"results\\":[]}"'],
			['a lone number', '1', '"1"'],
		])('%s, naming line 1 and what was found', (_name, content, found) => {
			const error = thrown(() => parseVtt(content));
			expect(error.line).toBe(1);
			expect(error.message).toContain('Line 1: expected the "WEBVTT" signature');
			expect(error.message).toContain(`found ${found}`);
			expect(error.message).toContain('not WebVTT');
		});

		it('recognises SRT and says so', () => {
			const error = thrown(() => parseVtt(fixture('interview.srt')));
			expect(error.message).toMatch(/^Line 1: .*looks like SRT subtitles/);
		});

		it('names the right line when blank lines come before the content', () => {
			expect(thrown(() => parseVtt('\n\nhello')).line).toBe(3);
		});
	});

	describe('rejects malformed timing lines, naming the line and how to fix it', () => {
		it('from a fixture', () => {
			const error = thrown(() => parseVtt(fixture('bad-timing.vtt')));
			expect(error.line).toBe(7);
			expect(error.message).toBe(
				'Line 7: malformed cue timing line "00:00:04.00 --> 00:00:06.000": the start time "00:00:04.00" is not a WebVTT timestamp; write times as mm:ss.ttt or hh:mm:ss.ttt with two-digit minutes and seconds (00-59) and three millisecond digits, e.g. "00:01.500 --> 00:04.000".',
			);
		});

		it.each([
			['--> 00:02.000', 'the start time before "-->" is missing'],
			['00:01.000 -->', 'the end time after "-->" is missing'],
			['00:01.000 --> 00:61.000', 'the end time "00:61.000" is not a WebVTT timestamp'],
			['75:00.000 --> 76:00.000', 'the start time "75:00.000" is not a WebVTT timestamp'],
			['00:01.000 00:02.000', 'must be separated by " --> "'],
			['00:01.000 - 00:02.000', 'must be separated by " --> "'],
		])('%j', (timing, problem) => {
			const error = thrown(() => parseVtt(`WEBVTT\n\nNOTE hi\n\n${timing}\nText`));
			expect(error.line).toBe(5);
			expect(error.message).toContain(problem);
			expect(error.message).toContain('hh:mm:ss.ttt');
		});

		it('after a cue identifier', () => {
			const error = thrown(() => parseVtt('WEBVTT\n\nintro\n00:00:01.000 00:00:02.000\nHi'));
			expect(error.line).toBe(4);
			expect(error.message).toContain('"00:00:01.000 00:00:02.000"');
		});

		it('when cue text contains "-->"', () => {
			const error = thrown(() => parseVtt('WEBVTT\n\n00:01.000 --> 00:02.000\nA --> B'));
			expect(error.line).toBe(4);
			expect(error.message).toContain('the start time "A" is not a WebVTT timestamp');
		});

		it('shortening very long lines in the message', () => {
			const error = thrown(() => parseVtt(`WEBVTT\n\nx --> 00:01.000 ${'y'.repeat(200)}`));
			expect(error.message).toContain('..."');
			expect(error.message.length).toBeLessThan(400);
		});
	});
});

describe('decodeEntities', () => {
	it.each([
		['&amp; &lt; &gt; &quot; &apos;', '& < > " \''],
		['a&nbsp;b&lrm;c&rlm;', 'a\u00a0b\u200ec\u200f'],
		['&#39;&#x2019;&#X1F389;', "'\u2019🎉"],
		['&mdash; &#0; &#xD800; &#x110000; &amp', '&mdash; &#0; &#xD800; &#x110000; &amp'],
		['&amp;lt;', '&lt;'],
	])('%j → %j', (input, output) => {
		expect(decodeEntities(input)).toBe(output);
	});
});

describe('sanitizeCueSettings', () => {
	it('keeps valid settings once each, drops regions and anything a validator would reject', () => {
		expect(
			sanitizeCueSettings(
				'align:middle position:150% size:50% size:60% bogus vertical:rl line:-1,end region:x :x line:2',
			),
		).toBe('size:50% vertical:rl line:-1,end');
		expect(sanitizeCueSettings('position:100%,line-left line:100.0% align:left')).toBe(
			'position:100%,line-left line:100.0% align:left',
		);
		expect(sanitizeCueSettings('region:x')).toBeUndefined();
		expect(sanitizeCueSettings(undefined)).toBeUndefined();
	});
});

describe('formatVtt', () => {
	it.each(VTT_FIXTURES)(
		'writes %s so that the w3c parser finds no error and the same cues',
		(name) => {
			const cues = parseVtt(fixture(name));
			const vtt = formatVtt(cues);
			expectValidVtt(vtt);
			expect(independentParse(vtt).cues).toHaveLength(cues.length);
		},
	);

	it.each(VTT_FIXTURES)('round-trips %s: parse → format → parse gives the same cues', (name) => {
		const cues = parseVtt(fixture(name));
		// toEqual treats a missing property and one that is undefined alike
		const expected = cues.map((cue) => ({ ...cue, settings: sanitizeCueSettings(cue.settings) }));
		const again = parseVtt(formatVtt(cues));
		expect([...again].sort((a, b) => a.startMs - b.startMs)).toEqual(
			[...expected].sort((a, b) => a.startMs - b.startMs),
		);
		expect(formatVtt(again)).toBe(formatVtt(cues));
	});

	it('writes the keynote as expected', () => {
		expect(formatVtt(parseVtt(fixture('keynote.vtt')), { header: 'Quarterly all-hands' })).toBe(
			[
				'WEBVTT Quarterly all-hands',
				'',
				'intro-1',
				'00:00:00.500 --> 00:00:03.200 align:start position:10%',
				'<v Roger Bingham>Good morning, everyone &amp; welcome!',
				'',
				'intro-2',
				'00:00:03.400 --> 00:00:06.900 line:85% size:80%',
				"<v Esme>It's great to see you all.",
				'Let\u2019s get started.',
				'',
				'00:00:07.000 --> 00:00:10.250 align:end',
				'<v Roger Bingham>Revenue grew by 12\u00a0% &lt;year over year&gt;.',
				'',
				'00:00:10.500 --> 00:00:13.000',
				'Q3 numbers \u200eare in the appendix.',
				'',
				'00:00:13.000 --> 00:00:16.000',
				'漢字 and café — all set.',
				'',
			].join('\n'),
		);
	});

	it('orders cues by start time, which WebVTT requires', () => {
		const vtt = formatVtt(parseVtt(fixture('panel-overlapping.vtt')));
		expect(independentParse(vtt).cues.map((cue) => cue.id)).toEqual(['1', '3', '2']);
		expect(vtt.indexOf('\n3\n')).toBeLessThan(vtt.indexOf('\n2\n'));
	});

	it('escapes markup characters and never writes "-->" inside text', () => {
		const text = 'if a < b && c > d --> stop\n<b>literal</b>';
		const vtt = formatVtt([{ startMs: 0, endMs: 1000, text, voice: 'R&D <team>' }]);
		expect(vtt).toContain('<v R&amp;D &lt;team&gt;>if a &lt; b &amp;&amp; c &gt; d --&gt; stop');
		expect(vtt.split('\n').filter((line) => line.includes('-->'))).toHaveLength(1);
		expectValidVtt(vtt);
		expect(parseVtt(vtt)).toEqual([{ startMs: 0, endMs: 1000, text, voice: 'R&D <team>' }]);
	});

	it('drops empty lines inside text, which would end the cue early', () => {
		const vtt = formatVtt([{ startMs: 0, endMs: 1000, text: '\nfirst\n\n  \r\nsecond\n' }]);
		expect(parseVtt(vtt)[0].text).toBe('first\nsecond');
		expectValidVtt(vtt);
	});

	it('makes every cue end after it starts and clamps negative times', () => {
		const vtt = formatVtt([
			{ startMs: 2000, endMs: 2000, text: 'zero' },
			{ startMs: 3000, endMs: 2500, text: 'backwards' },
			{ startMs: -40, endMs: 500.4, text: 'early' },
		]);
		expect(parseVtt(vtt).map((cue) => [cue.startMs, cue.endMs])).toEqual([
			[0, 500],
			[2000, 2001],
			[3000, 3001],
		]);
		expectValidVtt(vtt);
	});

	it('drops identifiers that would be read as something else', () => {
		const cues: Cue[] = ['a --> b', 'NOTE this', 'STYLE', 'REGION x', '  ', 'two\nlines', 'ok'].map(
			(identifier, index) => ({
				startMs: index * 1000,
				endMs: index * 1000 + 500,
				text: 't',
				identifier,
			}),
		);
		const vtt = formatVtt(cues);
		expectValidVtt(vtt);
		expect(parseVtt(vtt).map((cue) => cue.identifier)).toEqual([
			...Array(5).fill(undefined),
			'two lines',
			'ok',
		]);
	});

	it('writes only settings a validator accepts', () => {
		const vtt = formatVtt([
			{ startMs: 0, endMs: 1000, text: 'x', settings: 'region:r1 align:middle line:0' },
		]);
		expect(vtt).toContain('00:00:00.000 --> 00:00:01.000 line:0\n');
		expectValidVtt(vtt);
	});

	it('leaves out the voice tag of a cue without text', () => {
		const vtt = formatVtt([{ startMs: 0, endMs: 1000, text: ' ', voice: 'Anna' }]);
		expect(vtt).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n');
		expectValidVtt(vtt);
	});

	it('writes a valid file without cues', () => {
		expect(formatVtt([])).toBe('WEBVTT\n');
		expectValidVtt(formatVtt([]));
	});

	it('keeps the header on one line and drops one that contains "-->"', () => {
		expect(formatVtt([], { header: ' Kind:\ncaptions ' })).toBe('WEBVTT Kind: captions\n');
		expect(formatVtt([], { header: '00:01.000 --> 00:02.000' })).toBe('WEBVTT\n');
	});

	it('refuses cues with times that are not numbers', () => {
		expect(() => formatVtt([{ startMs: NaN, endMs: 1, text: 'x' }])).toThrow(CaptionFormatError);
	});
});
