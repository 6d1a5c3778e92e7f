// Fix (captions/fix.ts): examples of each step, and properties over generated captions: speech at a readable
// pace cut into bad cues always comes out passing Check with the same profile; any input terminates, keeps every
// word in order, and leaves only what Fix documents it cannot fix.
import fc from 'fast-check';

import {
	CAPTION_PROFILES,
	type CaptionLimits,
	captionProfile,
	checkCaptions,
	type Cue,
	displayWidth,
	fixCaptions,
	measureCue,
	readCaptions,
	tokenize,
	type Word,
	wordsToCues,
	worstPerRule,
} from '../../../nodes/Captioning/captions';
import { isRollUp, withoutRolledOverLines } from '../../../nodes/Captioning/captions/text';
import { cues as anyCues } from './arbitraries';
import { fixture } from './helpers';

const NETFLIX = captionProfile('netflixEnglish')!.limits;
const BBC = captionProfile('bbc')!.limits;
const cue = (startMs: number, endMs: number, text: string, voice?: string): Cue =>
	voice === undefined ? { startMs, endMs, text } : { startMs, endMs, text, voice };
const tokens = (list: readonly Cue[]) => list.flatMap((c) => tokenize(c.text));

describe('fixCaptions, step by step', () => {
	it('leaves captions that pass as they are', () => {
		const cues = [cue(0, 2000, 'Good morning.'), cue(2100, 4000, 'Let us begin.')];
		const fixed = fixCaptions({ cues }, NETFLIX);
		expect(fixed.cues).toEqual(cues);
		expect(fixed.unfixable).toEqual([]);
		expect(fixed.changes).toMatchObject({ split: 0, merged: 0, retimed: 0, rewrapped: 0 });
	});

	it('removes empty cues, and the lines roll-up captions repeat, saying so', () => {
		const fixed = fixCaptions(
			{
				cues: [
					cue(0, 2000, 'so today we look'),
					cue(2000, 2050, ' '),
					cue(2100, 4000, 'so today we look\nat captions'),
					cue(4000, 6000, 'at captions\nand timing'),
				],
			},
			NETFLIX,
		);
		expect(fixed.cues.map((c) => c.text)).toEqual([
			'so today we look',
			'at captions',
			'and timing',
		]);
		expect(fixed.changes).toMatchObject({ removedEmpty: 1, removedRepeatedLines: 2 });
		expect(fixed.warnings).toEqual([
			{
				message:
					'The captions roll up (each cue repeats the last line of the one before, as live captions scroll): the 2 lines that repeat were left out, each shown once, as pop-on captions show them. No other text was left out.',
			},
		]);
	});

	it('breaks a line again where it ends on a word belonging with the next', () => {
		const fixed = fixCaptions(
			{ cues: [cue(0, 3000, 'Nobody had ever seen the\nenormous red balloon.')] },
			NETFLIX,
		);
		expect(fixed.cues.map((c) => c.text)).toEqual([
			'Nobody had ever seen\nthe enormous red balloon.',
		]);
		expect(fixed.changes.rewrapped).toBe(1);
		expect(fixed.unfixable).toEqual([]);
	});

	it('keeps every line of ordinary subtitles, however often a line is said again', () => {
		const cues = [
			cue(0, 1500, 'Okay.'),
			cue(1600, 3000, 'Okay.'),
			cue(3100, 5000, 'Get down!\nEveryone, get down!'),
			cue(5100, 7000, 'Everyone, get down!'),
		];
		const fixed = fixCaptions({ cues }, NETFLIX);
		expect(tokens(fixed.cues)).toEqual(tokens(cues));
		expect(fixed.changes.removedRepeatedLines).toBe(0);
		expect(fixed.warnings).toEqual([]);
	});

	it('lays out lines again when the text fits a cue, and splits it at a clause when it does not', () => {
		const rewrapped = fixCaptions(
			{ cues: [cue(0, 4000, 'one\ntwo\nthree four five six seven eight nine ten eleven twelve')] },
			NETFLIX,
		);
		expect(rewrapped.cues.map((c) => c.text)).toEqual([
			'one two three four five six seven\neight nine ten eleven twelve',
		]);
		expect(rewrapped.changes.rewrapped).toBe(1);
		const long =
			'We looked at the numbers for the last quarter, and they are better than we hoped for in every region.';
		const split = fixCaptions({ cues: [cue(0, 6000, long)] }, NETFLIX);
		expect(split.cues.map((c) => c.text)).toEqual([
			'We looked at the numbers\nfor the last quarter,',
			'and they are better than we hoped\nfor in every region.',
		]);
		expect(split.changes.split).toBe(1);
		expect(split.unfixable).toEqual([]);
	});

	it('gives a cue its reading time from the silence after it, then before it', () => {
		const after = fixCaptions(
			{ cues: [cue(1000, 1200, 'Yes.'), cue(5000, 7000, 'Good.')] },
			NETFLIX,
		);
		// 5/6 s is 20 frames at 24 fps: 834 ms, which rounds to 20 frames
		expect(after.cues[0]).toEqual(cue(1000, 1834, 'Yes.'));
		const before = fixCaptions(
			{ cues: [cue(1000, 1200, 'Yes.'), cue(1300, 3000, 'Good.')] },
			NETFLIX,
		);
		expect(before.cues[0]).toEqual(cue(382, 1216, 'Yes.'));
		expect(before.unfixable).toEqual([]);
	});

	it('opens gaps to the minimum, or closes them where cues may follow without one', () => {
		const cues = [cue(0, 2000, 'First line here.'), cue(2040, 4000, 'Second line here.')];
		expect(fixCaptions({ cues }, NETFLIX).cues.map((c) => [c.startMs, c.endMs])).toEqual([
			[0, 1956],
			[2040, 4000],
		]);
		expect(fixCaptions({ cues }, BBC).cues.map((c) => [c.startMs, c.endMs])).toEqual([
			[0, 2040],
			[2040, 4000],
		]);
	});

	it('puts overlapping cues one after another within the time they shared', () => {
		const fixed = fixCaptions(
			{
				cues: [
					cue(1000, 5000, 'So what did the client say?', 'Anna'),
					cue(3000, 4000, 'They loved it.', 'Ben'),
					cue(2000, 6000, '[crowd cheering]'),
				],
			},
			NETFLIX,
		);
		expect(fixed.cues.map((c) => [c.startMs, c.endMs, c.voice])).toEqual([
			[1000, 2350, 'Anna'],
			[2434, 3268, undefined],
			[3352, 4186, 'Ben'],
		]);
		expect(fixed.unfixable).toEqual([]);
	});

	it('merges a cue without enough time into its neighbour when both fit one cue', () => {
		// three seconds a cue: "Oh." cannot have them without making the next cues lag more than 2 s
		const slow = { maxCharsPerLine: 42, maxLines: 2, minDurationMs: 3000, allowChained: true };
		const fixed = fixCaptions(
			{ cues: [cue(0, 300, 'Oh.'), cue(300, 1200, 'Hello there.'), cue(1200, 4200, 'Next one.')] },
			slow,
		);
		expect(fixed.cues).toEqual([cue(0, 3000, 'Oh. Hello there.'), cue(3000, 6000, 'Next one.')]);
		expect(fixed.changes.merged).toBe(1);
		expect(fixed.unfixable).toEqual([]);
	});

	it('lets cues fall behind speech by 2 s at most to give fast speech its reading time', () => {
		// each cue needs 1.8 s at 20 characters per second but has 1 s: the lag grows 0.8 s a cue
		const fast = Array.from({ length: 6 }, (_, i) =>
			cue(i * 1000, (i + 1) * 1000, `Cue ${i} is thirty-six characters ok.`),
		);
		const fixed = fixCaptions({ cues: fast }, NETFLIX);
		const lags = fixed.cues.map((c) => c.startMs - fast[Number(c.text.split(' ')[1])].startMs);
		expect(Math.max(...lags)).toBeLessThanOrEqual(2000);
		expect(tokens(fixed.cues)).toEqual(tokens(fast));
		expect(fixed.unfixable.map((u) => u.rule)).toContain('readingSpeed');
		expect(fixed.unfixable.find((u) => u.rule === 'readingSpeed')!.reason).toMatch(
			/shorten the text/i,
		);
	});

	it('never makes a burst of speech faster than it was: a cue it cannot help stays as it was', () => {
		// 60 characters in 0.2 s (300 a second) between two cues that need their own time
		const burst = [
			cue(0, 2000, 'We start with a line.'),
			cue(2000, 2200, 'and then sixty characters come far too fast to be read, see?'),
			cue(2200, 4400, 'After it, calm again.'),
		];
		const speed = (list: readonly Cue[]) =>
			Math.max(...list.map((c) => (measureCue(c).chars * 1000) / (c.endMs - c.startMs)));
		const fixed = fixCaptions({ cues: burst }, NETFLIX);
		expect(speed(fixed.cues)).toBeLessThanOrEqual(speed(burst));
		expect(tokens(fixed.cues)).toEqual(tokens(burst));
	});

	it('closes gaps of 12 frames or fewer to 2 frames (chaining), at the video’s frame rate', () => {
		const at25 = { ...NETFLIX, frameRate: 25 };
		const cues = [cue(0, 2000, 'First line here.'), cue(2400, 4400, 'Second line here.')];
		expect(checkCaptions(cues, at25).counts.chaining).toBe(1);
		const fixed = fixCaptions({ cues }, at25);
		expect(fixed.cues.map((c) => [c.startMs, c.endMs])).toEqual([
			[0, 2320],
			[2400, 4400],
		]);
		expect(checkCaptions(fixed.cues, at25).passed).toBe(true);
	});

	it('keeps italics, bold and underline on the words they were on when it lays text out again', () => {
		const styled: Cue = {
			startMs: 0,
			endMs: 6000,
			text: 'We looked at the numbers for the last quarter, and they are better than we hoped for in every region.',
			runs: [
				{ text: 'We looked at the ' },
				{ text: 'numbers', italic: true },
				{ text: ' for the last quarter, and they are ' },
				{ text: 'better', bold: true },
				{ text: ' than we hoped for in every region.' },
			],
		};
		const fixed = fixCaptions({ cues: [styled] }, NETFLIX);
		expect(fixed.cues.map((c) => c.runs)).toEqual([
			[
				{ text: 'We looked at the ' },
				{ text: 'numbers', italic: true },
				{ text: '\nfor the last quarter,' },
			],
			[
				{ text: 'and they are ' },
				{ text: 'better', bold: true },
				{ text: ' than we hoped\nfor in every region.' },
			],
		]);
	});

	it('reports what it cannot fix, and why, instead of dropping words', () => {
		const word = fixCaptions(
			{ cues: [cue(0, 3000, 'Pneumonoultramicroscopicsilicovolcanoconiosis')] },
			NETFLIX,
		);
		expect(word.cues.map((c) => c.text)).toEqual(['Pneumonoultramicroscopicsilicovolcanoconiosis']);
		expect(word.unfixable).toEqual([
			expect.objectContaining({
				rule: 'lineLength',
				cue: 1,
				reason: expect.stringMatching(
					/^A single word is wider than a line, and Fix does not break words/,
				),
			}),
		]);
	});

	it('lays Google Speech-to-Text out again from its word timings', () => {
		const document = readCaptions('google_stt', fixture('standup-diarized.google_stt.json'));
		const fixed = fixCaptions(document, NETFLIX);
		expect(fixed.changes.fromWordTimings).toBe(true);
		expect(fixed.cues.map((c) => [c.voice, c.text])).toEqual([
			['Speaker 1', 'Did you get the report?'],
			['Speaker 2', 'Yes, I sent it this morning.'],
		]);
		expect(fixed.unfixable).toEqual([]);
	});

	it('fixes every fixture to every profile, or says why not', () => {
		const files: Array<[string, string]> = [
			['vtt', 'keynote.vtt'],
			['vtt', 'panel-overlapping.vtt'],
			['vtt', 'rolling-auto-captions.vtt'],
			['vtt', 'marathon-stream.vtt'],
			['google_stt', 'all-hands-multilingual.google_stt.json'],
			['google_stt', 'standup-diarized.google_stt.json'],
			['srt', 'interview.srt'],
			['sbv', 'lecture.sbv'],
		];
		for (const [format, name] of files) {
			for (const profile of CAPTION_PROFILES) {
				const fixed = fixCaptions(readCaptions(format, fixture(name)), profile.limits);
				expect([name, profile.id, fixed.unfixable.map((u) => u.rule)]).toEqual([
					name,
					profile.id,
					[],
				]);
			}
		}
	});
});

