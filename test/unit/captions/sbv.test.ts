import {
	CaptionFormatError,
	type CaptionWarning,
	formatSbv,
	formatSbvTimestamp,
	formatSrt,
	formatTtml,
	parseSbv,
	parseSbvTimestamp,
	readSbv,
} from '../../../nodes/Captioning/captions';
import { fixture, thrown } from './helpers';

describe('parseSbv', () => {
	it('reads YouTube SBV blocks: timing line, then text lines', () => {
		expect(parseSbv(fixture('lecture.sbv'))).toEqual([
			{ startMs: 600, endMs: 3100, text: 'Welcome back to the lecture.\nToday: caption formats.' },
			{ startMs: 3400, endMs: 6000, text: 'YouTube reads SBV files like this one,' },
			{ startMs: 6000, endMs: 8250, text: 'with & < > kept as they are.' },
		]);
	});

	it('reads a BOM, CRLF, blank lines at either end and a cue without text', () => {
		expect(
			parseSbv('\ufeff\r\n0:00:01.000,0:00:02.500\r\nHi\r\n\r\n0:00:03.000,0:00:04.000\r\n\r\n'),
		).toEqual([
			{ startMs: 1000, endMs: 2500, text: 'Hi' },
			{ startMs: 3000, endMs: 4000, text: '' },
		]);
		expect(parseSbv('')).toEqual([]);
	});

	it('reads [br] as a line break, as SubViewer writes one', () => {
		expect(parseSbv('0:00:01.000,0:00:02.000\nFirst line[br]second line[BR] \n')).toEqual([
			{ startMs: 1000, endMs: 2000, text: 'First line\nsecond line' },
		]);
	});

	it('names the first line when no block is SBV, and says what a timing line looks like', () => {
		const error = thrown(() => parseSbv('1\n00:00:03,000 --> 00:00:04,000\n'));
		expect(error).toBeInstanceOf(CaptionFormatError);
		expect(error.line).toBe(1);
		expect(error.message).toBe(
			'Line 1: expected an SBV timing line such as "0:00:01.500,0:00:04.000" but found "1"; check that the right caption format was chosen.',
		);
	});

	it('leaves out a block whose timing line cannot be read, keeps text after a blank line in its cue, saying so', () => {
		const document = readSbv(
			'0:00:01.000,0:00:02.000\nok\n\nmore of it\n\n0:00:03.000,0:00:0x.000\nbad\n\n0:00:05.000,0:00:06.000\nlater',
		);
		expect(document.cues).toEqual([
			{ startMs: 1000, endMs: 2000, text: 'ok\nmore of it' },
			{ startMs: 5000, endMs: 6000, text: 'later' },
		]);
		expect(document.warnings).toEqual([
			{
				line: 4,
				text: 'more of it',
				message:
					'The text at line 4 follows a blank line inside cue 1: kept in that cue. Remove the blank line to show this text with the cue.',
			},
			{
				line: 6,
				text: '0:00:03.000,0:00:0x.000',
				message:
					'The timing line "0:00:03.000,0:00:0x.000" cannot be read; write it as "0:00:01.500,0:00:04.000". The cue was left out with its text: "bad"',
			},
		]);
	});
});

describe('formatSbv', () => {
	it('writes cues in time order, hours unpadded, without empty cues, speakers when asked, saying what it changed', () => {
		const cues = [
			{ startMs: 360_000_000, endMs: 360_001_500, text: 'Hour one hundred.' },
			{ startMs: 500, endMs: 1500, text: ' Hello\n\n there ', voice: 'Anna' },
			{ startMs: 2000, endMs: 2000, text: ' ' },
		];
		const warnings: CaptionWarning[] = [];
		expect(formatSbv(cues, {}, (warning) => warnings.push(warning))).toBe(
			'0:00:00.500,0:00:01.500\nHello\nthere\n\n100:00:00.000,100:00:01.500\nHour one hundred.\n',
		);
		expect(warnings).toEqual([
			{
				message:
					'A cue starts before the cue ahead of it (the first: the cue at 00:00:00.500 comes after one at 100:00:00.000): written in the order of their start times (SBV is read in time order).',
			},
			{
				message:
					'A cue without text was left out (at 00:00:02.000): in SBV a blank line ends a cue, so a cue has at least one line of text.',
			},
		]);
		expect(formatSbv(cues, { includeVoice: true })).toMatch(
			/^0:00:00.500,0:00:01.500\nAnna: Hello\n/,
		);
		expect(formatSbv([])).toBe('');
	});
});

describe('SBV timestamps', () => {
	it.each([
		['0:00:01.500', 1500],
		['1:02:03.004', 3_723_004],
		['100:00:00.000', 360_000_000],
		// the digits after the separator are milliseconds, as subsrt-ts reads them
		['0:00:01,5', 1005],
		['0:00:01.25', 1025],
		['0:60:00.000', undefined],
		['00:01.000', undefined],
	])('%s → %s', (text, ms) => {
		expect(parseSbvTimestamp(text)).toBe(ms);
	});

	it('writes h:mm:ss.ttt', () => {
		expect(formatSbvTimestamp(3_723_004)).toBe('1:02:03.004');
		expect(formatSbvTimestamp(0)).toBe('0:00:00.000');
	});
});

describe('times that are not numbers', () => {
	it('are refused by every writer, never written as 0', () => {
		const cues = [{ startMs: NaN, endMs: 1, text: 'x' }];
		expect(() => formatSbv(cues)).toThrow(CaptionFormatError);
		expect(() => formatSrt(cues)).toThrow(CaptionFormatError);
		expect(() => formatTtml(cues)).toThrow(CaptionFormatError);
	});
});
