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

/** At most this many warnings are listed (a file of junk lines would give one per line); the rest are counted. */
export const MAX_WARNINGS = 100;

function omittedEntry(omitted: number): CaptionWarning {
	return {
		omitted,
		message: `${omitted === 1 ? '1 more warning was' : `${omitted} more warnings were`} not listed: only the first ${MAX_WARNINGS} are.`,
	};
}

/**
 * Warnings as the library hands them out: the first MAX_WARNINGS, then one entry counting the rest (`omitted`).
 * A warning past the cap is counted without being built: `add` takes a function for warnings that cost to write.
 */
export class Warnings {
	private readonly listed: CaptionWarning[] = [];
	private omitted = 0;

	add(warning: CaptionWarning | (() => CaptionWarning)): void {
		if (this.listed.length < MAX_WARNINGS) {
			this.listed.push(typeof warning === 'function' ? warning() : warning);
		} else {
			this.omitted++;
		}
	}

	/** Adds lists already capped: their counting entries add to this one's count. */
	addAll(warnings: readonly CaptionWarning[] | undefined): void {
		for (const warning of warnings ?? []) {
			if (warning.omitted !== undefined) this.omitted += warning.omitted;
			else this.add(warning);
		}
	}

	get count(): number {
		return this.listed.length + this.omitted;
	}

	list(): CaptionWarning[] {
		return this.omitted === 0 ? [...this.listed] : [...this.listed, omittedEntry(this.omitted)];
	}
}

/** Several lists of warnings as one, capped as Warnings caps them. */
export function capWarnings(
	...lists: ReadonlyArray<readonly CaptionWarning[] | undefined>
): CaptionWarning[] {
	const all = new Warnings();
	for (const list of lists) all.addAll(list);
	return all.list();
}
