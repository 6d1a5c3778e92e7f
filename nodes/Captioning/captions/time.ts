import { CaptionFormatError } from './errors';

const MS_PER_SECOND = 1000;
const MS_PER_MINUTE = 60 * MS_PER_SECOND;
const MS_PER_HOUR = 60 * MS_PER_MINUTE;

// A comma before the milliseconds is not WebVTT, but files converted from SRT often carry one.
const VTT_TIMESTAMP = /^(?:(\d+):)?(\d{2}):(\d{2})[.,](\d{3})$/;
const SRT_TIMESTAMP = /^(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[,.](\d{1,3}))?$/;
const SBV_TIMESTAMP = /^(\d+):(\d{2}):(\d{2})[.,](\d{1,3})$/;
const DURATION_STRING = /^(\d+)(?:\.(\d{1,9}))?s$/;

function toMs(
	hours: string | undefined,
	minutes: string,
	seconds: string,
	millis: string,
): number | undefined {
	const m = Number(minutes);
	const s = Number(seconds);
	if (m > 59 || s > 59) return undefined;
	return Number(hours ?? 0) * MS_PER_HOUR + m * MS_PER_MINUTE + s * MS_PER_SECOND + Number(millis);
}

const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const DIGITS_AT = [0, 1, 3, 4, 6, 7, 9, 10, 11];

/** `hh:mm:ss.ttt` (or `,ttt`) read digit by digit, the form of nearly every timestamp; undefined for any other. */
function usualTimestamp(value: string, fraction: string): number | undefined {
	return value.length === 12 ? usualTimestampAt(value, 0, fraction) : undefined;
}

/**
 * The 12 characters from `from` as `hh:mm:ss.ttt` (`fraction` before the milliseconds), or undefined: read in the
 * line that holds them, not cut out of it.
 */
export function usualTimestampAt(text: string, from: number, fraction: string): number | undefined {
	if (
		text.length < from + 12 ||
		text[from + 2] !== ':' ||
		text[from + 5] !== ':' ||
		text[from + 8] !== fraction
	) {
		return undefined;
	}
	for (const at of DIGITS_AT) {
		const d = digit(text, from + at);
		if (d < 0 || d > 9) return undefined;
	}
	const minutes = digit(text, from + 3) * 10 + digit(text, from + 4);
	const seconds = digit(text, from + 6) * 10 + digit(text, from + 7);
	if (minutes > 59 || seconds > 59) return undefined;
	const hours = digit(text, from) * 10 + digit(text, from + 1);
	const millis = digit(text, from + 9) * 100 + digit(text, from + 10) * 10 + digit(text, from + 11);
	return hours * MS_PER_HOUR + minutes * MS_PER_MINUTE + seconds * MS_PER_SECOND + millis;
}

/** `mm:ss.ttt` or `hh:mm:ss.ttt` (hours may have any number of digits) to milliseconds. */
export function parseVttTimestamp(value: string): number | undefined {
	const trimmed = value.trim();
	const usual = usualTimestamp(trimmed, '.');
	if (usual !== undefined) return usual;
	const match = VTT_TIMESTAMP.exec(trimmed);
	if (!match) return undefined;
	return toMs(match[1], match[2], match[3], match[4]);
}

/**
 * `hh:mm:ss,ttt` to milliseconds; also accepts `.`, a missing hour and 1-3 fraction digits, which are milliseconds
 * as players (VLC, ffmpeg) and the other libraries (subtitle, subsrt-ts) read them: ",5" is 5 ms, ",50" 50 ms.
 */
export function parseSrtTimestamp(value: string): number | undefined {
	const trimmed = value.trim();
	const usual = usualTimestamp(trimmed, ',');
	if (usual !== undefined) return usual;
	const match = SRT_TIMESTAMP.exec(trimmed);
	if (!match) return undefined;
	return toMs(match[1], match[2], match[3], match[4] ?? '0');
}

/** `h:mm:ss.ttt` (SBV: hours without padding) to milliseconds; also `,` and 1-3 fraction digits, read as SRT's. */
export function parseSbvTimestamp(value: string): number | undefined {
	const match = SBV_TIMESTAMP.exec(value.trim());
	if (!match) return undefined;
	return toMs(match[1], match[2], match[3], match[4]);
}

/**
 * A protobuf Duration as Google Speech-to-Text writes it (`"1.300s"`, `"12s"`,
 * `{ seconds: "1", nanos: 300000000 }`, or plain seconds) to milliseconds.
 */
