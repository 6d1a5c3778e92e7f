// Renewal across workers, measured (docs/queue-mode.md, "Tokens renewed across workers"): a workflow of a
// Webhook node and two Captioning calls (Get Many webhook endpoints), run by the cluster's workers at a steady
// rate while the access token expires, against a sandbox of its own that rotates refresh tokens. What counts:
// executions that failed, and the token requests each expiry cost (the goal: one refresh, no assertion grant).
import { randomUUID } from 'node:crypto';

import {
	ACTION_TYPE,
	createSandboxCredential,
	linearWorkflow,
	listExecutions,
	type N8nInstance,
	webhookNode,
} from '../../harness';
import { type Sandbox, startSandbox } from '../../sandbox/server';
import { createActiveWorkflow, delay, waitFor } from '../helpers/suite';
import {
	countOf,
	type LoggedRequest,
	type RenewalRun,
	type RenewalTally,
	renewalsOf,
	tallyRenewals,
} from './tally';

export interface RenewalResult {
	run: RenewalRun;
	workers: number;
	/** The burst's executions by status (the warm-up's not counted). */
	executions: Record<string, number>;
	/** How the webhook answered the burst's starts, by status. */
	starts: Record<string, number>;
	failed: number;
	/** The first failed executions' messages. */
	errors: string[];
	tally: RenewalTally;
	/** API answers that refused a token during the burst, by status. */
	refusedCalls: Record<string, number>;
	/** The sandbox's token log of the burst: when, which grant, what answer (never a token). */
	tokenLog: string[];
	seconds: number;
}

interface Cluster {
	main: N8nInstance;
	webhookBaseUrl: string;
	workers: number;
}

const getMany = (name: string, credential: { id: string; name: string }) => ({
	id: randomUUID(),
	name,
	type: ACTION_TYPE,
	typeVersion: 1,
	parameters: { resource: 'webhookEndpoint', operation: 'getAll', returnAll: false, limit: 5 },
	credentials: { captioningApi: credential },
});

const offset = (at: number, since: number) => `+${((at - since) / 1000).toFixed(3)} s`.padStart(10);

/** One line of the token log: seconds since the burst began, then what reached the service. */
function logLine(request: Sandbox['requestLog'][number], since: number): string {
	const at = offset(request.at, since);
	if (request.path !== '/oauth/token')
		return `${at}  ${request.method} ${request.path} ${request.status}`;
	const refresh =
		request.refreshSerial === undefined
			? ''
			: ` presenting refresh token #${request.refreshSerial}`;
	const issued =
		request.issuedRefreshSerial === undefined
			? ''
			: ` -> refresh token #${request.issuedRefreshSerial}`;
	return `${at}  token ${request.grantType ?? '?'} ${request.status}${refresh}${issued}`;
}

