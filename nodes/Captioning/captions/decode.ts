// Caption files as bytes to text: a byte order mark says the encoding (UTF-8, UTF-16 or UTF-32, LE or BE); without one the
// bytes are UTF-8 when they are valid UTF-8, else Windows-1252 (the usual encoding of Western European subtitle
// files from Windows tools), read with a warning. No character is replaced silently.
import type { CaptionWarning } from './types';
import { excerpt } from './warnings';

export type CaptionEncoding =
	| 'utf-8'
	| 'utf-16le'
	| 'utf-16be'
	| 'utf-32le'
	| 'utf-32be'
	| 'windows-1252';

export interface DecodedCaptions {
	/** The file's text, without its byte order mark. */
	text: string;
	encoding: CaptionEncoding;
	warnings: CaptionWarning[];
}

// Windows-1252 0x80-0x9F; the five bytes it leaves undefined read as the C1 controls, as WHATWG's decoder does
const CP1252_HIGH =
	'\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
	'\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function windows1252(bytes: Uint8Array): string {
	let text = '';
	for (let at = 0; at < bytes.length; at += 8192) {
		const chunk = bytes.subarray(at, at + 8192);
		text += String.fromCharCode(
			...Array.from(chunk, (byte) =>
				byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH.charCodeAt(byte - 0x80) : byte,
			),
		);
	}
	return text;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function strictUtf8(bytes: Uint8Array): string | undefined {
	try {
		return utf8.decode(bytes);
	} catch {
		return undefined;
	}
}

/** The lines holding bytes that are not UTF-8, at most three, with their text as Windows-1252 reads it. */
function notUtf8Lines(bytes: Uint8Array, text: string): string {
	const lines = text.split(/\r\n|\r|\n/);
	const found: string[] = [];
	let offset = 0;
	for (let index = 0; index < lines.length && found.length < 3; index++) {
		const end = offset + lines[index].length;
		if (strictUtf8(bytes.subarray(offset, end)) === undefined) {
			found.push(`line ${index + 1} ("${excerpt(lines[index].trim())}")`);
		}
		// Windows-1252 is one byte a character: offsets in the text are offsets in the bytes
		offset = end + (text[end] === '\r' && text[end + 1] === '\n' ? 2 : 1);
	}
	return found.join(', ');
}

/** UTF-16 without a byte order mark: text whose every other byte is zero (ASCII-range characters). */
function utf16WithoutBom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
	const sample = Math.min(bytes.length - (bytes.length % 2), 512);
	if (sample < 8) return undefined;
	let evenZeros = 0;
	let oddZeros = 0;
	for (let at = 0; at < sample; at += 2) {
		if (bytes[at] === 0) evenZeros++;
		if (bytes[at + 1] === 0) oddZeros++;
	}
	const pairs = sample / 2;
	if (oddZeros > pairs * 0.9 && evenZeros === 0) return 'utf-16le';
	if (evenZeros > pairs * 0.9 && oddZeros === 0) return 'utf-16be';
	return undefined;
}

/**
 * Decodes a caption file: by its byte order mark (UTF-8, UTF-16 or UTF-32 LE or BE, the mark removed), else as UTF-8 when
 * the bytes are valid UTF-8, else as UTF-16 when every other byte is zero, else as Windows-1252. Reading by a guess
 * (UTF-16 without a mark, Windows-1252) says so in `warnings`.
 */
export function decodeCaptionBytes(bytes: Uint8Array): DecodedCaptions {
	const [b0, b1, b2, b3] = bytes;
	if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) {
		return decodeUtf8(bytes.subarray(3));
	}
	// UTF-32's marks first: the little-endian one starts as UTF-16's does
	if (b0 === 0xff && b1 === 0xfe && b2 === 0 && b3 === 0)
		return decodeUtf32(bytes.subarray(4), true);
	if (b0 === 0 && b1 === 0 && b2 === 0xfe && b3 === 0xff)
		return decodeUtf32(bytes.subarray(4), false);
	if (b0 === 0xff && b1 === 0xfe) return decodeUtf16(bytes.subarray(2), 'utf-16le', []);
	if (b0 === 0xfe && b1 === 0xff) return decodeUtf16(bytes.subarray(2), 'utf-16be', []);
	const guessed = utf16WithoutBom(bytes);
	if (guessed) {
		const name = guessed === 'utf-16le' ? 'UTF-16 little-endian' : 'UTF-16 big-endian';
		return decodeUtf16(bytes, guessed, [
			{
				message: `The file has no byte order mark but every other byte is zero: read as ${name}. Save it as UTF-8 to be sure it reads as meant.`,
			},
		]);
	}
	return decodeUtf8(bytes);
}

function decodeUtf8(bytes: Uint8Array): DecodedCaptions {
	const text = strictUtf8(bytes);
	if (text !== undefined) return { text, encoding: 'utf-8', warnings: [] };
	const western = windows1252(bytes);
	return {
		text: western,
		encoding: 'windows-1252',
		warnings: [
			{
				message: `The file is not UTF-8: read as Windows-1252 (Western European), the encoding of subtitle files from many Windows tools. Bytes that are not UTF-8 are on ${notUtf8Lines(bytes, western)}. If accented letters look wrong, save the file as UTF-8 and convert it again.`,
			},
		],
	};
}

function decodeUtf16(
	bytes: Uint8Array,
	encoding: 'utf-16le' | 'utf-16be',
	warnings: CaptionWarning[],
): DecodedCaptions {
	try {
		const text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes);
		return { text, encoding, warnings };
	} catch {
		// a lone surrogate or an odd last byte: U+FFFD in its place, as any UTF-16 decoder gives, and said
		const text = new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes);
		const bad = text.split('\ufffd').length - 1;
		warnings.push({
			message: `${bad === 1 ? '1 character of the file is' : `${bad} characters of the file are`} not valid ${encoding.toUpperCase()} and read as U+FFFD (�); the file may be cut short or damaged.`,
		});
		return { text, encoding, warnings };
	}
}

/**
 * UTF-32, which TextDecoder does not read: each four bytes a code point, turned into UTF-16 code units and decoded as
 * UTF-16 (no string built a character at a time). A value that is no character, or a cut last one, reads as U+FFFD,
 * and says so.
 */
function decodeUtf32(bytes: Uint8Array, littleEndian: boolean): DecodedCaptions {
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const count = Math.floor(bytes.length / 4);
	const units = new Uint16Array(count * 2 + 1);
	let length = 0;
	let bad = bytes.length % 4 === 0 ? 0 : 1;
	for (let at = 0; at < count; at++) {
		const code = view.getUint32(at * 4, littleEndian);
		if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
			units[length++] = 0xfffd;
			bad++;
		} else if (code > 0xffff) {
			const offset = code - 0x10000;
			units[length++] = 0xd800 + (offset >> 10);
			units[length++] = 0xdc00 + (offset & 0x3ff);
		} else {
			units[length++] = code;
		}
	}
	if (bytes.length % 4 !== 0) units[length++] = 0xfffd;
	const text = new TextDecoder('utf-16le').decode(new Uint8Array(units.buffer, 0, length * 2));
	const encoding = littleEndian ? 'utf-32le' : 'utf-32be';
	const warnings: CaptionWarning[] =
		bad === 0
			? []
			: [
					{
						message: `${bad === 1 ? '1 character of the file is' : `${bad} characters of the file are`} not valid ${encoding.toUpperCase()} and read as U+FFFD (�); the file may be cut short or damaged.`,
					},
				];
	return { text, encoding, warnings };
}
