// The queue suite's decisions and sums as pure functions (unit-tested in tally.test.ts): which run to make
// from the environment, what reached the user's downstream step per event, how many delivery attempts each
// event needed and how much of the service's retry budget was left.
import { is2xx } from '../helpers/suite';

export type Kill = 'webhook' | 'worker' | 'none';

export interface RunSettings {
	profile: 'full' | 'ci';
	transcriptions: number;
	/** The transcriptions start evenly over this time. */
	burstMs: number;
	kill: Kill;
	/** `n8n webhook` processes behind the balancer; with `kill: webhook` the first one dies. */
	webhooks: number;
	/** The process dies this far into the burst (a share of burstMs). */
	killAtShare: number;
	/**
	 * After a webhook process restart, this many events answered 2xx before the kill are delivered again:
	 * what the service does when an answer is lost in a crash after the execution was queued.
	 */
	replays: number;
	/** Ids sent twice at once through the claim (and, when asked, through n8n's Remove Duplicates). */
	probeIds: number;
	/** `n8n worker` processes; the renewal measurement wants 4. */
	workers: number;
}

// both with two webhook processes behind the balancer, as docs/queue-mode.md advises: one of them dies
const PROFILES: Record<
	RunSettings['profile'],
	Omit<RunSettings, 'kill' | 'profile' | 'workers'>
> = {
	// 500 transcriptions (1,000 events) in 30 s: the burst the README's figures come from
	full: {
		transcriptions: 500,
		burstMs: 30_000,
		webhooks: 2,
		killAtShare: 0.4,
		replays: 50,
		probeIds: 200,
	},
	// small enough for CI: 100 transcriptions (200 events) in 10 s, one kill
	ci: {
		transcriptions: 100,
		burstMs: 10_000,
		webhooks: 2,
		killAtShare: 0.4,
		replays: 20,
		probeIds: 100,
	},
};

function positive(name: string, value: string | undefined): number | undefined {
	if (value === undefined || value === '') return undefined;
	const number = Number(value);
	if (!Number.isFinite(number) || number <= 0) {
		throw new Error(`${name} must be a positive number, not "${value}"`);
	}
	return number;
}

function wholeNumber(name: string, value: string | undefined): number | undefined {
	const number = positive(name, value);
	if (number !== undefined && !Number.isInteger(number)) {
		throw new Error(`${name} must be a whole number, not "${value}"`);
	}
	return number;
}

/**
 * CAPTIONING_QUEUE_PROFILE (full | ci), CAPTIONING_QUEUE_KILL (webhook | worker | none; 0 = none, as before),
 * CAPTIONING_QUEUE_WEBHOOKS (how many webhook processes), and CAPTIONING_QUEUE_TRANSCRIPTIONS /
 * CAPTIONING_QUEUE_BURST_MS to override the profile's size.
 */
export function runSettings(env: Record<string, string | undefined>): RunSettings {
	const profile = env.CAPTIONING_QUEUE_PROFILE || 'full';
	if (profile !== 'full' && profile !== 'ci') {
		throw new Error(`CAPTIONING_QUEUE_PROFILE must be "full" or "ci", not "${profile}"`);
	}
	const rawKill = env.CAPTIONING_QUEUE_KILL || 'webhook';
	const kill = rawKill === '0' ? 'none' : rawKill;
	if (kill !== 'webhook' && kill !== 'worker' && kill !== 'none') {
		throw new Error(
			`CAPTIONING_QUEUE_KILL must be "webhook", "worker" or "none", not "${rawKill}"`,
		);
	}
	const base = PROFILES[profile];
	return {
		...base,
		profile,
		kill,
		transcriptions:
			positive('CAPTIONING_QUEUE_TRANSCRIPTIONS', env.CAPTIONING_QUEUE_TRANSCRIPTIONS) ??
			base.transcriptions,
		burstMs: positive('CAPTIONING_QUEUE_BURST_MS', env.CAPTIONING_QUEUE_BURST_MS) ?? base.burstMs,
		webhooks:
			wholeNumber('CAPTIONING_QUEUE_WEBHOOKS', env.CAPTIONING_QUEUE_WEBHOOKS) ?? base.webhooks,
		workers: wholeNumber('CAPTIONING_QUEUE_WORKERS', env.CAPTIONING_QUEUE_WORKERS) ?? 2,
	};
}