export function parseGoogleDuration(value: unknown): number | undefined {
	if (typeof value === 'string') {
		const match = DURATION_STRING.exec(value.trim());
		if (!match) return undefined;
		const nanos = Number((match[2] ?? '').padEnd(9, '0'));
		return Number(match[1]) * MS_PER_SECOND + Math.round(nanos / 1e6);
	}
	if (typeof value === 'number') {
		return Number.isFinite(value) && value >= 0 ? Math.round(value * MS_PER_SECOND) : undefined;
	}
	if (typeof value === 'object' && value !== null) {
		const { seconds = 0, nanos = 0 } = value as { seconds?: unknown; nanos?: unknown };
		const wholeSeconds =
			typeof seconds === 'string' && /^\d+$/.test(seconds) ? Number(seconds) : seconds;
		if (typeof wholeSeconds !== 'number' || !Number.isInteger(wholeSeconds) || wholeSeconds < 0) {
			return undefined;
		}
		if (typeof nanos !== 'number' || !Number.isInteger(nanos) || nanos < 0 || nanos >= 1e9) {
			return undefined;
		}
		return wholeSeconds * MS_PER_SECOND + Math.round(nanos / 1e6);
	}
	return undefined;
}

// Two- and three-digit numbers as text, looked up rather than converted, and the hours and minutes of the last time
// written kept: a 3-hour file has 6,000 timestamps, most in the same minute as the one before, and turning numbers
// into text was most of the time of writing one.
const TWO_DIGITS = Array.from({ length: 100 }, (_, value) =>
	value < 10 ? `0${value}` : `${value}`,
);
const THREE_DIGITS = Array.from({ length: 1000 }, (_, value) => `${value}`.padStart(3, '0'));
/** Timestamps of one form (hours padded or not, one separator before the milliseconds), the last minute kept. */
class Clock {
	private minute = -1;
	// the last minute written: "01:02:" (or "1:02:" with unpadded hours)
	private prefix = '';
	// seconds with the separator after them: "05." or "05,"
	private readonly secondsThen: readonly string[];

	constructor(
		private readonly padHours: boolean,
		separator: string,
	) {
		this.secondsThen = TWO_DIGITS.slice(0, 60).map((digits) => digits + separator);
	}

	format(ms: number): string {
		if (!Number.isFinite(ms)) {
			throw new CaptionFormatError(
				`Cannot write the time ${ms}: times must be finite milliseconds.`,
			);
		}
		const total = ms > 0 ? Math.round(ms) : 0;
		const minutes = Math.floor(total / MS_PER_MINUTE);
		if (this.minute !== minutes) {
			const h = Math.floor(minutes / 60);
			const hours = h < 100 && (this.padHours || h >= 10) ? TWO_DIGITS[h] : `${h}`;
			this.minute = minutes;
			this.prefix = `${hours}:${TWO_DIGITS[minutes % 60]}:`;
		}
		const rest = total - minutes * MS_PER_MINUTE;
		const s = Math.floor(rest / MS_PER_SECOND);
		return this.prefix + this.secondsThen[s] + THREE_DIGITS[rest - s * MS_PER_SECOND];
	}
}

const VTT_CLOCK = new Clock(true, '.');
const SRT_CLOCK = new Clock(true, ',');
const SBV_CLOCK = new Clock(false, '.');

/** Milliseconds to `hh:mm:ss.ttt` (at least two hour digits; negative times clamp to zero). */
export function formatVttTimestamp(ms: number): string {
	return VTT_CLOCK.format(ms);
}

/** Milliseconds to `hh:mm:ss,ttt`. */
export function formatSrtTimestamp(ms: number): string {
	return SRT_CLOCK.format(ms);
}

/** Milliseconds to seconds with three decimals. */
export function msToSeconds(ms: number): number {
	return Math.round(ms) / MS_PER_SECOND;
}

/** Milliseconds to `h:mm:ss.ttt`, as SBV writes them (hours not padded). */
export function formatSbvTimestamp(ms: number): string {
	return SBV_CLOCK.format(ms);
}

/** Items in the order of their start (equal starts keep their order); the same array when already so. */
export function byStart<T extends { startMs: number }>(items: readonly T[]): readonly T[] {
	for (let index = 1; index < items.length; index++) {
		if (items[index].startMs < items[index - 1].startMs) {
			return [...items].sort((a, b) => a.startMs - b.startMs);
		}
	}
	return items;
}
