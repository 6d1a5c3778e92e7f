import { CaptionFormatError } from './errors';
import { CAPTION_FORMATS, captionFormat, conversionsFrom } from './formats';
import { type CaptionOptions, captionOptionsSchema } from './options';
import { cuesToText } from './text';
import type { CaptionDocument, CaptionFormat, CaptionWarning } from './types';
import { capWarnings, Warnings } from './warnings';

interface ConvertRequest {
	from: string;
	to: string;
	content: string;
	/** Checked against the options schema: an option this package does not know is an error. */
	options?: unknown;
}

/** A written caption file and what writing it could not keep as it was. */
export interface RenderedCaptions {
	content: string;
	warnings: CaptionWarning[];
}

interface ConvertedCaptions extends RenderedCaptions {
	mimeType: string;
	/** Without the dot, as n8n binary data expects. */
	fileExtension: string;
}

function supportedList(): string {
	return CAPTION_FORMATS.filter((format) => format.parse)
		.map((from) => `${from.id} → ${conversionsFrom(from).join(', ')}`)
		.join('; ');
}

/** The entry of a format this package reads; throws naming the ones it does. */
export function readableFormat(id: string): CaptionFormat {
	const format = captionFormat(id);
	if (format?.parse) return format;
	const reason = format
		? `${format.label} is written, not read, by this package`
		: 'unknown caption format';
	throw new CaptionFormatError(
		`Cannot convert from "${id}": ${reason}. Supported conversions: ${supportedList()}.`,
	);
}

/** The entry of a format this package writes, checked against what the input carries. */
function writableFormat(from: CaptionFormat, id: string): CaptionFormat {
	const to = captionFormat(id);
	if (to?.render && (!to.needsWords || from.wordTimings)) return to;
	const reason =
		to?.render && to.needsWords
			? `${from.label} has no word timings`
			: `"${id}" is not an output format for ${from.id}`;
	throw new CaptionFormatError(
		`Cannot convert ${from.id} to ${id}: ${reason}. Supported conversions: ${supportedList()}.`,
	);
}

/** Checks conversion options from outside (the editor, an API caller) against the one schema of them. */
export function readOptions(options: unknown): CaptionOptions {
	const parsed = captionOptionsSchema.safeParse(options ?? {});
	if (parsed.success) return parsed.data;
	const issue = parsed.error.issues[0];
	if (issue.code === 'unrecognized_keys') {
		throw new CaptionFormatError(
			`Unknown conversion option ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}: the options are ${Object.keys(captionOptionsSchema.shape).join(', ')}.`,
		);
	}
	const name = issue.path.join('.') || 'options';
	throw new CaptionFormatError(`Invalid conversion option ${name}: ${issue.message}.`);
}

/** Reads a caption file of a format this package reads into the common model, with what it could not read. */
export function readCaptions(
	from: string,
	content: string,
	options: CaptionOptions = {},
): CaptionDocument {
	const format = readableFormat(from);
	if (typeof content !== 'string') {
		throw new CaptionFormatError(`${from} content must be text, got ${typeof content}.`);
	}
	return format.parse!(content, options);
}

/** Writes the common model in a format, checked as convertCaptions checks it, with what it could not write. */
export function renderCaptions(
	from: string,
	to: string,
	document: CaptionDocument,
	options: CaptionOptions = {},
): RenderedCaptions {
	const warnings = new Warnings();
	const content = writableFormat(readableFormat(from), to).render!(document, options, (warning) =>
		warnings.add(warning),
	);
	return { content, warnings: warnings.list() };
}

/** The caption file formats cues can be written in without a file read first (captions from items). */
export const WRITABLE_FILE_FORMATS: readonly CaptionFormat[] = CAPTION_FORMATS.filter(
	(format) => format.render && format.output?.kind === 'file' && !format.needsWords,
);

/**
 * Writes cues that come from no caption file (captions from items) as a file of a format: its content, file type and
 * what writing could not keep as it was. Throws `CaptionFormatError` for a format that is not a caption file.
 */
export function writeCaptionFile(
	to: string,
	document: CaptionDocument,
	options: CaptionOptions = {},
): ConvertedCaptions {
	const target = WRITABLE_FILE_FORMATS.find((format) => format.id === to);
	if (!target) {
		throw new CaptionFormatError(
			`Cannot write captions as "${to}": the caption files this package writes are ${WRITABLE_FILE_FORMATS.map((format) => `${format.id} (${format.label})`).join(', ')}.`,
		);
	}
	const warnings = new Warnings();
	const content = target.render!(document, readOptions(options), (warning) =>
		warnings.add(warning),
	);
	return {
		content,
		warnings: capWarnings(document.warnings, warnings.list()),
		mimeType: target.mimeType,
		fileExtension: target.extension,
	};
}

/**
 * Converts a caption file into another format: its content, file type, and what reading and writing could not
 * keep (`warnings`). Throws `CaptionFormatError` for unsupported pairs, invalid options and content that cannot be
 * read at all.
 */
export function convertCaptions(request: ConvertRequest): ConvertedCaptions {
	const { from, to, content } = request;
	const target = writableFormat(readableFormat(from), to);
	const options = readOptions(request.options);
	const document = readCaptions(from, content, options);
	const written = renderCaptions(from, to, document, options);
	return {
		content: written.content,
		warnings: capWarnings(document.warnings, written.warnings),
		mimeType: target.mimeType,
		fileExtension: target.extension,
	};
}

/**
 * The output of a JSON format as a value for an item's JSON (e.g. segments as an array); what it could not keep as
 * it was goes to `warn`.
 */
export function captionData(
	to: string,
	document: CaptionDocument,
	options: CaptionOptions,
	warn?: (warning: CaptionWarning) => void,
): unknown {
	const target = captionFormat(to);
	if (target?.data === undefined) {
		throw new CaptionFormatError(`"${to}" is not a format written into the item's JSON.`);
	}
	return target.data(document, options, warn);
}

/**
 * Plain transcript of a caption file with what reading it left out, or `undefined` for formats this package cannot
 * read. Throws `CaptionFormatError` when the content cannot be read at all.
 */
export function readTranscript(
	format: string,
	content: string,
): { text: string; warnings: CaptionWarning[] } | undefined {
	if (!captionFormat(format)?.parse) return undefined;
	const document = readCaptions(format, content);
	return { text: cuesToText(document.cues), warnings: document.warnings ?? [] };
}

/**
 * Plain transcript of a caption file, or `undefined` for formats this package cannot read.
 * Throws `CaptionFormatError` when the content is not valid for its format.
 */
export function transcriptFromCaptions(format: string, content: string): string | undefined {
	return readTranscript(format, content)?.text;
}