// ---- renewal across workers (docs/queue-mode.md, "Tokens renewed across workers") -------------------------------

/** One run of the renewal measurement: executions that call the API while the access token expires. */
export interface RenewalRun {
	/**
	 * `clock`: the service's clock jumps past every token's lifetime `expiries` times during the burst, so that
	 * the service refuses tokens n8n still holds for valid; `lifetime`: tokens live `tokenTtlSeconds`, a little
	 * more than the minute before expiry in which the package renews, so that they come due during the burst.
	 */
	expiry: 'clock' | 'lifetime';
	/** The sandbox's `earlier-tokens` reading: does a grant revoke the access tokens issued before it? */
	earlierTokens: 'kept' | 'revoked';
	/** Executions started evenly over burstMs; each makes two API calls with the credential. */
	executions: number;
	burstMs: number;
	/** Clock jumps during the burst (`clock` only). */
	expiries: number;
	tokenTtlSeconds: number;
}

export interface RenewalSettings {
	/** `check` (default): one small run with its goals asserted; `measure`: every run, reported; `off`. */
	mode: 'off' | 'check' | 'measure';
	runs: RenewalRun[];
}

/**
 * CAPTIONING_QUEUE_RENEWAL (check | measure | off) and, for `measure`, CAPTIONING_QUEUE_RENEWAL_EXECUTIONS /
 * CAPTIONING_QUEUE_RENEWAL_BURST_MS to change the size of each run.
 */
export function renewalSettings(env: Record<string, string | undefined>): RenewalSettings {
	const mode = env.CAPTIONING_QUEUE_RENEWAL || 'check';
	if (mode !== 'off' && mode !== 'check' && mode !== 'measure') {
		throw new Error(`CAPTIONING_QUEUE_RENEWAL must be "check", "measure" or "off", not "${mode}"`);
	}
	if (mode === 'off') return { mode, runs: [] };
	if (mode === 'check') {
		const check = { executions: 40, burstMs: 8_000, expiries: 1, tokenTtlSeconds: 7_200 };
		return { mode, runs: [{ expiry: 'clock', earlierTokens: 'revoked', ...check }] };
	}
	const size = {
		executions:
			wholeNumber('CAPTIONING_QUEUE_RENEWAL_EXECUTIONS', env.CAPTIONING_QUEUE_RENEWAL_EXECUTIONS) ??
			300,
		burstMs:
			positive('CAPTIONING_QUEUE_RENEWAL_BURST_MS', env.CAPTIONING_QUEUE_RENEWAL_BURST_MS) ??
			30_000,
	};
	const runs: RenewalRun[] = [];
	for (const expiry of ['clock', 'lifetime'] as const) {
		for (const earlierTokens of ['kept', 'revoked'] as const) {
			runs.push({
				expiry,
				earlierTokens,
				...size,
				expiries: expiry === 'clock' ? 3 : 0,
				tokenTtlSeconds: expiry === 'clock' ? 7_200 : 70,
			});
		}
	}
	return { mode, runs };
}

/** A request of the sandbox's log, as far as the tally reads it. */
export interface LoggedRequest {
	at: number;
	path: string;
	status: number;
	grantType?: string;
}

/**
 * The token requests of a run grouped into renewals: with `jumps` (the moments the service's clock jumped), the
 * requests from each jump to the next; without, requests less than `gapMs` apart belong together.
 */
export function renewalsOf(
	requests: readonly LoggedRequest[],
	jumps?: readonly number[],
	gapMs = 3_000,
): LoggedRequest[][] {
	const tokens = requests.filter((r) => r.path === '/oauth/token').sort((a, b) => a.at - b.at);
	if (jumps) {
		return jumps.map((jump, i) =>
			tokens.filter((r) => r.at >= jump && (i + 1 >= jumps.length || r.at < jumps[i + 1])),
		);
	}
	const groups: LoggedRequest[][] = [];
	for (const request of tokens) {
		const last = groups.at(-1);
		if (last && request.at - last[last.length - 1].at < gapMs) last.push(request);
		else groups.push([request]);
	}
	return groups;
}

