// The W3C web-platform-tests of WebVTT file parsing (webvtt/parsing/file-parsing): every input read by readVtt
// and compared with expectations written by hand from each test's assertions and the parser algorithm
// (test/fixtures/wpt-webvtt: the inputs, expectations.json, where each came from, how to refresh them).
import { readFileSync } from 'fs';
import { join } from 'path';

import {
	CaptionFormatError,
	type CaptionDocument,
	type CaptionRegion,
	type Cue,
	readVtt,
} from '../../../nodes/Captioning/captions';

type CueData = [id: string, start: number, end: number, text: string];
interface SettingsExpectation {
	cue: number;
	[property: string]: unknown;
}
interface RegionExpectation {
	cue: number;
	region: null | ({ id: string; block?: number } & Record<string, unknown>);
}
interface TestExpectation {
	cues: CueData[];
	settings?: SettingsExpectation[];
	regions?: RegionExpectation[];
	styles?: string[];
	exception?: string;
}

const DIR = join(__dirname, '../../fixtures/wpt-webvtt');
const { tests, mustReject } = JSON.parse(readFileSync(join(DIR, 'expectations.json'), 'utf8')) as {
	tests: Record<string, TestExpectation>;
	mustReject: string[];
};

// A browser decodes the bytes as UTF-8, which removes one byte order mark; readVtt removes it here, so the
// bytes are decoded keeping it.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const read = (folder: string, name: string) =>
	readVtt(utf8.decode(readFileSync(join(DIR, folder, `${name}.vtt`))));

/** A cue's settings as the VTTCue attributes the tests assert, with the WebVTT defaults where unset. */
function asVttCue(cue: Cue) {
	const settings = cue.settings ?? {};
	return {
		align: settings.align ?? 'center',
		line: settings.line ?? 'auto',
		snapToLines: settings.snapToLines ?? true,
		lineAlign: settings.lineAlign ?? 'start',
		position: settings.position ?? 'auto',
		positionAlign: settings.positionAlign ?? 'auto',
		size: settings.size ?? 100,
		vertical: settings.vertical ?? '',
	};
}

/** The region a cue is shown in: the last one of its identifier, with its place among the REGION blocks. */
function regionOf(cue: Cue, document: CaptionDocument): (CaptionRegion & { block: number }) | null {
	const regions = document.regions ?? [];
	for (let at = regions.length - 1; at >= 0; at--) {
		if (cue.settings?.region !== undefined && regions[at].id === cue.settings.region) {
			return { ...regions[at], block: at + 1 };
		}
	}
	return null;
}

const names = Object.keys(tests).sort();

describe('W3C WebVTT file parsing: cue tests', () => {
	it('are the 39 generated tests of wpt', () => {
		expect(names).toHaveLength(39);
	});

	describe.each(names)('%s', (name) => {
		const expected = tests[name];
		const document = read('cue-tests', name);

		it('gives every cue: identifier, start, end and text', () => {
			const data: CueData[] = document.cues.map((cue) => [
				cue.identifier ?? '',
				cue.startMs / 1000,
				cue.endMs / 1000,
				cue.text,
			]);
			expect(data).toEqual(expected.cues);
		});

		if (expected.settings) {
			it('reads each cue setting the test checks', () => {
				for (const { cue, ...properties } of expected.settings!) {
					expect({ cue, ...asVttCue(document.cues[cue]) }).toMatchObject({ cue, ...properties });
				}
			});
		}

		if (expected.regions) {
			it('gives each cue the region the test expects', () => {
				for (const { cue, region } of expected.regions!) {
					const found = regionOf(document.cues[cue], document);
					if (region === null) expect({ cue, region: found }).toEqual({ cue, region: null });
					else expect({ cue, region: found }).toMatchObject({ cue, region });
				}
			});
		}

		if (expected.styles) {
			it('keeps each style sheet block', () => {
				expect(document.styles ?? []).toEqual(expected.styles);
			});
		}
	});
});

describe('W3C WebVTT file parsing: files the parser must reject', () => {
	it('are the 9 of signature-invalid.html and support/', () => {
		expect(mustReject).toHaveLength(9);
	});

	it.each(mustReject)('%s', (name) => {
		expect(() => read('must-reject', name)).toThrow(CaptionFormatError);
	});
});
