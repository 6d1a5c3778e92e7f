export interface Cue {
	startMs: number;
	endMs: number;
	/** Plain text without markup; lines separated by `\n`. */
	text: string;
	identifier?: string;
	voice?: string;
	/** Raw WebVTT cue settings, e.g. `align:start position:10%`. */
	settings?: string;
}

export interface Word {
	startMs: number;
	endMs: number;
	text: string;
	confidence?: number;
	speakerTag?: number;
}

export interface Segment {
	/** Seconds with millisecond precision. */
	start: number;
	end: number;
	/** `hh:mm:ss.ttt` */
	startTime: string;
	endTime: string;
	text: string;
	voice?: string;
}

export interface CueLayoutOptions {
	/** Longest time a cue stays on screen. */
	maxCueMs?: number;
	/** Most characters in one cue (both lines). */
	maxCueChars?: number;
	/** Most characters per line. */
	maxLineChars?: number;
	/** Most lines per cue; two unless set. */
	maxLines?: number;
	/** Most words per cue, when a reading speed in words per minute bounds it. */
	maxCueWords?: number;
	/** A silence at least this long between words starts a new cue. */
	maxGapMs?: number;
	/** A sentence end only closes a cue that already holds at least this many characters. */
	minCueChars?: number;
}

/** What a caption file says, whatever its format: cues, and the words with their times when it has them. */
export interface CaptionDocument {
	cues: Cue[];
	/** Word timings (Google Speech-to-Text); absent for formats that only time cues. */
	words?: Word[];
	/** BCP 47 language of the captions when the file names one. */
	language?: string;
}

/** Options of parsing and rendering; each format reads the ones it uses and ignores the rest. */
export interface CaptionOptions extends CueLayoutOptions {
	/** Text after `WEBVTT` on the first line of WebVTT output. */
	header?: string;
	/** Prefix cues with the speaker name in formats without voice markup (SRT, SBV, TTML). */
	includeVoice?: boolean;
	/** A silence at least this long between cues starts a new paragraph of plain text. */
	paragraphGapMs?: number;
	/** Transcript chunks: at most this long, in minutes. */
	chunkMinutes?: number;
	/** Transcript chunks: at most about this many tokens (about 4 characters each). */
	chunkTokens?: number;
	/** `xml:lang` of TTML output when the captions do not name their language. */
	language?: string;
}

/**
 * One caption format: its facts (name, file type, whether the service produces it) and what this package can
 * do with it. Convert's options, detection, file names and errors read these entries (see formats.ts).
 */
export interface CaptionFormat {
	/** The value in parameters and in the service's `transcriptions[].format`, e.g. `vtt`. */
	id: string;
	/** As the editor shows it, e.g. `WebVTT`. */
	label: string;
	/** What Convert's "To" option says about it. */
	description: string;
	mimeType: string;
	/** Without the dot, as n8n binary data expects. */
	extension: string;
	/** How a file name of the format ends when `.extension` alone would not say which format, e.g. `.google_stt.json`. */
	fileSuffix?: string;
	/** Whether the captioning service produces files of this format (contract 2.4). */
	producedByService: boolean;
	/** Whether its files carry the time of every word. */
	wordTimings: boolean;
	/** Where Convert puts the output: a file in a binary field, or a field of the item's JSON. */
	output?: { kind: 'file' } | { kind: 'json'; field: string };
	/** Recognises the format from the start of its content (BOM and leading blank space removed). */
	detect?: (start: string) => boolean;
	/** Recognises the format from a file URL. */
	urlPattern?: RegExp;
	parse?: (content: string, options: CaptionOptions) => CaptionDocument;
	/** Output as a value for the item's JSON (formats whose output is JSON). */
	data?: (document: CaptionDocument, options: CaptionOptions) => unknown;
	render?: (document: CaptionDocument, options: CaptionOptions) => string;
	/** Rendering needs the time of every word (`words`). */
	needsWords?: boolean;
}
