import {
	type Cue,
	DEFAULT_MAX_CUE_MS,
	displayWidth,
	type Word,
	wordsToCues,
} from '../../../nodes/Captioning/captions';

/** Words spoken back to back, each `durationMs` long, starting at `startMs`. */
function speak(text: string, startMs = 0, durationMs = 300): Word[] {
	return text.split(' ').map((word, index) => ({
		startMs: startMs + index * durationMs,
		endMs: startMs + (index + 1) * durationMs,
		text: word,
	}));
}

function texts(cues: Cue[]): string[] {
	return cues.map((cue) => cue.text);
}

describe('wordsToCues', () => {
	it('returns no cues for no words', () => {
		expect(wordsToCues([])).toEqual([]);
	});

	it('makes one cue of a short phrase, timed from its first to its last word', () => {
		expect(wordsToCues(speak('Hello there', 1300))).toEqual([
			{ startMs: 1300, endMs: 1900, text: 'Hello there' },
		]);
	});

	it('starts a new cue after a pause of maxGapMs, not before', () => {
		const words = [...speak('before the pause', 0), ...speak('after it', 900 + 1500)];
		expect(texts(wordsToCues(words))).toEqual(['before the pause', 'after it']);
		const shorter = [...speak('before the pause', 0), ...speak('after it', 900 + 1499)];
		expect(texts(wordsToCues(shorter))).toEqual(['before the pause after it']);
		expect(texts(wordsToCues(shorter, { maxGapMs: 500 }))).toEqual([
			'before the pause',
			'after it',
		]);
	});

	it('ends a cue at a sentence end only once it holds minCueChars', () => {
		expect(texts(wordsToCues(speak('Yes. I agree with that plan. Let us go')))).toEqual([
			'Yes. I agree with that plan.',
			'Let us go',
		]);
		expect(texts(wordsToCues(speak('Yes. I agree'), { minCueChars: 4 }))).toEqual([
			'Yes.',
			'I agree',
		]);
		expect(texts(wordsToCues(speak('He said “Stop!” and left'), { minCueChars: 5 }))).toEqual([
			'He said “Stop!”',
			'and left',
		]);
	});

	it('never lets a cue last longer than maxCueMs', () => {
		const cues = wordsToCues(speak('one two three four five six seven eight', 0, 1000), {
			maxCueMs: 3000,
		});
		expect(texts(cues)).toEqual(['one two three', 'four five six', 'seven eight']);
		for (const cue of cues) expect(cue.endMs - cue.startMs).toBeLessThanOrEqual(3000);
	});

	it('wraps into at most two balanced lines of maxLineChars and maxCueChars in total', () => {
		const sentence =
			'we spent most of the afternoon walking along the river and talking about what the next year could look like for all of us';
		const cues = wordsToCues(speak(sentence, 0, 100), { maxCueMs: 60_000 });
		expect(cues.length).toBeGreaterThan(1);
		for (const cue of cues) {
			const lines = cue.text.split('\n');
			expect(lines.length).toBeLessThanOrEqual(2);
			for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(42);
			expect(displayWidth(lines.join(' '))).toBeLessThanOrEqual(84);
		}
		expect(cues.map((cue) => cue.text.replace(/\n/g, ' ')).join(' ')).toBe(sentence);
		expect(cues[0].text).toBe(
			'we spent most of the afternoon walking\nalong the river and talking about what the',
		);
	});

	it('follows custom character limits', () => {
		const cues = wordsToCues(speak('alpha beta gamma delta epsilon zeta eta theta'), {
			maxLineChars: 12,
			maxCueChars: 24,
		});
		expect(texts(cues)).toEqual(['alpha beta\ngamma delta', 'epsilon zeta\neta theta']);
	});

	it('cuts a full cue after its last clause rather than leaving one word behind', () => {
		const words = speak(
			"Today we're talking about naïve résumés, jalapeño piñatas and Zürich's crème brûlée.",
			0,
			400,
		);
		const cues = wordsToCues(words);
		expect(texts(cues)).toEqual([
			"Today we're talking about naïve résumés,",
			"jalapeño piñatas\nand Zürich's crème brûlée.",
		]);
		expect(cues[1].startMs).toBe(cues[0].endMs);
	});

	it('cuts before the next word when no clause leaves minCueChars behind', () => {
		const words = speak('Yes, the quick brown fox jumps over', 0, 1000);
		expect(texts(wordsToCues(words, { maxCueMs: 5000 }))).toEqual([
			'Yes, the quick brown fox',
			'jumps over',
		]);
	});

	it('cuts before the next word when the words after the clause would still be too long', () => {
		const words = [
			...speak('Right, so here we are', 0, 500),
			{ startMs: 2500, endMs: 9000, text: 'finally' },
		];
		expect(texts(wordsToCues(words, { minCueChars: 4 }))).toEqual([
			'Right, so here we are',
			'finally',
		]);
		const shortEnough = [...words.slice(0, -1), { startMs: 2500, endMs: 3400, text: 'finally' }];
		expect(texts(wordsToCues(shortEnough, { minCueChars: 4, maxCueMs: 3000 }))).toEqual([
			'Right,',
			'so here we are finally',
		]);
	});

	it('gives a word longer than every limit a cue of its own', () => {
		const long = 'https://example.com/'.padEnd(100, 'x');
		expect(texts(wordsToCues(speak(`see ${long} now`)))).toEqual(['see', long, 'now']);
	});

	it('starts a cue when the speaker changes and names the speaker', () => {
		const words: Word[] = [
			{ startMs: 0, endMs: 300, text: 'Ready?', speakerTag: 1 },
			{ startMs: 300, endMs: 600, text: 'Yes', speakerTag: 2 },
			{ startMs: 600, endMs: 900, text: 'go', speakerTag: 2 },
		];
		expect(wordsToCues(words)).toEqual([
			{ startMs: 0, endMs: 300, text: 'Ready?', voice: 'Speaker 1' },
			{ startMs: 300, endMs: 900, text: 'Yes go', voice: 'Speaker 2' },
		]);
	});

	it('keeps a cue of words without duration on screen until the next cue, at most a second', () => {
		const words: Word[] = [
			{ startMs: 1000, endMs: 1000, text: 'Um.' },
			{ startMs: 2500, endMs: 3000, text: 'Okay' },
			{ startMs: 6000, endMs: 6000, text: 'Bye.' },
		];
		expect(wordsToCues(words).map((cue) => [cue.startMs, cue.endMs])).toEqual([
			[1000, 2000],
			[2500, 3000],
			[6000, 7000],
		]);
		const crowded: Word[] = [
			{ startMs: 1000, endMs: 1000, text: 'A.' },
			{ startMs: 1000, endMs: 1000, text: 'B.', speakerTag: 1 },
		];
		expect(wordsToCues(crowded).map((cue) => [cue.startMs, cue.endMs])).toEqual([
			[1000, 1001],
			[1000, 2000],
		]);
	});

	it('orders words by time and ignores blank ones', () => {
		const words: Word[] = [
			{ startMs: 300, endMs: 600, text: ' world ' },
			{ startMs: 0, endMs: 300, text: 'Hello' },
			{ startMs: 600, endMs: 700, text: '  ' },
		];
		expect(wordsToCues(words)).toEqual([{ startMs: 0, endMs: 600, text: 'Hello world' }]);
	});

	it('uses the defaults for options left undefined', () => {
		const words = speak('a b c d e f g h i j k l m n', 0, 500);
		expect(wordsToCues(words, { maxCueMs: undefined })).toEqual(wordsToCues(words));
		expect(wordsToCues(words)[0].endMs).toBe(6000);
		expect(DEFAULT_MAX_CUE_MS).toBe(6000);
	});
});
