import {
	CaptionFormatError,
	type CaptionWarning,
	type Cue,
	formatSrt,
	parseSrtTimestamp,
	parseSrt,
	parseVtt,
	readSrt,
} from '../../../nodes/Captioning/captions';
import { generalText, plainTags } from '../../../nodes/Captioning/captions/srt';
import fc from 'fast-check';
import { fixture } from './helpers';

const INTERVIEW: Cue[] = [
	{
		startMs: 1000,
		endMs: 4000,
		text: 'Previously on the show...',
		runs: [{ text: 'Previously on the show...', italic: true }],
	},
	{ startMs: 4500, endMs: 7250, text: 'We need to talk.\nNow.' },
	{ startMs: 8000, endMs: 9000, text: 'Fine.' },
	{ startMs: 9500, endMs: 11_000, text: 'There was no blank line before this one.' },
	{ startMs: 12_000, endMs: 13_000, text: '2024' },
];

describe('parseSrt', () => {
	it('reads numbered cues, strips markup and position coordinates, survives a missing blank line', () => {
		expect(parseSrt(fixture('interview.srt'))).toEqual(INTERVIEW);
	});

	it('reads the same with a BOM and CRLF line endings', () => {
		expect(parseSrt(`\ufeff${fixture('interview.srt').replace(/\n/g, '\r\n')}`)).toEqual(INTERVIEW);
	});

	it('reads cues without numbers and with dot milliseconds, the digits after the separator as milliseconds', () => {
		expect(
			parseSrt('00:00:01.5 --> 00:00:02.000\nHello\n\n\n00:00:03,000 --> 00:00:04,000\n'),
		).toEqual([
			{ startMs: 1005, endMs: 2000, text: 'Hello' },
			{ startMs: 3000, endMs: 4000, text: '' },
		]);
	});

	it('returns no cues for empty content', () => {
		expect(parseSrt('')).toEqual([]);
		expect(parseSrt('\n \n')).toEqual([]);
	});

	it('leaves out a cue whose timing line cannot be read, naming the line and its text, and reads the rest', () => {
		const bad =
			'1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:03,000 --> 00:00:0x,000\nbad\n\n3\n00:00:05,000 --> 00:00:06,000\nlater';
		const document = readSrt(bad);
		expect(document.cues.map((cue) => cue.text)).toEqual(['ok', 'later']);
		expect(document.warnings).toEqual([
			{
				line: 6,
				text: '00:00:03,000 --> 00:00:0x,000',
				message:
					'The timing line "00:00:03,000 --> 00:00:0x,000" cannot be read: its end time is not an SRT timestamp; write times as hh:mm:ss,ttt, e.g. "00:00:01,500 --> 00:00:04,000". The cue was left out with its text: "bad"',
			},
		]);
		expect(
			readSrt('1\nsoon --> 00:00:02,000\n\n2\n00:00:03,000 --> 00:00:04,000\nx').warnings![0]
				.message,
		).toMatch(/its start time is not an SRT timestamp/);
	});

	it('keeps text after a blank line inside a cue in that cue, and says so', () => {
		const document = readSrt(
			'1\n00:00:01,000 --> 00:00:02,000\nFirst line\n\nafter a blank line\n\n2\n00:00:03,000 --> 00:00:04,000\nNext',
		);
		expect(document.cues.map((cue) => cue.text)).toEqual([
			'First line\nafter a blank line',
			'Next',
		]);
		expect(document.warnings).toEqual([
			{
				line: 5,
				text: 'after a blank line',
				message:
					'The text at line 5 follows a blank line inside cue 1: kept in that cue. Players end a cue at a blank line; remove it to show this text with the cue.',
			},
		]);
	});

	it('keeps a last text line that is a number, and takes a number right before a timing line for the cue number', () => {
		expect(
			parseSrt(
				'1\n00:00:01,000 --> 00:00:02,000\nRoom\n101\n\n2\n00:00:03,000 --> 00:00:04,000\nNext',
			),
		).toEqual([
			{ startMs: 1000, endMs: 2000, text: 'Room\n101' },
			{ startMs: 3000, endMs: 4000, text: 'Next' },
		]);
		// without a blank line: 2 is the next cue's number, 101 stays text
		expect(
			parseSrt(
				'1\n00:00:01,000 --> 00:00:02,000\nRoom\n101\n2\n00:00:03,000 --> 00:00:04,000\nNext',
			),
		).toEqual([
			{ startMs: 1000, endMs: 2000, text: 'Room\n101' },
			{ startMs: 3000, endMs: 4000, text: 'Next' },
		]);
	});

	it('reads italics, bold and underline, as tags and as ASS overrides, into runs', () => {
		const [cue] = parseSrt(
			'1\n00:00:01,000 --> 00:00:02,000\n<i>So</i> <b>very</b> {\\u1}plain{\\u0}\n<font color="red"><I>red</I></font>',
		);
		expect(cue.text).toBe('So very plain\nred');
		expect(cue.runs).toEqual([
			{ text: 'So', italic: true },
			{ text: ' ' },
			{ text: 'very', bold: true },
			{ text: ' ' },
			{ text: 'plain', underline: true },
			{ text: '\n' },
			{ text: 'red', italic: true },
		]);
	});

	it('reads <br> as a line break, in any of its spellings', () => {
		expect(
			parseSrt(
				'1\n00:00:01,000 --> 00:00:02,000\nHello<br>there<br/>you<BR />all\n<i>one<br>two</i>',
			),
		).toEqual([
			{
				startMs: 1000,
				endMs: 2000,
				text: 'Hello\nthere\nyou\nall\none\ntwo',
				runs: [{ text: 'Hello\nthere\nyou\nall\n' }, { text: 'one\ntwo', italic: true }],
			},
		]);
	});

	it('leaves text after the times out of the cue, as players do, and says so; coordinates once per file', () => {
		const document = readSrt(
			[
				'1',
				'00:00:01,000 --> 00:00:02,000 Hello there',
				'General Kenobi',
				'',
				'2',
				'00:00:03,000 --> 00:00:04,000 X1:100 X2:600 Y1:20 Y2:50',
				'Positioned',
				'',
				'3',
				'00:00:05,000 --> 00:00:06,000  x1:1 y2:2',
				'Also positioned',
			].join('\n'),
		);
		expect(document.cues.map((cue) => cue.text)).toEqual([
			'General Kenobi',
			'Positioned',
			'Also positioned',
		]);
		expect(document.warnings).toEqual([
			{
				line: 2,
				text: 'Hello there',
				message:
					'The text after the times on line 2, "Hello there", is not part of the cue: players show only the lines after the timing line (the subtitle library reads it as cue settings). Left out; move it to a line of its own to show it.',
			},
			{
				message:
					'2 timing lines carry SubRip position coordinates (X1: X2: Y1: Y2:), which the other caption formats have no place for: left out. The cues and their text are kept.',
			},
		]);
	});

	it('lists the first 100 warnings and counts the rest', () => {
		const junk = Array.from({ length: 250 }, (_, index) => `junk ${index}`).join('\n\n');
		const document = readSrt(`${junk}\n\n1\n00:00:01,000 --> 00:00:02,000\nreal`);
		expect(document.cues).toEqual([{ startMs: 1000, endMs: 2000, text: 'real' }]);
		expect(document.warnings).toHaveLength(101);
		expect(document.warnings![99].text).toBe('junk 99');
		expect(document.warnings![100]).toEqual({
			omitted: 150,
			message: '150 more warnings were not listed: only the first 100 are.',
		});
	});

	it('rejects text without any timing line, naming its first line', () => {
		expect(() => parseSrt('\n\nJust some notes\nabout the show')).toThrow(
			/^Line 3: no SRT cue found: SRT cues need a timing line/,
		);
	});
});

