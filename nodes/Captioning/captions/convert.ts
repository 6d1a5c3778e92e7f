import { z } from 'zod';

import { CaptionFormatError } from './errors';
import {
	captionFileExtension,
	captionMimeType,
	type CaptionSourceFormat,
	type CaptionTargetFormat,
	isSourceFormat,
	SUPPORTED_CONVERSIONS,
} from './formats';
import { googleSttToCues, parseGoogleStt } from './googleStt';
import { formatSrt, parseSrt } from './srt';
import { cuesToSegments, cuesToText } from './text';
import { msToSeconds } from './time';
import type { Cue, Word } from './types';
import { formatVtt, parseVtt } from './vtt';

const count = z.number().int().nonnegative();
const positive = z.number().int().positive();

const convertOptionsSchema = z.object({
	maxCueMs: positive.optional(),
	maxCueChars: positive.optional(),
	maxLineChars: positive.optional(),
	maxGapMs: count.optional(),
	minCueChars: count.optional(),
	paragraphGapMs: count.optional(),
	/** Text after `WEBVTT` on the first line of WebVTT output. */
	header: z.string().optional(),
	/** Prefix SRT cues with the speaker name. */
	includeVoice: z.boolean().optional(),
});

type ConvertOptions = z.infer<typeof convertOptionsSchema>;

interface ConvertRequest {
	from: CaptionSourceFormat;
	to: CaptionTargetFormat;
	content: string;
	options?: ConvertOptions;
}

interface ConvertedCaptions {
	content: string;
	mimeType: string;
	/** Without the dot, as n8n binary data expects. */
	fileExtension: string;
}

interface WordJson {
	start: number;
	end: number;
	text: string;
	confidence?: number;
	speakerTag?: number;
}

function supportedList(): string {
	return Object.entries(SUPPORTED_CONVERSIONS)
		.map(([from, targets]) => `${from} → ${targets.join(', ')}`)
		.join('; ');
}

function checkConversion(from: string, to: string): void {
	const supported = `Supported conversions: ${supportedList()}.`;
	if (!isSourceFormat(from)) {
		throw new CaptionFormatError(
			`Cannot convert from "${from}": unknown caption format. ${supported}`,
		);
	}
	if (!SUPPORTED_CONVERSIONS[from].includes(to as CaptionTargetFormat)) {
		const reason =
			from === 'vtt' && to === 'words'
				? 'WebVTT has no word timings'
				: `"${to}" is not an output format for ${from}`;
		throw new CaptionFormatError(`Cannot convert ${from} to ${to}: ${reason}. ${supported}`);
	}
}

function readOptions(options: unknown): ConvertOptions {
	const parsed = convertOptionsSchema.safeParse(options ?? {});
	if (parsed.success) return parsed.data;
	const issue = parsed.error.issues[0];
	const name = issue.path.join('.') || 'options';
	throw new CaptionFormatError(`Invalid conversion option ${name}: ${issue.message}.`);
}

function wordsJson(words: readonly Word[]): WordJson[] {
	return words.map(({ startMs, endMs, text, confidence, speakerTag }) => ({
		start: msToSeconds(startMs),
		end: msToSeconds(endMs),
		text,
		...(confidence === undefined ? {} : { confidence }),
		...(speakerTag === undefined ? {} : { speakerTag }),
	}));
}

function render(to: CaptionTargetFormat, cues: Cue[], options: ConvertOptions): string {
	switch (to) {
		case 'vtt':
			return formatVtt(cues, options);
		case 'srt':
			return formatSrt(cues, options);
		case 'text':
			return cuesToText(cues, options);
		default:
			return JSON.stringify(cuesToSegments(cues), null, 2);
	}
}

/**
 * Converts a caption file of the service into another format. Throws `CaptionFormatError` for
 * unsupported pairs, invalid options and content that cannot be read.
 */
export function convertCaptions(request: ConvertRequest): ConvertedCaptions {
	const { from, to, content } = request;
	checkConversion(from, to);
	const options = readOptions(request.options);
	let output: string;
	if (from === 'vtt') {
		if (typeof content !== 'string') {
			throw new CaptionFormatError('vtt content must be text, got ' + typeof content + '.');
		}
		output = render(to, parseVtt(content), options);
	} else {
		const transcript = parseGoogleStt(content);
		output =
			to === 'words'
				? JSON.stringify(wordsJson(transcript.words), null, 2)
				: render(to, googleSttToCues(transcript, options), options);
	}
	return {
		content: output,
		mimeType: captionMimeType(to),
		fileExtension: captionFileExtension(to),
	};
}

/**
 * Plain transcript of a caption file, or `undefined` for formats this package cannot read.
 * Throws `CaptionFormatError` when the content is not valid for its format.
 */
export function transcriptFromCaptions(format: string, content: string): string | undefined {
	switch (format) {
		case 'vtt':
		case 'google_stt':
			return convertCaptions({ from: format, to: 'text', content }).content;
		case 'srt':
			return cuesToText(parseSrt(content));
		default:
			return undefined;
	}
}
