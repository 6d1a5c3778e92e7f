import { z } from 'zod';

import { CaptionFormatError } from './errors';
import { displayWidth, joinText, tokenize } from './layout';
import { parseGoogleDuration } from './time';
import type { CaptionFormat, CaptionWarning, Cue, CueLayoutOptions, Word } from './types';
import { excerpt } from './warnings';
import { spreadWords, wordsToCues } from './words';

// A protobuf Duration in the forms parseGoogleDuration reads. A union of plain schemas rather than a refinement: a
// refinement's context per call left about 500 bytes a word to collect, 330 MB for a 100 MB response.
const DURATION = {
	message: 'expected a Duration such as "1.300s", "12s" or {"seconds":"1","nanos":300000000}',
};
const duration = z.union(
	[
		z.string().regex(/^\s*\d+(?:\.\d{1,9})?s\s*$/, DURATION),
		z.number().finite(DURATION).nonnegative(DURATION),
		z
			.object({
				seconds: z
					.union([
						z.string().regex(/^\d+$/, DURATION),
						z.number().int(DURATION).nonnegative(DURATION),
					])
					.optional(),
				nanos: z.number().int(DURATION).min(0, DURATION).max(999_999_999, DURATION).optional(),
			})
			.passthrough(),
	],
	{ errorMap: () => DURATION },
);

const googleSttWordSchema = z
	.object({
		startTime: duration.nullish(),
		endTime: duration.nullish(),
		// names used by the v2 API
		startOffset: duration.nullish(),
		endOffset: duration.nullish(),
		word: z.string().nullish(),
		confidence: z.number().nullish(),
		speakerTag: z.number().int().nullish(),
	})
	.passthrough();

const googleSttAlternativeSchema = z
	.object({
		transcript: z.string().nullish(),
		confidence: z.number().nullish(),
		words: z.array(googleSttWordSchema).nullish(),
	})
	.passthrough();

const googleSttResultSchema = z
	.object({
		alternatives: z.array(googleSttAlternativeSchema).nullish(),
		resultEndTime: duration.nullish(),
		resultEndOffset: duration.nullish(),
		channelTag: z.number().int().nullish(),
		languageCode: z.string().nullish(),
	})
	.passthrough();

/** A Google Speech-to-Text recognition response; fields not listed here are kept as they are. */
export const googleSttSchema = z
	.object({ results: z.array(googleSttResultSchema).nullish() })
	.passthrough();

// The response is checked a result at a time against the schema above: checking a 100 MB response whole copies
// every object of it at once (about 750 MB at its peak), one result at a time leaves little to collect.
const responseShape = googleSttSchema.extend({ results: z.array(z.unknown()).nullish() });

type GoogleSttWordJson = z.infer<typeof googleSttWordSchema>;

/** One recognition result with its time span: from the previous result's end to its own. */
interface GoogleSttResult {
	startMs: number;
	endMs: number;
	transcript: string;
	/** Empty when the result has no word timings. */
	words: Word[];
	confidence?: number;
	languageCode?: string;
	channelTag?: number;
}

interface GoogleSttTranscript {
	words: Word[];
	transcript: string;
	/** Mean confidence of the results that report one. */
	confidence?: number;
	results: GoogleSttResult[];
}

// Used to give a result without any timing a plausible duration.
const READING_CHARS_PER_SECOND = 15;

function readJson(text: string): unknown {
	let failure: SyntaxError | undefined;
	try {
		return JSON.parse(text.replace(/^\uFEFF/, ''));
	} catch (error) {
		failure = error as SyntaxError;
	}
	// thrown outside the catch: this pure module has no n8n context; the node wraps it in NodeOperationError
	const reason = failure.message;
	const line = /\bline (\d+)/.exec(reason)?.[1];
	throw new CaptionFormatError(
		`google_stt content is not valid JSON (${reason}); expected a Google Speech-to-Text response such as {"results":[{"alternatives":[{"transcript":"..."}]}]}.`,
		{ line: line === undefined ? undefined : Number(line), cause: failure },
	);
}