describe('the reading of <i>, <b> and <u> alone', () => {
	it('reads the usual styled cue in one scan, as the general reading does', () => {
		const raw = '<i>Previously</i> on the show,\nthat <B>was</b> it';
		const tagged = plainTags(raw);
		expect(tagged).toStrictEqual({
			text: 'Previously on the show,\nthat was it',
			runs: [
				{ text: 'Previously', italic: true },
				{ text: ' on the show,\nthat ' },
				{ text: 'was', bold: true },
				{ text: ' it' },
			],
		});
		expect(tagged).toStrictEqual(generalText(raw));
	});

	it('leaves any other markup, and lines to trim, to the general reading', () => {
		for (const raw of [
			'a<br>b',
			'<i>a</i> <3',
			'{\\i1}a',
			'<i >a</i>',
			'<font x>a</font>',
			'<i>a </i>\nb',
		]) {
			expect(plainTags(raw)).toBeUndefined();
		}
	});

	it('gives what the general reading gives, whenever it reads a text', () => {
		const piece = fc.constantFrom(
			'<i>',
			'</i>',
			'<I>',
			'</I>',
			'<b>',
			'</b>',
			'<u>',
			'</U>',
			'<br>',
			'<i/>',
			'</>',
			'<',
			'>',
			'{\\i1}',
			'{',
			'a',
			'word',
			'a long piece of text',
			' ',
			'\n',
			'\t',
			'é',
			'<3',
		);
		let read = 0;
		fc.assert(
			fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
				const raw = pieces.join('');
				const tagged = plainTags(raw);
				if (tagged === undefined) return;
				read++;
				expect(tagged).toStrictEqual(generalText(raw));
			}),
			{ numRuns: 3000 },
		);
		// the scan read a good share itself: the property compared something
		expect(read).toBeGreaterThan(300);
	});
});

