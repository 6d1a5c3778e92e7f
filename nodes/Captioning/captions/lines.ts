// Lines of files and of cue text, as the readers and writers split and tidy them. Written for speed: a 3-hour file
// has 3,000 cues, and most cue text needs no tidying, which one test finds.

const SPACE = /\s/;

/** Whether the character at `index` is white space as `\s` reads it (past either end: not). */
export function spaceAt(text: string, index: number): boolean {
	const code = text.charCodeAt(index);
	if (code > 32 && code < 127) return false;
	if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
	return SPACE.test(text[index]);
}

/**
 * Whether no line needs trimming or dropping (trimmedLines gives the text back as it is): no white space at a line's
 * start or end, no empty line, no CR. A scan of the characters next to the line breaks (one regular expression with
 * four alternatives tried at every character took half of SRT's writing time).
 */
export function isTrimmed(text: string): boolean {
	const last = text.length - 1;
	if (last < 0) return true;
	if (spaceAt(text, 0) || spaceAt(text, last) || text.includes('\r')) return false;
	// a break is never first or last (both are white space): both its neighbours exist
	for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
		if (spaceAt(text, at - 1) || spaceAt(text, at + 1)) return false;
	}
	return true;
}

/** Text with each line trimmed and empty lines left out, as SRT, SBV and TTML keep cue text. */
export function trimmedLines(text: string): string {
	if (isTrimmed(text)) return text;
	if (!/[\r\n]/.test(text)) return text.trim();
	return text
		.split(/\r\n|\r|\n/)
		.map((line) => line.trim())
		.filter((line) => line !== '')
		.join('\n');
}

/** Text of nothing but white space (or none): one look at its first character for most text. */
export function blankText(text: string): boolean {
	return text === '' || (spaceAt(text, 0) && text.trim() === '');
}

/** A line of nothing but white space, or past the end. */
export function isBlank(line: string | undefined): boolean {
	return line === undefined || line.trim() === '';
}

/** Where a LineCursor stands: the position in the text and the number of the line there. */
export interface LineMark {
	position: number;
	index: number;
}

/**
 * A text's lines (split at LF) read one at a time without an array of them: a 100 MB caption file has millions of
 * lines, and their array took twice the memory of the cues read from them. As `text.split('\n')` counts them: a
 * text with n line breaks has n + 1 lines, the last one empty when the text ends with a break.
 */
export class LineCursor {
	private position = 0;
	/** 0-based number of the line `next` reads. */
	index = 0;
	// the line at `position`, read once for peek and next (most lines are looked at before they are read)
	private cached: string | undefined;
	private cachedEnd = 0;

	constructor(private readonly text: string) {}

	/** Whether every line has been read. */
	get done(): boolean {
		return this.position > this.text.length;
	}

	/** Whether the line `next` reads is the last one. */
	get atLastLine(): boolean {
		return this.text.indexOf('\n', this.position) === -1;
	}

	private load(): void {
		if (this.cached !== undefined) return;
		const end = this.text.indexOf('\n', this.position);
		this.cachedEnd = end === -1 ? this.text.length : end;
		this.cached = this.text.slice(this.position, this.cachedEnd);
	}

	/** The line `next` would read after skipping `ahead` lines, or undefined past the last. */
	peek(ahead = 0): string | undefined {
		if (this.position > this.text.length) return undefined;
		if (ahead === 0) {
			this.load();
			return this.cached;
		}
		let position = this.position;
		for (let skipped = 0; skipped < ahead; skipped++) {
			const end = this.text.indexOf('\n', position);
			if (end === -1) return undefined;
			position = end + 1;
		}
		const end = this.text.indexOf('\n', position);
		return end === -1 ? this.text.slice(position) : this.text.slice(position, end);
	}

	/** Reads the next line (after the last one: ''). */
	next(): string {
		if (this.position > this.text.length) return '';
		this.load();
		const line = this.cached!;
		this.position = this.cachedEnd + 1;
		this.cached = undefined;
		this.index++;
		return line;
	}

	mark(): LineMark {
		return { position: this.position, index: this.index };
	}

	reset(mark: LineMark): void {
		this.position = mark.position;
		this.index = mark.index;
		this.cached = undefined;
	}

	/** The lines from one mark up to another, as one text (without the break after the last). */
	textBetween(from: LineMark, to: LineMark): string {
		const end = to.position - 1;
		return end <= from.position ? '' : this.text.slice(from.position, end);
	}
}
