// The per-process claim on event ids, the trigger's guard of exactly-once: `starting` until n8n answers the
// owning request 2xx, then `started` for a day; a failed start is forgotten. Memory only: a delivery writes nothing
// into the static data (docs/design.md, "Nothing written per delivery").
const MAX_PER_TRIGGER = 10_000;
const TTL_MS = 24 * 60 * 60_000;
/** A start n8n has not answered after this long counts as failed. */
const MAX_STARTING_MS = 5 * 60_000;

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
}

interface Memory {
	entries: Map<string, Started | Starting>;
	starting: Map<string, Starting>;
}

const memories = new Map<string, Memory>();

function memory(key: string): Memory {
	let m = memories.get(key);
	if (!m) {
		m = { entries: new Map(), starting: new Map() };
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
	if (answered !== undefined) settleInProcess(key, id, answered);
	else if (nowMs - entry.atMs > MAX_STARTING_MS) settleInProcess(key, id, false);
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

/** Ends a claim: the id is `started`, or forgotten (a redelivery may start it) when the start failed. */
export function settleInProcess(key: string, id: string, started: boolean): void {
	const m = memories.get(key);
	const entry = m?.starting.get(id);
	if (!m || !entry) return;
	m.starting.delete(id);
	if (started) record(m, id, { state: 'started', atMs: entry.atMs });
	else m.entries.delete(id);
	entry.settle(started);
}
