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
function excessOf(violation: Violation): number {
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

/** Every violation of the limits, in cue order; gaps and overlaps are judged between cues in time order. */
export function findViolations(cues: readonly Cue[], limits: CaptionLimits): Violation[] {
	const violation = (index: number, finding: Finding, nextCue?: number): Violation => {
		const cue = cues[index];
		return {
			rule: finding.rule,
			cue: index + 1,
			start: msToSeconds(cue.startMs),
			end: msToSeconds(cue.endMs),
			startTime: formatVttTimestamp(cue.startMs),
			endTime: formatVttTimestamp(cue.endMs),
			value: finding.value,
			limit: finding.limit,
			message: finding.message,
			...(nextCue === undefined ? {} : { nextCue }),
		};
	};
	const byCue: Violation[][] = cues.map((cue, index) =>
		cueFindings(measureCue(cue), limits).map((finding) => violation(index, finding)),
	);
	// the cue on screen longest so far is the one a later cue may overlap or follow too closely
	const order = cues
		.map((_, index) => index)
		.filter((index) => byCue[index][0]?.rule !== 'emptyCue')
		.sort((a, b) => cues[a].startMs - cues[b].startMs || a - b);
	let last: number | undefined;
	for (const index of order) {
		if (last !== undefined) {
			const finding = gapFinding(cues[index].startMs - cues[last].endMs, limits);
			if (finding) byCue[last].push(violation(last, finding, index + 1));
		}
		if (last === undefined || cues[index].endMs > cues[last].endMs) last = index;
	}
	return byCue.flat();
}

/** Checks cues against the limits: pass or fail, counts per rule, the worst cues and the violations. */
export function checkCaptions(
	cues: readonly Cue[],
	limits: CaptionLimits,
	options: CheckOptions = {},
): CheckReport {
	const { maxViolations = 1000, worstCues = 5 } = options;
	const violations = findViolations(cues, limits);
	const counts = ruleCounts(limits);
	const perCue = new Map<number, Violation[]>();
	for (const found of violations) {
		counts[found.rule] = (counts[found.rule] ?? 0) + 1;
		perCue.set(found.cue, [...(perCue.get(found.cue) ?? []), found]);
	}
	const worst = [...perCue.entries()]
		.map(([cue, found]): WorstCue => {
			const { startMs, endMs, text } = cues[cue - 1];
			return {
				cue,
				start: msToSeconds(startMs),
				end: msToSeconds(endMs),
				startTime: formatVttTimestamp(startMs),
				endTime: formatVttTimestamp(endMs),
				text,
				rules: found.map((v) => v.rule),
				excess: Math.max(...found.map(excessOf)),
			};
		})
		.sort((a, b) => b.excess! - a.excess! || b.rules.length - a.rules.length || a.cue - b.cue)
		.map((cue) => ({ ...cue, excess: Number.isFinite(cue.excess) ? round2(cue.excess!) : null }))
		.slice(0, worstCues);
	return {
		passed: violations.length === 0,
		cues: cues.length,
		counts,
		violationCount: violations.length,
		worst,
		violations: violations.slice(0, maxViolations),
		violationsOmitted: Math.max(0, violations.length - maxViolations),
	};
}
