// Check: measures cues against a profile's limits. One pure function per rule; checkCaptions runs them all and
// summarises the result for a workflow to branch on.
import { displayWidth, endsBadly, graphemeCount, tokenize, wrapTokens } from './layout';
import { type CaptionLimits, frameRateLabel, framesToMs, msToFrames } from './profiles';
import { formatVttTimestamp, msToSeconds } from './time';
import type { Cue } from './types';

export const CHECK_RULES = [
	'emptyCue',
	'timing',
	'lineLength',
	'lineCount',
	'lineBreak',
	'readingSpeed',
	'wordsPerMinute',
	'minDuration',
	'maxDuration',
	'gap',
	'chaining',
	'overlap',
] as const;

export type CheckRule = (typeof CHECK_RULES)[number];

/** What a cue shows, measured as the rules count it. */
export interface CueMeasure {
	lines: string[];
	/** Screen width of each line. */
	lineWidths: number[];
	/** Characters for reading speed: spaces and punctuation count, line breaks do not. */
	chars: number;
	words: number;
	durationMs: number;
}

export interface Violation {
	rule: CheckRule;
	/** 1-based position of the cue in the file. */
	cue: number;
	/** Seconds. */
	start: number;
	end: number;
	startTime: string;
	endTime: string;
	/** What was measured and the limit it broke (in the unit the message names). */
	value: number;
	limit: number;
	message: string;
	/** The other cue of a gap or an overlap. */
	nextCue?: number;
}

export interface CheckOptions {
	/** Most violations listed (all are counted); 1,000 unless set. */
	maxViolations?: number;
	/** How many of the worst cues the summary names; 5 unless set. */
	worstCues?: number;
}

export interface WorstCue {
	cue: number;
	start: number;
	end: number;
	startTime: string;
	endTime: string;
	text: string;
	rules: CheckRule[];
	/**
	 * How far past its limit the cue's worst violation is, as a ratio (1.5 = half as much again); null for an
	 * empty cue or one that ends before it starts, which rank first.
	 */
	excess: number | null;
}