// ---- properties ----------------------------------------------------------------------------------------------

interface Spoken {
	words: Word[];
}

/**
 * Speech at a readable pace, as the sandbox times it: 180 ms + 55 ms a letter per word, 80 ms between words,
 * 600 ms after a sentence, sometimes a pause. Slower than every profile's reading speed.
 */
const speech: fc.Arbitrary<Spoken> = fc
	.array(
		fc.record({
			text: fc.stringMatching(/^[A-Za-zéü]{1,12}[,.?]?$/),
			jitter: fc.integer({ min: 0, max: 60 }),
			pause: fc.oneof(
				{ weight: 9, arbitrary: fc.constant(0) },
				{ weight: 1, arbitrary: fc.integer({ min: 0, max: 4000 }) },
			),
		}),
		{ minLength: 1, maxLength: 150 },
	)
	.map((entries) => {
		let cursor = 300;
		const words = entries.map(({ text, jitter, pause }) => {
			const startMs = cursor + pause;
			const endMs = startMs + 180 + 55 * [...text].length + jitter;
			cursor = endMs + (/[.?]$/.test(text) ? 600 : 80);
			return { startMs, endMs, text };
		});
		return { words };
	});

/** That speech cut into bad cues: random lengths and line breaks, times off by up to 0.3 s, empty cues between. */
const badlyCut = speech.chain(({ words }) =>
	fc
		.tuple(
			fc.array(fc.integer({ min: 1, max: 25 }), {
				minLength: words.length,
				maxLength: words.length,
			}),
			fc.array(fc.integer({ min: -300, max: 300 }), {
				minLength: words.length,
				maxLength: words.length,
			}),
			fc.array(fc.integer({ min: -300, max: 800 }), {
				minLength: words.length,
				maxLength: words.length,
			}),
			fc.array(fc.integer({ min: 1, max: 8 }), {
				minLength: words.length,
				maxLength: words.length,
			}),
			fc.array(fc.boolean(), { minLength: words.length, maxLength: words.length }),
		)
		.map(([sizes, startJitter, endJitter, lineWords, empties]) => {
			const cues: Cue[] = [];
			let at = 0;
			for (let k = 0; at < words.length; k++) {
				const group = words.slice(at, at + sizes[k]);
				at += group.length;
				const lines: string[] = [];
				for (let w = 0; w < group.length; w += lineWords[k]) {
					lines.push(
						group
							.slice(w, w + lineWords[k])
							.map((x) => x.text)
							.join(' '),
					);
				}
				const startMs = Math.max(0, group[0].startMs + startJitter[k]);
				const endMs = Math.max(startMs + 1, group[group.length - 1].endMs + endJitter[k]);
				cues.push({ startMs, endMs, text: lines.join('\n') });
				if (empties[k]) cues.push({ startMs: endMs, endMs: endMs + 10, text: '' });
			}
			return cues;
		}),
);

