// Caption-format facts (captions/formats.ts): file types and names, and how a format is recognised.
import {
	captionBaseName,
	captionFileExtension,
	captionFileSuffix,
	captionMimeType,
	detectFormat,
	formatFromUrl,
} from '../../../nodes/Captioning/captions/formats';

describe('captionMimeType and captionFileExtension', () => {
	it.each([
		['vtt', 'text/vtt', 'vtt'],
		['google_stt', 'application/json', 'json'],
		['srt', 'application/x-subrip', 'srt'],
		['text', 'text/plain', 'txt'],
		['ttml', 'application/octet-stream', 'bin'],
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
		expect(detectFormat('1\n00:00:01,000 --> 00:00:02,000\nhi')).toBeUndefined();
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
	});
});
