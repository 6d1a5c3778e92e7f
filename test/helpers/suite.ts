// What the real-n8n suites (test/e2e, test/faults, test/benign, test/queue, test/browser) share beyond the
// harness: accessors for what beforeAll started, polling, nodes' output in an execution, workflows created
// active, stopping everything, the secret scan, and the tables their reports print.
import { type ExecutionSummary, listExecutions, type N8nClient } from '../../harness/rest';

/** An accessor for what beforeAll starts: the value, or the error "<what> did not start". */
export function requireStarted<T>(what: string, get: () => T | undefined): () => T {
	return () => {
		const value = get();
		if (!value) throw new Error(`${what} did not start`);
		return value;
	};
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(
	what: string,
	check: () => boolean | Promise<boolean>,
	timeoutMs = 30_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
		await delay(100);
	}
}

export const is2xx = (status: number | undefined): boolean =>
	status !== undefined && status >= 200 && status < 300;

/** The items `node` output in its first run; throws when the execution did not run it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function outputOf(execution: ExecutionSummary, node: string): any[] {
	const runs = execution.data?.resultData?.runData?.[node];
	if (!runs) throw new Error(`execution ${execution.id} did not run ${node}`);
	return runs[0].data.main[0];
}

/** The first item `node` output, if it ran and output one. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function firstItemOf(execution: ExecutionSummary, node: string): any {
	return execution.data?.resultData?.runData?.[node]?.[0]?.data?.main?.[0]?.[0];
}

/** Creates the workflow and activates it (its triggers and webhooks registered); returns its id. */
export async function createActiveWorkflow(
	n8n: Pick<N8nClient, 'createWorkflow' | 'activateWorkflow'>,
	workflow: Record<string, unknown>,
): Promise<string> {
	const created = await n8n.createWorkflow(workflow);
	await n8n.activateWorkflow(created.id);
	return created.id;
}

/** Runs every stop in turn, whatever the others do: an afterAll that leaves nothing running. */
export async function stopAll(stops: Array<() => unknown>): Promise<void> {
	for (const stop of stops) await Promise.resolve(stop()).catch(() => undefined);
}

/** A secret as it may show: as it is, and URL-encoded (in a callback URI's query, say). */
export const secretForms = (values: string[]): string[] =>
	values.flatMap((v) => [...new Set([v, encodeURIComponent(v)])]);

export interface SecretScan {
	/** Every execution of the instance, with its data. */
	executions: ExecutionSummary[];
	/** Each execution as JSON, and n8n's log lines: what was searched. */
	data: string[];
	logLines: string[];
	/** Per kind of secret, how often it occurs in each; a clean scan has every count 0. */
	found: Record<string, { executions: number; logs: number }>;
	/** The table for a report: kind, how many values, occurrences in each. */
	rows: string[][];
	/** For a suite's summary file. */
	summary: {
		executions: number;
		dataBytes: number;
		logLines: number;
		found: Record<string, { executions: number; logs: number }>;
	};
}

/** Searches every execution's data and every line n8n logged for each kind of secret (in any form). */
export async function scanForSecrets(
	n8n: Pick<N8nClient, 'api'> & { logs(): string },
	secrets: Record<string, string[]>,
): Promise<SecretScan> {
	const executions = await listExecutions(n8n, { includeData: true });
	const data = executions.map((e) => JSON.stringify(e));
	const logLines = n8n.logs().split('\n');
	const found: Record<string, { executions: number; logs: number }> = {};
	const rows = [['secret', 'values', 'in execution data', 'in log lines']];
	for (const [kind, values] of Object.entries(secrets)) {
		const forms = secretForms(values);
		const count = (texts: string[]) =>
			texts.reduce((n, text) => n + forms.reduce((m, f) => m + text.split(f).length - 1, 0), 0);
		found[kind] = { executions: count(data), logs: count(logLines) };
		rows.push([
			kind,
			String(values.length),
			String(found[kind].executions),
			String(found[kind].logs),
		]);
	}
	const summary = {
		executions: executions.length,
		dataBytes: data.reduce((n, d) => n + d.length, 0),
		logLines: logLines.length,
		found,
	};
	return { executions, data, logLines, found, rows, summary };
}

/** What `found` is when no secret was found: the assertion a secret scan makes. */
export const nothingFound = (found: SecretScan['found']) =>
	Object.fromEntries(Object.keys(found).map((kind) => [kind, { executions: 0, logs: 0 }]));

/** "1.2 s" */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** How often each value occurs, sorted: "200×12 401×3". */
export function histogram(values: Array<string | number>): string {
	const counts = new Map<string, number>();
	for (const v of values) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
	return [...counts.entries()]
		.sort()
		.map(([v, n]) => `${v}×${n}`)
		.join(' ');
}

/** Rows as a plain-text table, columns padded to their widest cell. */
export function table(rows: string[][]): string {
	const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
	return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join('  ')).join('\n');
}
