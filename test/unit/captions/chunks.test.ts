// Transcript chunks for language models (captions/chunks.ts).
import fc from 'fast-check';

import {
	type Cue,
	cuesToChunks,
	cuesToText,
	estimateTokens,
	parseVtt,
} from '../../../nodes/Captioning/captions';
import { fixture } from './helpers';

const cue = (startMs: number, endMs: number, text: string, voice?: string): Cue =>
	voice === undefined ? { startMs, endMs, text } : { startMs, endMs, text, voice };

describe('cuesToChunks', () => {
	it('cuts at 5 minutes by default, with start, end, text and a token estimate', () => {
		const cues = Array.from({ length: 12 }, (_, i) =>
			cue(i * 60_000, i * 60_000 + 5000, `Minute ${i}.`),
		);
		const chunks = cuesToChunks(cues);
		expect(chunks.map((c) => [c.index, c.startTime, c.endTime])).toEqual([
			[1, '00:00:00.000', '00:04:05.000'],
			[2, '00:05:00.000', '00:09:05.000'],
			[3, '00:10:00.000', '00:11:05.000'],
		]);
		expect(chunks[0]).toMatchObject({
			start: 0,
			end: 245,
			text: 'Minute 0.\n\nMinute 1.\n\nMinute 2.\n\nMinute 3.\n\nMinute 4.',
			tokens: 14,
		});
	});

	it('keeps roll-up captions once and names the speaker again at the start of each chunk', () => {
		const rolling = cuesToChunks(parseVtt(fixture('rolling-auto-captions.vtt')), {
			chunkMinutes: 60,
		});
		expect(rolling.map((c) => c.text)).toEqual([
			cuesToText(parseVtt(fixture('rolling-auto-captions.vtt'))),
		]);
		const talk = [
			cue(0, 1000, 'One.', 'Anna'),
			cue(1000, 2000, 'Two.', 'Anna'),
			cue(2000, 3000, 'Three.', 'Anna'),
		];
		expect(cuesToChunks(talk, { chunkTokens: 4 }).map((c) => c.text)).toEqual([
			'Anna: One.',
			'Anna: Two.',
			'Anna: Three.',
		]);
	});

	it('bounds every chunk of several cues by both limits when both are given', () => {
		const cueArb = fc.record({
			gapMs: fc.integer({ min: 0, max: 120_000 }),
			durationMs: fc.integer({ min: 1, max: 20_000 }),
			text: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }),
			voice: fc.option(fc.constantFrom('Anna', 'Ben'), { nil: undefined }),
		});
		fc.assert(
			fc.property(
				fc.array(cueArb, { maxLength: 60 }),
				fc.option(fc.double({ min: 0.5, max: 30, noNaN: true }), { nil: undefined }),
				fc.option(fc.integer({ min: 10, max: 2000 }), { nil: undefined }),
				(entries, chunkMinutes, chunkTokens) => {
					let at = 0;
					const cues = entries.map(({ gapMs, durationMs, text, voice }) => {
						at += gapMs;
						const made = cue(at, at + durationMs, text, voice);
						at += durationMs;
						return made;
					});
					const chunks = cuesToChunks(cues, { chunkMinutes, chunkTokens });
					const spanMs = (chunkMinutes ?? (chunkTokens === undefined ? 5 : Infinity)) * 60_000;
					for (const chunk of chunks) {
						expect(chunk.tokens).toBe(estimateTokens(chunk.text));
						expect(chunk.end).toBeGreaterThanOrEqual(chunk.start);
						const pieces = cues.filter(
							(c) => c.startMs >= chunk.start * 1000 && c.endMs <= chunk.end * 1000,
						);
						if (pieces.length > 1) {
							expect(chunk.end * 1000 - chunk.start * 1000).toBeLessThanOrEqual(spanMs + 1);
							if (chunkTokens !== undefined) expect(chunk.tokens).toBeLessThanOrEqual(chunkTokens);
						}
					}
					// nothing lost: the chunks hold the transcript's text in order (spaces aside)
					const shown = (text: string) => text.replace(/^(Anna|Ben): /gm, '').replace(/\s+/g, '');
					expect(chunks.map((c) => shown(c.text)).join('')).toBe(shown(cuesToText(cues)));
					expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i + 1));
				},
			),
			{ numRuns: 200 },
		);
	});

	it('gives no chunks for no text', () => {
		expect(cuesToChunks([])).toEqual([]);
		expect(cuesToChunks([cue(0, 1000, ' ')])).toEqual([]);
	});
});

describe('estimateTokens', () => {
	it('is one token per 4 characters, rounded up', () => {
		expect([estimateTokens(''), estimateTokens('abcd'), estimateTokens('abcde')]).toEqual([
			0, 1, 2,
		]);
	});
});
