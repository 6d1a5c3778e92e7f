// Check (captions/check.ts) rule by rule, the summary a workflow branches on, and the style-guide profiles.
import {
	CAPTION_PROFILES,
	type CaptionLimits,
	captionProfile,
	checkCaptions,
	CHECK_RULES,
	type Cue,
	findViolations,
	gapAllowed,
	measureCue,
	readCaptions,
	readingTimeMs,
} from '../../../nodes/Captioning/captions';
import { fixture } from './helpers';

const cue = (startMs: number, endMs: number, text: string): Cue => ({ startMs, endMs, text });
const rules = (cues: Cue[], limits: CaptionLimits) =>
	findViolations(cues, limits).map((v) => [v.cue, v.rule]);

describe('measureCue', () => {
	it('counts screen width per line, characters without line breaks, words and duration', () => {
		expect(measureCue(cue(1000, 2500, '  Hello, world!\n漢字 and 🎉 \n\n'))).toEqual({
			lines: ['Hello, world!', '漢字 and 🎉'],
			lineWidths: [13, 11],
			chars: 13 + 8,
			words: 5,
			durationMs: 1500,
		});
		expect(measureCue(cue(0, 0, 'e\u0301te\u0301')).chars).toBe(3);
	});
});

describe('the rules, one at a time', () => {
	it('an empty cue is only that, whatever the limits', () => {
		expect(rules([cue(0, 10, ' \n ')], { minDurationMs: 833, maxCharsPerSecond: 1 })).toEqual([
			[1, 'emptyCue'],
		]);
	});

	it('a cue that ends when it starts, or before', () => {
		expect(rules([cue(500, 500, 'Hi')], {})).toEqual([[1, 'timing']]);
		expect(rules([cue(500, 400, 'Hi')], {})).toEqual([[1, 'timing']]);
		expect(rules([cue(500, 501, 'Hi')], {})).toEqual([]);
	});

	it('line length: the widest line, at the limit passes', () => {
		const text = `${'a'.repeat(42)}\n${'b'.repeat(43)}`;
		const [violation] = findViolations([cue(0, 5000, text)], { maxCharsPerLine: 42 });
		expect(violation).toMatchObject({
			rule: 'lineLength',
			value: 43,
			limit: 42,
			message: 'Line 2 has 43 characters; at most 42.',
		});
		expect(rules([cue(0, 5000, 'a'.repeat(42))], { maxCharsPerLine: 42 })).toEqual([]);
		// CJK takes two columns each
		expect(rules([cue(0, 5000, '漢'.repeat(22))], { maxCharsPerLine: 42 })).toEqual([
			[1, 'lineLength'],
		]);
	});

	it('line count', () => {
		expect(rules([cue(0, 5000, 'a\nb\nc')], { maxLines: 2 })).toEqual([[1, 'lineCount']]);
		expect(rules([cue(0, 5000, 'a\n\nb')], { maxLines: 2 })).toEqual([]);
	});

	it('reading speed in characters per second: spaces and punctuation count, exactly at the limit passes', () => {
		// 20 characters in 1 s is 20 per second
		expect(rules([cue(0, 1000, 'Twenty characters!!.')], { maxCharsPerSecond: 20 })).toEqual([]);
		const [violation] = findViolations([cue(0, 999, 'Twenty characters!!.')], {
			maxCharsPerSecond: 20,
		});
		expect(violation).toMatchObject({ rule: 'readingSpeed', value: 20.02, limit: 20 });
		expect(violation.message).toBe(
			'20 characters in 0.999 s: 20.02 characters per second; at most 20.',
		);
	});

	it('reading speed in words per minute', () => {
		// 3 words at 180 per minute need 1 s
		expect(rules([cue(0, 1000, 'one two three')], { maxWordsPerMinute: 180 })).toEqual([]);
		expect(rules([cue(0, 999, 'one two three')], { maxWordsPerMinute: 180 })).toEqual([
			[1, 'wordsPerMinute'],
		]);
	});

	it('minimum and maximum duration, both inclusive', () => {
		const limits = { minDurationMs: 833, maxDurationMs: 7000 };
		expect(rules([cue(0, 832, 'a')], limits)).toEqual([[1, 'minDuration']]);
		expect(rules([cue(0, 833, 'a')], limits)).toEqual([]);
		expect(rules([cue(0, 7000, 'a')], limits)).toEqual([]);
		expect(rules([cue(0, 7001, 'a')], limits)).toEqual([[1, 'maxDuration']]);
	});

	it('a gap shorter than the minimum, except none at all where cues may chain', () => {
		const tight = [cue(0, 1000, 'a'), cue(1050, 2000, 'b'), cue(2000, 3000, 'c')];
		expect(rules(tight, { minGapMs: 83 })).toEqual([
			[1, 'gap'],
			[2, 'gap'],
		]);
		expect(rules(tight, { minGapMs: 1000, allowChained: true })).toEqual([[1, 'gap']]);
		const [violation] = findViolations(tight, { minGapMs: 83 });
		expect(violation).toMatchObject({ value: 50, limit: 83, nextCue: 2 });
		expect(gapAllowed(83, { minGapMs: 83 })).toBe(true);
		expect(gapAllowed(0, { minGapMs: 83, allowChained: true })).toBe(true);
		expect(gapAllowed(0, {})).toBe(true);
		expect(gapAllowed(-1, { allowChained: true })).toBe(false);
	});

	it('overlaps with the cue still on screen, judged in time order whatever the file order', () => {
		// cue 1 stays on screen over cue 3 (which starts before cue 2 in time)
		const cues = [cue(0, 5000, 'long'), cue(4000, 4500, 'inside'), cue(3000, 3500, 'earlier')];
		const found = findViolations(cues, {});
		expect(found.map((v) => [v.cue, v.rule, v.nextCue, v.value])).toEqual([
			[1, 'overlap', 3, 2000],
			[1, 'overlap', 2, 1000],
		]);
		expect(found[0].message).toBe('Overlaps the next cue by 2 s.');
	});

	it('leaves empty cues out of gaps and overlaps', () => {
		expect(
			rules([cue(0, 1000, 'a'), cue(500, 600, ''), cue(1100, 2000, 'b')], { minGapMs: 83 }),
		).toEqual([[2, 'emptyCue']]);
	});
});