/** `{ "refresh_token 200": 1, "refresh_token 400": 3 }`: a renewal's token requests by grant and status. */
export function grantsOf(requests: readonly LoggedRequest[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const r of requests) {
		const key = `${r.grantType ?? '?'} ${r.status}`;
		counts[key] = (counts[key] ?? 0) + 1;
	}
	return counts;
}

export interface RenewalTally {
	expiries: number;
	/** Each renewal's token requests by grant and status. */
	perExpiry: Array<Record<string, number>>;
	/** Renewals that were exactly one refresh grant and nothing else: the goal. */
	oneRefreshOnly: number;
	refreshesGranted: number;
	refreshesRefused: number;
	assertionGrants: number;
	/** Token requests answered 429 (the token endpoint's own limit). */
	rateLimited: number;
}

export function tallyRenewals(renewals: readonly LoggedRequest[][]): RenewalTally {
	const all = renewals.flat();
	const count = (grant: string, ok: boolean) =>
		all.filter((r) => r.grantType === grant && (r.status === 200) === ok && r.status !== 429)
			.length;
	return {
		expiries: renewals.length,
		perExpiry: renewals.map(grantsOf),
		oneRefreshOnly: renewals.filter(
			(r) => r.length === 1 && r[0].grantType === 'refresh_token' && r[0].status === 200,
		).length,
		refreshesGranted: count('refresh_token', true),
		refreshesRefused: count('refresh_token', false),
		assertionGrants: all.filter((r) => r.grantType === 'assertion' && r.status === 200).length,
		rateLimited: all.filter((r) => r.status === 429).length,
	};
}

/** How many times each value occurs. */
export function countOf(values: Iterable<string>): Map<string, number> {
	const counts = new Map<string, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return counts;
}

/** `{ "1": 998, "2": 2 }`: how many keys have each count. */
export function histogram(counts: Iterable<number>): Record<string, number> {
	const result: Record<string, number> = {};
	for (const count of counts) result[count] = (result[count] ?? 0) + 1;
	return result;
}

export interface DownstreamTally {
	/** Sent events the downstream step never saw. */
	missing: string[];
	/** Sent events it saw more than once, with how often. */
	duplicated: Array<[id: string, count: number]>;
	/** Ids it saw that were never sent. */
	unexpected: string[];
	/** Sent events by how often the downstream step saw them (0 = missing). */
	perEvent: Record<string, number>;
}

/** What reached the user's downstream step, per sent event. */
export function tallyDownstream(
	sentIds: readonly string[],
	seenIds: Iterable<string>,
): DownstreamTally {
	const seen = countOf(seenIds);
	const sent = new Set(sentIds);
	return {
		missing: sentIds.filter((id) => !seen.has(id)),
		duplicated: [...seen].filter(([id, count]) => sent.has(id) && count > 1),
		unexpected: [...seen.keys()].filter((id) => !sent.has(id)),
		perEvent: histogram(sentIds.map((id) => seen.get(id) ?? 0)),
	};
}

export interface Attempt {
	eventId: string;
	attempt: number;
	status?: number;
}

export interface DeliveryTally {
	/** Events by number of delivery attempts. */
	attemptsPerEvent: Record<string, number>;
	/** Delivered events by the attempt that got the first 2xx. */
	deliveredAtAttempt: Record<string, number>;
	/** Events that never got a 2xx. */
	undelivered: string[];
	/** The most attempts any delivered event needed (0 when none was delivered). */
	mostAttemptsNeeded: number;
}

export function tallyDeliveries(
	sentIds: readonly string[],
	attempts: readonly Attempt[],
): DeliveryTally {
	const byEvent = new Map<string, Attempt[]>();
	for (const attempt of attempts) {
		const list = byEvent.get(attempt.eventId);
		if (list) list.push(attempt);
		else byEvent.set(attempt.eventId, [attempt]);
	}
	const counts: number[] = [];
	const deliveredAt: number[] = [];
	const undelivered: string[] = [];
	for (const id of sentIds) {
		const list = byEvent.get(id) ?? [];
		counts.push(list.length);
		const first = list
			.filter((a) => is2xx(a.status))
			.reduce<
				number | undefined
			>((min, a) => (min === undefined ? a.attempt : Math.min(min, a.attempt)), undefined);
		if (first === undefined) undelivered.push(id);
		else deliveredAt.push(first);
	}
	return {
		attemptsPerEvent: histogram(counts),
		deliveredAtAttempt: histogram(deliveredAt),
		undelivered,
		mostAttemptsNeeded: deliveredAt.reduce((max, n) => Math.max(max, n), 0),
	};
}

