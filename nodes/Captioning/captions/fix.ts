// Fix: re-segments and re-times cues to a profile's limits without dropping or editing a word. Linear in the
// number of cues (every merge removes a cue), and what it cannot fix it reports. docs/captions.md has the steps.
import {
	checkCaptions,
	gapAllowed,
	measureCue,
	readingTimeMs,
	type CheckRule,
	type Violation,
} from './check';
import { fitsCue, joinText, tokenize, wrapTokens } from './layout';
import type { CaptionLimits } from './profiles';
import type { CaptionDocument, Cue, CueLayoutOptions, Word } from './types';
import { withoutRolledOverLines } from './text';
import { spreadWords, wordsToCues } from './words';

export interface FixChanges {
	/** Cues without text, removed. */
	removedEmpty: number;
	/** Lines of roll-up captions that repeated the cue before, removed (they had been shown). */
	removedRepeatedLines: number;
	/** Cues split into shorter ones. */
	split: number;
	/** Cues whose lines were laid out again. */
	rewrapped: number;
	/** Merges of a cue into its neighbour. */
	merged: number;
	/** Cues whose start or end moved. */
	retimed: number;
	/** Whether the cues were laid out again from the file's word timings (Google Speech-to-Text). */
	fromWordTimings: boolean;
}

export interface Unfixable extends Violation {
	/** Why Fix left it, and what would fix it. */
	reason: string;
}

export interface FixResult {
	cues: Cue[];
	changes: FixChanges;
	/** What still breaks the limits after Fix; empty when the fixed captions pass Check. */
	unfixable: Unfixable[];
}

interface Item extends Cue {
	/** The shortest time on screen the limits allow for its text. */
	needMs: number;
	/**
	 * The latest a cue may end: where the next run of cues starts (a run is cues that overlap one another),
	 * less the minimum gap; MAX_LAG_MS after the end of the last run. Cues that overlapped are put one after
	 * another, into the silence after their run when they need it.
	 */
	deadlineMs: number;
	/** The latest it can start and still leave the cues after it their reading time (see retime). */
	latestStartMs: number;
}

/**
 * How much later than it started a cue may be shown, beyond what the silence after its run allows: the BBC's
 * limit for subtitles that fall behind speech (Subtitle Guidelines 5.4, "never ... more than 2 seconds").
 */
export const MAX_LAG_MS = 2000;

const REASONS: Partial<Record<CheckRule, string>> = {
	lineLength:
		'A single word is wider than a line, and Fix does not break words: shorten or hyphenate it, or allow longer lines.',
	readingSpeed:
		'The speech is faster than the profile allows and the cues around it leave no time to extend or merge into: shorten the text (Fix never removes words).',
	wordsPerMinute:
		'The speech is faster than the profile allows and the cues around it leave no time to extend or merge into: shorten the text (Fix never removes words).',
	minDuration:
		'The cues around it leave no time to extend or merge into: shorten or join the text.',
	maxDuration:
		'The limits contradict each other: reading this text takes longer than the longest time on screen.',
};
const OTHER_REASON = 'Follows from a neighbouring cue that could not be fixed.';

/** The layout Fix builds cues to: the profile's lines, and a text no longer than its longest cue can show. */
export function fixLayout(limits: CaptionLimits): CueLayoutOptions {
	const maxLines = limits.maxLines ?? 2;
	const maxLineChars = limits.maxCharsPerLine ?? Infinity;
	const maxDurationMs = limits.maxDurationMs ?? Infinity;
	const bySpeed = limits.maxCharsPerSecond
		? Math.floor((limits.maxCharsPerSecond * maxDurationMs) / 1000)
		: Infinity;
	const byWords = limits.maxWordsPerMinute
		? Math.floor((limits.maxWordsPerMinute * maxDurationMs) / 60_000)
		: Infinity;
	return {
		maxLines,
		maxLineChars,
		maxCueChars: Math.min(maxLineChars * maxLines, bySpeed),
		maxCueWords: Math.max(1, byWords),
		maxCueMs: maxDurationMs,
	};
}

function tokensOf(cue: Cue): string[] {
	return tokenize(cue.text);
}

