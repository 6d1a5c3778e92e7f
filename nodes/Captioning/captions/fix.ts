// Fix: re-segments and re-times cues to a profile's limits without dropping or editing a word, and never makes
// a limit worse than the file already broke it (a cue whose change would is left as it was: `frozen`). Linear in
// the number of cues (every merge removes a cue); what it cannot fix it reports. docs/captions.md has the steps.
import {
	badLineBreak,
	chainingGap,
	checkCaptions,
	type CheckReport,
	type CheckRule,
	eachViolation,
	type Found,
	frameRateOf,
	gapAllowed,
	gapChainable,
	type CueMeasure,
	measureCue,
	minimumGap,
	readingTimeMs,
	type Violation,
	violationExcess,
} from './check';
import { fitsCue, joinText, tokenize, wrapTokens } from './layout';
import { type CaptionLimits, framesToMs } from './profiles';
import { carryStyles } from './styling';
import { isRollUp, withoutRolledOverLines } from './text';
import { byStart } from './time';
import type { CaptionDocument, CaptionWarning, Cue, CueLayoutOptions, Word } from './types';
import { spreadWords, wordsToCues } from './words';

export interface FixChanges {
	/** Cues without text, removed. */
	removedEmpty: number;
	/** Lines of roll-up captions that repeated the cue before, removed (they had been shown; said in `warnings`). */
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
	/** Cues left as they were because changing them would have made a limit worse than the file broke it. */
	keptAsTheyWere: number;
}

export interface Unfixable extends Violation {
	/** Why Fix left it, and what would fix it. */
	reason: string;
}

export interface FixOptions {
	/** Most violations listed in `unfixable` (all are counted in `after`); every one unless set. */
	maxUnfixable?: number;
}

export interface FixResult {
	cues: Cue[];
	changes: FixChanges;
	/** What still breaks the limits after Fix, at most `maxUnfixable`; empty when the fixed captions pass Check. */
	unfixable: Unfixable[];
	/** Check of the fixed cues against the same limits (its violations are those of `unfixable`). */
	after: CheckReport;
	/** What Fix left out of the text: only the lines roll-up captions repeat. */
	warnings: CaptionWarning[];
}

/** A cue on its way through Fix. */
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
	/** Positions of the first and last input cue its text comes from (-1: from word timings, no cue). */
	firstSource: number;
	lastSource: number;
	/** Left exactly as it was: its text and times do not change, nothing merges into it. */
	frozen: boolean;
}

/**
 * How much later than it started a cue may be shown, beyond what the silence after its run allows: the BBC's
 * limit for subtitles that fall behind speech (Subtitle Guidelines 5.4, "never ... more than 2 seconds").
 */
export const MAX_LAG_MS = 2000;

const SPEED =
	'The speech is faster than the profile allows and the cues around it leave no time to extend or merge into: shorten the text (Fix never removes words).';
const REASONS: Partial<Record<CheckRule, string>> = {
	lineLength:
		'A single word is wider than a line, and Fix does not break words: shorten or hyphenate it, or allow longer lines.',
	readingSpeed: SPEED,
	wordsPerMinute: SPEED,
	minDuration:
		'The cues around it leave no time to extend or merge into: shorten or join the text.',
	maxDuration:
		'The limits contradict each other: reading this text takes longer than the longest time on screen.',
	chaining:
		'Closing the gap would keep this cue on screen longer than the maximum duration: shorten the cue or move the next one.',
};
const OTHER_REASON = 'Follows from a neighbouring cue that could not be fixed.';
const KEPT_REASON =
	'Left as it was: changing it would have made a limit worse than the file already broke it (Fix never makes a limit worse). Shorten the text or give the cue more time.';

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

/** The input cues an item comes from: one, a run of them, or none (-1) for cues laid out from word timings. */
type Sources = readonly [first: number, last: number];
const NO_SOURCE: Sources = [-1, -1];
const NO_SOURCE_ITEM = { firstSource: -1, lastSource: -1 };