export interface CheckReport {
	passed: boolean;
	cues: number;
	/** Every violation, counted per rule (rules the profile does not limit are left out). */
	counts: Partial<Record<CheckRule, number>>;
	violationCount: number;
	worst: WorstCue[];
	violations: Violation[];
	/** Violations counted but not listed, beyond `maxViolations`. */
	violationsOmitted: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

export function measureCue(cue: Cue): CueMeasure {
	const lines = cue.text
		.split(LINE_BREAK)
		.map((line) => line.trim())
		.filter((line) => line !== '');
	return {
		lines,
		lineWidths: lines.map(displayWidth),
		chars: lines.reduce((sum, line) => sum + graphemeCount(line), 0),
		words: tokenize(lines.join(' ')).length,
		durationMs: cue.endMs - cue.startMs,
	};
}

/** The frame rate the limits count in: theirs, or 24 fps (Netflix's own examples) when a limit is in frames. */
export function frameRateOf(limits: CaptionLimits): number | undefined {
	return limits.frameRate ?? (limits.minGapFrames !== undefined ? 24 : undefined);
}

/** The shortest gap allowed, in milliseconds and, when the limits count frames, in frames. */
export function minimumGap(limits: CaptionLimits): { ms: number; frames?: number } | undefined {
	const fps = frameRateOf(limits);
	if (limits.minGapFrames !== undefined) {
		return { ms: (limits.minGapFrames * 1000) / fps!, frames: limits.minGapFrames };
	}
	if (limits.minGapMs === undefined) return undefined;
	return fps === undefined
		? { ms: limits.minGapMs }
		: { ms: limits.minGapMs, frames: msToFrames(limits.minGapMs, fps) };
}

/** The longest gap that should be closed to the minimum ("chaining"), in ms and frames; undefined: not checked. */
export function chainingGap(limits: CaptionLimits): { ms: number; frames?: number } | undefined {
	if (limits.chainGapMs === undefined) return undefined;
	const fps = frameRateOf(limits);
	if (fps === undefined) return { ms: limits.chainGapMs };
	// half a second is 12 frames at 24 fps and at 25 (12.5, rounded down), 15 at 29.97 and 30
	const frames = Math.ceil((limits.chainGapMs * fps) / 1000 - 0.5);
	return { ms: (frames * 1000) / fps, frames };
}

/** The shortest time on screen the limits allow, in milliseconds: whole frames when they count frames. */
function minimumDurationMs(limits: CaptionLimits): number {
	if (limits.minDurationMs === undefined) return 0;
	const fps = frameRateOf(limits);
	if (fps === undefined) return limits.minDurationMs;
	return framesToMs(Math.ceil((limits.minDurationMs * fps) / 1000 - 1e-6), fps);
}

/**
 * The shortest time on screen the limits allow for what the cue shows: its minimum duration, and the time
 * its characters and words take at the reading speeds. Check and Fix share it, so a cue Fix gives this much
 * time passes Check.
 */
export function readingTimeMs(
	measure: Pick<CueMeasure, 'chars' | 'words'>,
	limits: CaptionLimits,
): number {
	const times = [minimumDurationMs(limits)];
	if (limits.maxCharsPerSecond) {
		times.push(Math.ceil((measure.chars * 1000) / limits.maxCharsPerSecond));
	}
	if (limits.maxWordsPerMinute) {
		times.push(Math.ceil((measure.words * 60_000) / limits.maxWordsPerMinute));
	}
	return Math.max(...times);
}

/** Whether a gap between two cues is allowed: at least the minimum, or none at all where chaining is. */
export function gapAllowed(gapMs: number, limits: CaptionLimits): boolean {
	if (gapMs < 0) return false;
	const minimum = minimumGap(limits);
	if (minimum === undefined) return true;
	const fps = frameRateOf(limits);
	const enough =
		fps === undefined ? gapMs >= minimum.ms : msToFrames(gapMs, fps) >= minimum.frames!;
	return enough || (gapMs === 0 && limits.allowChained === true);
}

/** Whether an allowed gap is short enough that it should be closed to the minimum gap (chaining). */
export function gapChainable(gapMs: number, limits: CaptionLimits): boolean {
	const chain = chainingGap(limits);
	if (chain === undefined || !gapAllowed(gapMs, limits)) return false;
	const minimum = minimumGap(limits);
	const fps = frameRateOf(limits);
	if (fps === undefined) return gapMs > (minimum?.ms ?? 0) && gapMs <= chain.ms;
	const frames = msToFrames(gapMs, fps);
	return frames > (minimum?.frames ?? 0) && frames <= chain.frames!;
}

/** What a rule found, before its message is written (toViolation writes it from these and the cue). */
export interface Finding {
	rule: CheckRule;
	value: number;
	limit: number;
	/** What the message names besides value and limit: a line, characters, words. */
	detail?: number;
}

const round2 = (value: number) => Math.round(value * 100) / 100;
/** Seconds to the millisecond, without trailing zeros: 0.083 s, 0.08 s, 1 s. */
const seconds = (ms: number) => `${Math.round(ms) / 1000} s`;
const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/** A time as the limits count it: "2 frames (0.083 s)" when they count frames, else "0.083 s". */
function timeSpan(ms: number, fps: number | undefined): string {
	if (fps === undefined) return seconds(ms);
	const frames = msToFrames(ms, fps);
	return `${plural(frames, 'frame')} (${seconds((frames * 1000) / fps)})`;
}
const atRate = (fps: number | undefined) =>
	fps === undefined ? '' : ` at ${frameRateLabel(fps)} fps`;

/**
 * The line (0-based) that ends on a word belonging with the next, as the style guides ask not to break, when another
 * layout of the same words fits the limits without such a break; undefined when none does.
 */
export function badLineBreak(lines: readonly string[], limits: CaptionLimits): number | undefined {
	if (limits.lineBreaks !== true || lines.length < 2) return undefined;
	const bad = lines.findIndex(
		(line, index) => index < lines.length - 1 && endsBadly(line.slice(line.lastIndexOf(' ') + 1)),
	);
	if (bad === -1) return undefined;
	return betterBreak(lines, limits) === undefined ? undefined : bad;
}

/** The same words laid out on as many lines without a bad break, within the line length; undefined when none. */
function betterBreak(lines: readonly string[], limits: CaptionLimits): string[] | undefined {
	const maxLineChars = limits.maxCharsPerLine ?? Infinity;
	const laid = wrapTokens(tokenize(lines.join(' ')), maxLineChars, lines.length);
	const fits = laid.every((line) => displayWidth(line) <= maxLineChars);
	const clean = laid.every(
		(line, index) => index === laid.length - 1 || !endsBadly(line.slice(line.lastIndexOf(' ') + 1)),
	);
	return fits && clean && laid.length > 1 ? laid : undefined;
}

/** The rules about one cue alone, in CHECK_RULES order. */
export function cueFindings(measure: CueMeasure, limits: CaptionLimits): Finding[] {
	const findings: Finding[] = [];
	const { lines, lineWidths, chars, words, durationMs } = measure;
	if (lines.length === 0) return [{ rule: 'emptyCue', value: 0, limit: 1 }];
	if (durationMs <= 0) findings.push({ rule: 'timing', value: durationMs, limit: 1 });
	const { maxCharsPerLine, maxLines, maxCharsPerSecond, maxWordsPerMinute } = limits;
	if (maxCharsPerLine !== undefined) {
		// a loop, not a spread: a cue of many lines would pass more arguments than the stack holds
		let widest = 0;
		for (const width of lineWidths) widest = Math.max(widest, width);
		if (widest > maxCharsPerLine) {
			const line = lineWidths.indexOf(widest) + 1;
			findings.push({ rule: 'lineLength', value: widest, limit: maxCharsPerLine, detail: line });
		}
	}
	if (maxLines !== undefined && lines.length > maxLines) {
		findings.push({ rule: 'lineCount', value: lines.length, limit: maxLines });
	}
	const badBreak = badLineBreak(lines, limits);
	if (badBreak !== undefined) {
		findings.push({ rule: 'lineBreak', value: 1, limit: 0, detail: badBreak + 1 });
	}
	const shown = Math.max(durationMs, 1);
	if (maxCharsPerSecond && durationMs < Math.ceil((chars * 1000) / maxCharsPerSecond)) {
		const speed = round2((chars * 1000) / shown);
		findings.push({ rule: 'readingSpeed', value: speed, limit: maxCharsPerSecond, detail: chars });
	}
	if (maxWordsPerMinute && durationMs < Math.ceil((words * 60_000) / maxWordsPerMinute)) {
		const speed = round2((words * 60_000) / shown);
		findings.push({
			rule: 'wordsPerMinute',
			value: speed,
			limit: maxWordsPerMinute,
			detail: words,
		});
	}
	const fps = frameRateOf(limits);
	// with a frame rate, durations are whole frames: a cue of 20.8 frames is on screen for 21
	const inUnits = (ms: number) => (fps === undefined ? ms : msToFrames(ms, fps));
	const minimum = minimumDurationMs(limits);
	if (limits.minDurationMs !== undefined && inUnits(durationMs) < inUnits(minimum)) {
		findings.push({ rule: 'minDuration', value: durationMs, limit: minimum });
	}
	if (limits.maxDurationMs !== undefined && inUnits(durationMs) > inUnits(limits.maxDurationMs)) {
		findings.push({ rule: 'maxDuration', value: durationMs, limit: limits.maxDurationMs });
	}
	return findings;
}

/** The rule about the time between a cue's end and the next cue's start (negative: they overlap). */
export function gapFinding(gapMs: number, limits: CaptionLimits): Finding | undefined {
	if (gapMs < 0) return { rule: 'overlap', value: -gapMs, limit: 0 };
	if (!gapAllowed(gapMs, limits)) {
		return { rule: 'gap', value: gapMs, limit: Math.round(minimumGap(limits)!.ms) };
	}
	if (!gapChainable(gapMs, limits)) return undefined;
	return { rule: 'chaining', value: gapMs, limit: Math.round(chainingGap(limits)!.ms) };
}

type Describe = (finding: Finding, cue: Cue, limits: CaptionLimits) => string;

const onScreen = ({ value }: Finding, limits: CaptionLimits) => {
	const fps = frameRateOf(limits);
	return `On screen for ${timeSpan(value, fps)}${atRate(fps)}`;
};
const beforeNext = ({ value }: Finding, limits: CaptionLimits) => {
	const fps = frameRateOf(limits);
	return `${timeSpan(value, fps)} before the next cue${atRate(fps)}`;
};

/** Each rule's message, in words, from what it found: one small case per rule. */
const MESSAGES: Record<CheckRule, Describe> = {
	emptyCue: () => 'The cue has no text.',
	timing: () => 'The cue ends before it starts, or when it starts.',
	lineLength: ({ value, limit, detail }) =>
		`Line ${detail} has ${value} characters; at most ${limit}.`,
	lineCount: ({ value, limit }) => `${value} lines; at most ${limit}.`,
	lineBreak: ({ detail }, cue, limits) => {
		const { lines } = measureCue(cue);
		const line = lines[detail! - 1];
		const word = line.slice(line.lastIndexOf(' ') + 1);
		const better = betterBreak(lines, limits) ?? [];
		return `Line ${detail} ends on "${word}", which belongs with the word after it: the style guides break lines at natural points (after punctuation, before a conjunction or preposition). This fits: "${better.join(' / ')}".`;
	},
	readingSpeed: ({ value, limit, detail }, cue) =>
		`${detail} characters in ${seconds(cue.endMs - cue.startMs)}: ${value} characters per second; at most ${limit}.`,
	wordsPerMinute: ({ value, limit, detail }, cue) =>
		`${detail} words in ${seconds(cue.endMs - cue.startMs)}: ${value} words per minute; at most ${limit}.`,
	minDuration: (finding, _cue, limits) =>
		`${onScreen(finding, limits)}; at least ${timeSpan(finding.limit, frameRateOf(limits))}.`,
	maxDuration: (finding, _cue, limits) =>
		`${onScreen(finding, limits)}; at most ${timeSpan(finding.limit, frameRateOf(limits))}.`,
	gap: (finding, _cue, limits) => {
		const least = timeSpan(minimumGap(limits)!.ms, frameRateOf(limits));
		return limits.allowChained
			? `${beforeNext(finding, limits)}; leave no gap or at least ${least}.`
			: `${beforeNext(finding, limits)}; at least ${least}.`;
	},
	chaining: (finding, _cue, limits) => {
		const fps = frameRateOf(limits);
		const minimum = minimumGap(limits);
		const closeTo = minimum ? timeSpan(minimum.ms, fps) : 'no gap';
		return `${beforeNext(finding, limits)}: gaps of ${timeSpan(chainingGap(limits)!.ms, fps)} or less are closed to ${closeTo} (chaining); end this cue ${closeTo} before the next one starts.`;
	},
	overlap: ({ value }) => `Overlaps the next cue by ${seconds(value)}.`,
};

/** How far past its limit a violation is, as a ratio: 1 at the limit, 2 at twice (or half) of it. */
export function violationExcess(violation: Finding): number {
	switch (violation.rule) {
		case 'emptyCue':
		case 'timing':
			// nothing to compare: ranked before every other
			return Infinity;
		case 'overlap':
			return 1 + violation.value / 1000;
		case 'minDuration':
			return violation.limit / Math.max(violation.value, 1);
		case 'gap':
			// a gap of none counts as twice past: 1 plus the share of the minimum that is missing
			return 1 + (violation.limit - violation.value) / violation.limit;
		case 'chaining':
			// a gap that should be closed is a small fault, the longer the more visible: up to 1
			return violation.value / violation.limit;
		case 'lineBreak':
			// a break at the wrong word is read all the same: a small fault, of one size
			return 1;
		default:
			return violation.value / violation.limit;
	}
}

function ruleCounts(limits: CaptionLimits): Partial<Record<CheckRule, number>> {
	const checked: Record<CheckRule, boolean> = {
		emptyCue: true,
		timing: true,
		lineLength: limits.maxCharsPerLine !== undefined,
		lineCount: limits.maxLines !== undefined,
		lineBreak: limits.lineBreaks === true,
		readingSpeed: Boolean(limits.maxCharsPerSecond),
		wordsPerMinute: Boolean(limits.maxWordsPerMinute),
		minDuration: limits.minDurationMs !== undefined,
		maxDuration: limits.maxDurationMs !== undefined,
		gap: minimumGap(limits) !== undefined,
		chaining: chainingGap(limits) !== undefined,
		overlap: true,
	};
	return Object.fromEntries(CHECK_RULES.filter((rule) => checked[rule]).map((rule) => [rule, 0]));
}

/** A violation before its times are written: the cue's position, what broke, and the other cue of a gap. */
export interface Found {
	index: number;
	finding: Finding;
	nextCue?: number;
}

/**
 * Visits every violation of the limits: each cue's own in cue order, then the gaps and overlaps, judged between cues
 * in time order. Nothing is kept: a caller that needs no list (Fix's never-worse rule) keeps what it needs.
 */
export function eachViolation(
	cues: readonly Cue[],
	limits: CaptionLimits,
	visit: (index: number, finding: Finding, nextCue?: number) => void,
): void {
	const empty = new Uint8Array(cues.length);
	cues.forEach((cue, index) => {
		for (const finding of cueFindings(measureCue(cue), limits)) {
			if (finding.rule === 'emptyCue') empty[index] = 1;
			visit(index, finding);
		}
	});
	// the cue on screen longest so far is the one a later cue may overlap or follow too closely
	const order: number[] = [];
	for (let index = 0; index < cues.length; index++) if (empty[index] === 0) order.push(index);
	if (order.some((index, at) => at > 0 && cues[index].startMs < cues[order[at - 1]].startMs)) {
		order.sort((a, b) => cues[a].startMs - cues[b].startMs || a - b);
	}
	let last: number | undefined;
	for (const index of order) {
		if (last !== undefined) {
			const finding = gapFinding(cues[index].startMs - cues[last].endMs, limits);
			if (finding) visit(last, finding, index + 1);
		}
		if (last === undefined || cues[index].endMs > cues[last].endMs) last = index;
	}
}

/**
 * Every violation of the limits, in cue order (a gap's after its cue's own): one flat list, no list per cue (a
 * 100 MB file has a million cues).
 */
export function foundViolations(cues: readonly Cue[], limits: CaptionLimits): Found[] {
	const found: Found[] = [];
	let sorted = true;
	eachViolation(cues, limits, (index, finding, nextCue) => {
		if (found.length > 0 && index < found[found.length - 1].index) sorted = false;
		found.push(nextCue === undefined ? { index, finding } : { index, finding, nextCue });
	});
	// a stable sort: each cue's own violations stay before the gap after it
	return sorted ? found : found.sort((a, b) => a.index - b.index);
}

function timesOf(cue: Cue) {
	return {
		start: msToSeconds(cue.startMs),
		end: msToSeconds(cue.endMs),
		startTime: formatVttTimestamp(cue.startMs),
		endTime: formatVttTimestamp(cue.endMs),
	};
}

export function toViolation(
	cues: readonly Cue[],
	{ index, finding, nextCue }: Found,
	limits: CaptionLimits,
): Violation {
	return {
		rule: finding.rule,
		cue: index + 1,
		...timesOf(cues[index]),
		value: finding.value,
		limit: finding.limit,
		message: MESSAGES[finding.rule](finding, cues[index], limits),
		...(nextCue === undefined ? {} : { nextCue }),
	};
}

/** Every violation of the limits, in cue order; gaps and overlaps are judged between cues in time order. */
export function findViolations(cues: readonly Cue[], limits: CaptionLimits): Violation[] {
	return foundViolations(cues, limits).map((found) => toViolation(cues, found, limits));
}

interface CueFault {
	index: number;
	rules: CheckRule[];
	excess: number;
}

/** Ranked first: further past its limit, then more rules broken, then earlier in the file. */
const ranksBefore = (x: CueFault, y: CueFault) =>
	x.excess > y.excess ||
	(x.excess === y.excess &&
		(x.rules.length > y.rules.length || (x.rules.length === y.rules.length && x.index < y.index)));

/**
 * The `count` cues furthest past a limit, worst first, from violations in cue order: each cue's violations taken
 * together as they come, the few worst kept in order while scanning once (no sort of every cue, no map of them).
 */
function worstRanked(found: readonly Found[], count: number): CueFault[] {
	const ranked: CueFault[] = [];
	if (count <= 0) return ranked;
	const offer = (entry: CueFault) => {
		if (ranked.length === count && !ranksBefore(entry, ranked[ranked.length - 1])) return;
		const at = ranked.findIndex((other) => ranksBefore(entry, other));
		ranked.splice(at === -1 ? ranked.length : at, 0, entry);
		if (ranked.length > count) ranked.pop();
	};
	let current: CueFault | undefined;
	for (const { index, finding } of found) {
		if (current?.index !== index) {
			if (current) offer(current);
			current = { index, rules: [], excess: -Infinity };
		}
		current.rules.push(finding.rule);
		current.excess = Math.max(current.excess, violationExcess(finding));
	}
	if (current) offer(current);
	return ranked;
}

/**
 * Checks cues against the limits: pass or fail, counts per rule, the worst cues and the violations. Times are
 * written only for the violations listed and the worst cues, so a long file with many violations stays cheap.
 */
export function checkCaptions(
	cues: readonly Cue[],
	limits: CaptionLimits,
	options: CheckOptions = {},
): CheckReport {
	const { maxViolations = 1000, worstCues = 5 } = options;
	const found = foundViolations(cues, limits);
	const counts = ruleCounts(limits);
	for (const { finding } of found) counts[finding.rule] = (counts[finding.rule] ?? 0) + 1;
	const ranked = worstRanked(found, worstCues);
	const worst = ranked.map(
		({ index, rules, excess }): WorstCue => ({
			cue: index + 1,
			...timesOf(cues[index]),
			text: cues[index].text,
			rules,
			excess: Number.isFinite(excess) ? round2(excess) : null,
		}),
	);
	const violations = found.slice(0, maxViolations).map((one) => toViolation(cues, one, limits));
	return {
		passed: found.length === 0,
		cues: cues.length,
		counts,
		violationCount: found.length,
		worst,
		violations,
		violationsOmitted: Math.max(0, found.length - maxViolations),
	};
}