function fitsLayout(tokens: string[], layout: CueLayoutOptions): boolean {
	return (
		tokens.length <= layout.maxCueWords! &&
		fitsCue(tokens, layout.maxLineChars!, layout.maxCueChars!, layout.maxLines)
	);
}

function wrap(tokens: string[], layout: CueLayoutOptions): string {
	return wrapTokens(tokens, layout.maxLineChars!, layout.maxLines).join('\n');
}

function item(cue: Cue, limits: CaptionLimits, deadlineMs = Infinity): Item {
	return {
		...cue,
		needMs: readingTimeMs(measureCue(cue), limits),
		deadlineMs,
		latestStartMs: Infinity,
	};
}

/** Items of cues in time order, each with the deadline its run of overlapping cues leaves it. */
function items(cues: Cue[], limits: CaptionLimits): Item[] {
	const spacing = limits.allowChained ? 0 : (limits.minGapMs ?? 0);
	const out = cues.map((cue) => item(cue, limits));
	let runStart = 0;
	let runEndMs = -Infinity;
	const closeRun = (end: number, deadlineMs: number) => {
		for (let index = runStart; index < end; index++) out[index].deadlineMs = deadlineMs;
	};
	out.forEach((cue, index) => {
		if (index > 0 && cue.startMs >= runEndMs) {
			closeRun(index, cue.startMs - spacing);
			runStart = index;
		}
		runEndMs = Math.max(runEndMs, cue.endMs);
	});
	// after the last run there is only the end of the file: a lag of MAX_LAG_MS past it at most
	closeRun(out.length, runEndMs + MAX_LAG_MS);
	return out;
}

/** Whether a cue already meets every limit that concerns it alone. */
function fitsAlone(cue: Cue, limits: CaptionLimits): boolean {
	const measure = measureCue(cue);
	const { maxCharsPerLine = Infinity, maxLines = Infinity, maxDurationMs = Infinity } = limits;
	// a cue on screen too long is only cut short when it is timed, not split
	return (
		measure.lineWidths.every((width) => width <= maxCharsPerLine) &&
		measure.lines.length <= maxLines &&
		readingTimeMs(measure, limits) <= maxDurationMs
	);
}

/** Step 1: cues whose text fits stay; others are laid out again, or split at clause or word boundaries. */
function segment(cues: Cue[], limits: CaptionLimits, changes: FixChanges): Cue[] {
	const layout = fixLayout(limits);
	const out: Cue[] = [];
	for (const cue of cues) {
		const tokens = tokensOf(cue);
		if (fitsAlone(cue, limits)) {
			out.push(cue);
		} else if (fitsLayout(tokens, layout)) {
			changes.rewrapped++;
			out.push({ ...cue, text: wrap(tokens, layout) });
		} else {
			changes.split++;
			// a cue's own words, spread over its time, split where a clause or sentence ends when one is near
			const words = spreadWords(cue.text, cue.startMs, Math.max(cue.endMs, cue.startMs + 1));
			for (const piece of wordsToCues(words, { ...layout, maxGapMs: Infinity })) {
				out.push({
					...piece,
					...(cue.voice === undefined ? {} : { voice: cue.voice }),
					...(cue.settings === undefined ? {} : { settings: cue.settings }),
				});
			}
		}
	}
	return out;
}

/** Word timings can replace the cues only when they hold every word the cues show. */
function usableWords(document: CaptionDocument, cues: Cue[]): Word[] | undefined {
	const words = document.words;
	if (!words || words.length === 0) return undefined;
	const shown = cues.reduce((sum, cue) => sum + tokensOf(cue).length, 0);
	const spoken = words.reduce((sum, word) => sum + tokenize(word.text).length, 0);
	return shown === spoken ? words : undefined;
}

function merge(
	a: Item,
	b: Item,
	limits: CaptionLimits,
	layout: CueLayoutOptions,
): Item | undefined {
	if (a.voice !== b.voice) return undefined;
	const tokens = [...tokensOf(a), ...tokensOf(b)];
	const startMs = Math.min(a.startMs, b.startMs);
	const endMs = Math.max(a.endMs, b.endMs);
	if (!fitsLayout(tokens, layout) || endMs - startMs > (limits.maxDurationMs ?? Infinity)) {
		return undefined;
	}
	const merged: Cue = { startMs, endMs, text: wrap(tokens, layout) };
	if (a.voice !== undefined) merged.voice = a.voice;
	const result = item(merged, limits);
	return result.needMs <= (limits.maxDurationMs ?? Infinity)
		? {
				...result,
				deadlineMs: Math.max(a.deadlineMs, b.deadlineMs),
			}
		: undefined;
}

