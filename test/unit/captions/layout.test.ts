import {
	displayWidth,
	fitsCue,
	joinText,
	tokenize,
	wrapTokens,
} from '../../../nodes/Captioning/captions';

describe('displayWidth', () => {
	it.each([
		['abc', 3],
		['', 0],
		['cafe\u0301', 4],
		['café', 4],
		['日本語', 6],
		['ｶﾀｶﾅ', 4],
		['한국어', 6],
		['🎉', 2],
		['👩‍👩‍👧', 2],
		['a🎉b', 4],
	])('%j takes %d cells', (text, width) => {
		expect(displayWidth(text)).toBe(width);
	});
});

describe('joinText', () => {
	it.each([
		[['Hello', 'world'], 'Hello world'],
		[[' Hello ', '', '  ', 'world.'], 'Hello world.'],
		[['Wait', ',', 'what', '?'], 'Wait, what?'],
		[['今日', 'は', 'いい', '天気'], '今日はいい天気'],
		[['brûlée.', '今日は'], 'brûlée. 今日は'],
		[['iPhone', 'を', '買った'], 'iPhoneを買った'],
		[['こんにちは。', 'Thank', 'you'], 'こんにちは。Thank you'],
		[['안녕하세요', '여러분'], '안녕하세요 여러분'],
		[[], ''],
	])('%j → %j', (parts, text) => {
		expect(joinText(parts)).toBe(text);
	});
});

describe('tokenize', () => {
	it('splits spaced text on whitespace and keeps long words whole', () => {
		expect(tokenize('  see https://example.com/a-very-long-path\tnow ')).toEqual([
			'see',
			'https://example.com/a-very-long-path',
			'now',
		]);
	});

	it('splits Japanese into words that join back to the original text', () => {
		const tokens = tokenize('今日はいい天気ですね。明日も晴れるでしょう。');
		expect(tokens.length).toBeGreaterThan(6);
		expect(joinText(tokens)).toBe('今日はいい天気ですね。明日も晴れるでしょう。');
	});
});

describe('wrapTokens', () => {
	it('keeps text that fits on one line', () => {
		expect(wrapTokens(['short', 'line'], 42)).toEqual(['short line']);
		expect(wrapTokens([], 42)).toEqual([]);
	});

	it('balances two lines, breaking before a preposition when it can', () => {
		const tokens = 'the quick brown fox jumps over the lazy dog'.split(' ');
		expect(wrapTokens(tokens, 30)).toEqual(['the quick brown fox jumps', 'over the lazy dog']);
	});

	it('breaks after a sentence, then after a clause, then before a conjunction or preposition', () => {
		const wrap = (text: string) => wrapTokens(tokenize(text), 42);
		expect(wrap('Okay. I was thinking we should all go home.')).toEqual([
			'Okay.',
			'I was thinking we should all go home.',
		]);
		expect(wrap('I told you already. We are leaving tomorrow.')).toEqual([
			'I told you already.',
			'We are leaving tomorrow.',
		]);
		expect(wrap('If you want to see the ocean, you have to drive west')).toEqual([
			'If you want to see the ocean,',
			'you have to drive west',
		]);
		expect(wrap('We watched the whole thing from the back of the room')).toEqual([
			'We watched the whole thing',
			'from the back of the room',
		]);
	});

	it('never ends a line on an article, a subject pronoun or an auxiliary when another break fits', () => {
		expect(wrapTokens(tokenize('Nobody had ever seen the enormous red balloon'), 42)).toEqual([
			'Nobody had ever seen',
			'the enormous red balloon',
		]);
		expect(wrapTokens(tokenize('Tomorrow morning we will finally know the truth'), 42)).toEqual([
			'Tomorrow morning',
			'we will finally know the truth',
		]);
		// when it is the only break that fits, it is taken
		expect(wrapTokens(['the', 'xxxxxxxxxx'], 10)).toEqual(['the', 'xxxxxxxxxx']);
	});

	it('prefers two lines within the limit over balanced ones that overflow', () => {
		expect(wrapTokens(['a', 'b', 'cccccccccc'], 10)).toEqual(['a b', 'cccccccccc']);
	});

	it('leaves a single word longer than the line alone', () => {
		expect(wrapTokens(['supercalifragilistic'], 10)).toEqual(['supercalifragilistic']);
	});

	it('measures CJK text by its width on screen', () => {
		const lines = wrapTokens(tokenize('今日はいい天気ですね。明日も晴れるでしょう。'), 24);
		expect(lines).toHaveLength(2);
		for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(24);
	});
});

describe('fitsCue', () => {
	it('checks both the line and the cue limit', () => {
		const tokens = 'the quick brown fox jumps over the lazy dog'.split(' ');
		expect(fitsCue(tokens, 30, 84)).toBe(true);
		expect(fitsCue(tokens, 20, 84)).toBe(false);
		expect(fitsCue(tokens, 43, 42)).toBe(false);
		expect(fitsCue(['supercalifragilistic'], 10, 84)).toBe(false);
		expect(fitsCue(['short'], 10, 84)).toBe(true);
		expect(fitsCue([], 10, 84)).toBe(true);
	});
});

describe('wrapTokens and fitsCue with other line counts', () => {
	const tokens = 'the quick brown fox jumps over the lazy dog'.split(' ');

	it('keeps one line when one is allowed, however long', () => {
		expect(wrapTokens(tokens, 10, 1)).toEqual(['the quick brown fox jumps over the lazy dog']);
		expect(fitsCue(tokens, 10, 100, 1)).toBe(false);
		expect(fitsCue(tokens, 43, 100, 1)).toBe(true);
	});

	it('balances three or more lines as narrow as the text allows', () => {
		expect(wrapTokens(tokens, 20, 3)).toEqual([
			'the quick brown',
			'fox jumps over',
			'the lazy dog',
		]);
		expect(fitsCue(tokens, 15, 100, 3)).toBe(true);
		expect(fitsCue(tokens, 14, 100, 3)).toBe(false);
		expect(wrapTokens(['short'], 20, 4)).toEqual(['short']);
	});

	it('puts what three full lines cannot hold on the last line', () => {
		expect(wrapTokens(tokens, 9, 3)).toEqual(['the quick', 'brown fox', 'jumps over the lazy dog']);
	});
});
