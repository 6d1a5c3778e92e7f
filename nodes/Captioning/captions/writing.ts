// What every writer does alike before it writes a cue: cues in the order of their start times, and a warning for
// each cue the format shows otherwise than it was (no time order, an end before the start, a start before 0, a cue
// without text where the format has none). A writer changes nothing of a cue without saying so.
import { formatVttTimestamp } from './time';
import type { Cue, WarningSink } from './types';

/** A cue's time as messages give it: "00:01:02.500". */
/**
 * Cues a writer looks at together for what it would change before writing them (writtenAsTheyAre in srt.ts and
 * vtt.ts): a block's texts joined take tens of kB, however long the file.
 */
export const CUES_PER_CHECK = 1024;

const at = (ms: number) => formatVttTimestamp(Math.max(0, ms));

/**
 * The cues in the order of their start times (equal starts keep their order); the same array when already so. When
 * they were not, one warning says how many were out of order and where the first was.
 */
export function inTimeOrder(
	cues: readonly Cue[],
	label: string,
	warn?: WarningSink,
): readonly Cue[] {
	let first = -1;
	let count = 0;
	for (let index = 1; index < cues.length; index++) {
		if (cues[index].startMs < cues[index - 1].startMs) {
			if (first === -1) first = index;
			count++;
		}
	}
	if (first === -1) return cues;
	warn?.({
		message: `${count === 1 ? 'A cue starts' : `${count} cues start`} before the cue ahead of ${count === 1 ? 'it' : 'them'} (the first: the cue at ${at(cues[first].startMs)} comes after one at ${at(cues[first - 1].startMs)}): written in the order of their start times (${label} is read in time order).`,
	});
	// an index per cue keeps equal starts in their order whatever the engine's sort
	return cues
		.map((cue, index) => ({ cue, index }))
		.sort((a, b) => a.cue.startMs - b.cue.startMs || a.index - b.index)
		.map(({ cue }) => cue);
}

/** The times a cue is written with: whole milliseconds, a start before 0 at 0; warned when not as they were. */
export function writtenTimes(
	cue: Cue,
	number: number,
	warn?: WarningSink,
): { startMs: number; endMs: number } {
	const startMs = Math.max(0, Math.round(cue.startMs));
	const endMs = Math.max(0, Math.round(cue.endMs));
	if (warn && (cue.startMs < 0 || cue.endMs < 0)) {
		warn({
			cue: number,
			message: `Cue ${number} has a time before 0 (${cue.startMs < 0 ? `start ${Math.round(cue.startMs)} ms` : `end ${Math.round(cue.endMs)} ms`}): written as 00:00:00.000.`,
		});
	}
	if (warn && endMs <= startMs) {
		warn({
			cue: number,
			message:
				endMs === startMs
					? `Cue ${number} ends when it starts (${at(startMs)}): written as it is, and players never show it. Give it time on screen (Fix does).`
					: `Cue ${number} ends (${at(endMs)}) before it starts (${at(startMs)}): written as it is, and players never show it. Correct its times (Fix gives it time on screen).`,
		});
	}
	return { startMs, endMs };
}

/** Counts the cues a format cannot hold because they have no text, and says so once, with the first few times. */
export class EmptyCuesLeftOut {
	private readonly times: number[] = [];
	private count = 0;

	add(cue: Cue): void {
		if (this.times.length < 3) this.times.push(cue.startMs);
		this.count++;
	}

	report(label: string, warn?: WarningSink): void {
		if (this.count === 0 || !warn) return;
		const where = this.times.map(at).join(', ');
		warn({
			message: `${this.count === 1 ? 'A cue without text was' : `${this.count} cues without text were`} left out (at ${where}${this.count > 3 ? ', …' : ''}): in ${label} a blank line ends a cue, so a cue has at least one line of text.`,
		});
	}
}

// A regular expression flattens the string it is run on (V8 flattens a rope before matching); this one then
// matches at once, whatever the string holds.
const FLATTEN = /(?:)/y;

/**
 * Text written piece by piece: `out += piece` as fast as it is, but the rope it builds flattened every 16,384 pieces
 * into a chunk of its own. A rope of a whole 100 MB file took about 400 bytes a cue (four times its text); joining
 * every few thousand pieces with Array.join was safe but slowed writing by a half.
 */
export class TextBuilder {
	private readonly chunks: string[] = [];
	private chunk = '';
	private pieces = 0;

	add(piece: string): void {
		this.chunk += piece;
		if (++this.pieces === 16_384) {
			FLATTEN.lastIndex = 0;
			FLATTEN.test(this.chunk);
			this.chunks.push(this.chunk);
			this.chunk = '';
			this.pieces = 0;
		}
	}

	toString(): string {
		if (this.chunks.length === 0) return this.chunk;
		this.chunks.push(this.chunk);
		this.chunk = '';
		return this.chunks.join('');
	}
}
