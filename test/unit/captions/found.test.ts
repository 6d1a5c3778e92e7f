// What a fetched body is, in words that quote none of it.
import { describeFound } from '../../../nodes/Captioning/captions/found';

const SECRET = 'AKIAIOSFODNN7EXAMPLE';

describe('describeFound', () => {
	test.each([
		['', 'it is empty'],
		[' \n\t ', 'it is empty'],
		[`{"AccessKeyId":"${SECRET}"}`, 'it starts with a JSON object'],
		[` \n[{"a":1}]`, 'it starts with a JSON array'],
		['\uFEFF{"results":[]}', 'it starts with a JSON object'],
		['<!DOCTYPE html><html><body>secret</body></html>', 'it is an HTML page'],
		['<html lang="en">', 'it is an HTML page'],
		['<!-- x --><body>', 'it is an HTML page'],
		[
			'<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>',
			'it starts with an XML document',
		],
		['<?xml version="1.0"?>\n<!-- c -->\n<tt xmlns="http://www.w3.org/ns/ttml">', 'it is TTML'],
		['<tt:tt xmlns:tt="http://www.w3.org/ns/ttml">', 'it is TTML'],
		['<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">', 'it is an HTML page'],
		['< not a tag', 'it starts with markup'],
		['WEBVTT\n\n00:01.000 --> 00:02.000\nHi', 'it looks like WebVTT'],
		['1\n00:00:01,000 --> 00:00:02,000\nHi', 'it looks like SRT'],
		['0:00:01.000,0:00:02.000\nHi', 'it looks like SBV (YouTube)'],
		[`ami-id\ninstance-id\n${SECRET}`, 'it is text in no caption format'],
		['%PDF-1.7\n', 'it is a PDF document'],
		['GIF89a', 'it is a GIF image'],
		['ID3\u0004', 'it is an MP3 file'],
		['\u0000\u0001\u0002\u0003binary', 'it is binary data'],
	])('%j: %s', (content, expected) => {
		const said = describeFound(content);
		expect(said).toBe(expected);
		expect(said).not.toContain(SECRET);
	});

	test.each([
		[[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'it is a PNG image'],
		[[0xff, 0xd8, 0xff, 0xe0], 'it is a JPEG image'],
		[[0x1f, 0x8b, 0x08, 0x00], 'it is gzip-compressed data'],
		[[0x50, 0x4b, 0x03, 0x04, 0x14], 'it is a ZIP archive (or an Office document)'],
		[
			[0, 0, 0, 0x20, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d],
			'it is an MP4 or QuickTime file',
		],
		[
			[0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x41, 0x56, 0x45],
			'it is a RIFF file (WAV or AVI)',
		],
		[[0x4f, 0x67, 0x67, 0x53, 0], 'it is an Ogg file'],
		[[0xc3, 0x28, 0xa0, 0xa1, 0, 1, 2, 3, 4, 5], 'it is binary data'],
	])('bytes %j: %s', (bytes, expected) => {
		expect(describeFound(Uint8Array.from(bytes))).toBe(expected);
	});

	test('bytes of text are read as text', () => {
		expect(describeFound(Buffer.from('{"error":"denied"}'))).toBe('it starts with a JSON object');
		expect(describeFound(Buffer.from('WEBVTT\n'))).toBe('it looks like WebVTT');
		expect(describeFound(Buffer.alloc(0))).toBe('it is empty');
	});

	test('only the start is looked at: text after it does not change the kind', () => {
		expect(describeFound(`${'word '.repeat(2000)}\u0000\u0000`)).toBe(
			'it is text in no caption format',
		);
	});
});