describe('readingTimeMs', () => {
	it('is the longest of the minimum duration and the time the reading speeds need, rounded up', () => {
		const measure = { chars: 21, words: 4 };
		expect(readingTimeMs(measure, {})).toBe(0);
		expect(readingTimeMs(measure, { minDurationMs: 833 })).toBe(833);
		expect(readingTimeMs(measure, { minDurationMs: 833, maxCharsPerSecond: 20 })).toBe(1050);
		expect(readingTimeMs(measure, { maxWordsPerMinute: 180 })).toBe(1334);
	});
});

describe('checkCaptions', () => {
	it('reports a line that ends on a word belonging with the next, where another break fits', () => {
		const limits = { maxCharsPerLine: 42, lineBreaks: true };
		const report = checkCaptions(
			[
				cue(0, 3000, 'Nobody had ever seen the\nenormous red balloon.'),
				cue(3000, 6000, 'Nobody had ever seen\nthe enormous red balloon.'),
				// no other break fits: the line stays as it must be
				cue(6000, 9000, 'the\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'),
				cue(9000, 12_000, 'I told you already. We\nare leaving in the morning.'),
			],
			limits,
		);
		expect(report.violations.map(({ rule, cue, message }) => [rule, cue, message])).toEqual([
			[
				'lineBreak',
				1,
				'Line 1 ends on "the", which belongs with the word after it: the style guides break lines at natural points (after punctuation, before a conjunction or preposition). This fits: "Nobody had ever seen / the enormous red balloon.".',
			],
			[
				'lineBreak',
				4,
				'Line 1 ends on "We", which belongs with the word after it: the style guides break lines at natural points (after punctuation, before a conjunction or preposition). This fits: "I told you already. / We are leaving in the morning.".',
			],
		]);
		expect(
			checkCaptions([cue(0, 3000, 'Nobody had ever seen the\nenormous red balloon.')], {
				maxCharsPerLine: 42,
			}).counts,
		).not.toHaveProperty('lineBreak');
	});

	it('passes captions within the limits, with every limited rule counted as 0', () => {
		const report = checkCaptions([cue(0, 2000, 'Hello there.')], captionProfile('bbc')!.limits);
		expect(report).toEqual({
			passed: true,
			cues: 1,
			counts: {
				emptyCue: 0,
				timing: 0,
				lineLength: 0,
				lineCount: 0,
				lineBreak: 0,
				wordsPerMinute: 0,
				gap: 0,
				overlap: 0,
			},
			violationCount: 0,
			worst: [],
			violations: [],
			violationsOmitted: 0,
		});
	});

	it('fails, counts per rule, names the worst cues first, and lists the violations with times', () => {
		const cues = [
			cue(0, 1000, 'fine'),
			cue(1000, 1500, 'Far too fast to read comfortably.'),
			cue(1600, 1700, ''),
			cue(61_000, 69_000, 'Too long on screen'),
		];
		const report = checkCaptions(cues, captionProfile('netflixEnglish')!.limits);
		expect(report.passed).toBe(false);
		expect(report.counts).toMatchObject({
			emptyCue: 1,
			readingSpeed: 1,
			minDuration: 1,
			maxDuration: 1,
			gap: 1,
			overlap: 0,
		});
		expect(report.violationCount).toBe(5);
		expect(report.worst.map((w) => [w.cue, w.excess])).toEqual([
			[3, null],
			[2, 3.3],
			[1, 2],
			[4, 1.14],
		]);
		expect(report.violations[0]).toEqual({
			rule: 'gap',
			cue: 1,
			start: 0,
			end: 1,
			startTime: '00:00:00.000',
			endTime: '00:00:01.000',
			value: 0,
			limit: 83,
			message: '0 frames (0 s) before the next cue at 24 fps; at least 2 frames (0.083 s).',
			nextCue: 2,
		});
	});

	it('lists at most maxViolations, counting the rest', () => {
		const cues = Array.from({ length: 30 }, (_, i) => cue(i * 100, i * 100 + 50, 'x'));
		const report = checkCaptions(cues, { minDurationMs: 833 }, { maxViolations: 10, worstCues: 2 });
		expect(report.violationCount).toBe(30);
		expect(report.violations).toHaveLength(10);
		expect(report.violationsOmitted).toBe(20);
		expect(report.worst).toHaveLength(2);
	});

	it('checks the sandbox-like fixtures as a user would meet them', () => {
		const limits = captionProfile('netflixEnglish')!.limits;
		const rolling = checkCaptions(
			readCaptions('vtt', fixture('rolling-auto-captions.vtt')).cues,
			limits,
		);
		expect(rolling.counts).toMatchObject({ readingSpeed: 4, minDuration: 2, gap: 3 });
		const overlapping = checkCaptions(
			readCaptions('vtt', fixture('panel-overlapping.vtt')).cues,
			limits,
		);
		expect(overlapping.counts.overlap).toBe(2);
	});
});

