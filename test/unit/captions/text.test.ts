import { type Cue, cuesToSegments, cuesToText, parseVtt } from '../../../nodes/Captioning/captions';
import { withoutRolledOverLines } from '../../../nodes/Captioning/captions/text';
import { fixture } from './helpers';

describe('cuesToText', () => {
	it('joins cue texts and lines into one paragraph', () => {
		const cues: Cue[] = [
			{ startMs: 0, endMs: 1000, text: 'Good morning,\n  everyone.' },
			{ startMs: 1000, endMs: 2000, text: 'Let us\tbegin.' },
		];
		expect(cuesToText(cues)).toBe('Good morning, everyone. Let us begin.');
	});

	it('writes rolling auto-generated captions once and starts a paragraph after a long pause', () => {
		expect(cuesToText(parseVtt(fixture('rolling-auto-captions.vtt')))).toBe(
			"so today we're going to look at how captions work\n\nand why timing matters",
		);
	});

	it('starts paragraphs at paragraphGapMs, which can be changed', () => {
		const cues: Cue[] = [
			{ startMs: 0, endMs: 1000, text: 'One.' },
			{ startMs: 2999, endMs: 4000, text: 'Two.' },
			{ startMs: 6000, endMs: 7000, text: 'Three.' },
		];
		expect(cuesToText(cues)).toBe('One. Two.\n\nThree.');
		expect(cuesToText(cues, { paragraphGapMs: 1999 })).toBe('One.\n\nTwo.\n\nThree.');
		expect(cuesToText(cues, { paragraphGapMs: 2001 })).toBe('One. Two. Three.');
	});

	it('names the speaker at the start of each of their paragraphs', () => {
		expect(cuesToText(parseVtt(fixture('keynote.vtt')))).toBe(
			[
				'Roger Bingham: Good morning, everyone & welcome!',
				"Esme: It's great to see you all. Let\u2019s get started.",
				'Roger Bingham: Revenue grew by 12 % <year over year>.',
				'Q3 numbers \u200eare in the appendix. 漢字 and café — all set.',
			].join('\n\n'),
		);
	});

	it('keeps a line said twice in a row, as in a chorus', () => {
		const cues: Cue[] = [
			{ startMs: 0, endMs: 2000, text: 'Let it go' },
			{ startMs: 2000, endMs: 4000, text: 'Let it go' },
		];
		expect(cuesToText(cues)).toBe('Let it go Let it go');
	});

	it.each([
		['flashes', { startMs: 2000, endMs: 2050, text: 'Let it go' }, 'Let it go'],
		['overlaps', { startMs: 1500, endMs: 3000, text: 'Let it go' }, 'Let it go'],
		['repeats the end of a longer cue', { startMs: 2000, endMs: 3000, text: 'go' }, 'Let it\ngo'],
	])('drops a roll-up repeat that %s', (_case, repeat, firstText) => {
		const cues: Cue[] = [{ startMs: 0, endMs: 2000, text: firstText }, repeat];
		expect(cuesToText(cues)).toBe(firstText.replace('\n', ' '));
	});

	it('does not merge repeated lines of different speakers', () => {
		const cues: Cue[] = [
			{ startMs: 0, endMs: 1000, text: 'No.', voice: 'Anna' },
			{ startMs: 500, endMs: 1500, text: 'No.', voice: 'Ben' },
			{ startMs: 1000, endMs: 1010, text: 'No.', voice: 'Ben' },
		];
		expect(cuesToText(cues)).toBe('Anna: No.\n\nBen: No.');
	});

	it('sorts cues by time and skips empty ones', () => {
		const cues: Cue[] = [
			{ startMs: 2000, endMs: 3000, text: 'world' },
			{ startMs: 1000, endMs: 1500, text: ' \n ' },
			{ startMs: 0, endMs: 1000, text: 'hello' },
		];
		expect(cuesToText(cues)).toBe('hello world');
	});

	it('measures pauses from the latest end of overlapping cues', () => {
		const cues = parseVtt(fixture('panel-overlapping.vtt')).map(({ voice: _voice, ...cue }) => cue);
		cues.push({ startMs: 7000, endMs: 8000, text: 'Close enough.' });
		expect(cuesToText(cues)).toBe(
			'So what did the client say? [crowd cheering] They loved it. Close enough.',
		);
	});

	it('joins Japanese without spaces', () => {
		const cues: Cue[] = [
			{ startMs: 0, endMs: 1000, text: '今日は\nいい天気' },
			{ startMs: 1000, endMs: 2000, text: 'ですね。' },
		];
		expect(cuesToText(cues)).toBe('今日はいい天気ですね。');
	});

	it('returns an empty string for no cues', () => {
		expect(cuesToText([])).toBe('');
	});
});

describe('cuesToSegments', () => {
	it('gives seconds with three decimals, clock times, single-line text and the voice', () => {
		expect(cuesToSegments(parseVtt(fixture('keynote.vtt')).slice(0, 2))).toEqual([
			{
				start: 0.5,
				end: 3.2,
				startTime: '00:00:00.500',
				endTime: '00:00:03.200',
				text: 'Good morning, everyone & welcome!',
				voice: 'Roger Bingham',
			},
			{
				start: 3.4,
				end: 6.9,
				startTime: '00:00:03.400',
				endTime: '00:00:06.900',
				text: "It's great to see you all. Let\u2019s get started.",
				voice: 'Esme',
			},
		]);
	});

	it('handles hours beyond 99', () => {
		const [, , last] = cuesToSegments(parseVtt(fixture('marathon-stream.vtt')));
		expect(last).toEqual({
			start: 442_800,
			end: 442_802.25,
			startTime: '123:00:00.000',
			endTime: '123:00:02.250',
			text: 'Hour one hundred twenty-three.',
		});
	});

	it('orders by start and leaves out cues without text', () => {
		const segments = cuesToSegments([
			{ startMs: 2000, endMs: 3000, text: 'b' },
			{ startMs: 500, endMs: 900, text: '' },
			{ startMs: 1000, endMs: 1300, text: 'a' },
		]);
		expect(segments.map((segment) => [segment.start, segment.text])).toEqual([
			[1, 'a'],
			[2, 'b'],
		]);
	});
});

describe('withoutRolledOverLines', () => {
	it('turns roll-up captions into pop-on ones, keeping a chorus sung twice', () => {
		const { cues, removedLines } = withoutRolledOverLines(
			parseVtt(fixture('rolling-auto-captions.vtt')),
		);
		expect(
			cues
				.map((cue) => cue.text)
				.join(' ')
				.replace(/\s+/g, ' ')
				.trim(),
		).toBe("so today we're going to look at how captions work and why timing matters");
		expect(removedLines).toBe(4);
		const chorus: Cue[] = [
			{ startMs: 0, endMs: 2000, text: 'Let it go' },
			{ startMs: 3000, endMs: 5000, text: 'Let it go' },
		];
		expect(withoutRolledOverLines(chorus)).toEqual({ cues: chorus, removedLines: 0 });
	});
});
