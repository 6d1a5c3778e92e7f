import fc from 'fast-check';
import {
	CaptionFormatError,
	formatSbvTimestamp,
	formatSrtTimestamp,
	formatVttTimestamp,
	msToSeconds,
	parseGoogleDuration,
	parseSrtTimestamp,
	parseVttTimestamp,
} from '../../../nodes/Captioning/captions';

describe('parseVttTimestamp', () => {
	it.each([
		['00:00.000', 0],
		['01:02.345', 62_345],
		['1:02:03.004', 3_723_004],
		['00:59:59.999', 3_599_999],
		['123:00:00.000', 442_800_000],
		[' 00:01.500 ', 1500],
		['00:00:01,250', 1250],
	])('reads %j as %d ms', (text, ms) => {
		expect(parseVttTimestamp(text)).toBe(ms);
	});

	it.each([
		'1:02.345',
		'00:60.000',
		'60:00.000',
		'00:00:00.00',
		'00:00:00.0000',
		'00:00:00',
		'00:00.000s',
		'-00:01.000',
		'',
		'abc',
	])('rejects %j', (text) => {
		expect(parseVttTimestamp(text)).toBeUndefined();
	});
});

describe('formatVttTimestamp', () => {
	it.each([
		[0, '00:00:00.000'],
		[1300, '00:00:01.300'],
		[62_345, '00:01:02.345'],
		[3_723_004, '01:02:03.004'],
		[442_800_000, '123:00:00.000'],
		[1.6, '00:00:00.002'],
		[-500, '00:00:00.000'],
	])('writes %d ms as %s', (ms, text) => {
		expect(formatVttTimestamp(ms)).toBe(text);
	});

	it.each([NaN, Infinity])('refuses %d', (ms) => {
		expect(() => formatVttTimestamp(ms)).toThrow(CaptionFormatError);
	});

	it('reads back what it writes', () => {
		for (const ms of [0, 999, 59_999, 3_600_000, 359_999_999, 442_802_250]) {
			expect(parseVttTimestamp(formatVttTimestamp(ms))).toBe(ms);
		}
	});
});

describe('SRT timestamps', () => {
	it.each([
		['00:00:01,500', 1500],
		['00:00:01.500', 1500],
		// the digits after the comma are milliseconds, as VLC, ffmpeg, subtitle and subsrt-ts read them
		['00:00:01,5', 1005],
		['00:00:01,50', 1050],
		['00:00:01,05', 1005],
		['1:02:03,4', 3_723_004],
		['00:01,000', 1000],
		['00:00:07', 7000],
		['100:00:00,000', 360_000_000],
	])('reads %j as %d ms', (text, ms) => {
		expect(parseSrtTimestamp(text)).toBe(ms);
	});

	it.each(['00:61:00,000', '00:00:60,000', '00:00:01,5000', 'one', ''])('rejects %j', (text) => {
		expect(parseSrtTimestamp(text)).toBeUndefined();
	});

	it('writes comma milliseconds with at least two hour digits', () => {
		expect(formatSrtTimestamp(1500)).toBe('00:00:01,500');
		expect(formatSrtTimestamp(360_000_000)).toBe('100:00:00,000');
		expect(() => formatSrtTimestamp(NaN)).toThrow(CaptionFormatError);
	});
});

describe('timestamps written in any order', () => {
	// the writer keeps the last minute it wrote for each hour style: any sequence of times and formats must read
	// as each time written on its own, by arithmetic
	const reference = (ms: number, padHours: boolean, separator: string) => {
		const total = Math.max(0, Math.round(ms));
		const h = Math.floor(total / 3_600_000);
		const m = Math.floor(total / 60_000) % 60;
		const s = Math.floor(total / 1000) % 60;
		const f = total % 1000;
		const two = (n: number) => String(n).padStart(2, '0');
		return `${padHours ? two(h) : h}:${two(m)}:${two(s)}${separator}${String(f).padStart(3, '0')}`;
	};
	const writers = [
		[formatVttTimestamp, true, '.'],
		[formatSrtTimestamp, true, ','],
		[formatSbvTimestamp, false, '.'],
	] as const;

	it('match arithmetic for any sequence of times and formats', () => {
		fc.assert(
			fc.property(
				fc.array(
					fc.tuple(
						fc.oneof(
							fc.integer({ min: 0, max: 400 * 3_600_000 }),
							fc.double({ min: -10, max: 1e9, noNaN: true }),
						),
						fc.integer({ min: 0, max: 2 }),
					),
					{ minLength: 1, maxLength: 40 },
				),
				(steps) => {
					for (const [ms, which] of steps) {
						const [write, padHours, separator] = writers[which];
						expect(write(ms)).toBe(reference(ms, padHours, separator));
					}
				},
			),
			{ numRuns: 200 },
		);
	});
});

describe('parseGoogleDuration', () => {
	it.each([
		['0s', 0],
		['12s', 12_000],
		['1.300s', 1300],
		['1.3s', 1300],
		['4.100s', 4100],
		['0.000000500s', 0],
		['1.999999900s', 2000],
		['86400.001s', 86_400_001],
	])('reads the string %j as %d ms', (text, ms) => {
		expect(parseGoogleDuration(text)).toBe(ms);
	});

	it.each([
		[{ seconds: '1', nanos: 300_000_000 }, 1300],
		[{ seconds: 2 }, 2000],
		[{ nanos: 500_000_000 }, 500],
		[{}, 0],
		[1.3, 1300],
		[0, 0],
	])('reads %j as %d ms', (value, ms) => {
		expect(parseGoogleDuration(value)).toBe(ms);
	});

	it.each([
		'-1s',
		'1.3',
		'1,3s',
		'1.0000000001s',
		'abc',
		{ seconds: 'x' },
		{ seconds: -1 },
		{ seconds: 1.5 },
		{ nanos: 1e9 },
		{ nanos: -1 },
		{ nanos: 1.5 },
		{ nanos: '5' },
		null,
		undefined,
		true,
		-1,
		NaN,
	])('rejects %j', (value) => {
		expect(parseGoogleDuration(value)).toBeUndefined();
	});
});

describe('msToSeconds', () => {
	it('gives seconds with exactly the millisecond digits, without float noise', () => {
		expect(msToSeconds(4100)).toBe(4.1);
		expect(msToSeconds(1300.4)).toBe(1.3);
		expect(msToSeconds(300)).toBe(0.3);
		expect(msToSeconds(parseGoogleDuration('10.100s') ?? NaN)).toBe(10.1);
	});
});
