// Style-guide profiles for Check and Fix. Every number is taken from the guide named in `source`; docs/captions.md
// quotes the sections and says how each number was verified.

/** What a profile limits; a limit left out is not checked. Overlaps, empty cues and cues that end before they start are always checked. */
export interface CaptionLimits {
	/** Most characters on a line, counted as screen width (CJK and emoji count two). */
	maxCharsPerLine?: number;
	maxLines?: number;
	/** Reading speed: characters (spaces and punctuation included, line breaks not) per second on screen. */
	maxCharsPerSecond?: number;
	/** Reading speed in words per minute on screen. */
	maxWordsPerMinute?: number;
	minDurationMs?: number;
	maxDurationMs?: number;
	/** Shortest gap between one cue's end and the next cue's start (unless `minGapFrames` is set). */
	minGapMs?: number;
	/** Cues may follow each other without any gap, although shorter gaps than the minimum are not allowed. */
	allowChained?: boolean;
	/**
	 * Frames per second of the video. With it, gaps and durations are counted in whole frames (times rounded to the
	 * nearest frame) and messages give frames and seconds.
	 */
	frameRate?: number;
	/** Shortest gap in frames, whatever the frame rate (Netflix: 2). Counted at `frameRate`, 24 when unset. */
	minGapFrames?: number;
	/**
	 * Gaps this long or shorter, and longer than the minimum gap, should be closed to the minimum ("chaining":
	 * Netflix closes gaps of half a second, 12 frames at 24 fps, to 2 frames).
	 */
	chainGapMs?: number;
	/**
	 * Check that no line ends on a word belonging with the next (an article, a subject pronoun, a preposition ...)
	 * where another break fits: the guides ask for breaks at natural linguistic points (rule lineBreak).
	 */
	lineBreaks?: boolean;
}

export interface CaptionProfile {
	id: string;
	name: string;
	/** The guide, the sections the numbers come from, and where to read it. */
	source: string;
	url: string;
	limits: CaptionLimits;
}

// Netflix counts gaps in frames: 2 at any frame rate; gaps of half a second or less (12 frames at 24 fps) closed
// to 2 frames. The frame rate is the video's (Check and Fix ask for it; 24 fps unless chosen).
const NETFLIX_TIMING: CaptionLimits = {
	maxCharsPerLine: 42,
	maxLines: 2,
	minDurationMs: 833,
	maxDurationMs: 7000,
	minGapFrames: 2,
	chainGapMs: 500,
	allowChained: false,
	frameRate: 24,
	lineBreaks: true,
};

export const CAPTION_PROFILES: readonly CaptionProfile[] = [
	{
		id: 'netflixEnglish',
		name: 'Netflix English (USA), Adult Programs',
		source:
			'Netflix English (USA) Timed Text Style Guide I.2 (42 characters per line), I.14 (up to 20 characters per second); Timed Text Style Guide: General Requirements 1 (5/6 s to 7 s), 3 (a frame gap of 2 frames at any frame rate), 5 (2 lines; breaks after punctuation, before conjunctions and prepositions, never between an article and its noun, a subject pronoun and its verb, an auxiliary and its verb); Subtitle Timing Guidelines 1 (gaps of 12 frames at 24 fps, half a second, or fewer closed to 2 frames)',
		url: 'https://partnerhelp.netflixstudios.com/hc/en-us/articles/217350977-English-Timed-Text-Style-Guide',
		limits: { ...NETFLIX_TIMING, maxCharsPerSecond: 20 },
	},
	{
		id: 'netflixEnglishChildren',
		name: 'Netflix English (USA), Children’s Programs',
		source:
			'As Netflix English (USA), adult programs, with I.14 for children’s programs (up to 17 characters per second)',
		url: 'https://partnerhelp.netflixstudios.com/hc/en-us/articles/217350977-English-Timed-Text-Style-Guide',
		limits: { ...NETFLIX_TIMING, maxCharsPerSecond: 17 },
	},
	{
		id: 'bbc',
		name: 'BBC Subtitle Guidelines',
		source:
			'BBC Subtitle Guidelines 1.2.5 (March 2026): 3.1 (37 characters, broadcast), 3.3 (two lines, landscape video), 3.4 (break at natural points), 4.1 (at least 0.3 s per word, i.e. 200 words per minute), 4.5 (a gap, if any, of at least one second)',
		url: 'https://www.bbc.co.uk/accessibility/forproducts/guides/subtitles/',
		limits: {
			maxCharsPerLine: 37,
			maxLines: 2,
			maxWordsPerMinute: 200,
			minGapMs: 1000,
			allowChained: true,
			lineBreaks: true,
		},
	},
	{
		id: 'dcmp',
		name: 'DCMP Captioning Guidelines, Adult Cultural Movies',
		source:
			'Captioning Guidelines for the DCMP I.A.1(b) (a 32-character line), I.B.4 (no caption less than 2 seconds, at most 225 words per minute); DCMP Captioning Key (no more than two lines)',
		url: 'https://dcmp.org/learn/5-captioning-guidelines-for-the-dcmp',
		limits: { maxCharsPerLine: 32, maxLines: 2, minDurationMs: 2000, maxWordsPerMinute: 225 },
	},
];