/**
 * Step 2: times each cue, left to right. A cue starts where it did unless the one before it must keep its
 * reading time (then it waits for it, as an overlapping cue must); it stays up for its reading time into the
 * silence after it, else starts earlier into the silence before it, else takes time from the next cue when
 * that one can wait; gaps shorter than the minimum are closed (where cues may follow without a gap) or
 * widened. A cue without enough time merges into a neighbour when the two fit one cue, else it is left as it
 * is and reported.
 */
function retime(items: Item[], limits: CaptionLimits, changes: FixChanges): Item[] {
	const layout = fixLayout(limits);
	const chained = limits.allowChained === true;
	const minGapMs = limits.minGapMs ?? 0;
	const spacing = chained ? 0 : minGapMs;
	const maxMs = limits.maxDurationMs ?? Infinity;
	const placed: Item[] = [];
	const queue = [...items];
	let index = 0;

	/** The latest a cue can start: lagging at most MAX_LAG_MS or into the silence after its run, and early enough for the cues after it. */
	const latestStart = (cue: Item, after: Item | undefined) => {
		const own = Math.max(cue.startMs + MAX_LAG_MS, cue.deadlineMs - cue.needMs);
		return after === undefined ? own : Math.min(own, after.latestStartMs - spacing - cue.needMs);
	};
	for (let at = queue.length - 1; at >= 0; at--)
		queue[at].latestStartMs = latestStart(queue[at], queue[at + 1]);

	/** Where a cue may end: into the next cue's time as far as the cues from the next on can wait. */
	const latestEnd = (next: Item | undefined) =>
		next === undefined ? Infinity : next.latestStartMs - spacing;

	/** Where `cue` goes after what is placed: its times, the previous cue's new end, and whether it has its time. */
	const plan = (cue: Item, next: Item | undefined) => {
		const prev = placed[placed.length - 1];
		let startMs = cue.startMs;
		let prevEndMs = prev?.endMs;
		if (prev && !gapAllowed(startMs - prev.endMs, limits)) {
			// end the previous cue at an allowed distance if it keeps its time, else wait for it
			const ends = chained ? [startMs, startMs - minGapMs] : [startMs - minGapMs];
			const end = ends.find(
				(e) => e > prev.startMs && e >= prev.startMs + prev.needMs && e <= prev.startMs + maxMs,
			);
			if (end !== undefined) {
				prevEndMs = end;
			} else {
				// the previous cue keeps only its reading time and this one waits for it, as long as the wait
				// stays within the lag allowed; beyond it the previous cue is cut short (and reported)
				const readEndMs = Math.min(prev.endMs, prev.startMs + Math.max(prev.needMs, 1));
				const latestMs = Math.max(startMs, cue.latestStartMs);
				prevEndMs = Math.max(prev.startMs + 1, Math.min(readEndMs, latestMs - spacing));
				startMs = Math.max(startMs, prevEndMs + spacing);
			}
		}
		// 1. into the silence after it; a cue that overlapped the next keeps its end when the next can wait
		const borrowMs = latestEnd(next);
		const silenceMs = next === undefined ? Infinity : next.startMs - spacing;
		const untilMs = Math.max(silenceMs, Math.min(cue.endMs, borrowMs));
		let endMs = Math.min(Math.max(cue.endMs, startMs + cue.needMs), startMs + maxMs, untilMs);
		if (endMs - startMs < cue.needMs) {
			// 2. start earlier, into the silence before, keeping an allowed gap
			let earlier = Math.max(prevEndMs === undefined ? 0 : prevEndMs + spacing, endMs - cue.needMs);
			if (prevEndMs !== undefined && !gapAllowed(earlier - prevEndMs, limits)) earlier = prevEndMs;
			startMs = Math.min(startMs, earlier);
		}
		if (endMs - startMs < cue.needMs) {
			// 3. into the next cue's time, as far as it can wait and keep its own
			endMs = Math.max(endMs, Math.min(startMs + cue.needMs, startMs + maxMs, borrowMs));
		}
		endMs = Math.max(endMs, startMs + 1);
		return { startMs, endMs, prevEndMs, fits: endMs - startMs >= cue.needMs };
	};

	const place = (cue: Item, where: ReturnType<typeof plan>) => {
		const prev = placed[placed.length - 1];
		if (prev && where.prevEndMs !== undefined && where.prevEndMs !== prev.endMs) {
			prev.endMs = where.prevEndMs;
			changes.retimed++;
		}
		if (cue.startMs !== where.startMs || cue.endMs !== where.endMs) changes.retimed++;
		cue.startMs = where.startMs;
		cue.endMs = where.endMs;
		placed.push(cue);
	};

	/** Whether a merged cue gets its reading time in place of the cue (and of `replacing`, already placed). */
	const fitsAt = (merged: Item, after: Item | undefined, replacing?: Item) => {
		merged.latestStartMs = latestStart(merged, after);
		if (replacing) placed.pop();
		const fits = plan(merged, after).fits;
		if (replacing) placed.push(replacing);
		return fits;
	};

	while (index < queue.length) {
		const cue = queue[index];
		const next = queue[index + 1];
		const where = plan(cue, next);
		if (!where.fits) {
			// a merge only when the merged cue gets its reading time
			const withNext = next && merge(cue, next, limits, layout);
			if (withNext && fitsAt(withNext, queue[index + 2])) {
				changes.merged++;
				queue[index + 1] = withNext;
				index++;
				continue;
			}
			const prev = placed[placed.length - 1];
			const withPrev = prev && merge(prev, cue, limits, layout);
			if (withPrev && fitsAt(withPrev, next, prev)) {
				changes.merged++;
				placed.pop();
				queue[index] = withPrev;
				continue;
			}
		}
		place(cue, where);
		index++;
	}
	return placed;
}

