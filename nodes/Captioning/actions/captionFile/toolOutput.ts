// What Convert gives an AI agent when it runs as a tool: agents see only the items' JSON (never files), and a long
// recording's captions would fill the model's context, so the output is bounded, and simplified on request. Pure.
import type { IDataObject } from 'n8n-workflow';

export const DEFAULT_TOOL_MAX_CHARS = 20_000;

/** The editor's choices for tool output. */
export type ToolOutputStyle = 'simplified' | 'full';

interface Timed {
	startTime?: unknown;
	endTime?: unknown;
	text?: unknown;
	start?: unknown;
}

const clock = (value: unknown) => (typeof value === 'string' ? value : '');

/** One line per segment or chunk, `[start → end] text`, and words as timed lines of about 80 characters. */
export function simplify(field: string, value: unknown): string {
	if (typeof value === 'string') return value;
	if (!Array.isArray(value)) return JSON.stringify(value);
	if (field === 'words') {
		const lines: string[] = [];
		let line = '';
		for (const word of value as Array<{ start: number; text: string }>) {
			if (line === '') line = `[${word.start.toFixed(1)} s] ${word.text}`;
			else line += ` ${word.text}`;
			if (line.length >= 80) {
				lines.push(line);
				line = '';
			}
		}
		if (line !== '') lines.push(line);
		return lines.join('\n');
	}
	return (value as Timed[])
		.map(
			(entry) =>
				`[${clock(entry.startTime)} → ${clock(entry.endTime)}] ${String(entry.text ?? '')}`,
		)
		.join('\n');
}

/** What the agent is told when output is cut, and how to read the rest. */
const shownOnly = (shown: number, total: number, unit: string) =>
	`Only the first ${shown} of ${total} ${unit} are shown. Convert the captions to Transcript Chunks and read them one chunk at a time for the rest.`;

export interface Truncation {
	shownCharacters: number;
	totalCharacters: number;
	note: string;
}

/** Text cut at a line (else word) boundary to at most `maxChars`, saying how much was left out. */
export function boundText(
	text: string,
	maxChars: number,
): { text: string; truncated?: Truncation } {
	if (maxChars <= 0 || text.length <= maxChars) return { text };
	const cut = text.slice(0, maxChars);
	const boundary = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf(' '));
	const shown = boundary > maxChars / 2 ? cut.slice(0, boundary) : cut;
	return {
		text: shown,
		truncated: {
			shownCharacters: shown.length,
			totalCharacters: text.length,
			note: shownOnly(shown.length, text.length, 'characters'),
		},
	};
}

/** As many entries as fit in `maxChars` of JSON, saying how many were left out. */
export function boundArray(
	entries: unknown[],
	maxChars: number,
): { entries: unknown[]; truncated?: IDataObject } {
	if (maxChars <= 0 || JSON.stringify(entries).length <= maxChars) return { entries };
	const kept: unknown[] = [];
	let size = 2;
	for (const entry of entries) {
		size += JSON.stringify(entry).length + 1;
		if (size > maxChars) break;
		kept.push(entry);
	}
	return {
		entries: kept,
		truncated: {
			shownEntries: kept.length,
			totalEntries: entries.length,
			note: shownOnly(kept.length, entries.length, 'entries'),
		},
	};
}

/**
 * The JSON an agent gets for a converted value in `field`: text stays text; segments, words and chunks become
 * simplified text (`text`) or stay entries (`field`); either is bounded to `maxChars` (0: no bound).
 */
export function toolOutput(
	field: string,
	value: unknown,
	style: ToolOutputStyle,
	maxChars: number,
): IDataObject {
	if (typeof value === 'string' || style === 'simplified' || !Array.isArray(value)) {
		const key = typeof value === 'string' ? field : 'text';
		const { text, truncated } = boundText(simplify(field, value), maxChars);
		return { [key]: text, ...(truncated ? { truncated: { ...truncated } } : {}) };
	}
	const { entries, truncated } = boundArray(value, maxChars);
	return { [field]: entries as IDataObject[], ...(truncated ? { truncated } : {}) };
}

/** The warnings an agent is shown at most: the first few say what kind of trouble the file has. */
export const TOOL_WARNINGS_SHOWN = 5;

/** How many warnings there were: the library lists the first 100 and counts the rest in one entry (`omitted`). */
export function warningTotal(warnings: readonly IDataObject[]): number {
	let total = 0;
	for (const warning of warnings) total += typeof warning.omitted === 'number' ? warning.omitted : 1;
	return total;
}

/**
 * The warnings within `maxChars` of JSON (0: no bound): at most TOOL_WARNINGS_SHOWN, as many of them as fit, with
 * the count of all (those the library counted without listing included) when some are left out. Absent when there
 * are none.
 */
export function boundWarnings(warnings: readonly IDataObject[], maxChars: number): IDataObject {
	if (warnings.length === 0) return {};
	if (maxChars <= 0) return { warnings: [...warnings] };
	const total = warningTotal(warnings);
	const listed = warnings.filter((warning) => typeof warning.omitted !== 'number');
	const shown: IDataObject[] = [];
	const counted = { warningCount: total, warningsNote: '' };
	for (const warning of listed.slice(0, TOOL_WARNINGS_SHOWN)) {
		const next = [...shown, warning];
		counted.warningsNote = `The first ${next.length} of ${total} warnings are shown.`;
		if (JSON.stringify({ warnings: next, ...counted }).length > maxChars) break;
		shown.push(warning);
	}
	if (shown.length === total) return { warnings: shown };
	counted.warningsNote = `The first ${shown.length} of ${total} warnings are shown.`;
	return { warnings: shown, ...counted };
}

/**
 * toolOutput with the warnings inside the same bound: they get at most a fifth of it, the converted value the
 * rest, so that a file with thousands of warnings cannot fill the model's context.
 */
export function toolOutputWithWarnings(
	field: string,
	value: unknown,
	style: ToolOutputStyle,
	maxChars: number,
	warnings: readonly IDataObject[],
): IDataObject {
	const noted = boundWarnings(warnings, maxChars > 0 ? Math.floor(maxChars / 5) : 0);
	const used = Object.keys(noted).length > 0 ? JSON.stringify(noted).length : 0;
	const rest = maxChars > 0 ? Math.max(1, maxChars - used) : 0;
	return { ...toolOutput(field, value, style, rest), ...noted };
}
