// The format registry (captions/formats.ts): file types and names, how a format is recognised, the options.
import {
	CAPTION_FORMAT_OPTIONS,
	CAPTION_FORMATS,
	captionBaseName,
	captionFileExtension,
	captionFileSuffix,
	captionFormat,
	captionMimeType,
	conversionsFrom,
	detectFormat,
	FILE_FORMAT_OPTIONS,
	FILE_OUTPUT_FORMATS,
	formatFromUrl,
	INPUT_FORMAT_OPTIONS,
	isServiceFormat,
	OUTPUT_FORMAT_OPTIONS,
	TRANSCRIPT_SOURCES,
} from '../../../nodes/Captioning/captions/formats';

describe('captionMimeType and captionFileExtension', () => {
	it.each([
		['vtt', 'text/vtt', 'vtt'],
		['google_stt', 'application/json', 'json'],
		['srt', 'application/x-subrip', 'srt'],
		['text', 'text/plain', 'txt'],
		['ttml', 'application/ttml+xml', 'ttml'],
		['sbv', 'text/plain', 'sbv'],
		['docx', 'application/octet-stream', 'bin'],
		['constructor', 'application/octet-stream', 'bin'],
		['', 'application/octet-stream', 'bin'],
	])('%j → %s, %s', (format, mimeType, extension) => {
		expect(captionMimeType(format)).toBe(mimeType);
		expect(captionFileExtension(format)).toBe(extension);
	});
});

describe('detectFormat', () => {
	test('WebVTT by its signature (with a BOM or blank lines), Google STT by JSON', () => {
		expect(detectFormat('WEBVTT\n\n')).toBe('vtt');
		expect(detectFormat('\uFEFFWEBVTT - title\n')).toBe('vtt');
		expect(detectFormat('\n  {"results": []}')).toBe('google_stt');
	});

	test('SRT by a numbered timing line or a timing line with comma milliseconds', () => {
		expect(detectFormat('1\n00:00:01,000 --> 00:00:02,000\nhi')).toBe('srt');
		expect(detectFormat('\uFEFF1\r\n00:00:01,000 --> 00:00:02,000\r\nhi')).toBe('srt');
		expect(detectFormat('00:00:01,000 --> 00:00:02,000\nhi')).toBe('srt');
	});

	test('SBV by its timing line; anything else is not recognised', () => {
		expect(detectFormat('0:00:01.000,0:00:02.000\nhi')).toBe('sbv');
		expect(detectFormat('\n\n12:00:01.000,12:00:02.500\nhi')).toBe('sbv');
		expect(detectFormat('<tt xmlns="http://www.w3.org/ns/ttml"/>')).toBeUndefined();
		expect(detectFormat('Hello there')).toBeUndefined();
		expect(detectFormat('')).toBeUndefined();
	});
});

describe('formatFromUrl', () => {
	test('a URL that names Google STT or ends in .json is Google STT; any other is WebVTT', () => {
		expect(formatFromUrl('https://files.example.com/t/1/google_stt?signature=x')).toBe(
			'google_stt',
		);
		expect(formatFromUrl('https://files.example.com/t/1/captions.json?expires=1')).toBe(
			'google_stt',
		);
		expect(formatFromUrl('https://files.example.com/t/1/captions.json')).toBe('google_stt');
		expect(formatFromUrl('https://files.example.com/t/1/captions.vtt?expires=1')).toBe('vtt');
		expect(formatFromUrl('https://files.example.com/t/1/json-export')).toBe('vtt');
		expect(formatFromUrl('https://files.example.com/t/1/captions.srt?expires=1')).toBe('srt');
		expect(formatFromUrl('https://files.example.com/t/1/captions.SBV')).toBe('sbv');
	});
});

describe('captionFileSuffix and captionBaseName', () => {
	test('Google STT files say so before .json; the base name drops either ending', () => {
		expect(captionFileSuffix('google_stt')).toBe('.google_stt.json');
		expect(captionFileSuffix('vtt')).toBe('.vtt');
		expect(captionFileSuffix('srt')).toBe('.srt');
		expect(captionBaseName('board-meeting.google_stt.json')).toBe('board-meeting');
		expect(captionBaseName('board-meeting.vtt')).toBe('board-meeting');
		expect(captionBaseName('captions')).toBe('captions');
		expect(captionBaseName('board-meeting.ttml')).toBe('board-meeting');
		expect(captionBaseName('.google_stt.json')).toBe('.google_stt');
	});
});

describe('the format registry', () => {
	it('has one complete entry per format, each id once', () => {
		const ids = CAPTION_FORMATS.map((format) => format.id);
		expect(ids).toEqual([
			'vtt',
			'google_stt',
			'srt',
			'sbv',
			'ttml',
			'text',
			'segments',
			'words',
			'chunks',
		]);
		for (const format of CAPTION_FORMATS) {
			expect(format.label).not.toBe('');
			expect(format.description).not.toBe('');
			expect(format.mimeType).toMatch(/^[a-z]+\/[a-z0-9.+-]+$/);
			expect(format.extension).toMatch(/^[a-z0-9]+$/);
			if (format.parse) expect(format.detect).toBeDefined();
			if (format.output?.kind === 'json') expect(format.data).toBeDefined();
			if (format.output) expect(format.render).toBeDefined();
		}
	});

	it('names the service’s formats (contract 2.4), best transcript first', () => {
		expect(CAPTION_FORMAT_OPTIONS).toEqual([
			{ name: 'Google Speech-to-Text JSON', value: 'google_stt' },
			{ name: 'WebVTT', value: 'vtt' },
		]);
		expect(TRANSCRIPT_SOURCES).toEqual(['google_stt', 'vtt']);
		expect(isServiceFormat('vtt')).toBe(true);
		expect(isServiceFormat('srt')).toBe(false);
		expect(isServiceFormat('constructor')).toBe(false);
	});

	it('gives the editor its options sorted by name', () => {
		const sorted = (options: { name: string }[]) =>
			[...options].sort((a, b) => a.name.localeCompare(b.name));
		for (const options of [INPUT_FORMAT_OPTIONS, OUTPUT_FORMAT_OPTIONS, FILE_FORMAT_OPTIONS]) {
			expect(options).toEqual(sorted(options));
		}
		expect(INPUT_FORMAT_OPTIONS.map((o) => o.value)).toEqual(['google_stt', 'sbv', 'srt', 'vtt']);
		expect(FILE_FORMAT_OPTIONS.map((o) => o.value)).toEqual(['sbv', 'srt', 'ttml', 'vtt']);
		expect(FILE_OUTPUT_FORMATS).toEqual(['vtt', 'srt', 'sbv', 'ttml']);
	});

	it('offers word outputs only from formats with word timings', () => {
		const withWords = CAPTION_FORMATS.filter((format) => conversionsFrom(format).includes('words'));
		expect(withWords.map((format) => format.id)).toEqual(['google_stt', 'words']);
		expect(captionFormat('nope')).toBeUndefined();
	});
});
