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
	/** Shortest gap between one cue's end and the next cue's start. */
	minGapMs?: number;
	/** Cues may follow each other without any gap, although shorter gaps than `minGapMs` are not allowed. */
	allowChained?: boolean;
}

export interface CaptionProfile {
	id: string;
	name: string;
	/** The guide, the sections the numbers come from, and where to read it. */
	source: string;
	url: string;
	limits: CaptionLimits;
}

// Netflix: 2 frames at 24 fps (the frame rate of Netflix's own duration example) is 83.3 ms.
const NETFLIX_TIMING: CaptionLimits = {
	maxCharsPerLine: 42,
	maxLines: 2,
	minDurationMs: 833,
	maxDurationMs: 7000,
	minGapMs: 83,
	allowChained: false,
};

export const CAPTION_PROFILES: readonly CaptionProfile[] = [
	{
		id: 'netflixEnglish',
		name: 'Netflix English (USA), Adult Programs',
		source:
			'Netflix English (USA) Timed Text Style Guide I.2 (42 characters per line), I.14 (up to 20 characters per second); Timed Text Style Guide: General Requirements 1 (5/6 s to 7 s), 4 (2 lines), frame gap of 2 frames',
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
			'BBC Subtitle Guidelines 1.2.5 (March 2026): 3.1 (37 characters, broadcast), 3.3 (two lines, landscape video), 4.1 (at least 0.3 s per word, i.e. 200 words per minute), 4.5 (a gap, if any, of at least one second)',
		url: 'https://www.bbc.co.uk/accessibility/forproducts/guides/subtitles/',
		limits: {
			maxCharsPerLine: 37,
			maxLines: 2,
			maxWordsPerMinute: 200,
			minGapMs: 1000,
			allowChained: true,
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
