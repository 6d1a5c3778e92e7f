// bench/profile.ts's figures: a window of load against one target, and the table of ms per request by cause
// (median over rounds) that the windows make.
import type { ProfileBreakdown } from './cpuprofile';
import { summarize } from './stats';

/** One target's window of closed-loop load: its requests, CPU by thread, and the main thread's profile. */
export interface ProfileWindow {
	target: string;
	round: number;
	requests: number;
	eventsPerSecond: number;
	groupCpuMs: number;
	threadsCpuMs: Record<string, number>;
	profile: ProfileBreakdown;
	executionDataBytes: number;
	load1: number;
}

export type TableRow = Record<string, number | string>;

/** Functions of ours below this many ms per request stay out of the table. */
const FUNCTION_FLOOR_MS = 0.01;

/** Columns by target (ours with a prefilled list is measured as `oursFresh`), rows in the order first seen. */
export function perRequestTable(windows: readonly ProfileWindow[]): {
	columns: string[];
	table: TableRow[];
} {
	const collected = new Map<string, Map<string, number[]>>();
	for (const window of windows) {
		const column = columnOf(window.target);
		for (const [row, value] of windowRows(window)) {
			const byColumn = collected.get(row) ?? new Map<string, number[]>();
			byColumn.set(column, [...(byColumn.get(column) ?? []), value]);
			collected.set(row, byColumn);
		}
	}
	const columns = [...new Set(windows.map((w) => columnOf(w.target)))];
	const table = [...collected].map(([row, byColumn]) => tableRow(row, byColumn, columns));
	return { columns, table };
}

const columnOf = (target: string) => (target === 'oursFresh' ? 'oursPrefilled' : target);

/** One window's figures, per request where they are times. */
function windowRows(w: ProfileWindow): Array<[string, number]> {
	const perRequest = (ms: number) => ms / w.requests;
	// the sampler ticks by wall time, also while a loaded machine has the thread waiting for a core:
	// its shares are scaled to the main thread's CPU time from /proc
	const mainCpuMs = Object.entries(w.threadsCpuMs).find(([name]) => name.startsWith('main'))![1];
	const scale = w.profile.busyMs > 0 ? mainCpuMs / w.profile.busyMs : 0;
	const scaled = (prefix: string, byName: Record<string, number>) =>
		Object.entries(byName).map(([name, ms]): [string, number] => [
			`  ${prefix}: ${name}`,
			perRequest(ms * scale),
		]);
	return [
		['events/s', w.eventsPerSecond],
		['CPU, n8n process group (all threads, task runner)', perRequest(w.groupCpuMs)],
		...Object.entries(w.threadsCpuMs).map(([thread, ms]): [string, number] => [
			`  thread: ${thread}`,
			perRequest(ms),
		]),
		['main thread, profiled samples (wall ms, unscaled)', perRequest(w.profile.busyMs)],
		...scaled('self', w.profile.byOwner),
		...scaled('under', w.profile.byMarker),
		...scaled(
			'ours, function',
			Object.fromEntries(
				Object.entries(w.profile.byFunction).filter(
					([, ms]) => ms / w.requests >= FUNCTION_FLOOR_MS,
				),
			),
		),
		['execution data, bytes', w.executionDataBytes],
	];
}

/** What ours is read against: the floor with a credential (item 1's goal) when profiled, else the bare floor. */
export function referenceOf(columns: readonly string[]): string | undefined {
	return ['floorCred', 'floor'].find((c) => columns.includes(c));
}

/** Medians per column (0 where a column has none), and ours − the reference where both are there. */
function tableRow(row: string, byColumn: Map<string, number[]>, columns: string[]): TableRow {
	const entry: TableRow = { row };
	for (const column of columns) {
		const list = byColumn.get(column) ?? [];
		entry[column] = list.length ? Math.round(summarize(list).median * 100) / 100 : 0;
	}
	const reference = referenceOf(columns);
	const [ours, other] = [entry.ours, reference && entry[reference]];
	if (reference && typeof ours === 'number' && typeof other === 'number') {
		entry[`ours − ${reference}`] = Math.round((ours - other) * 100) / 100;
	}
	return entry;
}
