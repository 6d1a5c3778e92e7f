// A per-process memory of event ids, ahead of the static data n8n saves after webhook() returns: two deliveries
// of one event racing within a process both read the static data before either is saved.
//
// A request that hands an event to n8n first claims its id (`starting`); the id is `started` once n8n has
// answered that request with a 2xx, which n8n does only after it has created (in queue mode: queued) the
// execution. A failed start is forgotten, so that the service's redelivery starts it. The static data carries
// the ids to other processes and across restarts where n8n saves it; it saves each request's whole copy, read
// when the request began, so the ids that start are also added to the copies of the requests still starting.
// (n8n 2.41.1 skips that save when the webhook call starts an execution: WorkflowRunner wraps the same static
// data in a second Workflow, which clears its change flag.)
const MAX_PER_TRIGGER = 10_000;
const TTL_SECONDS = 24 * 60 * 60;
/** A start n8n has not answered after this long counts as failed. */
const MAX_STARTING_MS = 5 * 60_000;
/** How long a copy of an event waits for another request's start of it, well within delivery timeouts. */
export const MAX_CLAIM_WAIT_MS = 5_000;
export const CLAIM_POLL_MS = 100;

export type SeenList = Array<[id: string, seenAt: number]>;

interface Started {
	state: 'started';
	at: number;
}

interface Starting {
	state: 'starting';
	at: number;
	sinceMs: number;
	settled: Promise<boolean>;
	settle: (started: boolean) => void;
	/** Whether n8n has answered the owning request with a 2xx; undefined while it has not answered. */
	answered: () => boolean | undefined;
	/** The list of seen ids the owning request put into its static data. */
	list?: SeenList;
}

const recent = new Map<string, Map<string, Started | Starting>>();
const starting = new Map<string, Map<string, Starting>>();

function table<T>(tables: Map<string, Map<string, T>>, triggerKey: string): Map<string, T> {
	let entries = tables.get(triggerKey);
	if (!entries) tables.set(triggerKey, (entries = new Map()));
	return entries;
}

function record(triggerKey: string, id: string, entry: Started | Starting): void {
	const seen = table(recent, triggerKey);
	seen.delete(id);
	seen.set(id, entry);
	if (seen.size > MAX_PER_TRIGGER) {
		const oldest = seen.keys().next().value as string;
		seen.delete(oldest);
		starting.get(triggerKey)?.delete(oldest);
	}
}

/** Records the id as started; true when this process has already seen it for this trigger. */
export function rememberInProcess(triggerKey: string, id: string, nowSeconds: number): boolean {
	const at = recent.get(triggerKey)?.get(id)?.at;
	if (at !== undefined && nowSeconds - at < TTL_SECONDS) return true;
	record(triggerKey, id, { state: 'started', at: nowSeconds });
	return false;
}

/** Settles a start whose request n8n answered while nobody listened (the client had hung up). */
function refresh(triggerKey: string, id: string, entry: Starting): void {
	const answered = entry.answered();
	if (answered !== undefined) settleInProcess(triggerKey, id, answered);
	else if (Date.now() - entry.sinceMs > MAX_STARTING_MS) settleInProcess(triggerKey, id, false);
}

export type Claim =
	/** This process did not know the id: the caller owns it now and must settle it. */
	| { state: 'new' }
	| { state: 'started' }
	/** Another request is starting it; `settled` resolves with whether that worked. */
	| { state: 'starting'; settled: Promise<boolean> };

/** Claims the id for the calling request, unless this process knows it already. */
export function claimInProcess(
	triggerKey: string,
	id: string,
	nowSeconds: number,
	answered: () => boolean | undefined,
): Claim {
	let known = recent.get(triggerKey)?.get(id);
	if (known?.state === 'starting') {
		refresh(triggerKey, id, known);
		known = recent.get(triggerKey)?.get(id);
	}
	if (known?.state === 'starting') return { state: 'starting', settled: known.settled };
	if (known && nowSeconds - known.at < TTL_SECONDS) return { state: 'started' };
	let settle: (started: boolean) => void = () => undefined;
	const settled = new Promise<boolean>((resolve) => (settle = resolve));
	const entry: Starting = {
		state: 'starting',
		at: nowSeconds,
		sinceMs: Date.now(),
		settled,
		settle,
		answered,
	};
	record(triggerKey, id, entry);
	table(starting, triggerKey).set(id, entry);
	return { state: 'new' };
}

/** Gives the claimed id's request list of seen ids, to which ids that start meanwhile are added. */
export function attachList(triggerKey: string, id: string, list: SeenList): void {
	const entry = starting.get(triggerKey)?.get(id);
	if (entry) entry.list = list;
}

/** Ends a claim: the id is `started`, or forgotten (a redelivery may start it) when the start failed. */
export function settleInProcess(triggerKey: string, id: string, started: boolean): void {
	const entry = starting.get(triggerKey)?.get(id);
	if (!entry) return;
	starting.get(triggerKey)?.delete(id);
	if (started) {
		record(triggerKey, id, { state: 'started', at: entry.at });
		for (const other of starting.get(triggerKey)?.values() ?? []) other.list?.push([id, entry.at]);
	} else {
		recent.get(triggerKey)?.delete(id);
	}
	entry.settle(started);
}

/** The (at most `limit`) ids this process has started last for the trigger, with the time first seen. */
export function startedInProcess(triggerKey: string, limit: number): SeenList {
	for (const [id, entry] of [...(starting.get(triggerKey) ?? [])]) refresh(triggerKey, id, entry);
	const started: SeenList = [];
	for (const [id, entry] of recent.get(triggerKey) ?? []) {
		if (entry.state === 'started') started.push([id, entry.at]);
	}
	return started.slice(-limit);
}

/** Both lists in one, without repeats, oldest first, at most `limit` (the newest). */
export function mergeSeen(list: SeenList, more: SeenList, limit: number): SeenList {
	const merged = new Map<string, number>();
	for (const [id, at] of [...list, ...more]) {
		const known = merged.get(id);
		if (known === undefined || at < known) merged.set(id, at);
	}
	return [...merged].sort((a, b) => a[1] - b[1]).slice(-limit);
}