function item(
	cue: Cue,
	limits: CaptionLimits,
	[firstSource, lastSource]: Sources,
	frozen = false,
	measure: CueMeasure = measureCue(cue),
): Item {
	// its fields written out, not spread: a spread of each of a million cues cost a tenth of Fix's time
	const made: Item = {
		startMs: cue.startMs,
		endMs: cue.endMs,
		text: cue.text,
		needMs: readingTimeMs(measure, limits),
		deadlineMs: Infinity,
		latestStartMs: Infinity,
		firstSource,
		lastSource,
		frozen,
	};
	if (cue.runs !== undefined) made.runs = cue.runs;
	if (cue.identifier !== undefined) made.identifier = cue.identifier;
	if (cue.voice !== undefined) made.voice = cue.voice;
	if (cue.settings !== undefined) made.settings = cue.settings;
	return made;
}

/** Whether a cue already meets every limit that concerns it alone. */
function fitsAlone(measure: CueMeasure, limits: CaptionLimits): boolean {
	const { maxCharsPerLine = Infinity, maxLines = Infinity, maxDurationMs = Infinity } = limits;
	// a cue on screen too long is only cut short when it is timed, not split
	return (
		measure.lineWidths.every((width) => width <= maxCharsPerLine) &&
		measure.lines.length <= maxLines &&
		readingTimeMs(measure, limits) <= maxDurationMs &&
		badLineBreak(measure.lines, limits) === undefined
	);
}

/**
 * Step 1: cues whose text fits stay; others are laid out again, or split at clause or word boundaries. A frozen cue
 * stays as it is.
 */
function segment(
	cues: readonly Cue[],
	limits: CaptionLimits,
	frozen: ReadonlySet<number>,
	changes: FixChanges,
): Item[] {
	const layout = fixLayout(limits);
	const out: Item[] = [];
	cues.forEach((cue, index) => {
		const source: Sources = [index, index];
		const measure = measureCue(cue);
		if (frozen.has(index)) {
			out.push(item(cue, limits, source, true, measure));
			return;
		}
		if (fitsAlone(measure, limits)) {
			out.push(item(cue, limits, source, false, measure));
			return;
		}
		const tokens = tokensOf(cue);
		if (fitsLayout(tokens, layout)) {
			changes.rewrapped++;
			out.push(item({ ...cue, text: wrap(tokens, layout) }, limits, source));
		} else {
			changes.split++;
			// a cue's own words, spread over its time, split where a clause or sentence ends when one is near
			const words = spreadWords(cue.text, cue.startMs, Math.max(cue.endMs, cue.startMs + 1));
			for (const piece of wordsToCues(words, { ...layout, maxGapMs: Infinity })) {
				const made: Cue = { startMs: piece.startMs, endMs: piece.endMs, text: piece.text };
				if (cue.voice !== undefined) made.voice = cue.voice;
				if (cue.settings !== undefined) made.settings = cue.settings;
				out.push(item(made, limits, source));
			}
		}
	});
	return out;
}

/** Word timings can replace the cues only when they hold every word the cues show. */
function usableWords(document: CaptionDocument, cues: readonly Cue[]): Word[] | undefined {
	const words = document.words;
	if (!words || words.length === 0) return undefined;
	const shown = cues.reduce((sum, cue) => sum + tokensOf(cue).length, 0);
	const spoken = words.reduce((sum, word) => sum + tokenize(word.text).length, 0);
	return shown === spoken ? words : undefined;
}