/**
 * What the retry schedule had left for the event that needed the most attempts: attempts not used, and the
 * seconds between its successful attempt and the last one it would have had (each delay counts from the end
 * of the attempt before, so the real spare time is at least this).
 */
export function retryMargin(
	retryDelaysMs: readonly number[],
	mostAttemptsNeeded: number,
): { attemptsAllowed: number; spareAttempts: number; spareSeconds: number } {
	const attemptsAllowed = retryDelaysMs.length + 1;
	const offset = (attempt: number) =>
		retryDelaysMs.slice(0, Math.max(0, attempt - 1)).reduce((sum, ms) => sum + ms, 0);
	const used = Math.min(Math.max(mostAttemptsNeeded, 1), attemptsAllowed);
	return {
		attemptsAllowed,
		spareAttempts: attemptsAllowed - used,
		spareSeconds: (offset(attemptsAllowed) - offset(used)) / 1000,
	};
}

export interface ExecutionOutcome {
	eventId: string | undefined;
	status: string;
}

const interruptedStatus = (status: string) => status === 'error' || status === 'crashed';

/**
 * Sorts missing events by what n8n kept of them: every execution carrying the id was interrupted (error,
 * crashed: a process died under it); no execution carries the id any more (n8n replaces the data of an
 * execution a dead worker held, trigger item included, with the error); or an execution that succeeded or
 * never left `new`, which no kill excuses.
 */
export function explainMissing(
	missing: readonly string[],
	executions: readonly ExecutionOutcome[],
): { interrupted: string[]; untraced: string[]; unexplained: string[] } {
	const statuses = new Map<string, string[]>();
	for (const { eventId, status } of executions) {
		if (eventId === undefined) continue;
		statuses.set(eventId, [...(statuses.get(eventId) ?? []), status]);
	}
	const result = {
		interrupted: [] as string[],
		untraced: [] as string[],
		unexplained: [] as string[],
	};
	for (const id of missing) {
		const list = statuses.get(id) ?? [];
		if (list.length === 0) result.untraced.push(id);
		else if (list.every(interruptedStatus)) result.interrupted.push(id);
		else result.unexplained.push(id);
	}
	return result;
}

/** Executions a worker's log shows started and not (yet) finished: "Worker started execution 12 (job 12)". */
export function runningInLog(log: string): string[] {
	const started = new Set<string>();
	for (const [, id] of log.matchAll(/Worker started execution (\d+)/g)) started.add(id);
	for (const [, id] of log.matchAll(/Worker finished execution (\d+)/g)) started.delete(id);
	return [...started];
}

/** The index of the worker with the most executions running (the first on a tie): the one to kill. */
export function busiestWorker(logs: readonly string[]): number {
	let best = 0;
	logs.forEach((log, index) => {
		if (runningInLog(log).length > runningInLog(logs[best]).length) best = index;
	});
	return best;
}

/**
 * Delivery attempts per time bucket since `since` (epoch ms), by outcome: `{ "0": { "2xx": 12 }, "2":
 * { "503": 4, "timeout": 2 } }` with the bucket's start in seconds as key.
 */
export function timeline(
	attempts: readonly { at: string; outcome: string }[],
	since: number,
	bucketSeconds: number,
): Record<string, Record<string, number>> {
	const result: Record<string, Record<string, number>> = {};
	for (const { at, outcome } of attempts) {
		const offset = (Date.parse(at) - since) / 1000;
		const bucket = String(Math.floor(offset / bucketSeconds) * bucketSeconds);
		const counts = (result[bucket] ??= {});
		counts[outcome] = (counts[outcome] ?? 0) + 1;
	}
	return result;
}
