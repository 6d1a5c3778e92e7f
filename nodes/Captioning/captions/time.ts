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

/** `mm:ss.ttt` or `hh:mm:ss.ttt` (hours may have any number of digits) to milliseconds. */
export function parseVttTimestamp(value: string): number | undefined {
	const match = VTT_TIMESTAMP.exec(value.trim());
	if (!match) return undefined;
	return toMs(match[1], match[2], match[3], match[4]);
}

/** `hh:mm:ss,ttt` to milliseconds; also accepts `.`, a missing hour and 1-3 fraction digits. */
export function parseSrtTimestamp(value: string): number | undefined {
	const match = SRT_TIMESTAMP.exec(value.trim());
	if (!match) return undefined;
	return toMs(match[1], match[2], match[3], (match[4] ?? '').padEnd(3, '0'));
}

/** `h:mm:ss.ttt` (SBV: hours without padding) to milliseconds; also accepts `,` and 1-3 fraction digits. */
export function parseSbvTimestamp(value: string): number | undefined {
	const match = SBV_TIMESTAMP.exec(value.trim());
	if (!match) return undefined;
	return toMs(match[1], match[2], match[3], match[4].padEnd(3, '0'));
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

function clockParts(ms: number): [string, string, string, string] {
	if (!Number.isFinite(ms)) {
		throw new CaptionFormatError(`Cannot write the time ${ms}: times must be finite milliseconds.`);
	}
	const total = Math.max(0, Math.round(ms));
	return [
		String(Math.floor(total / MS_PER_HOUR)).padStart(2, '0'),
		String(Math.floor(total / MS_PER_MINUTE) % 60).padStart(2, '0'),
		String(Math.floor(total / MS_PER_SECOND) % 60).padStart(2, '0'),
		String(total % MS_PER_SECOND).padStart(3, '0'),
	];
}

/** Milliseconds to `hh:mm:ss.ttt` (at least two hour digits; negative times clamp to zero). */
export function formatVttTimestamp(ms: number): string {
	const [h, m, s, f] = clockParts(ms);
	return `${h}:${m}:${s}.${f}`;
}

/** Milliseconds to `hh:mm:ss,ttt`. */
export function formatSrtTimestamp(ms: number): string {
	const [h, m, s, f] = clockParts(ms);
	return `${h}:${m}:${s},${f}`;
}

/** Milliseconds to seconds with three decimals. */
export function msToSeconds(ms: number): number {
	return Math.round(ms) / MS_PER_SECOND;
}

/** Milliseconds to `h:mm:ss.ttt`, as SBV writes them (hours not padded). */
export function formatSbvTimestamp(ms: number): string {
	const [h, m, s, f] = clockParts(ms);
	return `${Number(h)}:${m}:${s}.${f}`;
}
