// The pure parts of the Caption File operations: custom limits from the editor, and Convert's output as an AI tool.
import type { INodeProperties } from 'n8n-workflow';

import { captionProfile, DEFAULT_PROFILE_ID } from '../../nodes/Captioning/captions';
import { description as checkDescription } from '../../nodes/Captioning/actions/captionFile/check.operation';
import {
	customLimits,
	limitsProblem,
	profileProperties,
} from '../../nodes/Captioning/actions/captionFile/shared';
import {
	boundArray,
	boundText,
	DEFAULT_TOOL_MAX_CHARS,
	simplify,
	toolOutput,
} from '../../nodes/Captioning/actions/captionFile/toolOutput';
import { description as convertDescription } from '../../nodes/Captioning/actions/captionFile/convert.operation';

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