/** The cue without what timing needed to know. */
function toCue(timed: Item): Cue {
	const cue: Cue = { startMs: timed.startMs, endMs: timed.endMs, text: timed.text };
	if (timed.identifier !== undefined) cue.identifier = timed.identifier;
	if (timed.voice !== undefined) cue.voice = timed.voice;
	if (timed.settings !== undefined) cue.settings = timed.settings;
	return cue;
}

function reasonFor(violation: Violation): string {
	return REASONS[violation.rule] ?? OTHER_REASON;
}

/**
 * Fixes captions to the limits: removes empty cues and lines that roll-up captions repeat, splits cues that are too long (from the file's word timings
 * when it has them for every word), lays out lines again, merges and re-times cues for reading time, gaps and
 * overlaps. Words are never dropped or changed. What still breaks a limit is returned in `unfixable`.
 */
export function fixCaptions(document: CaptionDocument, limits: CaptionLimits): FixResult {
	const changes: FixChanges = {
		removedEmpty: 0,
		removedRepeatedLines: 0,
		split: 0,
		rewrapped: 0,
		merged: 0,
		retimed: 0,
		fromWordTimings: false,
	};
	const filled = document.cues.filter((cue) => {
		const empty = tokensOf(cue).length === 0;
		if (empty) changes.removedEmpty++;
		return !empty;
	});
	const popOn = withoutRolledOverLines(filled);
	changes.removedRepeatedLines = popOn.removedLines;
	const spoken = popOn.cues;
	const words = usableWords(document, spoken);
	let cues: Cue[];
	if (words) {
		changes.fromWordTimings = true;
		cues = wordsToCues(words, fixLayout(limits));
	} else {
		cues = segment(spoken, limits, changes);
	}
	const timed = retime(items(cues, limits), limits, changes);
	const fixed = timed.map(toCue);
	const report = checkCaptions(fixed, limits, { maxViolations: Infinity, worstCues: 0 });
	return {
		cues: fixed,
		changes,
		unfixable: report.violations.map((violation) => ({
			...violation,
			reason: reasonFor(violation),
		})),
	};
}

/** The text a cue shows, joined: what Fix must keep word for word. */
export function spokenText(cues: readonly Cue[]): string {
	return joinText(cues.flatMap((cue) => tokensOf(cue)));
}
