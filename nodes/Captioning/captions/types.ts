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
	/** Most characters per line; a cue has at most two lines. */
	maxLineChars?: number;
	/** A silence at least this long between words starts a new cue. */
	maxGapMs?: number;
	/** A sentence end only closes a cue that already holds at least this many characters. */
	minCueChars?: number;
}