describe('the reading of the usual timing line', () => {
	it('reads "hh:mm:ss,ttt --> hh:mm:ss,ttt" in place as the general reading does, times of any digits', () => {
		const time = fc
			.array(fc.constantFrom('0', '1', '5', '6', '9', ':', ',', '.', ' ', 'x'), {
				minLength: 12,
				maxLength: 12,
			})
			.map((chars) => chars.join(''));
		const usual = fc
			.tuple(
				fc.integer({ min: 0, max: 99 }),
				fc.integer({ min: 0, max: 62 }),
				fc.integer({ min: 0, max: 62 }),
				fc.integer({ min: 0, max: 999 }),
			)
			.map(
				([h, m, s, ms]) =>
					[h, m, s].map((n) => String(n).padStart(2, '0')).join(':') +
					`,${String(ms).padStart(3, '0')}`,
			);
		let read = 0;
		fc.assert(
			fc.property(
				fc.oneof(time, { arbitrary: usual, weight: 4 }),
				fc.oneof(time, { arbitrary: usual, weight: 4 }),
				(start, end) => {
					const line = `${start} --> ${end}`;
					// what the general reading gives: the times on either side of the arrow, trimmed
					const startMs = parseSrtTimestamp(line.slice(0, line.indexOf('-->')));
					const rest = line.slice(line.indexOf('-->') + 3).trim();
					const endMs = parseSrtTimestamp(rest.split(/\s/)[0]);
					const content = `1\n${line}\nText\n`;
					if (startMs === undefined || endMs === undefined) {
						expect(() => readSrt(content)).toThrow(CaptionFormatError);
						return;
					}
					if (/\s/.test(rest)) return;
					read++;
					expect(readSrt(content)).toStrictEqual({ cues: [{ startMs, endMs, text: 'Text' }] });
				},
			),
			{ numRuns: 2000 },
		);
		expect(read).toBeGreaterThan(500);
	});
});

