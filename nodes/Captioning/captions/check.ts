// Check: measures cues against a profile's limits. One pure function per rule; checkCaptions runs them all and
// summarises the result for a workflow to branch on.
import { displayWidth, graphemeCount, tokenize } from './layout';
import type { CaptionLimits } from './profiles';
import { formatVttTimestamp, msToSeconds } from './time';
import type { Cue } from './types';

export const CHECK_RULES = [
	'emptyCue',
	'timing',
	'lineLength',
	'lineCount',
	'readingSpeed',
	'wordsPerMinute',
	'minDuration',
	'maxDuration',
	'gap',
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

/**
 * The shortest time on screen the limits allow for what the cue shows: its minimum duration, and the time
 * its characters and words take at the reading speeds. Check and Fix share it, so a cue Fix gives this much
 * time passes Check.
 */
export function readingTimeMs(
	measure: Pick<CueMeasure, 'chars' | 'words'>,
	limits: CaptionLimits,
): number {
	const times = [limits.minDurationMs ?? 0];
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
	if (limits.minGapMs === undefined || gapMs >= limits.minGapMs) return true;
	return gapMs === 0 && limits.allowChained === true;
}

type Finding = Pick<Violation, 'rule' | 'value' | 'limit' | 'message'>;

const round2 = (value: number) => Math.round(value * 100) / 100;
const seconds = (ms: number) => `${round2(ms / 1000)} s`;

/** The rules about one cue alone, in CHECK_RULES order. */
export function cueFindings(measure: CueMeasure, limits: CaptionLimits): Finding[] {
	const findings: Finding[] = [];
	const { lines, lineWidths, chars, words, durationMs } = measure;
	if (lines.length === 0) {
		return [{ rule: 'emptyCue', value: 0, limit: 1, message: 'The cue has no text.' }];
	}
	if (durationMs <= 0) {
		findings.push({
			rule: 'timing',
			value: durationMs,
			limit: 1,
			message: 'The cue ends before it starts, or when it starts.',
		});
	}
	const { maxCharsPerLine, maxLines, maxCharsPerSecond, maxWordsPerMinute } = limits;
	if (maxCharsPerLine !== undefined) {
		const widest = Math.max(...lineWidths);
		if (widest > maxCharsPerLine) {
			const line = lineWidths.indexOf(widest) + 1;
			findings.push({
				rule: 'lineLength',
				value: widest,
				limit: maxCharsPerLine,
				message: `Line ${line} has ${widest} characters; at most ${maxCharsPerLine}.`,
			});
		}
	}
	if (maxLines !== undefined && lines.length > maxLines) {
		findings.push({
			rule: 'lineCount',
			value: lines.length,
			limit: maxLines,
			message: `${lines.length} lines; at most ${maxLines}.`,
		});
	}
	const shown = Math.max(durationMs, 1);
	if (maxCharsPerSecond && durationMs < Math.ceil((chars * 1000) / maxCharsPerSecond)) {
		const speed = round2((chars * 1000) / shown);
		findings.push({
			rule: 'readingSpeed',
			value: speed,
			limit: maxCharsPerSecond,
			message: `${chars} characters in ${seconds(durationMs)}: ${speed} characters per second; at most ${maxCharsPerSecond}.`,
		});
	}
	if (maxWordsPerMinute && durationMs < Math.ceil((words * 60_000) / maxWordsPerMinute)) {
		const speed = round2((words * 60_000) / shown);
		findings.push({
			rule: 'wordsPerMinute',
			value: speed,
			limit: maxWordsPerMinute,
			message: `${words} words in ${seconds(durationMs)}: ${speed} words per minute; at most ${maxWordsPerMinute}.`,
		});
	}
	if (limits.minDurationMs !== undefined && durationMs < limits.minDurationMs) {
		findings.push({
			rule: 'minDuration',
			value: durationMs,
			limit: limits.minDurationMs,
			message: `On screen for ${seconds(durationMs)}; at least ${seconds(limits.minDurationMs)}.`,
		});
	}
	if (limits.maxDurationMs !== undefined && durationMs > limits.maxDurationMs) {
		findings.push({
			rule: 'maxDuration',
			value: durationMs,
			limit: limits.maxDurationMs,
			message: `On screen for ${seconds(durationMs)}; at most ${seconds(limits.maxDurationMs)}.`,
		});
	}
	return findings;
}

/** The rule about the time between a cue's end and the next cue's start (negative: they overlap). */
export function gapFinding(gapMs: number, limits: CaptionLimits): Finding | undefined {
	if (gapMs < 0) {
		return {
			rule: 'overlap',
			value: -gapMs,
			limit: 0,
			message: `Overlaps the next cue by ${seconds(-gapMs)}.`,
		};
	}
	if (gapAllowed(gapMs, limits)) return undefined;
	const minimum = limits.minGapMs!;
	return {
		rule: 'gap',
		value: gapMs,
		limit: minimum,
		message: limits.allowChained
			? `${seconds(gapMs)} before the next cue; leave no gap or at least ${seconds(minimum)}.`
			: `${seconds(gapMs)} before the next cue; at least ${seconds(minimum)}.`,
	};
}

/** How far past its limit a violation is, as a ratio: 1 at the limit, 2 at twice (or half) of it. */
function excessOf(violation: Finding): number {
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
		readingSpeed: Boolean(limits.maxCharsPerSecond),
		wordsPerMinute: Boolean(limits.maxWordsPerMinute),
		minDuration: limits.minDurationMs !== undefined,
		maxDuration: limits.maxDurationMs !== undefined,
		gap: limits.minGapMs !== undefined,
		overlap: true,
	};
	return Object.fromEntries(CHECK_RULES.filter((rule) => checked[rule]).map((rule) => [rule, 0]));
}