describe('the style-guide profiles', () => {
	it('carry the numbers of their guides (docs/captions.md quotes the sections)', () => {
		expect(Object.fromEntries(CAPTION_PROFILES.map((p) => [p.id, p.limits]))).toEqual({
			netflixEnglish: {
				maxCharsPerLine: 42,
				maxLines: 2,
				maxCharsPerSecond: 20,
				minDurationMs: 833,
				maxDurationMs: 7000,
				minGapFrames: 2,
				chainGapMs: 500,
				allowChained: false,
				frameRate: 24,
				lineBreaks: true,
			},
			netflixEnglishChildren: {
				maxCharsPerLine: 42,
				maxLines: 2,
				maxCharsPerSecond: 17,
				minDurationMs: 833,
				maxDurationMs: 7000,
				minGapFrames: 2,
				chainGapMs: 500,
				allowChained: false,
				frameRate: 24,
				lineBreaks: true,
			},
			bbc: {
				maxCharsPerLine: 37,
				maxLines: 2,
				maxWordsPerMinute: 200,
				minGapMs: 1000,
				allowChained: true,
				lineBreaks: true,
			},
			dcmp: { maxCharsPerLine: 32, maxLines: 2, minDurationMs: 2000, maxWordsPerMinute: 225 },
		});
		for (const profile of CAPTION_PROFILES) {
			expect(profile.source).not.toBe('');
			expect(profile.url).toMatch(/^https:\/\//);
		}
		expect(captionProfile('nope')).toBeUndefined();
	});

	it('name every rule Check knows', () => {
		expect(CHECK_RULES).toEqual([
			'emptyCue',
			'timing',
			'lineLength',
			'lineCount',
			'lineBreak',
			'readingSpeed',
			'wordsPerMinute',
			'minDuration',
			'maxDuration',
			'gap',
			'chaining',
			'overlap',
		]);
	});
});

describe('frame-exact Netflix profiles', () => {
	const netflix = (frameRate: number) => ({
		...captionProfile('netflixEnglish')!.limits,
		frameRate,
	});
	// two cues that pass every rule but the one between them
	const pair = (gapMs: number) => [
		cue(0, 2000, 'A line to read.'),
		cue(2000 + gapMs, 4000 + gapMs, 'Another line.'),
	];
	const between = (gapMs: number, frameRate: number) =>
		findViolations(pair(gapMs), netflix(frameRate)).map((violation) => [
			violation.rule,
			violation.message,
		]);

	it('passes a 2-frame gap at 25 fps (80 ms) and at 29.97 fps (67 ms), which a limit of 83 ms refused', () => {
		expect(between(80, 25)).toEqual([]);
		expect(between(67, 30000 / 1001)).toEqual([]);
		// times fall between frames: a gap counts as the frames it rounds to
		expect(between(80, 24)).toEqual([]);
		expect(between(60, 24).map(([rule]) => rule)).toEqual(['gap']);
	});

	it('flags a 10-frame gap at 25 fps as chainable: 12 frames or fewer are closed to 2', () => {
		expect(between(400, 25)).toEqual([
			[
				'chaining',
				'10 frames (0.4 s) before the next cue at 25 fps: gaps of 12 frames (0.48 s) or less are closed to 2 frames (0.08 s) (chaining); end this cue 2 frames (0.08 s) before the next one starts.',
			],
		]);
		// 13 frames is more than half a second's 12 at 25 fps, 15 frames is half a second at 30
		expect(between(520, 25)).toEqual([]);
		expect(between(500, 30).map(([rule]) => rule)).toEqual(['chaining']);
		expect(between(534, 30)).toEqual([]);
	});

	it('refuses a gap of one frame, in frames and seconds, never "0.08 s; at least 0.08 s"', () => {
		expect(between(40, 25)).toEqual([
			['gap', '1 frame (0.04 s) before the next cue at 25 fps; at least 2 frames (0.08 s).'],
		]);
		expect(between(0, 25)).toEqual([
			['gap', '0 frames (0 s) before the next cue at 25 fps; at least 2 frames (0.08 s).'],
		]);
	});

	it('counts the minimum duration in whole frames: 5/6 s is 20 frames at 24 fps, 21 at 25, 25 at 29.97', () => {
		const short = (durationMs: number, frameRate: number) =>
			findViolations([cue(0, durationMs, 'Hi.')], netflix(frameRate)).map((v) => v.message);
		expect(short(834, 24)).toEqual([]);
		expect(short(800, 25)).toEqual([
			'On screen for 20 frames (0.8 s) at 25 fps; at least 21 frames (0.84 s).',
		]);
		expect(short(840, 25)).toEqual([]);
		expect(short(834, 30000 / 1001)).toEqual([]);
		expect(short(800, 30000 / 1001)).toEqual([
			'On screen for 24 frames (0.801 s) at 29.97 fps; at least 25 frames (0.834 s).',
		]);
	});

	it('gives reading time in whole frames, so a cue Fix times to it passes', () => {
		expect(readingTimeMs({ chars: 1, words: 1 }, netflix(25))).toBe(840);
		expect(readingTimeMs({ chars: 1, words: 1 }, netflix(24))).toBe(834);
	});
});
