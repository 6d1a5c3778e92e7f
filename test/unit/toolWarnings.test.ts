// Tool mode's bound covers warnings: a count and the first few, within Max Output Characters.
import {
	boundWarnings,
	toolOutputWithWarnings,
} from '../../nodes/Captioning/actions/captionFile/toolOutput';

const warning = (n: number) => ({ line: n, message: `Line ${n} is not a cue and was left out.` });
const many = Array.from({ length: 20_000 }, (_, i) => warning(i + 1));

describe('boundWarnings', () => {
	test('none: nothing to add', () => {
		expect(boundWarnings([], 100)).toEqual({});
	});

	test('a few that fit are all shown, with no count', () => {
		expect(boundWarnings([warning(1), warning(2)], 1000)).toEqual({
			warnings: [warning(1), warning(2)],
		});
	});

	test('many: the first five and the count', () => {
		expect(boundWarnings(many, 2000)).toEqual({
			warnings: [warning(1), warning(2), warning(3), warning(4), warning(5)],
			warningCount: 20_000,
			warningsNote: 'The first 5 of 20000 warnings are shown.',
		});
	});

	test('a small bound shows fewer, and stays within it', () => {
		const noted = boundWarnings(many, 250);
		expect(noted).toEqual({
			warnings: [warning(1), warning(2)],
			warningCount: 20_000,
			warningsNote: 'The first 2 of 20000 warnings are shown.',
		});
		expect(JSON.stringify(noted).length).toBeLessThanOrEqual(250);
		expect(boundWarnings(many, 10)).toEqual({
			warnings: [],
			warningCount: 20_000,
			warningsNote: 'The first 0 of 20000 warnings are shown.',
		});
	});

	test('the library’s capped list: the first 100 and an entry counting the rest give the count of all', () => {
		const capped = [
			...many.slice(0, 100),
			{ omitted: 19_900, message: '19900 more warnings were not listed: only the first 100 are.' },
		];
		expect(boundWarnings(capped, 2000)).toEqual({
			warnings: [warning(1), warning(2), warning(3), warning(4), warning(5)],
			warningCount: 20_000,
			warningsNote: 'The first 5 of 20000 warnings are shown.',
		});
	});

	test('no bound (0): every warning', () => {
		expect((boundWarnings(many, 0).warnings as unknown[]).length).toBe(20_000);
	});
});

describe('toolOutputWithWarnings', () => {
	test('20,000 warnings and a long transcript stay within Max Output Characters', () => {
		const text = 'word '.repeat(10_000);
		const json = toolOutputWithWarnings('text', text, 'simplified', 20_000, many);
		expect(json.warningCount).toBe(20_000);
		expect((json.warnings as unknown[]).length).toBe(5);
		expect(JSON.stringify(json).length).toBeLessThanOrEqual(20_000 + 300);
		expect((json.text as string).length).toBeLessThan(
			20_000 - JSON.stringify({ warnings: json.warnings }).length + 1,
		);
	});

	test('without warnings it is toolOutput itself', () => {
		expect(toolOutputWithWarnings('text', 'the transcript', 'simplified', 100, [])).toEqual({
			text: 'the transcript',
		});
	});
});
