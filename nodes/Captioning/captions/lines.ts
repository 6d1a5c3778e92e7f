// Lines of files and of cue text, as the readers and writers split and tidy them. Written for speed: a 3-hour file
// has 3,000 cues, and most cue text needs no tidying, which one test finds.

// text whose lines need trimming or dropping: white space at a line's start or end, an empty line, a CR
const UNTIDY = /^\s|\s$|\s\n|\n\s|\r/;

/** Text with each line trimmed and empty lines left out, as SRT, SBV and TTML keep cue text. */
export function trimmedLines(text: string): string {
	if (!UNTIDY.test(text)) return text;
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

/** A line of nothing but white space, or past the end. */
export function isBlank(line: string | undefined): boolean {
	return line === undefined || line.trim() === '';
}
