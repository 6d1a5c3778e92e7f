import {
	type CaptionWarning,
	CaptionFormatError,
	type Cue,
	decodeEntities,
	formatVtt,
	formatCueSettings,
	parseCueSettings,
	parseRegion,
	parseVtt,
	plainNumber,
	readVtt,
} from '../../../nodes/Captioning/captions';
import { expectValidVtt, fixture, independentParse, KEYNOTE_CUES, thrown } from './helpers';

const VTT_FIXTURES = [
	'keynote.vtt',
	'marathon-stream.vtt',
	'panel-overlapping.vtt',
	'rolling-auto-captions.vtt',
];

describe('parseVtt', () => {
	it('reads header metadata, NOTE, STYLE and REGION blocks, identifiers, settings, voices, tags and entities', () => {
		const document = readVtt(fixture('keynote.vtt'));
		expect(document.cues).toEqual(KEYNOTE_CUES);
		expect(document.regions).toEqual([
			{
				id: 'speaker',
				width: 40,
				lines: 3,
				regionAnchorX: 0,
				regionAnchorY: 100,
				viewportAnchorX: 10,
				viewportAnchorY: 90,
				scroll: 'up',
			},
		]);
		expect(document.styles).toEqual([
			'::cue {\n  color: papayawhip;\n  background-color: rgba(0, 0, 0, 0.8);\n}\n::cue(.highlight) {\n  color: yellow;\n}',
		]);
		// the only text left out is the ruby annotation, and it is named
		expect(document.warnings).toEqual([
			{
				line: 44,
				text: 'kan ji',
				message:
					'The ruby annotation (reading aid) "kan ji" was left out: the other caption formats have no place for it. The text it annotates is kept.',
			},
		]);
	});

	it('reads the same cues with a BOM, CRLF or CR line endings, and blank lines before the signature', () => {
		const lf = fixture('keynote.vtt');
		expect(parseVtt(`\ufeff${lf}`)).toEqual(KEYNOTE_CUES);
		expect(parseVtt(lf.replace(/\n/g, '\r\n'))).toEqual(KEYNOTE_CUES);
		expect(parseVtt(lf.replace(/\n/g, '\r'))).toEqual(KEYNOTE_CUES);
		const late = readVtt(`\n  \n${lf}`);
		expect(late.cues).toEqual(KEYNOTE_CUES);
		expect(late.warnings?.[0]).toEqual({
			line: 1,
			message:
				'The file has 2 blank lines before "WEBVTT": read all the same, but players reject a WebVTT file that does not start with "WEBVTT". Remove them.',
		});
		// a second byte order mark is not the file's: the signature does not start the file
		expect(() => parseVtt(`\ufeff\ufeff${lf}`)).toThrow(CaptionFormatError);
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

	it('keeps cue text as it is, lines of a single space too (as auto-generated captions write them)', () => {
		const cues = parseVtt(fixture('rolling-auto-captions.vtt'));
		expect(cues).toHaveLength(5);
		expect(cues[0]).toEqual({
			startMs: 320,
			endMs: 2790,
			settings: { align: 'start', position: 0 },
			text: " \nso today we're going to look",
		});
		expect(parseVtt('WEBVTT\n\n00:01.000 --> 00:02.000\n   indented \n')[0].text).toBe(
			'   indented ',
		);
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

	it('reads times without spaces around the arrow; a comma before the milliseconds leaves the cue out, said', () => {
		expect(parseVtt('WEBVTT\n\n00:01.000-->00:02.500   line:0\nHi')).toEqual([
			{ startMs: 1000, endMs: 2500, settings: { line: 0 }, text: 'Hi' },
		]);
		const srtStyle = readVtt(
			'WEBVTT\n\n00:00:01,000 --> 00:00:02,500\nHi\n\n00:03.000 --> 00:04.000\nOk',
		);
		expect(srtStyle.cues.map((cue) => cue.text)).toEqual(['Ok']);
		expect(srtStyle.warnings).toEqual([
			{
				line: 3,
				text: '00:00:01,000 --> 00:00:02,500',
				message:
					'The timing line cannot be read: the start time "00:00:01,000" is not a WebVTT timestamp. WebVTT writes a full stop before the milliseconds where SRT writes a comma. Write times as mm:ss.ttt or hh:mm:ss.ttt with two-digit minutes and seconds (00-59) and three millisecond digits after a full stop, e.g. "00:01.500 --> 00:04.000". The cue was left out with its text: "Hi"',
			},
		]);
	});

	it('leaves out blocks that are not cues and STYLE blocks after the first cue, naming each; comments silently', () => {
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
		const document = readVtt(vtt);
		expect(document.cues).toEqual([
			{ startMs: 1000, endMs: 2000, text: 'One' },
			{ startMs: 3000, endMs: 4000, text: 'Two', identifier: '   ' },
		]);
		expect(document.warnings?.map(({ line, text }) => [line, text])).toEqual([
			[3, 'orphan identifier'],
			[5, 'some stray text\nmore stray text'],
			[11, 'STYLE\n::cue { color: red }'],
		]);
		expect(document.warnings?.[1].message).toBe(
			'The text at lines 5-6 is not a cue (it has no timing line such as "00:01.000 --> 00:04.000") and was left out. If it belongs to the cue before it, remove the blank line before it.',
		);
		expect(document.warnings?.[2].message).toBe(
			'The STYLE block at lines 11-12 comes after the first cue, where players do not read it: it was left out. Move it before the cues.',
		);
	});

	it('keeps a cue with an empty payload', () => {
		expect(parseVtt('WEBVTT\n\n00:01.000 --> 00:02.000\n\n')).toEqual([
			{ startMs: 1000, endMs: 2000, text: '' },
		]);
	});

	it('keeps the voices of a cue several speakers share on its runs, and writes them back', () => {
		const vtt =
			'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Anna>- Ready?</v>\n<v Ben>- <i>Yes.</i></v>\n';
		const [cue] = parseVtt(vtt);
		expect(cue).toEqual({
			startMs: 1000,
			endMs: 3000,
			text: '- Ready?\n- Yes.',
			runs: [
				{ text: '- Ready?', voice: 'Anna' },
				{ text: '\n' },
				{ text: '- ', voice: 'Ben' },
				{ text: 'Yes.', italic: true, voice: 'Ben' },
			],
		});
		expect(formatVtt([cue])).toBe(vtt);
		expectValidVtt(vtt);
	});

	it('keeps the text after a tag without its ">", saying so', () => {
		const document = readVtt(
			[
				'WEBVTT',
				'',
				'00:01.000 --> 00:02.000',
				"<c It's a blue apple tree!",
				'',
				'00:02.000 --> 00:03.000',
				'<i>Look</i> <lang.x en Over there',
				'',
				'00:03.000 --> 00:04.000',
				'<v Anna',
			].join('\n'),
		);
		expect(document.cues.map((cue) => cue.text)).toEqual([
			"It's a blue apple tree!",
			'Look Over there',
			'Anna',
		]);
		expect(document.warnings?.map(({ line, message }) => [line, message])).toEqual([
			[
				4,
				'The tag "<c" has no ">": the text after it, "It\'s a blue apple tree!", is kept as text (the WebVTT parser algorithm would read it as part of the tag and show nothing). Close the tag with ">".',
			],
			[
				7,
				'The tag "<lang" has no ">": the text after it, "Over there", is kept as text (the WebVTT parser algorithm would read it as part of the tag and show nothing). Close the tag with ">".',
			],
			[
				10,
				'The tag "<v" has no ">": the text after it, "Anna", is kept as text (the WebVTT parser algorithm would read it as part of the tag and show nothing). Close the tag with ">".',
			],
		]);
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

	it('drops ruby annotations (said), class spans, timestamp tags and unclosed tags from the text', () => {
		const document = readVtt(
			'WEBVTT\n\n00:01.000 --> 00:05.000\n<ruby>東<rt>とう</rt>京</ruby><c.a.b>!</c> <00:00:02.000>ok <b',
		);
		expect(document.cues[0].text).toBe('東京! ok ');
		expect(document.warnings?.map(({ line, text }) => [line, text])).toEqual([[4, 'とう']]);
	});

	it('reads italics, bold and underline into runs; an end tag closes only the element open innermost', () => {
		const [cue] = parseVtt(
			'WEBVTT\n\n00:01.000 --> 00:05.000\n<i>one <b>two</i> three</b> <u>four</u> five',
		);
		expect(cue.text).toBe('one two three four five');
		// </i> does not close <b> (the innermost): both stay open until </b>, and <i> to the end
		expect(cue.runs).toEqual([
			{ text: 'one ', italic: true },
			{ text: 'two three', italic: true, bold: true },
			{ text: ' ', italic: true },
			{ text: 'four', italic: true, underline: true },
			{ text: ' five', italic: true },
		]);
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

	describe('leaves out a cue whose timing line cannot be read, naming the line, the reason and the text', () => {
		it('from a fixture, reading the cues around it', () => {
			const document = readVtt(fixture('bad-timing.vtt'));
			expect(document.cues).toEqual([
				{ startMs: 1000, endMs: 3000, text: 'The first cue is fine.' },
			]);
			expect(document.warnings).toEqual([
				{
					line: 7,
					text: '00:00:04.00 --> 00:00:06.000',
					message:
						'The timing line cannot be read: the start time "00:00:04.00" is not a WebVTT timestamp. Write times as mm:ss.ttt or hh:mm:ss.ttt with two-digit minutes and seconds (00-59) and three millisecond digits after a full stop, e.g. "00:01.500 --> 00:04.000". The cue was left out with its text: "The start time lacks a millisecond digit."',
				},
			]);
		});

		it.each([
			['--> 00:02.000', 'the start time before "-->" is missing.'],
			['00:01.000 -->', 'the end time after "-->" is missing.'],
			['00:01.000 --> 00:61.000', 'the end time "00:61.000" is not a WebVTT timestamp.'],
			['75:00.000 --> 76:00.000', 'the start time "75:00.000" is not a WebVTT timestamp.'],
			['00:01.000 -- > 00:02.000 -->', 'the start and end times must be separated by " --> ".'],
			['00:01.000\v --> 00:02.000', 'the start and end times must be separated by " --> ".'],
		])('%j', (timing, problem) => {
			const document = readVtt(
				`WEBVTT\n\nNOTE hi\n\n${timing}\nText\n\n00:09.000 --> 00:10.000\nNext`,
			);
			expect(document.cues.map((cue) => cue.text)).toEqual(['Next']);
			expect(document.warnings).toHaveLength(1);
			expect(document.warnings![0].line).toBe(5);
			expect(document.warnings![0].message).toContain(problem);
			expect(document.warnings![0].message).toContain('hh:mm:ss.ttt');
			expect(document.warnings![0].message).toContain('"Text"');
		});

		it('a timing line without an arrow, after a cue identifier', () => {
			const document = readVtt('WEBVTT\n\nintro\n00:00:01.000 00:00:02.000\nHi');
			expect(document.cues).toEqual([]);
			expect(document.warnings).toEqual([
				{
					line: 3,
					text: 'intro\n00:00:01.000 00:00:02.000\nHi',
					message:
						'Line 4 looks like a timing line but has no "-->" between its times: the text at lines 3-5 was left out. Write it as "00:01.000 --> 00:04.000".',
				},
			]);
		});

		it('cue text holding "-->": the cue ends there, and that line starts a block that is no cue', () => {
			const document = readVtt('WEBVTT\n\n00:01.000 --> 00:02.000\nA --> B\nmore');
			expect(document.cues).toEqual([{ startMs: 1000, endMs: 2000, text: '' }]);
			expect(document.warnings?.map(({ line, text }) => [line, text])).toEqual([[4, 'A --> B']]);
			expect(document.warnings![0].message).toContain(
				'the start time "A" is not a WebVTT timestamp',
			);
			expect(document.warnings![0].message).toContain('with its text: "more"');
		});

		it('shortening very long lines in the warning', () => {
			const document = readVtt(`WEBVTT\n\nx --> 00:01.000 ${'y'.repeat(500)}`);
			expect(document.warnings![0].text!.length).toBeLessThanOrEqual(200);
			expect(document.warnings![0].message.length).toBeLessThan(600);
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

describe('parseCueSettings and formatCueSettings', () => {
	it('reads each setting by the spec: the last valid one of a name wins, an invalid one changes nothing', () => {
		expect(
			parseCueSettings(
				'align:middle position:150% size:50% size:60% bogus vertical:rl line:-1,end :x line:2 align:left',
			),
		).toEqual({ size: 60, vertical: 'rl', line: 2, lineAlign: 'end', align: 'left' });
		expect(parseCueSettings('position:100%,line-left line:100.0% align:left')).toEqual({
			position: 100,
			positionAlign: 'line-left',
			line: 100,
			snapToLines: false,
			align: 'left',
		});
		expect(parseCueSettings('line:-0 size:00%')).toEqual({ line: 0, size: 0 });
		expect(parseCueSettings('')).toBeUndefined();
	});

	it('keeps a region only when the document has one of that identifier, and drops it as the spec says', () => {
		const regions = [parseRegion('id:r1')];
		expect(parseCueSettings('region:r1', regions)).toEqual({ region: 'r1' });
		expect(parseCueSettings('region:r2', regions)).toBeUndefined();
		expect(parseCueSettings('region:r1 line:0', regions)).toEqual({ line: 0 });
		// settings are read in order: a region after the line setting stays
		expect(parseCueSettings('line:0 region:r1', regions)).toEqual({ line: 0, region: 'r1' });
		expect(parseCueSettings('region:r1 size:100%', regions)).toEqual({ region: 'r1', size: 100 });
		expect(parseCueSettings('region:r1 vertical:lr', regions)).toEqual({ vertical: 'lr' });
	});

	it('writes one canonical form that reads back as the same settings', () => {
		const settings = parseCueSettings(
			'align:end region:x size:50% position:10%,line-right line:1e2 line:10%,end vertical:lr',
		);
		expect(formatCueSettings(settings)).toBe(
			'vertical:lr line:10%,end position:10%,line-right size:50% align:end',
		);
		expect(parseCueSettings(formatCueSettings(settings)!)).toEqual(settings);
		expect(formatCueSettings({ region: 'x' })).toBeUndefined();
		expect(formatCueSettings({ region: 'x' }, new Set(['x']))).toBe('region:x');
	});

	it('writes every number in plain digits, which read back as the same number', () => {
		for (const value of [
			1e34,
			-Number.MAX_VALUE,
			Number.MIN_VALUE,
			1.5e-7,
			18446744073709552000,
			0.1,
		]) {
			expect(plainNumber(value)).toMatch(/^-?\d+(\.\d+)?$/);
			expect(Number(plainNumber(value))).toBe(value);
		}
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

	it.each(VTT_FIXTURES)('round-trips %s: read → write → read gives the same document', (name) => {
		const document = readVtt(fixture(name));
		const write = (read: typeof document) =>
			formatVtt(read.cues, { regions: read.regions, styles: read.styles });
		const again = readVtt(write(document));
		const byTime = (cues: Cue[]) => [...cues].sort((a, b) => a.startMs - b.startMs);
		expect(again.cues.length).toBe(document.cues.length);
		expect({ ...again, cues: byTime(again.cues) }).toEqual({
			...document,
			cues: byTime(document.cues),
			// the ruby annotation was said to be left out when read; written, it is not there to warn about
			warnings: undefined,
		});
		expect(write(again)).toBe(write(document));
	});

	it('writes the keynote as expected: style sheets and regions first, settings in one canonical form', () => {
		const document = readVtt(fixture('keynote.vtt'));
		expect(
			formatVtt(document.cues, {
				header: 'Quarterly all-hands',
				regions: document.regions,
				styles: document.styles,
			}),
		).toBe(
			[
				'WEBVTT Quarterly all-hands',
				'',
				'STYLE',
				'::cue {',
				'  color: papayawhip;',
				'  background-color: rgba(0, 0, 0, 0.8);',
				'}',
				'::cue(.highlight) {',
				'  color: yellow;',
				'}',
				'',
				'REGION',
				'id:speaker width:40% viewportanchor:10%,90% scroll:up',
				'',
				'intro-1',
				'00:00:00.500 --> 00:00:03.200 position:10% align:start',
				'<v Roger Bingham>Good morning, everyone &amp; welcome!',
				'',
				'intro-2',
				'00:00:03.400 --> 00:00:06.900 line:85% size:80%',
				"<v Esme>It's <b>great</b> to see you all.",
				'Let\u2019s get started.',
				'',
				'00:00:07.000 --> 00:00:10.250 align:end region:speaker',
				'<v Roger Bingham><i>Revenue</i> grew by 12\u00a0% &lt;year over year&gt;.',
				'',
				'00:00:10.500 --> 00:00:13.000',
				'Q3 numbers \u200eare in the <u>appendix</u>.',
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

	it('drops empty lines inside text, which would end the cue early; keeps lines of spaces', () => {
		const vtt = formatVtt([
			{ startMs: 0, endMs: 1000, text: '\nfirst\n\n  \r\nsecond\r\rthird\n' },
		]);
		expect(parseVtt(vtt)[0].text).toBe('first\n  \nsecond\nthird');
		expectValidVtt(vtt);
	});

	it('keeps the times of cues that end before or when they start, clamps negative ones, and says so', () => {
		const warnings: CaptionWarning[] = [];
		const vtt = formatVtt(
			[
				{ startMs: 2000, endMs: 2000, text: 'zero' },
				{ startMs: 3000, endMs: 2500, text: 'backwards' },
				{ startMs: -40, endMs: 500.4, text: 'early' },
			],
			{},
			(warning) => warnings.push(warning),
		);
		expect(parseVtt(vtt).map((cue) => [cue.startMs, cue.endMs])).toEqual([
			[0, 500],
			[2000, 2000],
			[3000, 2500],
		]);
		expect(warnings.map((warning) => [warning.cue, warning.message])).toEqual([
			[
				undefined,
				'A cue starts before the cue ahead of it (the first: the cue at 00:00:00.000 comes after one at 00:00:03.000): written in the order of their start times (WebVTT is read in time order).',
			],
			[1, 'Cue 1 has a time before 0 (start -40 ms): written as 00:00:00.000.'],
			[
				2,
				'Cue 2 ends when it starts (00:00:02.000): written as it is, and players never show it. Give it time on screen (Fix does).',
			],
			[
				3,
				'Cue 3 ends (00:00:02.500) before it starts (00:00:03.000): written as it is, and players never show it. Correct its times (Fix gives it time on screen).',
			],
		]);
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
			...Array(4).fill(undefined),
			'  ',
			'two lines',
			'ok',
		]);
	});

	it('writes a region setting only with its REGION block', () => {
		const cue: Cue = { startMs: 0, endMs: 1000, text: 'x', settings: { region: 'r1', line: 0 } };
		expect(formatVtt([cue])).toContain('00:00:00.000 --> 00:00:01.000 line:0\n');
		expectValidVtt(formatVtt([cue]));
	});

	it('writes italics, bold and underline as tags, well nested, that read back as the same runs', () => {
		const cue: Cue = {
			startMs: 0,
			endMs: 1000,
			text: 'one two three & four',
			runs: [
				{ text: 'one ', italic: true },
				{ text: 'two', italic: true, bold: true },
				{ text: ' three', bold: true },
				{ text: ' & four', underline: true },
			],
		};
		const vtt = formatVtt([cue]);
		expect(vtt).toContain('\n<i>one </i><b><i>two</i> three</b><u> &amp; four</u>\n');
		expectValidVtt(vtt);
		expect(parseVtt(vtt)).toEqual([cue]);
	});

	it('escapes, drops empty lines and names speakers as ever among thousands of cues, in every block of 1,024', () => {
		const cues: Cue[] = Array.from({ length: 8300 }, (_, index) => ({
			startMs: index * 1000,
			endMs: index * 1000 + 500,
			text: `line ${index + 1}`,
		}));
		// the first block clean, then one of each in a block of its own: the last of a block, the first, inside
		cues[2047].text = 'end\n\nof the second block';
		cues[2048].text = '\nstart';
		cues[3500].text = 'Tom & Jerry';
		// runs whose text is not the cue's: what they hold is escaped, whatever the cue's text holds
		cues[4200] = {
			...cues[4200],
			text: 'I love you',
			runs: [{ text: 'I ', italic: true }, { text: '<3 you' }],
		};
		cues[5200].text = 'end\r\nline';
		cues[6200] = {
			...cues[6200],
			text: 'Hi there',
			runs: [
				{ text: 'Hi', voice: 'Anna' },
				{ text: ' there', voice: 'Ben' },
			],
		};
		cues[7200] = { ...cues[7200], text: 'styled', runs: [{ text: 'styled', italic: true }] };
		cues[8299].text = 'last\n';
		const blocks = formatVtt(cues).split('\n\n');
		expect(blocks).toHaveLength(8301);
		expect(blocks[1024]).toBe('00:17:03.000 --> 00:17:03.500\nline 1024');
		expect(blocks[2048]).toBe('00:34:07.000 --> 00:34:07.500\nend\nof the second block');
		expect(blocks[2049]).toBe('00:34:08.000 --> 00:34:08.500\nstart');
		expect(blocks[3501]).toBe('00:58:20.000 --> 00:58:20.500\nTom &amp; Jerry');
		expect(blocks[4201]).toBe('01:10:00.000 --> 01:10:00.500\n<i>I </i>&lt;3 you');
		expect(blocks[5201]).toBe('01:26:40.000 --> 01:26:40.500\nend\nline');
		expect(blocks[6201]).toBe('01:43:20.000 --> 01:43:20.500\n<v Anna>Hi</v><v Ben> there</v>');
		expect(blocks[7201]).toBe('02:00:00.000 --> 02:00:00.500\n<i>styled</i>');
		expect(blocks[7300]).toBe('02:01:39.000 --> 02:01:39.500\nline 7300');
		expect(blocks[8300]).toBe('02:18:19.000 --> 02:18:19.500\nlast\n');
	});

	it('looks at the runs of styled cues for what to change, in every block of 1,024', () => {
		// every cue styled: the block check reads the runs, which are what a styled cue writes
		const cues: Cue[] = Array.from({ length: 5200 }, (_, index) => ({
			startMs: index * 1000,
			endMs: index * 1000 + 500,
			text: `line ${index + 1}`,
			runs: [{ text: 'line', italic: true }, { text: ` ${index + 1}` }],
		}));
		// one of each in a block of its own, held across two runs or at a cue's edge
		const styled = (index: number, ...runs: Cue['runs'] & object) => {
			cues[index] = { ...cues[index], text: runs.map((run) => run.text).join(''), runs };
		};
		styled(1100, { text: 'one\n', italic: true }, { text: '\ntwo' });
		styled(2100, { text: '\nstart', italic: true });
		styled(3100, { text: 'Tom', italic: true }, { text: ' & Jerry' });
		styled(4100, { text: 'end\r\n', bold: true }, { text: 'line' });
		styled(5199, { text: 'last', italic: true }, { text: '\n' });
		const vtt = formatVtt(cues);
		const blocks = vtt.split('\n\n');
		expect(blocks).toHaveLength(5201);
		expect(blocks[1024]).toBe('00:17:03.000 --> 00:17:03.500\n<i>line</i> 1024');
		expect(blocks[1101]).toBe('00:18:20.000 --> 00:18:20.500\n<i>one</i>\ntwo');
		expect(blocks[2101]).toBe('00:35:00.000 --> 00:35:00.500\n<i>start</i>');
		expect(blocks[3101]).toBe('00:51:40.000 --> 00:51:40.500\n<i>Tom</i> &amp; Jerry');
		expect(blocks[4101]).toBe('01:08:20.000 --> 01:08:20.500\n<b>end</b>\nline');
		expect(blocks[5200]).toBe('01:26:39.000 --> 01:26:39.500\n<i>last</i>\n');
		expect(parseVtt(vtt)).toHaveLength(5200);
	});

	it('writes each cue of a block it finds nothing to change in as the full writing does', () => {
		const plain = (index: number): Cue => ({
			startMs: index * 1000,
			endMs: index * 1000 + 500,
			text: `line ${index + 1}`,
			runs: [{ text: 'line', italic: true }, { text: ` ${index + 1}` }],
		});
		const odd: Array<Cue['runs'] & object> = [
			[{ text: '', italic: true }, { text: '\nx' }],
			[{ text: 'x\n', italic: true }, { text: '' }],
			[{ text: 'a', italic: true }, { text: '' }, { text: '\nb' }],
			[{ text: 'a\n', bold: true }, { text: '\nb' }],
			[{ text: ' ', italic: true }],
			[{ text: 'a', underline: true }, { text: '&' }],
			[],
		];
		for (const runs of odd) {
			const cue = { ...plain(10), text: runs.map((run) => run.text).join(''), runs };
			// the same cue in a clean block and in one that a "&" sends through the full writing
			const clean = Array.from({ length: 20 }, (_, index) => (index === 10 ? cue : plain(index)));
			const full = clean.map((each, index) => (index === 15 ? { ...each, text: '&' } : each));
			full[15] = { ...full[15], runs: [{ text: '&', italic: true }] };
			expect(formatVtt(clean).split('\n\n')[11]).toBe(formatVtt(full).split('\n\n')[11]);
		}
		// and a cue without runs or text
		const empty = Array.from({ length: 20 }, (_, index) =>
			index === 10 ? { startMs: 10_000, endMs: 10_500, text: '' } : plain(index),
		);
		expect(formatVtt(empty).split('\n\n')[11]).toBe('00:00:10.000 --> 00:00:10.500');
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
