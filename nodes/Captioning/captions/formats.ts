// Caption-format facts in one place: the formats the service produces, what the converter reads and writes, each
// format's MIME type and file name, and how content or a URL tells its format.

/** The caption files the service produces (contract 2.4), which are the ones the converter reads. */
export type CaptionSourceFormat = 'vtt' | 'google_stt';
export type CaptionTargetFormat = 'vtt' | 'srt' | 'text' | 'segments' | 'words';

/** The service's formats as parameter options (trigger downloads, Download, Convert). */
export const CAPTION_FORMAT_OPTIONS = [
	{ name: 'Google Speech-to-Text JSON', value: 'google_stt' },
	{ name: 'WebVTT', value: 'vtt' },
];

export const SUPPORTED_CONVERSIONS: Readonly<
	Record<CaptionSourceFormat, readonly CaptionTargetFormat[]>
> = {
	vtt: ['vtt', 'srt', 'text', 'segments'],
	google_stt: ['vtt', 'srt', 'text', 'segments', 'words'],
};

/** The service's formats, best transcript first: Google STT has word timings, WebVTT only its cues. */
export const TRANSCRIPT_SOURCES: readonly CaptionSourceFormat[] = ['google_stt', 'vtt'];

/** Whether a format is one the service produces (and so one the converter reads). */
export function isSourceFormat(format: string): format is CaptionSourceFormat {
	return Object.hasOwn(SUPPORTED_CONVERSIONS, format);
}

const FILE_TYPES: Record<string, { mimeType: string; fileExtension: string }> = {
	vtt: { mimeType: 'text/vtt', fileExtension: 'vtt' },
	srt: { mimeType: 'application/x-subrip', fileExtension: 'srt' },
	google_stt: { mimeType: 'application/json', fileExtension: 'json' },
	text: { mimeType: 'text/plain', fileExtension: 'txt' },
	segments: { mimeType: 'application/json', fileExtension: 'json' },
	words: { mimeType: 'application/json', fileExtension: 'json' },
};
const UNKNOWN_FILE_TYPE = { mimeType: 'application/octet-stream', fileExtension: 'bin' };

function fileType(format: string) {
	return Object.hasOwn(FILE_TYPES, format) ? FILE_TYPES[format] : UNKNOWN_FILE_TYPE;
}

/** MIME type of a caption format; `application/octet-stream` for formats this package does not know. */
export function captionMimeType(format: string): string {
	return fileType(format).mimeType;
}

/** File extension (without the dot) of a caption format; `bin` for unknown formats. */
export function captionFileExtension(format: string): string {
	return fileType(format).fileExtension;
}

/** How a file name of the format ends: ".vtt", or ".google_stt.json" (".json" alone would not say which JSON). */
export function captionFileSuffix(format: string): string {
	const extension = captionFileExtension(format);
	return format === 'google_stt' ? `.google_stt.${extension}` : `.${extension}`;
}

/** A caption file's name without that ending: "talk.google_stt.json" → "talk", "talk.vtt" → "talk". */
export function captionBaseName(fileName: string): string {
	return fileName.replace(/(\.google_stt)?\.[^.]+$/, '');
}

/** Recognises the service's two formats from their content. */
export function detectFormat(content: string): CaptionSourceFormat | undefined {
	const start = content.replace(/^\uFEFF/, '').trimStart();
	if (start.startsWith('WEBVTT')) return 'vtt';
	if (start.startsWith('{')) return 'google_stt';
	return undefined;
}

/** The format a signed URL names (its path ends in .json, or says google_stt), else WebVTT. */
export function formatFromUrl(url: string): CaptionSourceFormat {
	return /google_stt|\.json(\?|$)/i.test(url) ? 'google_stt' : 'vtt';
}
