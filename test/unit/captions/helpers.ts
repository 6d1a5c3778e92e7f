import { readFileSync } from 'fs';
import { join } from 'path';
import { WebVTTParser } from 'webvtt-parser';

import { CaptionFormatError, parseVtt } from '../../../nodes/Captioning/captions';

export function fixture(name: string): string {
	return readFileSync(join(__dirname, '../../fixtures/captions', name), 'utf8');
}

/** Parses with the independent w3c parser, in its strictest mode (cue text is validated too). */
export function independentParse(vtt: string) {
	const { cues, errors } = new WebVTTParser().parse(vtt);
	return {
		errors,
		cues: cues.map((cue) => ({
			id: cue.id,
			startMs: Math.round(cue.startTime * 1000),
			endMs: Math.round(cue.endTime * 1000),
			text: cue.text,
		})),
	};
}

export function timings(cues: readonly { startMs: number; endMs: number }[]): number[][] {
	return cues.map((cue) => [cue.startMs, cue.endMs]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** Asserts that WebVTT we wrote has no validation error and the same cues for both parsers. */
export function expectValidVtt(vtt: string): void {
	const independent = independentParse(vtt);
	expect(independent.errors).toEqual([]);
	expect(timings(independent.cues)).toEqual(timings(parseVtt(vtt)));
}

/** The CaptionFormatError that `run` throws; fails the test when it throws nothing or another error. */
export function thrown(run: () => unknown): CaptionFormatError {
	try {
		run();
	} catch (error) {
		if (error instanceof CaptionFormatError) return error;
		throw error;
	}
	throw new Error('expected a CaptionFormatError');
}
