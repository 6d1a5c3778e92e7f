// Item 7's figures from its raw runs (bench/measure/captions.ts): side-by-side ratios and growth with length.
import {
	type CaptionBench,
	captionFigures,
	plainSubtitles,
	styledSubtitles,
} from '../measure/captions';
import { buildCaptionsSummary } from '../report';

const bench: CaptionBench = {
	input: {
		hours: 3,
		durationSeconds: 11_000,
		words: 17_000,
		cues: 3000,
		vttBytes: 1,
		googleSttBytes: 1,
	},
	versions: { ours: '0.1.0', subtitle: '4.2.2', 'subsrt-ts': '2.1.2', 'webvtt-parser': '2.2.0' },
	tasks: [
		{ task: 'parse WebVTT', library: 'ours', ms: [2, 1, 3], size: 3000 },
		{ task: 'parse WebVTT', library: 'subsrt-ts', ms: [4, 4, 5], size: 3000 },
		{ task: 'parse WebVTT', library: 'webvtt-parser', ms: [20, 21, 22], size: 3000 },
		{ task: 'Check (Netflix)', library: 'ours', ms: [6, 6, 6], size: 1 },
	],
	memory: [{ task: 'parse WebVTT', library: 'ours', retainedMB: 0.3 }],
	scaling: [
		{ task: 'parse WebVTT', factor: 1, cues: 3000, ms: [1, 1, 1] },
		{ task: 'parse WebVTT', factor: 4, cues: 12_000, ms: [8, 8, 8] },
		{ task: 'parse WebVTT', factor: 16, cues: 48_000, ms: [32, 32, 32] },
	],
};

describe('captionFigures', () => {
	it('divides ours by the fastest other library round by round, per task; none for a task only ours does', () => {
		const { tasks } = captionFigures(bench);
		// rounds: 2/4, 1/4, 3/5
		expect(tasks.map((t) => [t.task, t.fastestPeer, t.oursOverFastestPeer, t.ratioRange])).toEqual([
			['parse WebVTT', 'subsrt-ts', 0.5, [0.25, 0.6]],
			['Check (Netflix)', undefined, undefined, undefined],
		]);
		expect(tasks[0].ms.ours).toMatchObject({ median: 2, min: 1, max: 3, n: 3 });
	});

	it('reads growth over linear from the shortest to the longest length and over the last step', () => {
		const [row] = captionFigures(bench).scaling;
		expect(row).toEqual({
			task: 'parse WebVTT',
			ms: { '1x': 1, '4x': 8, '16x': 32 },
			growthOverLinear: 2,
			lastGrowthOverLinear: 1,
		});
	});
});

describe('buildCaptionsSummary', () => {
	it('keeps the ratios, the tasks only ours does and the growth for bench/summary.json', () => {
		expect(buildCaptionsSummary('2026-11-25T00:00:00.000Z', bench)).toEqual({
			date: '2026-11-25T00:00:00.000Z',
			input: bench.input,
			versions: bench.versions,
			oursOverFastestPeer: { 'parse WebVTT': { fastestPeer: 'subsrt-ts', ratio: 0.5 } },
			oursOnlyMs: { 'Check (Netflix)': 6 },
			growthOverLinear: { 'parse WebVTT': 2 },
			lastGrowthOverLinear: { 'parse WebVTT': 1 },
		});
	});
});

describe('plainSubtitles', () => {
	it('gives the shape subtitle files have: two-line cues of 42 characters a line at most, no word timings', () => {
		const cues = plainSubtitles(300);
		expect(cues).toHaveLength(300);
		for (const cue of cues) {
			const lines = cue.text.split('\n');
			expect(lines).toHaveLength(2);
			expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(42);
		}
	});
});

describe('styledSubtitles', () => {
	it('gives the same cues with the first word of each in italics, as films italicise a word or a voice', () => {
		const plain = plainSubtitles(50);
		const styled = styledSubtitles(50);
		expect(styled.map((cue) => cue.text)).toEqual(plain.map((cue) => cue.text));
		for (const cue of styled) {
			const [first, rest] = cue.runs!;
			expect(first).toEqual({ text: cue.text.split(' ')[0], italic: true });
			expect(first.text + rest.text).toBe(cue.text);
		}
	});
});