/** Runs one measurement: its own sandbox, credential and workflow; the cluster is shared. */
export async function measureRenewal(
	cluster: Cluster,
	run: RenewalRun,
	progress: (line: string) => void,
): Promise<RenewalResult> {
	const label = `${run.expiry}, earlier tokens ${run.earlierTokens}`;
	const sandbox = await startSandbox({
		rateLimit: null,
		accessTokenTtlSeconds: run.tokenTtlSeconds,
		variants: { 'earlier-tokens': run.earlierTokens },
	});
	try {
		const credential = await createSandboxCredential(cluster.main, sandbox, `Renewal: ${label}`);
		const path = `renewal-${randomUUID()}`;
		const workflowId = await createActiveWorkflow(
			cluster.main,
			linearWorkflow(`Renewal: ${label}`, [
				webhookNode(path, { parameters: { responseMode: 'onReceived' } }),
				getMany('List 1', credential),
				getMany('List 2', credential),
			]),
		);
		const url = `${cluster.webhookBaseUrl}/${path}`;
		const start = async () => {
			const res = await fetch(url, { method: 'POST', body: '{}' });
			await res.arrayBuffer();
			return res.status;
		};
		const executions = async () =>
			await listExecutions(cluster.main, { workflowId, includeData: true });

		// the warm-up obtains the first token (the assertion grant)
		expect(await start()).toBe(200);
		await waitFor(
			'the warm-up execution',
			async () => (await executions()).some((e) => e.status === 'success'),
			120_000,
		);
		const warmup = new Set((await executions()).map((e) => e.id));
		const firstGrant = sandbox.requestLog.find((r) => r.path === '/oauth/token')?.at ?? Date.now();
		if (run.expiry === 'lifetime') {
			// the burst straddles the first token's end of life on the service's side
			const from = firstGrant + run.tokenTtlSeconds * 1000 - run.burstMs / 2;
			if (from > Date.now()) await delay(from - Date.now());
		}

		const burstStarted = Date.now();
		const jumps =
			run.expiry === 'clock'
				? Array.from(
						{ length: run.expiries },
						(_, i) => burstStarted + ((i + 1) * run.burstMs) / (run.expiries + 1),
					)
				: undefined;
		const jumped: number[] = [];
		const clock = (async () => {
			for (const at of jumps ?? []) {
				if (at > Date.now()) await delay(at - Date.now());
				// every token issued so far expires on the service's side; n8n holds them for valid
				sandbox.advanceClock(run.tokenTtlSeconds + 1);
				jumped.push(Date.now());
			}
		})();
		const answers: Array<Promise<number>> = [];
		for (let i = 0; i < run.executions; i++) {
			const target = burstStarted + (i * run.burstMs) / run.executions;
			if (target > Date.now()) await delay(target - Date.now());
			answers.push(start());
		}
		await clock;
		const statuses = await Promise.all(answers);
		progress(
			`renewal (${label}): ${run.executions} executions started in ${run.burstMs / 1000} s, ` +
				`${statuses.filter((s) => s !== 200).length} not answered 200`,
		);
		// a start the balancer or the webhook process did not answer 200 (a loaded machine) started nothing
		const started = statuses.filter((status) => status === 200).length;
		let all = await executions();
		const deadline = Date.now() + 300_000;
		while (
			all.length < started + warmup.size ||
			all.some((e) => e.status === 'running' || e.status === 'new' || e.status === 'waiting')
		) {
			if (Date.now() > deadline) throw new Error('the renewal executions did not settle');
			await delay(1_000);
			all = await executions();
		}
		const burst = all.filter((e) => !warmup.has(e.id));
		const byStatus: Record<string, number> = {};
		for (const e of burst) byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
		const failedExecutions = burst.filter((e) => e.status !== 'success');
		const requests = sandbox.requestLog.filter((r) => r.at >= burstStarted);
		const renewals = renewalsOf(requests as LoggedRequest[], jumps ? jumped : undefined);
		const refusedCalls: Record<string, number> = {};
		for (const r of requests) {
			if (r.path !== '/oauth/token' && r.status >= 400) {
				refusedCalls[r.status] = (refusedCalls[r.status] ?? 0) + 1;
			}
		}
		const shown = requests.filter((r) => r.path === '/oauth/token' || r.status >= 400);
		const result: RenewalResult = {
			run,
			workers: cluster.workers,
			executions: byStatus,
			starts: Object.fromEntries(countOf(statuses.map(String))),
			failed: failedExecutions.length,
			errors: failedExecutions
				.slice(0, 5)
				.map((e) => String(e.data?.resultData?.error?.message ?? '').slice(0, 300)),
			tally: tallyRenewals(renewals),
			refusedCalls,
			tokenLog: [
				...jumped.map((at): [number, string] => [
					at,
					`${offset(at, burstStarted)}  the service's clock jumps: every token issued so far has expired`,
				]),
				...shown.map((r): [number, string] => [r.at, logLine(r, burstStarted)]),
			]
				.sort((a, b) => a[0] - b[0])
				.map(([, line]) => line),
			seconds: (Date.now() - burstStarted) / 1000,
		};
		await cluster.main.deactivateWorkflow(workflowId);
		return result;
	} finally {
		await sandbox.stop();
	}
}
