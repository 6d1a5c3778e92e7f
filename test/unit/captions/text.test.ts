import {
	type CaptionWarning,
	type Cue,
	cuesToSegments,
	cuesToText,
	parseVtt,
} from '../../../nodes/Captioning/captions';
import { isRollUp, withoutRolledOverLines } from '../../../nodes/Captioning/captions/text';
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

	it('keeps every line of ordinary subtitles, said twice or not, however quick or overlapping', () => {
		const cues: Cue[] = [
			{ startMs: 0, endMs: 1200, text: 'Okay.' },
			{ startMs: 1200, endMs: 1250, text: 'Okay.' },
			{ startMs: 2000, endMs: 4000, text: 'Get down!\nEveryone, get down!' },
			{ startMs: 3900, endMs: 5000, text: 'Everyone, get down!' },
		];
		expect(cuesToText(cues)).toBe('Okay. Okay. Get down! Everyone, get down! Everyone, get down!');
	});

	// roll-up captions, as live captioning scrolls them: each cue starts with the last line of the one before
	const ROLLING: Cue[] = [
		{ startMs: 0, endMs: 2000, text: 'We started\nwith the basics' },
		{ startMs: 2000, endMs: 4000, text: 'with the basics\nand then' },
		{ startMs: 4000, endMs: 6000, text: 'and then\nLet it' },
	];

	it.each([
		['flashes', { startMs: 6000, endMs: 6050, text: 'Let it' }],
		['overlaps', { startMs: 5500, endMs: 7000, text: 'Let it' }],
		['repeats the end of a longer cue', { startMs: 6000, endMs: 7000, text: 'Let it' }],
	])('in roll-up captions, drops a repeat that %s', (_case, repeat) => {
		expect(cuesToText([...ROLLING, repeat])).toBe('We started with the basics and then Let it');
	});

	it('in roll-up captions, keeps repeated lines of different speakers', () => {
		const cues: Cue[] = [
			...ROLLING.map((cue) => ({ ...cue, voice: 'Anna' })),
			{ startMs: 5500, endMs: 7000, text: 'Let it', voice: 'Ben' },
		];
		expect(cuesToText(cues)).toBe(
			'Anna: We started with the basics and then Let it\n\nBen: Let it',
		);
	});

	it('writes continuation dots once where a sentence runs on into the next cue', () => {
		const cues: Cue[] = [
			{ startMs: 0, endMs: 2000, text: 'The engine accelerated...' },
			{ startMs: 2000, endMs: 4000, text: '...the whole way\ndown the hill…' },
			{ startMs: 4000, endMs: 6000, text: '…and stopped.' },
			{ startMs: 6000, endMs: 8000, text: 'Then... silence.' },
		];
		expect(cuesToText(cues)).toBe(
			'The engine accelerated... the whole way down the hill… and stopped. Then... silence.',
		);
	});

	it('names each speaker of a cue that several share', () => {
		const cues = parseVtt(
			'WEBVTT\n\n00:01.000 --> 00:03.000\n<v Anna>Ready?</v>\n<v Ben>Yes.</v>\n\n00:03.000 --> 00:04.000\n<v Ben>Go.',
		);
		expect(cuesToText(cues)).toBe('Anna: Ready?\n\nBen: Yes. Go.');
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

describe('isRollUp', () => {
	it('tells roll-up captions from subtitles that repeat a line', () => {
		expect(isRollUp(parseVtt(fixture('rolling-auto-captions.vtt')))).toBe(true);
		const okay = (startMs: number): Cue => ({ startMs, endMs: startMs + 500, text: 'Okay.' });
		expect(isRollUp([okay(0), okay(500), okay(1000), okay(1500)])).toBe(false);
		expect(isRollUp(parseVtt(fixture('keynote.vtt')))).toBe(false);
		expect(isRollUp([])).toBe(false);
	});
});

describe('cuesToSegments', () => {
	it('gives seconds with three decimals, clock times, single-line text, the voice and the styled text', () => {
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
				styledText: "It's <b>great</b> to see you all. Let\u2019s get started.",
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

	it('keeps every cue, those without text too, in the order of their start, and says when it reordered', () => {
		const warnings: CaptionWarning[] = [];
		const segments = cuesToSegments(
			[
				{ startMs: 2000, endMs: 3000, text: 'b' },
				{ startMs: 500, endMs: 900, text: '' },
				{ startMs: 1000, endMs: 1300, text: 'a' },
			],
			(warning) => warnings.push(warning),
		);
		expect(segments.map((segment) => [segment.start, segment.text])).toEqual([
			[0.5, ''],
			[1, 'a'],
			[2, 'b'],
		]);
		expect(warnings.map((warning) => warning.message)).toEqual([
			'A cue starts before the cue ahead of it (the first: the cue at 00:00:00.500 comes after one at 00:00:02.000): written in the order of their start times (Segments JSON is read in time order).',
		]);
	});

	it('writes the speakers of a cue several share in its styled text', () => {
		const [segment] = cuesToSegments(
			parseVtt('WEBVTT\n\n00:01.000 --> 00:03.000\n<v Anna>Ready?</v>\n<v Ben><i>Yes.</i></v>'),
		);
		expect(segment).toEqual({
			start: 1,
			end: 3,
			startTime: '00:00:01.000',
			endTime: '00:00:03.000',
			text: 'Ready? Yes.',
			styledText: '<v Anna>Ready?</v> <v Ben><i>Yes.</i></v>',
		});
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
