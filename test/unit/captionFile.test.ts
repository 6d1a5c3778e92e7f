// The pure parts of the Caption File operations: custom limits from the editor, and Convert's output as an AI tool.
import type { INodeProperties } from 'n8n-workflow';

import { captionProfile, DEFAULT_PROFILE_ID } from '../../nodes/Captioning/captions';
import { description as checkDescription } from '../../nodes/Captioning/actions/captionFile/check.operation';
import {
	chosenFrameRate,
	customLimits,
	limitsProblem,
	profileProperties,
} from '../../nodes/Captioning/actions/captionFile/profiles';
import {
	boundArray,
	boundText,
	DEFAULT_TOOL_MAX_CHARS,
	simplify,
	toolOutput,
} from '../../nodes/Captioning/actions/captionFile/toolOutput';
import {
	description as convertDescription,
	optionsFromEditor,
} from '../../nodes/Captioning/actions/captionFile/convert.operation';

describe('customLimits', () => {
	it('reads seconds as milliseconds and leaves out limits not added', () => {
		expect(customLimits({})).toEqual({});
		expect(
			customLimits({
				maxCharsPerLine: 37,
				maxLines: 3,
				maxCharsPerSecond: 15.5,
				maxWordsPerMinute: 160,
				minDurationSeconds: 0.833,
				maxDurationSeconds: 6,
				minGapSeconds: 0.083,
				allowChained: true,
			}),
		).toEqual({
			maxCharsPerLine: 37,
			maxLines: 3,
			maxCharsPerSecond: 15.5,
			maxWordsPerMinute: 160,
			minDurationMs: 833,
			maxDurationMs: 6000,
			minGapMs: 83,
			allowChained: true,
		});
		expect(customLimits({ allowChained: false, minGapSeconds: '' })).toEqual({});
	});

	it('shows the default guide’s numbers as the editor defaults', () => {
		const limits = profileProperties.find((p) => p.name === 'customLimits')!
			.options as INodeProperties[];
		const defaults = Object.fromEntries(limits.map((p) => [p.name, p.default]));
		// shown: every limit but words per minute (Netflix has none) and chaining (a switch, off)
		const shown: Record<string, unknown> = { ...customLimits(defaults) };
		delete shown.maxWordsPerMinute;
		// Netflix counts its gap in frames (2 at any rate); Custom in seconds: 2 frames at 24 fps, 0.083 s
		const { frameRate, minGapFrames, ...netflix } = captionProfile(DEFAULT_PROFILE_ID)!.limits;
		delete netflix.allowChained;
		expect(shown).toEqual({
			...netflix,
			minGapMs: Math.round((minGapFrames! * 1000) / frameRate!),
		});
	});
});

describe('Custom Limits: built from the profile registry', () => {
	const customLimitsParameter = () =>
		profileProperties.find((p) => p.name === 'customLimits')!.options as INodeProperties[];

	it('shows what the editor showed when its parameters were written by hand', () => {
		const seconds = (name: string, displayName: string, minValue: number, value: number) => ({
			displayName,
			name,
			type: 'number',
			typeOptions: { minValue, numberPrecision: 3 },
			default: value,
		});
		expect(customLimitsParameter()).toEqual([
			{
				displayName: 'Allow Cues Without a Gap',
				name: 'allowChained',
				type: 'boolean',
				default: false,
				description:
					'Whether a cue may start exactly when the previous one ends, even though shorter gaps than Min Gap are not allowed',
			},
			{
				displayName: 'Check Line Breaks',
				name: 'lineBreaks',
				type: 'boolean',
				default: true,
				description:
					'Whether a line may not end on a word that belongs with the next (an article, a subject pronoun, an auxiliary, a preposition) where another break fits, as the Netflix and BBC guides ask',
			},
			{
				...seconds('chainGapSeconds', 'Close Gaps Up To (Seconds)', 0, 0.5),
				description:
					'Gaps this short or shorter, but longer than Min Gap, should be closed to Min Gap (chaining, as Netflix closes gaps of half a second)',
			},
			{
				displayName: 'Max Characters per Line',
				name: 'maxCharsPerLine',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 42,
			},
			{
				displayName: 'Max Characters per Second',
				name: 'maxCharsPerSecond',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 1 },
				default: 20,
				description: 'Reading speed: spaces and punctuation count, line breaks do not',
			},
			seconds('maxDurationSeconds', 'Max Duration (Seconds)', 0.1, 7),
			{
				displayName: 'Max Lines',
				name: 'maxLines',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 2,
			},
			{
				displayName: 'Max Words per Minute',
				name: 'maxWordsPerMinute',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 180,
			},
			seconds('minDurationSeconds', 'Min Duration (Seconds)', 0, 0.833),
			{
				...seconds('minGapSeconds', 'Min Gap (Seconds)', 0, 0.083),
				description: 'Shortest time between one cue’s end and the next cue’s start',
			},
		]);
	});

	it('reads back every parameter it shows, and nothing else', () => {
		const shown = customLimitsParameter().map((p) => p.name);
		const values = Object.fromEntries(
			shown.map((name, i) => [name, name === 'allowChained' || i + 1]),
		);
		expect(Object.keys(customLimits(values)).sort()).toEqual([
			'allowChained',
			'chainGapMs',
			'maxCharsPerLine',
			'maxCharsPerSecond',
			'maxDurationMs',
			'maxLines',
			'maxWordsPerMinute',
			'minDurationMs',
			'minGapMs',
		]);
		expect(customLimits({ ...values, unknown: 5 })).toEqual(customLimits(values));
	});
});