const PROFILES = fc.constantFrom(...CAPTION_PROFILES.map((profile) => profile.limits));

/** Custom limits, each set or not, as Custom in the editor allows them. */
const CUSTOM_LIMITS: fc.Arbitrary<CaptionLimits> = fc.record(
	{
		maxCharsPerLine: fc.integer({ min: 1, max: 60 }),
		maxLines: fc.integer({ min: 1, max: 4 }),
		maxCharsPerSecond: fc.integer({ min: 1, max: 30 }),
		maxWordsPerMinute: fc.integer({ min: 60, max: 300 }),
		minDurationMs: fc.integer({ min: 0, max: 3000 }),
		maxDurationMs: fc.integer({ min: 3000, max: 10_000 }),
		minGapMs: fc.integer({ min: 0, max: 1500 }),
		chainGapMs: fc.integer({ min: 0, max: 1000 }),
		allowChained: fc.boolean(),
	},
	{ requiredKeys: [] },
);
const RUNS = { numRuns: Number(process.env.CAPTIONS_PROPERTY_RUNS ?? 100) };

/** Every character shown, in order; only spaces may change (a space before closing punctuation goes). */
function expectKeepsWords(input: readonly Cue[], output: readonly Cue[]) {
	const shown = (list: readonly Cue[]) => tokens(list).join('');
	const ordered = [...input].sort((a, b) => a.startMs - b.startMs);
	const kept = isRollUp(ordered) ? withoutRolledOverLines(input).cues : ordered;
	expect(shown(output)).toBe(shown(kept));
}

