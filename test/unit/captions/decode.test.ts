import { decodeCaptionBytes, readCaptions } from '../../../nodes/Captioning/captions';

const TEXT = 'WEBVTT\n\n00:01.000 --> 00:02.000\nCafé crème – 5 € «très» naïve\n';
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
/** Text as UTF-32, four bytes a code point, with its byte order mark. */
function utf32(text: string, littleEndian: boolean): Buffer {
	const points = [0xfeff, ...Array.from(text, (char) => char.codePointAt(0)!)];
	const bytes = Buffer.alloc(points.length * 4);
	points.forEach((point, at) =>
		littleEndian ? bytes.writeUInt32LE(point, at * 4) : bytes.writeUInt32BE(point, at * 4),
	);
	return bytes;
}

describe('decodeCaptionBytes', () => {
	it('reads UTF-8 with or without a byte order mark, which it removes', () => {
		expect(decodeCaptionBytes(Buffer.from(TEXT))).toEqual({
			text: TEXT,
			encoding: 'utf-8',
			warnings: [],
		});
		expect(decodeCaptionBytes(Buffer.from(`\ufeff${TEXT}`))).toEqual({
			text: TEXT,
			encoding: 'utf-8',
			warnings: [],
		});
	});

	it('reads UTF-16 little- and big-endian by their byte order mark', () => {
		const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')]);
		const be = Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(TEXT)]);
		expect(decodeCaptionBytes(le)).toEqual({ text: TEXT, encoding: 'utf-16le', warnings: [] });
		expect(decodeCaptionBytes(be)).toEqual({ text: TEXT, encoding: 'utf-16be', warnings: [] });
	});

	it('reads UTF-32 little- and big-endian by their byte order mark, characters beyond U+FFFF too', () => {
		const text = `${TEXT}🎉 𝄞 漢字\n`;
		expect(decodeCaptionBytes(utf32(text, true))).toEqual({
			text,
			encoding: 'utf-32le',
			warnings: [],
		});
		expect(decodeCaptionBytes(utf32(text, false))).toEqual({
			text,
			encoding: 'utf-32be',
			warnings: [],
		});
	});

	it('reads a UTF-32 value that is no character, and a cut last one, as U+FFFD, saying so', () => {
		const bytes = Buffer.concat([utf32('ab', true), Buffer.from([0x00, 0xd8, 0, 0, 0x63, 0])]);
		expect(decodeCaptionBytes(bytes)).toEqual({
			text: 'ab\ufffd\ufffd',
			encoding: 'utf-32le',
			warnings: [
				{
					message:
						'2 characters of the file are not valid UTF-32LE and read as U+FFFD (�); the file may be cut short or damaged.',
				},
			],
		});
	});

	it('reads UTF-16 without a mark when every other byte is zero, and says it guessed', () => {
		const decoded = decodeCaptionBytes(Buffer.from(TEXT, 'utf16le'));
		expect(decoded).toMatchObject({ text: TEXT, encoding: 'utf-16le' });
		expect(decoded.warnings).toEqual([
			{
				message:
					'The file has no byte order mark but every other byte is zero: read as UTF-16 little-endian. Save it as UTF-8 to be sure it reads as meant.',
			},
		]);
		expect(decodeCaptionBytes(utf16be(TEXT))).toMatchObject({ text: TEXT, encoding: 'utf-16be' });
	});

	it('reads bytes that are not UTF-8 as Windows-1252, naming the lines that are not', () => {
		// "–" is 0x96 and "€" 0x80 in Windows-1252, where Latin-1 has control characters
		const bytes = Buffer.from(TEXT.replace('–', '\x96').replace('€', '\x80'), 'latin1');
		const decoded = decodeCaptionBytes(bytes);
		expect(decoded.text).toBe(TEXT);
		expect(decoded.encoding).toBe('windows-1252');
		expect(decoded.warnings).toEqual([
			{
				message:
					'The file is not UTF-8: read as Windows-1252 (Western European), the encoding of subtitle files from many Windows tools. Bytes that are not UTF-8 are on line 4 ("Café crème – 5 € «très» naïve"). If accented letters look wrong, save the file as UTF-8 and convert it again.',
			},
		]);
		expect(readCaptions('vtt', decoded.text).cues[0].text).toBe('Café crème – 5 € «très» naïve');
	});

	it('says how many characters were not valid UTF-16 instead of replacing them silently', () => {
		const cut = Buffer.concat([
			Buffer.from([0xff, 0xfe]),
			Buffer.from('ok', 'utf16le'),
			Buffer.from([0x41]),
		]);
		expect(decodeCaptionBytes(cut)).toEqual({
			text: 'ok\ufffd',
			encoding: 'utf-16le',
			warnings: [
				{
					message:
						'1 character of the file is not valid UTF-16LE and read as U+FFFD (�); the file may be cut short or damaged.',
				},
			],
		});
	});

	it('reads an empty file as empty text', () => {
		expect(decodeCaptionBytes(new Uint8Array())).toEqual({
			text: '',
			encoding: 'utf-8',
			warnings: [],
		});
	});
});
