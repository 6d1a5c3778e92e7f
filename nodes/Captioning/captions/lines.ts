// Lines of files and of cue text, as the readers and writers split and tidy them. Written for speed: a 3-hour file
// has 3,000 cues, and most cue text needs no tidying, which one test finds.

const SPACE = /\s/;

/** Whether the character at `index` is white space as `\s` reads it (past either end: not). */
function spaceAt(text: string, index: number): boolean {
	const code = text.charCodeAt(index);
	if (code > 32 && code < 127) return false;
	if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
	return SPACE.test(text[index]);
}

/**
 * Whether no line needs trimming or dropping: no white space at a line's start or end, no empty line, no CR. A
 * scan of the characters next to the line breaks (one regular expression with four alternatives tried at every
 * character took half of SRT's writing time).
 */
function tidy(text: string): boolean {
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
	if (tidy(text)) return text;
	if (!/[\r\n]/.test(text)) return text.trim();
	return text
		.split(/\r\n|\r|\n/)
		.map((line) => line.trim())
		.filter((line) => line !== '')
		.join('\n');
}

/** The lines of a file, split at LF, CRLF or CR. */
export function fileLines(content: string): string[] {
	return content.includes('\r') ? content.split(/\r\n|\r|\n/) : content.split('\n');
}

/** Text of nothing but white space (or none): one look at its first character for most text. */
export function blankText(text: string): boolean {
	return text === '' || (spaceAt(text, 0) && text.trim() === '');
}

/** A line of nothing but white space, or past the end. */
export function isBlank(line: string | undefined): boolean {
	return line === undefined || line.trim() === '';
}
