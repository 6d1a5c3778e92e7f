import type { CaptionWarning } from './types';

// a warning names the text concerned; a dropped block of a long file is shortened, not copied whole
const MAX_TEXT = 200;

/** Text for a warning: as found, shortened past 200 characters. */
export function excerpt(text: string): string {
	return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/** A warning about lines of the file read: from `line` (1-based), with the text concerned. */
export function lineWarning(line: number, text: string, message: string): CaptionWarning {
	return { line, text: excerpt(text), message };
}

/** "line 4" or "lines 4-6". */
export function linesLabel(first: number, last: number): string {
	return first === last ? `line ${first}` : `lines ${first}-${last}`;
}
