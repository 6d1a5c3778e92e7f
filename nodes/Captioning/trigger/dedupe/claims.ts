// The per-process claim on event ids, the primary guard of exactly-once: `starting` until n8n answers the
// owning request 2xx, then `started`; a failed start is forgotten. It also writes every id it knows started into
// the static-data copy of each request still starting. docs/design.md ("A delivery's way") has the why.
import {
	appendSeen,
	eventHash,
	hasSeen,
	mergeSeen,
	minuteOf,
	readStoredSeen,
	seenEntry,
	storedFingerprint,
} from './storedList';

const MAX_PER_TRIGGER = 10_000;
const TTL_MS = 24 * 60 * 60_000;
/** A start n8n has not answered after this long counts as failed. */
const MAX_STARTING_MS = 5 * 60_000;
/** The least time between two writes of the known ids into the copies of requests still starting. */
export const SPREAD_INTERVAL_MS = 1_000;

interface Started {
	state: 'started';
	atMs: number;
}

interface Starting {
	state: 'starting';
	atMs: number;
	settled: Promise<boolean>;
	settle: (started: boolean) => void;
	/** Whether n8n has answered the owning request with a 2xx; undefined while it has not answered. */
	answered: () => boolean | undefined;
	/** The id's entry in the static data's list, and how to put a list into the owning request's copy. */
	own?: { entry: string; write: (list: string) => void };
}

interface Memory {
	entries: Map<string, Started | Starting>;
	starting: Map<string, Starting>;
	/** In the static data's format: every id this process knows started, its own and those read. */
	known: string;
	/** The fingerprint of the stored value last merged into `known`. */
	lastStored: string | undefined;
	/** When `known` was last written into the copies of requests still starting. */
	spreadAtMs: number;
}

const memories = new Map<string, Memory>();

function memory(key: string): Memory {
	let m = memories.get(key);
	if (!m) {
		m = {
			entries: new Map(),
			starting: new Map(),
			known: '',
			lastStored: undefined,
			spreadAtMs: -Infinity,
		};
		memories.set(key, m);
	}
	return m;
}

function record(m: Memory, id: string, entry: Started | Starting): void {
	m.entries.delete(id);
	m.entries.set(id, entry);
	if (m.entries.size > MAX_PER_TRIGGER) {
		const oldest = m.entries.keys().next().value as string;
		m.entries.delete(oldest);
		m.starting.delete(oldest);
	}
}

/** Settles a start whose request n8n answered while nobody listened (the client had hung up). */
function refresh(key: string, id: string, entry: Starting, nowMs: number): void {
	const answered = entry.answered();
	if (answered !== undefined) settleInProcess(key, id, answered, nowMs);
	else if (nowMs - entry.atMs > MAX_STARTING_MS) settleInProcess(key, id, false, nowMs);
}

export type Claim =
	/** This process did not know the id: the caller owns it now and must settle it. */
	| { state: 'new' }
	| { state: 'started' }
	/** Another request is starting it; `settled` resolves with whether that worked. */
	| { state: 'starting'; settled: Promise<boolean> };

/** Claims the id for the calling request, unless this process knows it already. */
export function claimInProcess(
	key: string,
	id: string,
	nowMs: number,
	answered: () => boolean | undefined,
): Claim {
	const m = memory(key);
	let known = m.entries.get(id);
	if (known?.state === 'starting') {
		refresh(key, id, known, nowMs);
		known = m.entries.get(id);
	}
	if (known?.state === 'starting') return { state: 'starting', settled: known.settled };
	if (known && nowMs - known.atMs < TTL_MS) return { state: 'started' };
	let settle: (started: boolean) => void = () => undefined;
	const settled = new Promise<boolean>((resolve) => (settle = resolve));
	const entry: Starting = { state: 'starting', atMs: nowMs, settled, settle, answered };
	record(m, id, entry);
	m.starting.set(id, entry);
	return { state: 'new' };
}

/**
 * Whether a start writes the known ids into the copies still starting: when they changed, and not within
 * SPREAD_INTERVAL_MS of the last write (a clock set back counts as long enough).
 */
export function shouldSpread(knownChanged: boolean, sinceLastSpreadMs: number): boolean {
	return knownChanged && (sinceLastSpreadMs < 0 || sinceLastSpreadMs >= SPREAD_INTERVAL_MS);
}

/** Ends a claim: the id is `started`, or forgotten (a redelivery may start it) when the start failed. */
export function settleInProcess(key: string, id: string, started: boolean, nowMs: number): void {
	const m = memories.get(key);
	const entry = m?.starting.get(id);
	if (!m || !entry) return;
	m.starting.delete(id);
	if (started) {
		record(m, id, { state: 'started', atMs: entry.atMs });
		const before = m.known;
		const own = entry.own?.entry ?? seenEntry(eventHash(id), minuteOf(entry.atMs));
		m.known = appendSeen(m.known, own, minuteOf(nowMs));
		// n8n saves whichever request's copy it saves last: each copy must carry this id too, and carries
		// the ids skipped here at the next write
		if (shouldSpread(m.known !== before, nowMs - m.spreadAtMs)) {
			m.spreadAtMs = nowMs;
			for (const other of m.starting.values()) {
				other.own?.write(appendSeen(m.known, other.own.entry, minuteOf(nowMs)));
			}
		}
	} else {
		m.entries.delete(id);
		// should n8n save this request's copy anyway, it must not hold an id that never started
		entry.own?.write(m.known);
	}
	entry.settle(started);
}

/**
 * For a request that owns a new id: whether the stored list (the static data's value) says it started
 * elsewhere; if not, the list this request must store (every id this process knows started, and its own),
 * which is written again through `write` as other ids start meanwhile.
 */
export function checkStored(
	key: string,
	id: string,
	stored: unknown,
	nowMs: number,
	write: (list: string) => void,
): 'seen' | 'new' {
	const m = memory(key);
	const nowMinute = minuteOf(nowMs);
	// n8n hands each request a fresh copy: an unchanged stored list is not merged again
	const fingerprint = storedFingerprint(stored);
	if (fingerprint !== m.lastStored) {
		m.known = mergeSeen(readStoredSeen(stored, nowMinute), m.known, nowMinute);
		m.lastStored = fingerprint;
	}
	const hash = eventHash(id);
	if (hasSeen(m.known, hash)) return 'seen';
	const entry = m.starting.get(id);
	if (entry) {
		entry.own = { entry: seenEntry(hash, minuteOf(entry.atMs)), write };
		write(appendSeen(m.known, entry.own.entry, nowMinute));
	}
	return 'new';
}