/** A violation before its times are written: the cue's position, what broke, and the other cue of a gap. */
interface Found {
	index: number;
	finding: Finding;
	nextCue?: number;
}

/** Every violation of the limits, in cue order; gaps and overlaps are judged between cues in time order. */
function findAll(cues: readonly Cue[], limits: CaptionLimits): Found[] {
	const byCue: Found[][] = cues.map((cue, index) =>
		cueFindings(measureCue(cue), limits).map((finding) => ({ index, finding })),
	);
	// the cue on screen longest so far is the one a later cue may overlap or follow too closely
	const order = cues
		.map((_, index) => index)
		.filter((index) => byCue[index][0]?.finding.rule !== 'emptyCue');
	if (order.some((index, at) => at > 0 && cues[index].startMs < cues[order[at - 1]].startMs)) {
		order.sort((a, b) => cues[a].startMs - cues[b].startMs || a - b);
	}
	let last: number | undefined;
	for (const index of order) {
		if (last !== undefined) {
			const finding = gapFinding(cues[index].startMs - cues[last].endMs, limits);
			if (finding) byCue[last].push({ index: last, finding, nextCue: index + 1 });
		}
		if (last === undefined || cues[index].endMs > cues[last].endMs) last = index;
	}
	return byCue.flat();
}

function timesOf(cue: Cue) {
	return {
		start: msToSeconds(cue.startMs),
		end: msToSeconds(cue.endMs),
		startTime: formatVttTimestamp(cue.startMs),
		endTime: formatVttTimestamp(cue.endMs),
	};
}

function toViolation(cues: readonly Cue[], { index, finding, nextCue }: Found): Violation {
	return {
		rule: finding.rule,
		cue: index + 1,
		...timesOf(cues[index]),
		value: finding.value,
		limit: finding.limit,
		message: finding.message,
		...(nextCue === undefined ? {} : { nextCue }),
	};
}

/** Every violation of the limits, in cue order; gaps and overlaps are judged between cues in time order. */
export function findViolations(cues: readonly Cue[], limits: CaptionLimits): Violation[] {
	return findAll(cues, limits).map((found) => toViolation(cues, found));
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
	const found = findAll(cues, limits);
	const counts = ruleCounts(limits);
	const perCue = new Map<number, { rules: CheckRule[]; excess: number }>();
	for (const { index, finding } of found) {
		counts[finding.rule] = (counts[finding.rule] ?? 0) + 1;
		const entry = perCue.get(index);
		if (entry) {
			entry.rules.push(finding.rule);
			entry.excess = Math.max(entry.excess, excessOf(finding));
		} else {
			perCue.set(index, { rules: [finding.rule], excess: excessOf(finding) });
		}
	}
	// the worst few, kept in order while scanning once: no sort of every cue with a violation
	const ranked: Array<[number, { rules: CheckRule[]; excess: number }]> = [];
	const before = ([a, x]: (typeof ranked)[number], [b, y]: (typeof ranked)[number]) =>
		x.excess > y.excess ||
		(x.excess === y.excess &&
			(x.rules.length > y.rules.length || (x.rules.length === y.rules.length && a < b)));
	for (const entry of worstCues > 0 ? perCue : []) {
		if (ranked.length === worstCues && !before(entry, ranked[ranked.length - 1])) continue;
		const at = ranked.findIndex((other) => before(entry, other));
		ranked.splice(at === -1 ? ranked.length : at, 0, entry);
		if (ranked.length > worstCues) ranked.pop();
	}
	const worst = ranked.map(
		([index, { rules, excess }]): WorstCue => ({
			cue: index + 1,
			...timesOf(cues[index]),
			text: cues[index].text,
			rules,
			excess: Number.isFinite(excess) ? round2(excess) : null,
		}),
	);
	const violations = found.slice(0, maxViolations).map((one) => toViolation(cues, one));
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