describe('limitsProblem', () => {
	it.each([
		[{}, undefined],
		[{ minDurationMs: 800, maxDurationMs: 7000 }, undefined],
		[{ minDurationMs: 8000, maxDurationMs: 7000 }, 'Min Duration is longer than Max Duration'],
		[{ maxCharsPerLine: Number.NaN }, 'maxCharsPerLine must be a number of at least 0, got NaN'],
		[{ minGapMs: -1 }, 'minGapMs must be a number of at least 0, got -1'],
	])('%j → %j', (limits, problem) => {
		expect(limitsProblem(limits)).toBe(problem);
	});
});

describe('Convert as an AI tool', () => {
	const segments = [
		{ start: 0.3, end: 2.1, startTime: '00:00:00.300', endTime: '00:00:02.100', text: 'Welcome.' },
		{
			start: 2.5,
			end: 4,
			startTime: '00:00:02.500',
			endTime: '00:00:04.000',
			text: 'Two things today.',
		},
	];

	it('simplifies segments and chunks to a line each, words to timed lines of about 80 characters', () => {
		expect(simplify('segments', segments)).toBe(
			'[00:00:00.300 → 00:00:02.100] Welcome.\n[00:00:02.500 → 00:00:04.000] Two things today.',
		);
		const words = Array.from({ length: 30 }, (_, i) => ({
			start: i * 0.5,
			end: i * 0.5 + 0.4,
			text: 'word',
		}));
		const lines = simplify('words', words).split('\n');
		expect(lines[0]).toMatch(/^\[0\.0 s\] word word/);
		expect(lines.every((line) => line.length <= 86)).toBe(true);
		expect(simplify('text', 'as it is')).toBe('as it is');
	});

	it('cuts text at a line or word boundary and says how much was left out', () => {
		expect(boundText('short', 100)).toEqual({ text: 'short' });
		expect(boundText('x'.repeat(500), 0)).toEqual({ text: 'x'.repeat(500) });
		const { text, truncated } = boundText('one two three four five six', 14);
		expect(text).toBe('one two three');
		expect(truncated).toMatchObject({ shownCharacters: 13, totalCharacters: 27 });
		expect(truncated!.note).toMatch(/Transcript Chunks/);
	});

	it('keeps as many entries as fit the JSON size', () => {
		expect(boundArray(segments, 0)).toEqual({ entries: segments });
		const { entries, truncated } = boundArray(segments, 120);
		expect(entries).toEqual([segments[0]]);
		expect(JSON.stringify(entries).length).toBeLessThanOrEqual(120);
		expect(truncated).toMatchObject({ shownEntries: 1, totalEntries: 2 });
	});

	it('gives text as text, files as content, and entries as simplified text or JSON', () => {
		expect(toolOutput('text', 'the transcript', 'simplified', 100)).toEqual({
			text: 'the transcript',
		});
		expect(toolOutput('content', 'WEBVTT\n', 'full', 100)).toEqual({ content: 'WEBVTT\n' });
		expect(toolOutput('segments', segments, 'simplified', 50)).toMatchObject({
			text: '[00:00:00.300 → 00:00:02.100] Welcome.',
			truncated: { shownCharacters: 38 },
		});
		expect(toolOutput('segments', segments, 'full', 0)).toEqual({ segments });
	});

	it('shows its settings only to the tool, with the stated defaults', () => {
		const tool = convertDescription.filter(
			(p) => p.name === 'toolOutput' || p.name === 'toolMaxChars',
		);
		expect(tool.map((p) => [p.name, p.default, p.displayOptions?.show?.['@tool']])).toEqual([
			['toolOutput', 'full', [true]],
			['toolMaxChars', DEFAULT_TOOL_MAX_CHARS, [true]],
		]);
		expect(DEFAULT_TOOL_MAX_CHARS).toBe(20_000);
		expect(checkDescription.some((p) => p.name === 'toolOutput')).toBe(false);
	});
});

