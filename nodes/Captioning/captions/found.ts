// What a file that is not what was expected is, in words that quote none of it: a fetched body may be anything an
// internal service answers (a metadata document, an error page with the request in it), so a message says its kind,
// never its text. "The file at files.example.com is not WebVTT: it starts with a JSON object."
import { CAPTION_FORMATS } from './formats';

/** How much of the start is looked at. */
const LOOK_AT = 512;

/** Byte signatures of the kinds of file a caption URL may serve by mistake. */
const SIGNATURES: ReadonlyArray<[number[], string, number?]> = [
	[[0x25, 0x50, 0x44, 0x46, 0x2d], 'it is a PDF document'],
	[[0x50, 0x4b, 0x03, 0x04], 'it is a ZIP archive (or an Office document)'],
	[[0x1f, 0x8b], 'it is gzip-compressed data'],
	[[0x89, 0x50, 0x4e, 0x47], 'it is a PNG image'],
	[[0xff, 0xd8, 0xff], 'it is a JPEG image'],
	[[0x47, 0x49, 0x46, 0x38], 'it is a GIF image'],
	[[0x49, 0x44, 0x33], 'it is an MP3 file'],
	[[0x4f, 0x67, 0x67, 0x53], 'it is an Ogg file'],
	[[0x52, 0x49, 0x46, 0x46], 'it is a RIFF file (WAV or AVI)'],
	[[0x66, 0x74, 0x79, 0x70], 'it is an MP4 or QuickTime file', 4],
];

function bytesOf(content: string | Uint8Array): Uint8Array {
	return typeof content === 'string'
		? Uint8Array.from(content.slice(0, LOOK_AT), (c) => c.charCodeAt(0) & 0xff)
		: content.subarray(0, LOOK_AT);
}

function textOf(content: string | Uint8Array): string {
	const text =
		typeof content === 'string'
			? content.slice(0, LOOK_AT * 4)
			: new TextDecoder('utf-8').decode(content.subarray(0, LOOK_AT * 4));
	return text
		.replace(/^\uFEFF/, '')
		.trimStart()
		.slice(0, LOOK_AT);
}

/** Control characters other than white space: a text file has none, most binary files many. */
function looksBinary(text: string): boolean {
	// eslint-disable-next-line no-control-regex
	const controls = text.match(/[\u0000-\u0008\u000e-\u001f\ufffd]/g)?.length ?? 0;
	return controls > 0 && controls * 20 >= text.length;
}

function markup(text: string): string | undefined {
	const start = text.toLowerCase();
	if (/^<!doctype html|^<html[\s>]|^(<!--[\s\S]*?-->\s*)*<(head|body)[\s>]/.test(start)) {
		return 'it is an HTML page';
	}
	if (!start.startsWith('<')) return undefined;
	const root =
		/^(?:<\?xml[\s\S]*?\?>\s*)?(?:<!--[\s\S]*?-->\s*|<!doctype[^>]*>\s*)*<([a-z_][\w.:-]*)/.exec(
			start,
		)?.[1];
	if (root === 'html') return 'it is an HTML page';
	if (root === 'tt' || root?.endsWith(':tt')) return 'it is TTML';
	return root ? 'it starts with an XML document' : 'it starts with markup';
}

/**
 * The kind of `content` (the first bytes of a fetched body, or its decoded text), as a clause that starts with
 * "it": "it is empty", "it starts with a JSON object", "it is an HTML page", "it looks like SRT", "it is a PDF
 * document", "it is binary data", "it is text in no caption format". Never any of its text.
 */
export function describeFound(content: string | Uint8Array): string {
	const bytes = bytesOf(content);
	for (const [signature, words, at = 0] of SIGNATURES) {
		if (signature.every((byte, i) => bytes[at + i] === byte)) return words;
	}
	const text = textOf(content);
	if (text.trim() === '') return 'it is empty';
	if (looksBinary(text)) return 'it is binary data';
	if (text.startsWith('{')) return 'it starts with a JSON object';
	if (text.startsWith('[')) return 'it starts with a JSON array';
	const tagged = markup(text);
	if (tagged) return tagged;
	const format = CAPTION_FORMATS.find((f) => f.detect?.(text));
	return format ? `it looks like ${format.label}` : 'it is text in no caption format';
}

/**
 * Why a fetched file of the `label` format cannot be read, as a clause after "the file at …": "is not WebVTT: it
 * starts with a JSON object", or, when it does look like that format, "cannot be read as WebVTT (line 3): it breaks
 * the format's rules there". Quotes nothing: the readers' own messages quote the line they stopped at.
 */
export function whyUnreadable(label: string, content: string | Uint8Array, line?: number): string {
	const found = describeFound(content);
	if (found !== `it looks like ${label}`) return `is not ${label}: ${found}`;
	return `cannot be read as ${label}${line === undefined ? '' : ` (line ${line})`}: it breaks the format's rules there`;
}
