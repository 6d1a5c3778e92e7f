import { z } from 'zod';

import { CaptionFormatError } from './errors';
import { CAPTION_FORMATS, captionFormat, conversionsFrom } from './formats';
import { cuesToText } from './text';
import type { CaptionDocument, CaptionFormat, CaptionOptions } from './types';

const count = z.number().int().nonnegative();
const positive = z.number().int().positive();

const convertOptionsSchema = z.object({
	maxCueMs: positive.optional(),
	maxCueChars: positive.optional(),
	maxLineChars: positive.optional(),
	maxLines: positive.optional(),
	maxGapMs: count.optional(),
	minCueChars: count.optional(),
	paragraphGapMs: count.optional(),
	header: z.string().optional(),
	includeVoice: z.boolean().optional(),
	chunkMinutes: z.number().positive().optional(),
	chunkTokens: positive.optional(),
	language: z.string().optional(),
});

interface ConvertRequest {
	from: string;
	to: string;
	content: string;
	options?: CaptionOptions;
}

interface ConvertedCaptions {
	content: string;
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

/** Checks conversion options; unknown ones are ignored. */
export function readOptions(options: unknown): CaptionOptions {
	const parsed = convertOptionsSchema.safeParse(options ?? {});
	if (parsed.success) return parsed.data;
	const issue = parsed.error.issues[0];
	const name = issue.path.join('.') || 'options';
	throw new CaptionFormatError(`Invalid conversion option ${name}: ${issue.message}.`);
}

/** Reads a caption file of a format this package reads into the common model. */
export function readCaptions(
	from: string,
	content: string,
	options: CaptionOptions = {},
): CaptionDocument {
	const format = readableFormat(from);
	if (typeof content !== 'string') {
		throw new CaptionFormatError(`${from} content must be text, got ${typeof content}.`);
	}
	return format.parse!(content, readOptions(options));
}

/**
 * Converts a caption file into another format. Throws `CaptionFormatError` for unsupported pairs,
 * invalid options and content that cannot be read.
 */
export function convertCaptions(request: ConvertRequest): ConvertedCaptions {
	const { from, to, content } = request;
	const target = writableFormat(readableFormat(from), to);
	const options = readOptions(request.options);
	const document = readCaptions(from, content, options);
	return {
		content: target.render!(document, options),
		mimeType: target.mimeType,
		fileExtension: target.extension,
	};
}

/** The output of a JSON format as a value for an item's JSON (e.g. segments as an array). */
export function captionData(
	to: string,
	document: CaptionDocument,
	options: CaptionOptions,
): unknown {
	const target = captionFormat(to);
	if (target?.data === undefined) {
		throw new CaptionFormatError(`"${to}" is not a format written into the item's JSON.`);
	}
	return target.data(document, options);
}

/** Writes the common model in a format, checked as convertCaptions checks it. */
export function renderCaptions(
	from: string,
	to: string,
	document: CaptionDocument,
	options: CaptionOptions = {},
): string {
	return writableFormat(readableFormat(from), to).render!(document, readOptions(options));
}

/**
 * Plain transcript of a caption file, or `undefined` for formats this package cannot read.
 * Throws `CaptionFormatError` when the content is not valid for its format.
 */
export function transcriptFromCaptions(format: string, content: string): string | undefined {
	if (!captionFormat(format)?.parse) return undefined;
	return cuesToText(readCaptions(format, content).cues);
}
