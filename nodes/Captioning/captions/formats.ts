// The format registry: one entry per caption format (each in its own file), and everything the nodes ask about
// formats read from it: parameter options, file types and names, detection, conversions and their errors.
// A new format is one file exporting its CaptionFormat and one line in CAPTION_FORMATS.
import { chunksFormat } from './chunks';
import { googleSttFormat } from './googleStt';
import { sbvFormat } from './sbv';
import { srtFormat } from './srt';
import { segmentsFormat, textFormat } from './text';
import { ttmlFormat } from './ttml';
import type { CaptionFormat } from './types';
import { vttFormat } from './vtt';
import { wordsFormat } from './words';

/** Detection tries the entries in this order. */
export const CAPTION_FORMATS: readonly CaptionFormat[] = [
	vttFormat,
	googleSttFormat,
	srtFormat,
	sbvFormat,
	ttmlFormat,
	textFormat,
	segmentsFormat,
	wordsFormat,
	chunksFormat,
];

const BY_ID = new Map(CAPTION_FORMATS.map((format) => [format.id, format]));

/** The entry of a format id; undefined for ids this package does not know. */
export function captionFormat(id: string): CaptionFormat | undefined {
	return BY_ID.get(id);
}

type Option = { name: string; value: string; description?: string };
const byName = (a: Option, b: Option) => a.name.localeCompare(b.name);

/** The formats the service produces, as parameter options (trigger downloads, Download). */
export const CAPTION_FORMAT_OPTIONS: Option[] = CAPTION_FORMATS.filter((f) => f.producedByService)
	.map((f) => ({ name: f.label, value: f.id }))
	.sort(byName);

/** The formats Convert, Check and Fix read. */
export const INPUT_FORMAT_OPTIONS: Option[] = CAPTION_FORMATS.filter((f) => f.parse)
	.map((f) => ({ name: f.label, value: f.id }))
	.sort(byName);

/** The formats Convert writes, with what each gives. */
export const OUTPUT_FORMAT_OPTIONS: Option[] = CAPTION_FORMATS.filter((f) => f.render)
	.map((f) => ({ name: f.label, value: f.id, description: f.description }))
	.sort(byName);

/** The formats written as files (into a binary field) rather than into the item's JSON. */
export const FILE_OUTPUT_FORMATS: string[] = CAPTION_FORMATS.filter(
	(f) => f.render && f.output?.kind === 'file',
).map((f) => f.id);

/** The caption files (file outputs) as parameter options, e.g. Fix's output format. */
export const FILE_FORMAT_OPTIONS: Option[] = OUTPUT_FORMAT_OPTIONS.filter((option) =>
	FILE_OUTPUT_FORMATS.includes(option.value),
).map(({ name, value }) => ({ name, value }));

/** The service's formats that give a transcript, best first: word timings before cues alone. */
export const TRANSCRIPT_SOURCES: readonly string[] = CAPTION_FORMATS.filter(
	(f) => f.producedByService && f.parse,
)
	.sort((a, b) => Number(b.wordTimings) - Number(a.wordTimings))
	.map((f) => f.id);

/** Whether the captioning service produces this format (contract 2.4). */
export function isServiceFormat(format: string): boolean {
	return captionFormat(format)?.producedByService === true;
}

/** The formats each readable format converts to: word outputs need word timings. */
export function conversionsFrom(from: CaptionFormat): string[] {
	return CAPTION_FORMATS.filter((to) => to.render && (!to.needsWords || from.wordTimings)).map(
		(to) => to.id,
	);
}

const UNKNOWN_FILE_TYPE = { mimeType: 'application/octet-stream', extension: 'bin' };

/** MIME type of a caption format; `application/octet-stream` for formats this package does not know. */
export function captionMimeType(format: string): string {
	return (captionFormat(format) ?? UNKNOWN_FILE_TYPE).mimeType;
}

/** File extension (without the dot) of a caption format; `bin` for unknown formats. */
export function captionFileExtension(format: string): string {
	return (captionFormat(format) ?? UNKNOWN_FILE_TYPE).extension;
}

/** How a file name of the format ends: ".vtt", or ".google_stt.json" (".json" alone would not say which JSON). */
export function captionFileSuffix(format: string): string {
	return captionFormat(format)?.fileSuffix ?? `.${captionFileExtension(format)}`;
}

const SUFFIXES = CAPTION_FORMATS.flatMap((format) => format.fileSuffix ?? []);

/** A caption file's name without that ending: "talk.google_stt.json" → "talk", "talk.vtt" → "talk". */
export function captionBaseName(fileName: string): string {
	const suffix = SUFFIXES.find((ending) => fileName.toLowerCase().endsWith(ending));
	if (suffix !== undefined && fileName.length > suffix.length) {
		return fileName.slice(0, -suffix.length);
	}
	return fileName.replace(/\.[^.]+$/, '');
}

/** Recognises a readable format from its content; undefined when none matches. */
export function detectFormat(content: string): string | undefined {
	const start = content
		.replace(/^\uFEFF/, '')
		.trimStart()
		.slice(0, 512);
	return CAPTION_FORMATS.find((format) => format.parse && format.detect?.(start))?.id;
}

/** The format a file URL names (its path ends in .json or .srt, or says google_stt), else WebVTT. */
export function formatFromUrl(url: string): string {
	const path = url.replace(/[#].*$/, '');
	return CAPTION_FORMATS.find((f) => f.parse && f.urlPattern?.test(path))?.id ?? vttFormat.id;
}
