import {
	CaptionFormatError,
	type Cue,
	formatSrt,
	parseSrt,
	parseVtt,
} from '../../../nodes/Captioning/captions';
import { fixture } from './helpers';

const INTERVIEW: Cue[] = [
	{ startMs: 1000, endMs: 4000, text: 'Previously on the show...' },
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

	it('reads cues without numbers and with dot milliseconds', () => {
		expect(
			parseSrt('00:00:01.5 --> 00:00:02.000\nHello\n\n\n00:00:03,000 --> 00:00:04,000\n'),
		).toEqual([
			{ startMs: 1500, endMs: 2000, text: 'Hello' },
			{ startMs: 3000, endMs: 4000, text: '' },
		]);
	});

	it('returns no cues for empty content', () => {
		expect(parseSrt('')).toEqual([]);
		expect(parseSrt('\n \n')).toEqual([]);
	});

	it('names the line of a malformed timing line', () => {
		const bad = '1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:03,000 --> 00:00:0x,000\nbad';
		expect(() => parseSrt(bad)).toThrow(
			new CaptionFormatError(
				'malformed SRT timing line "00:00:03,000 --> 00:00:0x,000": end time is not an SRT timestamp; write times as hh:mm:ss,ttt, e.g. "00:00:01,500 --> 00:00:04,000".',
				{ line: 6 },
			),
		);
		expect(() => parseSrt('1\nsoon --> 00:00:02,000\n')).toThrow(/^Line 2: .*start time/);
	});

	it('rejects text without any timing line, naming its first line', () => {
		expect(() => parseSrt('\n\nJust some notes\nabout the show')).toThrow(
			/^Line 3: no SRT cue found: SRT cues need a timing line/,
		);
	});
});

describe('formatSrt', () => {
	it('numbers cues from 1, writes comma milliseconds and separates cues with a blank line', () => {
		expect(formatSrt(INTERVIEW.slice(0, 2))).toBe(
			[
				'1',
				'00:00:01,000 --> 00:00:04,000',
				'Previously on the show...',
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

	it('strips markup, keeps other angle brackets, and never writes "-->" in text', () => {
		const srt = formatSrt([
			{
				startMs: 0,
				endMs: 1000,
				text: '<i>Hi</i> {\\an8}<font color="red">there</font> <00:00:00.500>x',
			},
			{ startMs: 1000, endMs: 2000, text: 'a < b > c --> d <year over year> <V.loud Al>' },
		]);
		expect(srt).toContain('\nHi there x\n');
		expect(srt).toContain('\na < b > c -> d <year over year>\n');
		expect(srt.match(/-->/g)).toHaveLength(2);
	});

	it('orders by start, skips cues without text and keeps the numbering continuous', () => {
		const srt = formatSrt([
			{ startMs: 5000, endMs: 6000, text: 'third' },
			{ startMs: 1000, endMs: 2000, text: 'first' },
			{ startMs: 2000, endMs: 3000, text: ' \n ' },
			{ startMs: 3000, endMs: 4000, text: 'second\n\nline' },
		]);
		expect(srt.split('\n\n').map((block) => block.split('\n'))).toEqual([
			['1', '00:00:01,000 --> 00:00:02,000', 'first'],
			['2', '00:00:03,000 --> 00:00:04,000', 'second', 'line'],
			['3', '00:00:05,000 --> 00:00:06,000', 'third', ''],
		]);
	});

	it('makes every cue end after it starts', () => {
		expect(formatSrt([{ startMs: 1000, endMs: 900, text: 'x' }])).toContain(
			'00:00:01,000 --> 00:00:01,001',
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

	it('round-trips through parseSrt', () => {
		const cues = parseVtt(fixture('keynote.vtt')).map(({ startMs, endMs, text }) => ({
			startMs,
			endMs,
			text,
		}));
		expect(parseSrt(formatSrt(cues))).toEqual(cues);
	});
});
