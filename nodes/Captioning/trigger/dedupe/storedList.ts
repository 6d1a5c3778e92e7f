// The list of started event ids kept in the node's static data, for other processes and for restarts: one
// string of fixed-width entries (10 characters of the id's SHA-256, 5 of its minute, base36), oldest first, at
// most SEEN_LIMIT, each for SEEN_TTL_MINUTES. docs/design.md ("A delivery's way") has the why.
import { createHash } from 'node:crypto';

export const HASH_CHARS = 10;
const MINUTE_CHARS = 5;
export const ENTRY_CHARS = HASH_CHARS + MINUTE_CHARS;
export const SEEN_LIMIT = 1000;
// the service redelivers at most 5 times; a day is far beyond any retry schedule
export const SEEN_TTL_MINUTES = 24 * 60;

/** The list's key for an event id. */
export function eventHash(id: string): string {
	return createHash('sha256').update(id).digest('base64url').slice(0, HASH_CHARS);
}

export function minuteOf(epochMs: number): number {
	return Math.floor(epochMs / 60_000);
}

const entryMinute = (list: string, at: number) =>
	parseInt(list.slice(at + HASH_CHARS, at + ENTRY_CHARS), 36);

const expired = (minute: number, nowMinute: number) => !(nowMinute - minute < SEEN_TTL_MINUTES);

/** Whether the list holds the hash (at an entry boundary: a hash may occur inside two others). */
export function hasSeen(list: string, hash: string): boolean {
	for (let at = list.indexOf(hash); at !== -1; at = list.indexOf(hash, at + 1)) {
		if (at % ENTRY_CHARS === 0) return true;
	}
	return false;
}

export const seenCount = (list: string) => Math.floor(list.length / ENTRY_CHARS);

/** Drops expired entries and, beyond `limit`, the oldest. */
export function trimSeen(list: string, nowMinute: number, limit = SEEN_LIMIT): string {
	let start = Math.max(0, list.length - limit * ENTRY_CHARS);
	while (start < list.length && expired(entryMinute(list, start), nowMinute)) {
		start += ENTRY_CHARS;
	}
	return start === 0 ? list : list.slice(start);
}

/** Adds an entry at the end (the newest) unless its hash is there, then trims. */
export function appendSeen(
	list: string,
	entry: string,
	nowMinute: number,
	limit = SEEN_LIMIT,
): string {
	const next = hasSeen(list, entry.slice(0, HASH_CHARS)) ? list : list + entry;
	return trimSeen(next, nowMinute, limit);
}

const minuteText = (minute: number) =>
	Math.max(0, minute).toString(36).padStart(MINUTE_CHARS, '0').slice(-MINUTE_CHARS);

export function seenEntry(hash: string, minute: number): string {
	return hash + minuteText(minute);
}

/**
 * Both lists in one: each hash once with its earliest minute, oldest first, expired entries dropped,
 * at most `limit` (the newest).
 */
export function mergeSeen(a: string, b: string, nowMinute: number, limit = SEEN_LIMIT): string {
	if (a === '' || a === b) return trimSeen(b, nowMinute, limit);
	if (b === '') return trimSeen(a, nowMinute, limit);
	return mergeSorted(a, b, nowMinute, limit);
}

// Both lists are oldest first: one pass, as in the merge step of a merge sort. Padded base36 minutes compare
// as text in the order of their numbers.
function mergeSorted(a: string, b: string, nowMinute: number, limit: number): string {
	const oldestKept = minuteText(nowMinute - SEEN_TTL_MINUTES + 1);
	const minute = (list: string, at: number) => list.slice(at + HASH_CHARS, at + ENTRY_CHARS);
	const kept = new Set<string>();
	const out: string[] = [];
	let i = 0;
	let j = 0;
	while (i + ENTRY_CHARS <= a.length || j + ENTRY_CHARS <= b.length) {
		const fromA =
			j + ENTRY_CHARS > b.length || (i + ENTRY_CHARS <= a.length && minute(a, i) <= minute(b, j));
		const list = fromA ? a : b;
		const at = fromA ? i : j;
		if (fromA) i += ENTRY_CHARS;
		else j += ENTRY_CHARS;
		if (minute(list, at) < oldestKept) continue;
		const hash = list.slice(at, at + HASH_CHARS);
		if (kept.has(hash)) continue;
		kept.add(hash);
		out.push(list.slice(at, at + ENTRY_CHARS));
	}
	return out.slice(-limit).join('');
}

/** The stored list from the static data: this format, or 0.1.0's array under `seenEvents`; anything else, none. */
export function readStoredSeen(value: unknown, nowMinute: number): string {
	if (typeof value === 'string') return value.length % ENTRY_CHARS === 0 ? value : '';
	if (!Array.isArray(value)) return '';
	const entries = value
		.filter(
			(entry): entry is [string, number] =>
				Array.isArray(entry) && typeof entry[0] === 'string' && Number.isFinite(entry[1]),
		)
		.map(([id, seenAt]) => seenEntry(eventHash(id), minuteOf(seenAt * 1000)))
		.sort((x, y) => {
			const [p, q] = [x.slice(HASH_CHARS), y.slice(HASH_CHARS)];
			return p < q ? -1 : p > q ? 1 : 0;
		});
	return mergeSorted(entries.join(''), '', nowMinute, SEEN_LIMIT);
}

/** What identifies a stored value without reading it all: a list itself, 0.1.0's array its length and end ids. */
export function storedFingerprint(value: unknown): string | undefined {
	if (typeof value === 'string') return value;
	if (!Array.isArray(value)) return undefined;
	const id = (entry: unknown) => (Array.isArray(entry) ? String(entry[0]) : '');
	return `legacy:${value.length}:${id(value[0])}:${id(value[value.length - 1])}`;
}
