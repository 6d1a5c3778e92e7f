import type { CaptionOptions } from './options';

export type { CaptionOptions };

/** Italics, bold and underline, as WebVTT, SRT and TTML can each mark them. */
export interface TextStyle {
	italic?: true;
	bold?: true;
	underline?: true;
}

/** A piece of a cue's text with one style; a cue's runs joined are its text. */
export interface TextRun extends TextStyle {
	text: string;
	/** Who says it, when the cue has several speakers (a cue of one speaker names it in `Cue.voice`). */
	voice?: string;
}

/** WebVTT cue settings as the WebVTT parser reads them (each the last valid one of its name); absent: the default. */
export interface CueSettings {
	vertical?: 'rl' | 'lr';
	/** A line number, or a percentage of the video's height when `snapToLines` is false. */
	line?: number;
	/** False when `line` is a percentage (`line:10%`). */
	snapToLines?: boolean;
	lineAlign?: 'start' | 'center' | 'end';
	/** Percent of the video's width. */
	position?: number;
	positionAlign?: 'line-left' | 'center' | 'line-right';
	/** Percent of the video's width. */
	size?: number;
	align?: 'start' | 'center' | 'end' | 'left' | 'right';
	/** The identifier of a region of the document the cue is shown in. */
	region?: string;
}

/** A WebVTT region (REGION block), every value resolved (WebVTT's defaults where the block gives none). */
export interface CaptionRegion {
	id: string;
	/** Percent of the video's width. */
	width: number;
	lines: number;
	/** Percent of the region's width and height. */
	regionAnchorX: number;
	regionAnchorY: number;
	/** Percent of the video's width and height. */
	viewportAnchorX: number;
	viewportAnchorY: number;
	scroll: '' | 'up';
}

export interface Cue {
	startMs: number;
	endMs: number;
	/** Plain text without markup; lines separated by `\n`. */
	text: string;
	/** The text with its italics, bold and underline; absent when it has none. Its runs joined are `text`. */
	runs?: TextRun[];
	identifier?: string;
	voice?: string;
	settings?: CueSettings;
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
	/** The text with its styles and speakers as WebVTT cue text (<i>, <b>, <u>, <v Name>); absent when it has none. */
	styledText?: string;
}

/**
 * What a reader left out or changed of the file, or could not read as it was meant: never silently. `line` is
 * 1-based in the file read; `cue` 1-based in the captions written.
 */
export interface CaptionWarning {
	line?: number;
	cue?: number;
	/** The text concerned, as found (long text shortened). */
	text?: string;
	/** What happened, why, and how to avoid it. */
	message: string;
	/** Set on the one entry after the first 100 warnings: how many more there were (they are not listed). */
	omitted?: number;
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
	/** WebVTT regions the cues may refer to. */
	regions?: CaptionRegion[];
	/** WebVTT style sheets (the text of each STYLE block). */
	styles?: string[];
	/** What reading the file left out or changed, with the lines concerned. */
	warnings?: CaptionWarning[];
}

/** Receives what a writer could not write as it was (SRT has no escape for text that reads as a tag). */
export type WarningSink = (warning: CaptionWarning) => void;

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
	data?: (document: CaptionDocument, options: CaptionOptions, warn?: WarningSink) => unknown;
	render?: (document: CaptionDocument, options: CaptionOptions, warn?: WarningSink) => string;
	/** Rendering needs the time of every word (`words`). */
	needsWords?: boolean;
}