/** The items, in the order of their words, each with the deadline its run of overlapping cues leaves it. */
function withDeadlines(list: Item[], limits: CaptionLimits): Item[] {
	const spacing = spacingMs(limits);
	const out = [...list];
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

/** The minimum gap in whole milliseconds, rounded up: a gap of this many reads as the minimum's frames. */
function minimumGapMs(limits: CaptionLimits): number {
	return Math.ceil((minimumGap(limits)?.ms ?? 0) - 1e-9);
}

/** The gap Fix leaves between cues that do not follow each other directly. */
function spacingMs(limits: CaptionLimits): number {
	return limits.allowChained ? 0 : minimumGapMs(limits);
}

// ---- step 2: timing, as a pure plan and one step that applies it ------------------------------------------------

interface TimingContext {
	limits: CaptionLimits;
	layout: CueLayoutOptions;
	chained: boolean;
	minGapMs: number;
	spacing: number;
	maxMs: number;
	/** The shortest gap that need not be closed (chaining): one frame or millisecond past the longest to close. */
	openGapMs: number;
}

function timingContext(limits: CaptionLimits): TimingContext {
	return {
		limits,
		layout: fixLayout(limits),
		chained: limits.allowChained === true,
		minGapMs: minimumGapMs(limits),
		spacing: spacingMs(limits),
		maxMs: limits.maxDurationMs ?? Infinity,
		openGapMs: openGapMs(limits),
	};
}

function openGapMs(limits: CaptionLimits): number {
	const chain = chainingGap(limits);
	if (chain === undefined) return 0;
	const fps = frameRateOf(limits);
	return fps === undefined ? chain.ms + 1 : framesToMs(chain.frames! + 1, fps);
}

/** The latest a cue can start: lagging at most MAX_LAG_MS or into the silence after its run, and early enough for the cues after it. */
function latestStart(cue: Item, after: Item | undefined, ctx: TimingContext): number {
	if (cue.frozen) return cue.startMs;
	const own = Math.max(cue.startMs + MAX_LAG_MS, cue.deadlineMs - cue.needMs);
	return after === undefined ? own : Math.min(own, after.latestStartMs - ctx.spacing - cue.needMs);
}

/** Where a cue goes after the previous one is placed: its times, the previous cue's new end, whether it has its time. */
interface Placement {
	startMs: number;
	endMs: number;
	prevEndMs?: number;
	fits: boolean;
}

/**
 * Where `cue` goes after `prev` (placed), with `next` after it. A cue starts where it did unless the one before it
 * must keep its reading time (then it waits for it, as an overlapping cue must); it stays up for its reading time
 * into the silence after it, else starts earlier into the silence before it, else takes time from the next cue
 * when that one can wait. Gaps shorter than the minimum are closed (where cues may follow without a gap) or widened;
 * gaps that should be chained are closed to the minimum. A frozen cue keeps its times; a frozen previous cue its end.
 */
export function planPlacement(
	prev: Item | undefined,
	cue: Item,
	next: Item | undefined,
	ctx: TimingContext,
): Placement {
	const { limits, chained, minGapMs, spacing, maxMs } = ctx;
	let startMs = cue.startMs;
	let prevEndMs = prev?.endMs;
	const prevMovable = prev !== undefined && !prev.frozen;
	if (prev && prevMovable && !gapAllowed(startMs - prev.endMs, limits)) {
		// end the previous cue at an allowed distance if it keeps its time, else wait for it
		const ends = chained ? [startMs, startMs - minGapMs] : [startMs - minGapMs];
		const end = ends.find(
			(e) => e > prev.startMs && e >= prev.startMs + prev.needMs && e <= prev.startMs + maxMs,
		);
		if (end !== undefined || cue.frozen) {
			prevEndMs = end ?? Math.max(prev.startMs + 1, startMs - spacing);
		} else {
			// the previous cue keeps only its reading time and this one waits for it, as long as the wait
			// stays within the lag allowed; beyond it the previous cue is cut short (and reported)
			const readEndMs = Math.min(prev.endMs, prev.startMs + Math.max(prev.needMs, 1));
			const latestMs = Math.max(startMs, cue.latestStartMs);
			prevEndMs = Math.max(prev.startMs + 1, Math.min(readEndMs, latestMs - spacing));
			startMs = Math.max(startMs, prevEndMs + spacing);
		}
	} else if (prev && !prevMovable && !cue.frozen && !gapAllowed(startMs - prev.endMs, limits)) {
		// a frozen cue keeps its end: this one starts after it at an allowed distance
		startMs = Math.max(startMs, prev.endMs + spacing);
	}
	if (cue.frozen) {
		return {
			startMs,
			endMs: cue.endMs,
			prevEndMs: chain(prev, prevEndMs, startMs, ctx),
			fits: true,
		};
	}
	// 1. into the silence after it; a cue that overlapped the next keeps its end when the next can wait
	const borrowMs = next === undefined ? Infinity : next.latestStartMs - spacing;
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
	return {
		startMs,
		endMs,
		prevEndMs: chain(prev, prevEndMs, startMs, ctx),
		fits: endMs - startMs >= cue.needMs,
	};
}

/**
 * The previous cue's end after chaining: a gap that should be closed ends it the minimum gap before this cue, or,
 * when that would keep it up longer than the maximum, just past the gaps to close, if it keeps its reading time.
 */
function chain(
	prev: Item | undefined,
	prevEndMs: number | undefined,
	startMs: number,
	ctx: TimingContext,
): number | undefined {
	if (prev === undefined || prev.frozen || prevEndMs === undefined) return prevEndMs;
	if (!gapChainable(startMs - prevEndMs, ctx.limits)) return prevEndMs;
	const closed = startMs - ctx.spacing;
	if (closed - prev.startMs <= ctx.maxMs) return closed;
	const opened = startMs - ctx.openGapMs;
	return opened - prev.startMs >= prev.needMs ? opened : prevEndMs;
}

function merge(a: Item, b: Item, ctx: TimingContext): Item | undefined {
	if (a.voice !== b.voice || a.frozen || b.frozen) return undefined;
	const tokens = [...tokensOf(a), ...tokensOf(b)];
	const startMs = Math.min(a.startMs, b.startMs);
	const endMs = Math.max(a.endMs, b.endMs);
	if (!fitsLayout(tokens, ctx.layout) || endMs - startMs > ctx.maxMs) return undefined;
	const merged: Cue = { startMs, endMs, text: wrap(tokens, ctx.layout) };
	if (a.voice !== undefined) merged.voice = a.voice;
	// neighbours in the order of the words: their sources follow each other
	const sources: Sources =
		a.firstSource === -1
			? [b.firstSource, b.lastSource]
			: [a.firstSource, Math.max(a.lastSource, b.lastSource)];
	const result = item(merged, ctx.limits, sources);
	return result.needMs <= ctx.maxMs
		? { ...result, deadlineMs: Math.max(a.deadlineMs, b.deadlineMs) }
		: undefined;
}

interface Timeline {
	placed: Item[];
	queue: Item[];
	index: number;
}

type Step =
	| { kind: 'place'; placement: Placement }
	| { kind: 'mergeNext'; merged: Item }
	| { kind: 'mergePrev'; merged: Item };

/**
 * What to do with the next cue of the timeline, without changing it: place it, or, when it cannot have its reading
 * time, merge it into the next or the previous cue if the merged cue gets its time.
 */
export function planStep(timeline: Readonly<Timeline>, ctx: TimingContext): Step {
	const { placed, queue, index } = timeline;
	const cue = queue[index];
	const next = queue[index + 1];
	const prev = placed[placed.length - 1];
	const placement = planPlacement(prev, cue, next, ctx);
	if (placement.fits) return { kind: 'place', placement };
	const withNext = next && merge(cue, next, ctx);
	if (withNext) {
		const candidate = { ...withNext, latestStartMs: latestStart(withNext, queue[index + 2], ctx) };
		if (planPlacement(prev, candidate, queue[index + 2], ctx).fits) {
			return { kind: 'mergeNext', merged: candidate };
		}
	}
	const withPrev = prev && merge(prev, cue, ctx);
	if (withPrev) {
		const candidate = { ...withPrev, latestStartMs: latestStart(withPrev, next, ctx) };
		if (planPlacement(placed[placed.length - 2], candidate, next, ctx).fits) {
			return { kind: 'mergePrev', merged: candidate };
		}
	}
	return { kind: 'place', placement };
}

/** The one step that changes the timeline: places the cue (moving the previous cue's end), or merges it. */
function applyStep(timeline: Timeline, step: Step, changes: FixChanges): void {
	const { placed, queue } = timeline;
	if (step.kind === 'mergeNext') {
		changes.merged++;
		queue[timeline.index + 1] = step.merged;
		timeline.index++;
		return;
	}
	if (step.kind === 'mergePrev') {
		changes.merged++;
		placed.pop();
		queue[timeline.index] = step.merged;
		return;
	}
	const { placement } = step;
	const cue = queue[timeline.index];
	const prev = placed[placed.length - 1];
	if (prev && placement.prevEndMs !== undefined && placement.prevEndMs !== prev.endMs) {
		prev.endMs = placement.prevEndMs;
		changes.retimed++;
	}
	if (cue.startMs !== placement.startMs || cue.endMs !== placement.endMs) changes.retimed++;
	cue.startMs = placement.startMs;
	cue.endMs = placement.endMs;
	placed.push(cue);
	timeline.index++;
}

/** Step 2: times each cue, left to right (see planPlacement); merges a cue without enough time when it can. */
function retime(items: Item[], limits: CaptionLimits, changes: FixChanges): Item[] {
	const ctx = timingContext(limits);
	const queue = withDeadlines(items, limits);
	for (let at = queue.length - 1; at >= 0; at--) {
		queue[at].latestStartMs = latestStart(queue[at], queue[at + 1], ctx);
	}
	const timeline: Timeline = { placed: [], queue, index: 0 };
	while (timeline.index < queue.length) applyStep(timeline, planStep(timeline, ctx), changes);
	return timeline.placed;
}

// ---- never worse ------------------------------------------------------------------------------------------------

/** How far past its limit each rule's worst violation is (0: none), as Check ranks violations. */
export function worstPerRule(cues: readonly Cue[], limits: CaptionLimits): Map<CheckRule, number> {
	const worst = new Map<CheckRule, number>();
	eachViolation(cues, limits, (_, finding) => {
		worst.set(finding.rule, Math.max(worst.get(finding.rule) ?? 0, violationExcess(finding)));
	});
	return worst;
}

/** The violations of the fixed cues that are worse than the input's worst of their rule. */
function regressions(
	fixed: readonly Item[],
	before: ReadonlyMap<CheckRule, number>,
	limits: CaptionLimits,
): Found[] {
	const worse: Found[] = [];
	eachViolation(fixed, limits, (index, finding, nextCue) => {
		if (violationExcess(finding) > (before.get(finding.rule) ?? 0)) {
			worse.push({ index, finding, nextCue });
		}
	});
	return worse;
}

/** The cue without what timing needed to know. */
function toCue(timed: Item): Cue {
	const cue: Cue = { startMs: timed.startMs, endMs: timed.endMs, text: timed.text };
	if (timed.runs !== undefined && timed.frozen) cue.runs = timed.runs;
	if (timed.identifier !== undefined) cue.identifier = timed.identifier;
	if (timed.voice !== undefined) cue.voice = timed.voice;
	if (timed.settings !== undefined) cue.settings = timed.settings;
	return cue;
}

/** The fixed cues with the italics, bold and underline of the cues they came from. */
function withStyles(spoken: readonly Cue[], timed: readonly Item[]): Cue[] {
	const cues = timed.map(toCue);
	if (!spoken.some((cue) => cue.runs)) return cues;
	// cues made from the same input cues in a row take their styles from them in one pass
	let from = 0;
	while (from < timed.length) {
		const { firstSource, lastSource } = timed[from];
		let to = from + 1;
		while (
			to < timed.length &&
			timed[to].firstSource === firstSource &&
			timed[to].lastSource === lastSource
		) {
			to++;
		}
		if (!timed[from].frozen && firstSource !== -1) {
			const styled = carryStyles(spoken.slice(firstSource, lastSource + 1), cues.slice(from, to));
			for (let at = from; at < to; at++) cues[at] = styled[at - from];
		}
		from = to;
	}
	return cues;
}

function reasonFor(violation: Violation, cues: readonly Item[]): string {
	if (cues[violation.cue - 1]?.frozen) return KEPT_REASON;
	return REASONS[violation.rule] ?? OTHER_REASON;
}

function noChanges(): FixChanges {
	return {
		removedEmpty: 0,
		removedRepeatedLines: 0,
		split: 0,
		rewrapped: 0,
		merged: 0,
		retimed: 0,
		fromWordTimings: false,
		keptAsTheyWere: 0,
	};
}

// a fix that keeps making something worse freezes more cues each round; past this many rounds, all of them
const MAX_ROUNDS = 8;

/** The cues Fix works on: without empty cues and, for roll-up captions, without the lines they repeat. */
interface Attempt {
	spoken: Cue[];
	changes: FixChanges;
}

function cleaned(document: CaptionDocument, removeRepeats: boolean): Attempt {
	const changes = noChanges();
	const filled = document.cues.filter((cue) => {
		const empty = tokensOf(cue).length === 0;
		if (empty) changes.removedEmpty++;
		return !empty;
	});
	const popOn = removeRepeats
		? withoutRolledOverLines(filled)
		: { cues: [...byStart(filled)], removedLines: 0 };
	changes.removedRepeatedLines = popOn.removedLines;
	return { spoken: popOn.cues, changes };
}

/**
 * One attempt at fixing: rounds of segmenting and timing, each freezing the cues that made a limit worse, until
 * nothing is worse; undefined when what is worse lies in cues already as they were (lines left out of roll-up).
 */
function fixAttempt(
	document: CaptionDocument,
	{ spoken, changes: start }: Attempt,
	limits: CaptionLimits,
	before: ReadonlyMap<CheckRule, number>,
	maxUnfixable: number,
): FixResult | undefined {
	const frozen = new Set<number>();
	let words = usableWords(document, spoken);
	for (let round = 0; round <= MAX_ROUNDS; round++) {
		const changes = { ...start };
		if (round === MAX_ROUNDS) spoken.forEach((_, index) => frozen.add(index));
		let items: Item[];
		if (words) {
			changes.fromWordTimings = true;
			items = wordsToCues(words, fixLayout(limits)).map((cue) => item(cue, limits, NO_SOURCE));
		} else {
			items = segment(spoken, limits, frozen, changes);
		}
		const timed = retime(items, limits, changes);
		const worse = regressions(timed, before, limits);
		if (worse.length > 0 && words) {
			// laid out from word timings, which name no cue: the next round works on the cues
			words = undefined;
			continue;
		}
		const fresh: number[] = [];
		for (const found of worse) {
			for (const at of [found.index, (found.nextCue ?? 0) - 1]) {
				const { firstSource, lastSource } = timed[at] ?? NO_SOURCE_ITEM;
				for (let index = firstSource; index >= 0 && index <= lastSource; index++) {
					if (!frozen.has(index)) fresh.push(index);
				}
			}
		}
		if (fresh.length > 0 && round < MAX_ROUNDS) {
			fresh.forEach((index) => frozen.add(index));
			continue;
		}
		if (worse.length > 0) return undefined;
		changes.keptAsTheyWere = frozen.size;
		const fixed = withStyles(spoken, timed);
		const after = checkCaptions(fixed, limits, { maxViolations: maxUnfixable, worstCues: 0 });
		return {
			cues: fixed,
			changes,
			unfixable: after.violations.map((violation) => ({
				...violation,
				reason: reasonFor(violation, timed),
			})),
			after,
			warnings: rollUpWarning(changes.removedRepeatedLines),
		};
	}
	return undefined;
}

/** What Fix says when it leaves out the lines roll-up captions repeat: the only text it ever leaves out. */
function rollUpWarning(removedLines: number): CaptionWarning[] {
	if (removedLines === 0) return [];
	return [
		{
			message: `The captions roll up (each cue repeats the last line of the one before, as live captions scroll): ${removedLines === 1 ? 'the line that repeats was' : `the ${removedLines} lines that repeat were`} left out, each shown once, as pop-on captions show them. No other text was left out.`,
		},
	];
}

/**
 * Fixes captions to the limits: removes empty cues and, in roll-up captions only (isRollUp, read over the whole
 * file), the lines each cue repeats from the one before, said in `warnings`; splits cues that are too long (from the
 * file's word timings when it has them for every word), lays out lines again, merges and re-times cues for reading
 * time, gaps, chaining and overlaps. Words are never dropped or changed otherwise, and no limit ends worse than the
 * file broke it: a cue whose change would make one worse is left as it was (`changes.keptAsTheyWere`). What still
 * breaks a limit is returned in `unfixable`.
 */
export function fixCaptions(
	document: CaptionDocument,
	limits: CaptionLimits,
	options: FixOptions = {},
): FixResult {
	const { maxUnfixable = Infinity } = options;
	const before = worstPerRule(document.cues, limits);
	const rollUp = isRollUp(byStart(document.cues));
	for (const removeRepeats of rollUp ? [true, false] : [false]) {
		const attempt = cleaned(document, removeRepeats);
		const fixed = fixAttempt(document, attempt, limits, before, maxUnfixable);
		if (fixed) return fixed;
	}
	// nothing Fix did would leave every limit as good as it was: the captions as they came
	const after = checkCaptions(document.cues, limits, { maxViolations: maxUnfixable, worstCues: 0 });
	return {
		cues: [...document.cues],
		changes: { ...noChanges(), keptAsTheyWere: document.cues.length },
		unfixable: after.violations.map((violation) => ({ ...violation, reason: KEPT_REASON })),
		after,
		warnings: [],
	};
}

/** The text a cue shows, joined: what Fix must keep word for word. */
export function spokenText(cues: readonly Cue[]): string {
	return joinText(cues.flatMap((cue) => tokensOf(cue)));
}