describe('Convert’s options, stated once', () => {
	const collection = convertDescription.find((property) => property.name === 'options')!
		.options as INodeProperties[];
	const shown = (name: string) =>
		[...convertDescription, ...collection].find((property) => property.name === name)!;

	it('builds each editor parameter from the options schema: type, least value in the editor’s unit, default', () => {
		expect(collection.map((property) => property.name)).toEqual([
			'includeVoice',
			'language',
			'maxCueChars',
			'maxLineChars',
			'maxCueSeconds',
		]);
		expect(shown('maxCueSeconds')).toMatchObject({
			type: 'number',
			default: 6,
			typeOptions: { minValue: 1 },
		});
		expect(shown('maxLineChars')).toMatchObject({ default: 42, typeOptions: { minValue: 10 } });
		expect(shown('chunkMinutes')).toMatchObject({
			default: 5,
			typeOptions: { minValue: 0.1, numberPrecision: 1 },
		});
		expect(shown('chunkTokens')).toMatchObject({ default: 1000, typeOptions: { minValue: 50 } });
		expect(shown('includeVoice')).toMatchObject({ type: 'boolean', default: false });
	});

	it('reads the editor’s values into options (seconds to milliseconds), checked once and strictly', () => {
		expect(
			optionsFromEditor(
				{ maxCueSeconds: 2.5, maxLineChars: 30, language: '', includeVoice: true },
				{ chunkTokens: 200 },
			),
		).toEqual({ maxCueMs: 2500, maxLineChars: 30, includeVoice: true, chunkTokens: 200 });
		expect(() => optionsFromEditor({ colour: 'red' })).toThrow(
			/^Unknown conversion option "colour"/,
		);
		expect(() => optionsFromEditor({ maxLineChars: 5 })).toThrow(
			'Invalid conversion option maxLineChars: Number must be greater than or equal to 10.',
		);
	});
});

describe('the frame rate of a frame-counting style guide', () => {
	it('is offered for the Netflix guides only, 24 fps unless chosen', () => {
		const frameRate = profileProperties.find((property) => property.name === 'frameRate')!;
		expect(frameRate).toMatchObject({
			default: '24',
			displayOptions: { show: { profile: ['netflixEnglish', 'netflixEnglishChildren'] } },
		});
		expect((frameRate.options as Array<{ value: string }>).map((option) => option.value)).toEqual([
			'23.976',
			'24',
			'25',
			'29.97',
			'30',
			'custom',
		]);
	});

	it('reads 23.976 and 29.97 as the exact NTSC rates, and a custom rate above 0', () => {
		expect(chosenFrameRate('23.976', 1)).toBe(24000 / 1001);
		expect(chosenFrameRate('29.97', 1)).toBe(30000 / 1001);
		expect(chosenFrameRate('25', 1)).toBe(25);
		expect(chosenFrameRate('custom', '59.94')).toBe(59.94);
		expect(chosenFrameRate('custom', 0)).toBeUndefined();
		expect(chosenFrameRate('17', 1)).toBeUndefined();
	});
});