describe('fixCaptions, properties', () => {
	it('makes speech at a readable pace, however badly cut into cues, pass Check with the same profile', () => {
		fc.assert(
			fc.property(badlyCut, PROFILES, (cues, limits) => {
				const fixed = fixCaptions({ cues }, limits);
				expect(fixed.unfixable).toEqual([]);
				expect(checkCaptions(fixed.cues, limits).passed).toBe(true);
				expectKeepsWords(cues, fixed.cues);
			}),
			RUNS,
		);
	});

	it('makes Google Speech-to-Text words pass Check, laid out from their own timings', () => {
		fc.assert(
			fc.property(speech, PROFILES, ({ words }, limits) => {
				const document = { cues: wordsToCues(words), words };
				const fixed = fixCaptions(document, limits);
				expect(fixed.changes.fromWordTimings).toBe(true);
				expect(fixed.unfixable).toEqual([]);
				expect(tokens(fixed.cues)).toEqual(words.map((w) => w.text));
			}),
			RUNS,
		);
	});

	it('ends on any input, keeps every word in order, and leaves only what it documents it cannot fix', () => {
		const limitsOf = fc.oneof(PROFILES, CUSTOM_LIMITS);
		fc.assert(
			fc.property(
				anyCues({ maxHours: 2, maxLength: 30 }),
				limitsOf,
				(cues, limits: CaptionLimits) => {
					const fixed = fixCaptions({ cues }, limits);
					expectKeepsWords(cues, fixed.cues);
					const after = checkCaptions(fixed.cues, limits, { maxViolations: Infinity });
					expect(fixed.unfixable.map(({ reason: _reason, ...v }) => v)).toEqual(after.violations);
					for (const left of fixed.unfixable) {
						expect(left.reason).not.toBe('');
						// a cue Fix left as it was is one of the input's, word for word and time for time
						const kept = fixed.cues[left.cue - 1];
						if (left.reason.startsWith('Left as it was')) {
							expect(cues).toContainEqual(
								expect.objectContaining({
									startMs: kept.startMs,
									endMs: kept.endMs,
									text: kept.text,
								}),
							);
							continue;
						}
						// never left: empty cues, cues without duration, too many lines
						expect(['emptyCue', 'timing', 'lineCount']).not.toContain(left.rule);
						if (left.rule === 'lineLength') {
							const widest = Math.max(...tokenize(fixed.cues[left.cue - 1].text).map(displayWidth));
							expect(widest).toBeGreaterThan(limits.maxCharsPerLine!);
						}
					}
				},
			),
			RUNS,
		);
	});

	it('never makes anything worse: no rule ends past its limit by more than the input was', () => {
		const limitsOf = fc.oneof(
			PROFILES,
			PROFILES.chain((limits) =>
				fc
					.constantFrom(24000 / 1001, 24, 25, 30000 / 1001, 30)
					.map((frameRate) =>
						limits.minGapFrames === undefined ? limits : { ...limits, frameRate },
					),
			),
			CUSTOM_LIMITS,
		);
		fc.assert(
			fc.property(
				fc.oneof(badlyCut, anyCues({ maxHours: 2, maxLength: 30 })),
				limitsOf,
				(cues, limits: CaptionLimits) => {
					const before = worstPerRule(cues, limits);
					const fixed = fixCaptions({ cues }, limits);
					for (const [rule, worst] of worstPerRule(fixed.cues, limits)) {
						expect({ rule, worst }).toEqual({
							rule,
							worst: Math.min(worst, before.get(rule) ?? 0),
						});
					}
					expectKeepsWords(cues, fixed.cues);
				},
			),
			RUNS,
		);
	});

	it('changes nothing more in captions it has fixed', () => {
		fc.assert(
			fc.property(badlyCut, PROFILES, (cues, limits) => {
				const once = fixCaptions({ cues }, limits).cues;
				expect(fixCaptions({ cues: once }, limits).cues).toEqual(once);
			}),
			RUNS,
		);
	});
});