export const DEFAULT_PROFILE_ID = 'netflixEnglish';

/** The profile of an id; undefined for ids that name none. */
export function captionProfile(id: string): CaptionProfile | undefined {
	return CAPTION_PROFILES.find((profile) => profile.id === id);
}

/** The frame rates the editor offers: film, PAL, NTSC; 23.976 and 29.97 are exactly 24000/1001 and 30000/1001. */
export const FRAME_RATES: ReadonlyArray<{ name: string; value: number }> = [
	{ name: '23.976', value: 24000 / 1001 },
	{ name: '24', value: 24 },
	{ name: '25', value: 25 },
	{ name: '29.97', value: 30000 / 1001 },
	{ name: '30', value: 30 },
];

/** The frame rate as people write it: 23.976, 25, 29.97. */
export function frameRateLabel(frameRate: number): string {
	return String(Math.round(frameRate * 1000) / 1000);
}

/** Milliseconds as whole frames, to the nearest frame (times written in milliseconds fall between frames). */
export function msToFrames(ms: number, frameRate: number): number {
	return Math.round((ms * frameRate) / 1000);
}

/** Whole frames as milliseconds, rounded up so the time rounds back to the frames. */
export function framesToMs(frames: number, frameRate: number): number {
	return Math.ceil((frames * 1000) / frameRate - 1e-9);
}

/** How the editor's Custom Limits show a limit; the default is the default guide's (actions/captionFile/profiles.ts). */
export interface LimitField {
	/** The editor's parameter name (it differs where the editor counts seconds: minGapSeconds). */
	name: string;
	displayName: string;
	description?: string;
	/** The limit is the editor's value times this (seconds to milliseconds: 1000). */
	scale?: number;
	minValue?: number;
	/** Decimal places the editor keeps. */
	precision?: number;
	/** The editor's default where the default guide sets no such limit. */
	fallback?: number;
}

/** The limits Custom offers, in the order they are read. */
export const CUSTOM_LIMIT_FIELDS = {
	maxCharsPerLine: { name: 'maxCharsPerLine', displayName: 'Max Characters per Line', minValue: 1 },
	maxLines: { name: 'maxLines', displayName: 'Max Lines', minValue: 1 },
	maxCharsPerSecond: {
		name: 'maxCharsPerSecond',
		displayName: 'Max Characters per Second',
		minValue: 1,
		precision: 1,
		description: 'Reading speed: spaces and punctuation count, line breaks do not',
	},
	maxWordsPerMinute: {
		name: 'maxWordsPerMinute',
		displayName: 'Max Words per Minute',
		minValue: 1,
		fallback: 180,
	},
	minDurationMs: {
		name: 'minDurationSeconds',
		displayName: 'Min Duration (Seconds)',
		scale: 1000,
		minValue: 0,
		precision: 3,
	},
	maxDurationMs: {
		name: 'maxDurationSeconds',
		displayName: 'Max Duration (Seconds)',
		scale: 1000,
		minValue: 0.1,
		precision: 3,
	},
	minGapMs: {
		name: 'minGapSeconds',
		displayName: 'Min Gap (Seconds)',
		scale: 1000,
		minValue: 0,
		precision: 3,
		description: 'Shortest time between one cue’s end and the next cue’s start',
	},
	chainGapMs: {
		name: 'chainGapSeconds',
		displayName: 'Close Gaps Up To (Seconds)',
		scale: 1000,
		minValue: 0,
		precision: 3,
		description:
			'Gaps this short or shorter, but longer than Min Gap, should be closed to Min Gap (chaining, as Netflix closes gaps of half a second)',
	},
	allowChained: {
		name: 'allowChained',
		displayName: 'Allow Cues Without a Gap',
		description:
			'Whether a cue may start exactly when the previous one ends, even though shorter gaps than Min Gap are not allowed',
	},
	lineBreaks: {
		name: 'lineBreaks',
		displayName: 'Check Line Breaks',
		description:
			'Whether a line may not end on a word that belongs with the next (an article, a subject pronoun, an auxiliary, a preposition) where another break fits, as the Netflix and BBC guides ask',
	},
} as const satisfies { [K in keyof CaptionLimits]?: LimitField };