describe('formatSrt', () => {
	it('numbers cues from 1, writes comma milliseconds and separates cues with a blank line', () => {
		expect(formatSrt(INTERVIEW.slice(0, 2))).toBe(
			[
				'1',
				'00:00:01,000 --> 00:00:04,000',
				'<i>Previously on the show...</i>',
				'',
				'2',
				'00:00:04,500 --> 00:00:07,250',
				'We need to talk.',
				'Now.',
				'',
			].join('\n'),
		);
	});

	it('writes hours with at least two digits, beyond 99 too', () => {
		const srt = formatSrt(parseVtt(fixture('marathon-stream.vtt')));
		expect(srt).toContain('\n00:59:58,000 --> 01:00:01,500\n');
		expect(srt).toContain('\n123:00:00,000 --> 123:00:02,250\n');
	});

	it('leaves out text that reads as a tag and never writes "-->" in text, reporting each change', () => {
		const warnings: CaptionWarning[] = [];
		const srt = formatSrt(
			[
				{
					startMs: 0,
					endMs: 1000,
					text: '<i>Hi</i> {\\an8}<font color="red">there</font> <00:00:00.500>x',
				},
				{ startMs: 1000, endMs: 2000, text: 'a < b > c --> d <year over year> <V.loud Al>' },
				{ startMs: 3000, endMs: 4000, text: 'plain' },
				{ startMs: 5000, endMs: 6000, text: '<b>' },
			],
			{},
			(warning) => warnings.push(warning),
		);
		expect(srt).toContain('\nHi there x\n');
		expect(srt).toContain('\na < b > c -> d <year over year>\n');
		expect(srt.match(/-->/g)).toHaveLength(3);
		expect(warnings).toEqual([
			{
				cue: 1,
				text: '<i>Hi</i> {\\an8}<font color="red">there</font> <00:00:00.500>x',
				message:
					'Cue 1: "<i>", "</i>", "{\\\\an8}", "<font color=\\"red\\">", "</font>", "<00:00:00.500>" would read as formatting, which SRT cannot write as text: left out.',
			},
			{
				cue: 2,
				text: 'a < b > c --> d <year over year> <V.loud Al>',
				message:
					'Cue 2: "<V.loud Al>" would read as formatting, which SRT cannot write as text: left out; "-->" would read as a timing line: written as "->".',
			},
			{
				text: '<b>',
				message:
					'The cue at 00:00:05,000 was left out: "<b>" would read as formatting, which SRT cannot write as text: left out, and nothing else was in it.',
			},
		]);
	});

	it('writes italics, bold and underline as tags', () => {
		const srt = formatSrt([
			{
				startMs: 0,
				endMs: 1000,
				text: 'one two',
				runs: [{ text: 'one', italic: true }, { text: ' ' }, { text: 'two', bold: true }],
			},
		]);
		expect(srt).toBe('1\n00:00:00,000 --> 00:00:01,000\n<i>one</i> <b>two</b>\n');
		expect(parseSrt(srt)[0].runs).toEqual([
			{ text: 'one', italic: true },
			{ text: ' ' },
			{ text: 'two', bold: true },
		]);
	});

	it('orders by start, leaves out cues without text and keeps the numbering continuous, saying so', () => {
		const warnings: CaptionWarning[] = [];
		const srt = formatSrt(
			[
				{ startMs: 5000, endMs: 6000, text: 'third' },
				{ startMs: 1000, endMs: 2000, text: 'first' },
				{ startMs: 2000, endMs: 3000, text: ' \n ' },
				{ startMs: 3000, endMs: 4000, text: 'second\n\nline' },
			],
			{},
			(warning) => warnings.push(warning),
		);
		expect(srt.split('\n\n').map((block) => block.split('\n'))).toEqual([
			['1', '00:00:01,000 --> 00:00:02,000', 'first'],
			['2', '00:00:03,000 --> 00:00:04,000', 'second', 'line'],
			['3', '00:00:05,000 --> 00:00:06,000', 'third', ''],
		]);
		expect(warnings.map((warning) => warning.message)).toEqual([
			'A cue starts before the cue ahead of it (the first: the cue at 00:00:01.000 comes after one at 00:00:05.000): written in the order of their start times (SRT is read in time order).',
			'A cue without text was left out (at 00:00:02.000): in SRT a blank line ends a cue, so a cue has at least one line of text.',
		]);
	});

	it('writes a cue that ends before it starts as it is, and says so', () => {
		const warnings: CaptionWarning[] = [];
		expect(
			formatSrt([{ startMs: 1000, endMs: 900, text: 'x' }], {}, (warning) =>
				warnings.push(warning),
			),
		).toContain('00:00:01,000 --> 00:00:00,900');
		expect(warnings).toEqual([
			{
				cue: 1,
				message:
					'Cue 1 ends (00:00:00.900) before it starts (00:00:01.000): written as it is, and players never show it. Correct its times (Fix gives it time on screen).',
			},
		]);
	});

	it('names each speaker of a cue several share when asked', () => {
		const [cue] = parseVtt(
			'WEBVTT\n\n00:01.000 --> 00:03.000\n<v Anna>Ready?</v>\n<v Ben><i>Yes.</i></v>',
		);
		expect(formatSrt([cue])).toContain('\nReady?\n<i>Yes.</i>\n');
		expect(formatSrt([cue], { includeVoice: true })).toContain(
			'\nAnna: Ready?\nBen: <i>Yes.</i>\n',
		);
	});

	it('adds the speaker only when asked', () => {
		const cues: Cue[] = [{ startMs: 0, endMs: 1000, text: 'Hello\nthere', voice: ' Anna  Lee ' }];
		expect(formatSrt(cues)).not.toContain('Anna');
		expect(formatSrt(cues, { includeVoice: true })).toContain('\nAnna Lee: Hello\nthere\n');
	});

	it('writes nothing for no cues', () => {
		expect(formatSrt([])).toBe('');
	});

	it('tidies, warns and leaves out as ever among thousands of cues, in every block of 1,024', () => {
		const cues: Cue[] = Array.from({ length: 7300 }, (_, index) => ({
			startMs: index * 1000,
			endMs: index * 1000 + 500,
			text: `line ${index + 1}`,
		}));
		// the first block clean, then one of each in a block of its own: the last of a block, the first, inside
		cues[2047].text = 'end \nof the second block';
		cues[2048].text = ' start';
		cues[3500].text = '<b>bold';
		cues[4200].text = 'trailing ';
		cues[5200].text = '';
		cues[6200].text = '{\\an8}top';
		cues[7200].text = 'x --> y';
		const warnings: CaptionWarning[] = [];
		const blocks = formatSrt(cues, {}, (warning) => warnings.push(warning)).split('\n\n');
		expect(blocks).toHaveLength(7299);
		expect(blocks[1023]).toBe('1024\n00:17:03,000 --> 00:17:03,500\nline 1024');
		expect(blocks[2047]).toBe('2048\n00:34:07,000 --> 00:34:07,500\nend\nof the second block');
		expect(blocks[2048]).toBe('2049\n00:34:08,000 --> 00:34:08,500\nstart');
		expect(blocks[3500]).toBe('3501\n00:58:20,000 --> 00:58:20,500\nbold');
		expect(blocks[4200]).toBe('4201\n01:10:00,000 --> 01:10:00,500\ntrailing');
		expect(blocks[5199]).toBe('5200\n01:26:39,000 --> 01:26:39,500\nline 5200');
		expect(blocks[5200]).toBe('5201\n01:26:41,000 --> 01:26:41,500\nline 5202');
		expect(blocks[6199]).toBe('6200\n01:43:20,000 --> 01:43:20,500\ntop');
		expect(blocks[7199]).toBe('7200\n02:00:00,000 --> 02:00:00,500\nx -> y');
		expect(warnings.map((warning) => warning.message)).toEqual([
			'Cue 3501: "<b>" would read as formatting, which SRT cannot write as text: left out.',
			'Cue 6200: "{\\\\an8}" would read as formatting, which SRT cannot write as text: left out.',
			'Cue 7200: "-->" would read as a timing line: written as "->".',
			'A cue without text was left out (at 01:26:40.000): in SRT a blank line ends a cue, so a cue has at least one line of text.',
		]);
	});

	it('writes each cue of a block it finds nothing to change in as the full writing does', () => {
		const plain = (index: number, text = `line ${index + 1}`): Cue => ({
			startMs: index * 1000,
			endMs: index * 1000 + 500,
			text,
		});
		const odd = [
			' a',
			'a ',
			'\na',
			'a\n',
			'',
			'a \nb',
			'a\n b',
			'a\n\nb',
			'\u00a0a',
			'a\u3000',
			'\t',
		];
		for (const text of odd) {
			// the same cue in a clean block and in one that a "{" sends through the full writing
			const clean = Array.from({ length: 20 }, (_, index) => plain(index));
			clean[10] = plain(10, text);
			const full = clean.map((cue, index) => (index === 15 ? plain(15, 'x { y') : cue));
			const block = (cues: Cue[]) => formatSrt(cues).split('\n\n').slice(9, 12);
			expect(block(clean)).toEqual(block(full));
		}
	});

	it("leaves out a file's one cue when it has no text", () => {
		const warnings: CaptionWarning[] = [];
		expect(
			formatSrt([{ startMs: 0, endMs: 1000, text: '' }], {}, (warning) => warnings.push(warning)),
		).toBe('');
		expect(warnings).toHaveLength(1);
	});

	it('round-trips through parseSrt, styles too', () => {
		const cues = parseVtt(fixture('keynote.vtt')).map(({ startMs, endMs, text, runs }) =>
			runs ? { startMs, endMs, text, runs } : { startMs, endMs, text },
		);
		expect(parseSrt(formatSrt(cues))).toEqual(cues);
	});
});