function describePath(path: (string | number)[]): string {
	return path.reduce<string>(
		(text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${key}` : key),
		'',
	);
}

function toWords(raw: GoogleSttWordJson[], resultStartMs: number): Word[] {
	const start = (word: GoogleSttWordJson) =>
		parseGoogleDuration(word.startTime ?? word.startOffset);
	const end = (word: GoogleSttWordJson) => parseGoogleDuration(word.endTime ?? word.endOffset);
	// word confidence without time offsets: the transcript is the better source
	if (raw.some((word) => start(word) === undefined && end(word) === undefined)) return [];
	let previousEndMs = resultStartMs;
	const words: Word[] = [];
	for (const entry of raw) {
		const startMs = start(entry) ?? previousEndMs;
		const endMs = Math.max(startMs, end(entry) ?? startMs);
		previousEndMs = endMs;
		const text = (entry.word ?? '').trim();
		if (text === '') continue;
		const word: Word = { startMs, endMs, text };
		if (typeof entry.confidence === 'number') word.confidence = entry.confidence;
		// Google's speakerTag 0 means "not set": only tags from 1 up name a speaker
		if (typeof entry.speakerTag === 'number' && entry.speakerTag >= 1) {
			word.speakerTag = entry.speakerTag;
		}
		words.push(word);
	}
	return words;
}

/**
 * With speaker diarization Google repeats every word, now with its speaker tag, in one last
 * result. Those words are handed back to the results they were spoken in so nothing is doubled.
 */
function mergeDiarization(results: GoogleSttResult[]): GoogleSttResult[] {
	const earlier = results.slice(0, -1);
	const summary = results[results.length - 1];
	const earlierWords = earlier.flatMap((result) => result.words);
	const isSummary =
		earlierWords.length > 0 &&
		summary.words.length >= earlierWords.length &&
		summary.words.every((word) => word.speakerTag !== undefined) &&
		summary.words[0].startMs <= earlierWords[0].startMs;
	if (!isSummary) return results;
	const buckets = earlier.map((): Word[] => []);
	// the first result that ends after the word starts, found by halving over the latest end so far (which first
	// passes a time where some result's end first does): a linear search per word was quadratic
	const latestEnd: number[] = [];
	for (const result of earlier) {
		latestEnd.push(Math.max(result.endMs, latestEnd[latestEnd.length - 1] ?? -Infinity));
	}
	for (const word of summary.words) {
		let low = 0;
		let high = earlier.length;
		while (low < high) {
			const middle = (low + high) >>> 1;
			if (word.startMs < latestEnd[middle]) high = middle;
			else low = middle + 1;
		}
		buckets[low === earlier.length ? earlier.length - 1 : low].push(word);
	}
	return earlier.map((result, index) => ({ ...result, words: buckets[index] }));
}

function notGoogleStt(issue: z.ZodIssue): never {
	const where = issue.path.length > 0 ? ` at ${describePath(issue.path)}` : '';
	throw new CaptionFormatError(
		`google_stt content is not a Google Speech-to-Text response${where}: ${issue.message}. Expected {"results":[{"alternatives":[{"transcript":"...","words":[{"startTime":"1.300s","endTime":"1.600s","word":"..."}]}],"resultEndTime":"4.100s"}]}.`,
	);
}

/** One result with its time span: from the end of the channel's previous result to its own. */
function toResult(
	result: z.infer<typeof googleSttResultSchema>,
	channelEndMs: Map<number | undefined, number>,
): GoogleSttResult {
	const alternative = result.alternatives?.[0];
	const channelTag = result.channelTag ?? undefined;
	const startMs = channelEndMs.get(channelTag) ?? 0;
	const words = toWords(alternative?.words ?? [], startMs);
	const declaredEndMs = parseGoogleDuration(result.resultEndTime ?? result.resultEndOffset);
	const endMs = Math.max(startMs, declaredEndMs ?? words.at(-1)?.endMs ?? startMs);
	channelEndMs.set(channelTag, endMs);
	const normalized: GoogleSttResult = {
		startMs,
		endMs,
		transcript: (alternative?.transcript ?? '').trim(),
		words,
	};
	if (typeof alternative?.confidence === 'number') normalized.confidence = alternative.confidence;
	if (result.languageCode) normalized.languageCode = result.languageCode;
	if (channelTag !== undefined) normalized.channelTag = channelTag;
	return normalized;
}

/**
 * Reads a google_stt caption file (JSON text or an already parsed object). Only the first, most
 * likely, alternative of each result is used.
 */
export function parseGoogleStt(input: unknown): GoogleSttTranscript {
	const data = typeof input === 'string' ? readJson(input) : input;
	const response = responseShape.safeParse(data);
	if (!response.success) notGoogleStt(response.error.issues[0]);
	const channelEndMs = new Map<number | undefined, number>();
	let results: GoogleSttResult[] = [];
	(response.data.results ?? []).forEach((raw, index) => {
		const parsed = googleSttResultSchema.safeParse(raw);
		if (!parsed.success) {
			const issue = parsed.error.issues[0];
			notGoogleStt({ ...issue, path: ['results', index, ...issue.path] });
		}
		results.push(toResult(parsed.data, channelEndMs));
	});
	if (results.length > 1) results = mergeDiarization(results);

	const confidences = results.flatMap((result) => result.confidence ?? []);
	const transcript: GoogleSttTranscript = {
		words: results.flatMap((result) => result.words),
		transcript: joinText(results.map((result) => result.transcript)),
		results,
	};
	if (confidences.length > 0) {
		transcript.confidence = confidences.reduce((sum, value) => sum + value, 0) / confidences.length;
	}
	return transcript;
}

/** A result's transcript spread over its time span, or over a reading time when it has none. */
function estimateWords(result: GoogleSttResult): Word[] {
	const letters = tokenize(result.transcript).reduce((sum, token) => sum + displayWidth(token), 0);
	const endMs =
		result.endMs > result.startMs
			? result.endMs
			: result.startMs + Math.max(1000, Math.round((letters * 1000) / READING_CHARS_PER_SECOND));
	return spreadWords(result.transcript, result.startMs, endMs);
}

/**
 * Lays a google_stt transcript out as cues. Results without word timings fall back to their
 * transcript, spread over the result's time span.
 */
export function googleSttToCues(
	transcript: GoogleSttTranscript,
	options: CueLayoutOptions = {},
): Cue[] {
	const cues: Cue[] = [];
	let run: Word[] = [];
	// one push per cue: a spread of a long recording's cues passes more arguments than the stack holds
	const add = (made: readonly Cue[]) => {
		for (const cue of made) cues.push(cue);
	};
	const flush = () => {
		add(wordsToCues(run, options));
		run = [];
	};
	let languageCode: string | undefined;
	for (const result of transcript.results) {
		// a switch of language is a new sentence even without a pause
		if (result.languageCode !== languageCode) flush();
		languageCode = result.languageCode;
		if (result.words.length > 0) {
			for (const word of result.words) run.push(word);
		} else if (result.transcript !== '') {
			flush();
			add(wordsToCues(estimateWords(result), options));
		}
	}
	flush();
	return cues;
}

/**
 * The cues follow the word timings where a result has them: when the words hold fewer words than the results'
 * transcripts, the rest of the transcript is in no cue, and a warning says so with the results concerned.
 */
export function wordTimingGaps(transcript: GoogleSttTranscript): CaptionWarning[] {
	const short = transcript.results
		.map((result, index) => ({ result, index }))
		.filter(
			({ result }) =>
				result.words.length > 0 &&
				tokenize(result.transcript).length >
					tokenize(joinText(result.words.map((w) => w.text))).length,
		);
	if (short.length === 0) return [];
	const listed = short
		.slice(0, 3)
		.map(({ result, index }) => `result ${index + 1} ("${excerpt(result.transcript)}")`);
	return [
		{
			text: excerpt(short[0].result.transcript),
			message: `The word timings hold fewer words than the transcript of ${short.length === 1 ? 'one result' : `${short.length} results`}: ${listed.join(', ')}${short.length > 3 ? ', ...' : ''}. The cues follow the word timings, so the words they lack are in no cue.`,
		},
	];
}

export const googleSttFormat: CaptionFormat = {
	id: 'google_stt',
	label: 'Google Speech-to-Text JSON',
	description: 'A Google Speech-to-Text recognition response',
	mimeType: 'application/json',
	extension: 'json',
	// ".json" alone would not say which JSON
	fileSuffix: '.google_stt.json',
	producedByService: true,
	wordTimings: true,
	detect: (start) => start.startsWith('{'),
	urlPattern: /google_stt|\.json(\?|$)/i,
	parse: (content, options) => {
		const transcript = parseGoogleStt(content);
		const language = transcript.results.find((result) => result.languageCode)?.languageCode;
		const warnings = wordTimingGaps(transcript);
		return {
			cues: googleSttToCues(transcript, options),
			words: transcript.words,
			...(language === undefined ? {} : { language }),
			...(warnings.length === 0 ? {} : { warnings }),
		};
	},
};
