// Where n8n's CPU goes per request, for our trigger in its steady state against the floor and n8n's Webhook
// node: one n8n in one setting, its main thread profiled through the inspector (V8 sampling profiler) while
// closed-loop load runs against one target at a time, and every thread's CPU read from /proc. Not part of
// `npm run bench`; writes bench/tmp/profile-<setting>.json and prints ms per request by cause.
//
//   bash scripts/run.sh exec tsx bench/profile.ts [--setting lazy] [--preview-v2] [--rounds 2] [--seconds 15]
//     [--prime 1100] [--prefilled]
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { type N8nInstance, PROJECT_ROOT, startN8n } from '../harness';
import { SEEN_FIELDS, SEEN_LIMIT } from '../nodes/Captioning/trigger';
import { startSandbox } from '../sandbox/server';
import { buildPackages, SHIPPED_TRIGGER_TYPE } from './lib/build';
import { analyseProfile, type CpuProfile, type Marker } from './lib/cpuprofile';
import { eventTemplate, type EventTemplate } from './lib/event';
import { postOnce, runLoad } from './lib/load';
import { statementKey } from './lib/queries';
import {
	findPidByCommandLine,
	loadSample,
	processGroupCpuSeconds,
	threadCpuSeconds,
	sleep,
} from './lib/machine';
import {
	createCaptioningCredential,
	newestExecutionId,
	TRIGGER_NODE_NAME,
	triggerUrl,
	triggerWorkflow,
	waitForFinished,
} from './lib/n8n';
import { summarize } from './lib/stats';
import {
	createTarget,
	fullSeenList,
	primeTarget,
	roundOrder,
	savedStaticDataBytes,
	type Target,
	targetSpecs,
} from './measure/throughput';

const { values } = parseArgs({
	options: {
		setting: { type: 'string', default: 'lazy' },
		'preview-v2': { type: 'boolean', default: false },
		rounds: { type: 'string', default: '2' },
		seconds: { type: 'string', default: '15' },
		prime: { type: 'string', default: String(Math.ceil(SEEN_LIMIT * 1.1)) },
		prefilled: { type: 'boolean', default: false },
		queries: {
			type: 'string',
			default: '20',
			description: 'requests per target for the SQL count; 0: none',
		},
	},
});

const SETTINGS: Record<string, Record<string, string>> = {
	default: {},
	lazy: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	legacy: { N8N_EXPRESSION_ENGINE: 'legacy' },
};

const OURS = 'n8n-nodes-captioning/dist/nodes/Captioning/';
/** Places on the request path, in the order printed; a sample counts for each one on its stack. */
const MARKERS: Marker[] = [
	{
		label: 'ours: webhook() (sync parts)',
		url: `${OURS}CaptioningTrigger.node.js`,
		functionName: 'webhook',
	},
	{ label: 'ours: trigger/pipeline.js', url: `${OURS}trigger/pipeline.js` },
	{ label: 'ours: trigger/receive.js', url: `${OURS}trigger/receive.js` },
	{ label: 'ours: trigger/recent.js (in-process claims)', url: `${OURS}trigger/recent.js` },
	{ label: 'ours: trigger/seen.js (stored list)', url: `${OURS}trigger/seen.js` },
	{ label: 'ours: zod', url: '/node_modules/zod/' },
	{ label: 'floor: webhook()', url: 'n8n-nodes-bench-floor/' },
	{
		label: 'n8n: LiveWebhooks (request, static data save)',
		url: 'n8n/dist/webhooks/live-webhooks.js',
	},
	{ label: 'n8n: webhook-helpers executeWebhook', url: 'n8n/dist/webhooks/webhook-helpers.js' },
	{ label: 'n8n: body parser', url: 'n8n/dist/middlewares/body-parser.js' },
	{ label: 'n8n: WorkflowRunner', url: 'n8n/dist/workflow-runner.js' },
	{ label: 'n8n: static data load/save service', url: 'workflow-static-data.service.js' },
	{
		label: 'n8n-workflow: ObservableObject (static data proxies)',
		url: 'n8n-workflow/dist/cjs/observable-object.js',
	},
	{
		label: 'n8n-workflow: new Workflow()',
		url: 'n8n-workflow/dist/cjs/workflow.js',
		functionName: 'Workflow',
	},
	{ label: 'n8n: credentials permission check', url: 'credentials-permission-checker.js' },
	{
		label: 'n8n: execution persistence (create)',
		url: 'n8n/dist/executions/execution-persistence.js',
	},
	{ label: 'n8n: execution lifecycle hooks (save result)', url: 'n8n/dist/execution-lifecycle/' },
	{ label: 'n8n-core: WorkflowExecute', url: 'n8n-core/dist/execution-engine/workflow-execute.js' },
	{ label: 'expression engine', url: '@n8n/expression-runtime/' },
	{ label: 'database: typeorm', url: '@n8n/typeorm/' },
	{ label: 'database: sqlite3 driver', url: '/sqlite3/' },
	{ label: 'express', url: '/express/' },
	{ label: 'public API (the bench polling executions)', url: 'n8n/dist/public-api/' },
];

/** The inspector of n8n's main process, from its "Debugger listening on ws://..." line. */
class Inspector {
	private id = 0;
	private pending = new Map<number, (result: unknown) => void>();
	private constructor(private socket: WebSocket) {
		socket.addEventListener('message', (event) => {
			const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
			if (message.id !== undefined) this.pending.get(message.id)?.(message.result);
		});
	}
	static async connect(url: string): Promise<Inspector> {
		const socket = new WebSocket(url);
		await new Promise((resolve, reject) => {
			socket.addEventListener('open', resolve, { once: true });
			socket.addEventListener('error', reject, { once: true });
		});
		return new Inspector(socket);
	}
	send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
		const id = ++this.id;
		return new Promise((resolve) => {
			this.pending.set(id, resolve as (result: unknown) => void);
			this.socket.send(JSON.stringify({ id, method, params }));
		});
	}
	close() {
		this.socket.close();
	}
}

interface Window {
	target: string;
	round: number;
	requests: number;
	eventsPerSecond: number;
	groupCpuMs: number;
	threadsCpuMs: Record<string, number>;
	profile: ReturnType<typeof analyseProfile>;
	executionDataBytes: number;
	load1: number;
}

async function executionDataBytes(n8n: N8nInstance, workflowId: string): Promise<number> {
	const page = await n8n.api<{ data: Array<{ id: string }> }>(
		'GET',
		`/executions?workflowId=${workflowId}&limit=1`,
	);
	const execution = await n8n.api<{ data?: unknown }>(
		'GET',
		`/executions/${page.data[0].id}?includeData=true`,
	);
	return Buffer.byteLength(JSON.stringify(execution.data ?? {}));
}

async function profileWindow(
	n8n: N8nInstance,
	inspector: Inspector,
	pid: number,
	target: Target,
	template: EventTemplate,
	seconds: number,
	round: number,
): Promise<Window> {
	// warm-up outside the profile
	await runLoad({
		url: target.url,
		concurrency: 4,
		warmupMs: 0,
		durationMs: 2000,
		body: template.next,
	});
	await sleep(1500);
	const before = await newestExecutionId(n8n);
	const group0 = processGroupCpuSeconds(pid);
	const threads0 = threadCpuSeconds(pid);
	await inspector.send('Profiler.start');
	const load = await runLoad({
		url: target.url,
		concurrency: 4,
		warmupMs: 0,
		durationMs: seconds * 1000,
		body: template.next,
	});
	if (load.errors) throw new Error(`${target.key}: ${load.firstError}`);
	const executions = await waitForFinished(n8n, target.workflowId, before, load.totalOk);
	const { profile } = await inspector.send<{ profile: CpuProfile }>('Profiler.stop');
	const groupCpuMs = (processGroupCpuSeconds(pid) - group0) * 1000;
	const threads1 = threadCpuSeconds(pid);
	if (executions.some((e) => e.status !== 'success'))
		throw new Error(`${target.key}: failed executions`);
	const threadsCpuMs: Record<string, number> = {};
	for (const [name, cpu] of Object.entries(threads1)) {
		threadsCpuMs[name] = (cpu - (threads0[name] ?? 0)) * 1000;
	}
	return {
		target: target.key,
		round,
		requests: load.totalOk,
		eventsPerSecond: load.totalOk / seconds,
		groupCpuMs,
		threadsCpuMs,
		profile: analyseProfile(profile, MARKERS, OURS),
		executionDataBytes: await executionDataBytes(n8n, target.workflowId),
		load1: loadSample().load[0],
	};
}

type QueryCounts = Record<string, { perRequest: number; byStatement: Record<string, number> }>;

/**
 * SQL statements per request, counted from n8n's own query log (a separate n8n started with typeorm's query
 * logging on, never used for a timing), nothing else talking to n8n meanwhile: `one at a time` (300 ms apart)
 * and `4 connections` (closed loop). Ours is primed to its steady state first.
 */
async function countQueries(
	packages: Awaited<ReturnType<typeof buildPackages>>,
	env: Record<string, string>,
	template: EventTemplate,
	requests: number,
	prime: number,
): Promise<QueryCounts> {
	let output = '';
	const sandbox = await startSandbox({ rateLimit: null });
	const n8n = await startN8n({
		packageTarball: [packages.shipped, packages.floor],
		env: { ...env, DB_LOGGING_ENABLED: 'true', DB_LOGGING_OPTIONS: 'query' },
		onOutput: (chunk) => {
			output += chunk;
		},
	});
	try {
		const credentialId = await createCaptioningCredential(n8n, sandbox, 'queries');
		const counts: QueryCounts = {};
		for (const spec of targetSpecs(packages.trigger).filter((s) =>
			['ours', 'floor', 'floorCred', 'webhook'].includes(s.key),
		)) {
			const target = await createTarget(n8n, sandbox, credentialId, spec);
			if (spec.key === 'ours') await primeTarget(n8n, target, prime, template);
			const modes: Array<[string, number, () => Promise<void>]> = [
				[
					'one at a time',
					requests,
					async () => {
						for (let i = 0; i < requests; i++) {
							const answer = await postOnce(target.url, template.next());
							if (answer.status !== 200) throw new Error(`${spec.key}: ${answer.status}`);
							await sleep(300);
						}
					},
				],
				[
					'4 connections',
					requests * 5,
					async () => {
						const load = await runLoad({
							url: target.url,
							concurrency: 4,
							warmupMs: 0,
							durationMs: 600_000,
							maxRequests: requests * 5,
							body: template.next,
						});
						if (load.errors) throw new Error(`${spec.key}: ${load.firstError}`);
					},
				],
			];
			for (const [mode, sent, send] of modes) {
				const before = await newestExecutionId(n8n);
				await sleep(2000);
				const start = output.length;
				await send();
				await sleep(3000);
				const lines = output
					.slice(start)
					.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')
					.split('\n');
				const byStatement: Record<string, number> = {};
				let total = 0;
				for (const line of lines.filter((l) => /\bquery:/.test(l))) {
					const key = statementKey(line);
					byStatement[key] = (byStatement[key] ?? 0) + 1 / sent;
					total++;
				}
				await waitForFinished(n8n, target.workflowId, before, sent);
				counts[`${spec.key}, ${mode}`] = { perRequest: total / sent, byStatement };
				process.stderr.write(
					`${spec.key}, ${mode}: ${(total / sent).toFixed(1)} SQL statements per request\n`,
				);
			}
		}
		return counts;
	} finally {
		await n8n.stop();
		await sandbox.stop();
	}
}

async function main() {
	const setting = values.setting!;
	if (!SETTINGS[setting]) throw new Error(`--setting: default, lazy or legacy, not ${setting}`);
	const packages = await buildPackages({ previewV2: values['preview-v2'] });
	const template = await eventTemplate();
	const sandbox = await startSandbox({ rateLimit: null });
	let inspectorUrl: string | undefined;
	const n8n = await startN8n({
		packageTarball: [packages.shipped, packages.floor],
		env: { ...SETTINGS[setting], NODE_OPTIONS: '--inspect=127.0.0.1:0' },
		onOutput: (chunk) => {
			inspectorUrl ??= /Debugger listening on (ws:\/\/\S+)/.exec(chunk)?.[1];
		},
	});
	try {
		const pid = findPidByCommandLine(`${n8n.userFolder}/.captioning-watchdog.cjs`)!;
		if (!inspectorUrl) throw new Error('n8n printed no inspector URL');
		const inspector = await Inspector.connect(inspectorUrl);
		await inspector.send('Profiler.enable');
		await inspector.send('Profiler.setSamplingInterval', { interval: 500 });
		const credentialId = await createCaptioningCredential(n8n, sandbox, 'profile');
		const specs = targetSpecs(packages.trigger).filter((s) =>
			['ours', 'floor', 'floorCred', 'webhook'].includes(s.key),
		);
		const targets: Target[] = [];
		for (const spec of specs) targets.push(await createTarget(n8n, sandbox, credentialId, spec));
		const ours = targets.find((t) => t.key === 'ours')!;
		const prime = Number(values.prime);
		const primed = await primeTarget(n8n, ours, prime, template);
		process.stderr.write(`primed ours with ${prime} events in ${primed.seconds.toFixed(0)} s\n`);
		const staticBytes = await savedStaticDataBytes(n8n, ours.workflowId);
		if (values.prefilled) {
			// the state the previous benchmark assumed: a full list in the static data n8n has saved
			const workflow = await n8n.createWorkflow(
				triggerWorkflow({
					name: 'profile: prefilled',
					type: SHIPPED_TRIGGER_TYPE,
					typeVersion: packages.trigger.defaultVersion,
					credentialId,
					nodeStaticData: {
						[SEEN_FIELDS.production]: fullSeenList(Date.now()),
					},
				}),
			);
			await n8n.activateWorkflow(workflow.id);
			const { webhookId } = (workflow.nodes as { name: string; webhookId: string }[]).find(
				(n) => n.name === TRIGGER_NODE_NAME,
			)!;
			targets.push({
				key: 'oursFresh',
				workflowId: workflow.id,
				url: triggerUrl(sandbox, n8n, webhookId),
			});
		}
		const windows: Window[] = [];
		for (let round = 1; round <= Number(values.rounds); round++) {
			for (const target of roundOrder(targets, round)) {
				const window = await profileWindow(
					n8n,
					inspector,
					pid,
					target,
					template,
					Number(values.seconds),
					round,
				);
				windows.push(window);
				process.stderr.write(
					`round ${round} ${target.key}: ${window.eventsPerSecond.toFixed(1)} ev/s, ` +
						`${(window.groupCpuMs / window.requests).toFixed(1)} ms CPU/req, load ${window.load1}\n`,
				);
			}
		}
		inspector.close();
		const label = (key: string) => (key === 'oursFresh' ? 'oursPrefilled' : key);
		const perRequest = (w: Window, ms: number) => ms / w.requests;
		// row -> target -> one value per window, rows in the order first seen
		const collected = new Map<string, Map<string, number[]>>();
		const add = (row: string, target: string, value: number) => {
			const byTarget = collected.get(row) ?? new Map<string, number[]>();
			byTarget.set(target, [...(byTarget.get(target) ?? []), value]);
			collected.set(row, byTarget);
		};
		for (const w of windows) {
			const t = label(w.target);
			add('events/s', t, w.eventsPerSecond);
			add('CPU, n8n process group (all threads, task runner)', t, perRequest(w, w.groupCpuMs));
			for (const [thread, ms] of Object.entries(w.threadsCpuMs)) {
				add(`  thread: ${thread}`, t, perRequest(w, ms));
			}
			// the sampler ticks by wall time, also while a loaded machine has the thread waiting for a core:
			// its shares are scaled to the main thread's CPU time from /proc
			const mainCpuMs = Object.entries(w.threadsCpuMs).find(([name]) =>
				name.startsWith('main'),
			)![1];
			const scale = w.profile.busyMs > 0 ? mainCpuMs / w.profile.busyMs : 0;
			add('main thread, profiled samples (wall ms, unscaled)', t, perRequest(w, w.profile.busyMs));
			for (const [owner, ms] of Object.entries(w.profile.byOwner)) {
				add(`  self: ${owner}`, t, perRequest(w, ms * scale));
			}
			for (const [marker, ms] of Object.entries(w.profile.byMarker)) {
				add(`  under: ${marker}`, t, perRequest(w, ms * scale));
			}
			for (const [fn, ms] of Object.entries(w.profile.byFunction)) {
				if (ms / w.requests >= 0.01) add(`  ours, function: ${fn}`, t, perRequest(w, ms * scale));
			}
			add('execution data, bytes', t, w.executionDataBytes);
		}
		const columns = [...new Set(windows.map((w) => label(w.target)))];
		const table: Array<Record<string, number | string>> = [];
		for (const [row, byTarget] of collected) {
			const entry: Record<string, number | string> = { row };
			for (const column of columns) {
				const list = byTarget.get(column) ?? [];
				entry[column] = list.length ? Math.round(summarize(list).median * 100) / 100 : 0;
			}
			if (typeof entry.ours === 'number' && typeof entry.floor === 'number') {
				entry['ours − floor'] = Math.round((entry.ours - entry.floor) * 100) / 100;
			}
			table.push(entry);
		}
		const out = {
			date: new Date().toISOString(),
			setting,
			env: SETTINGS[setting],
			trigger: packages.trigger,
			primedEvents: prime,
			savedStaticDataBytesAfterPriming: staticBytes,
			savedStaticDataBytesAtEnd: await savedStaticDataBytes(n8n, ours.workflowId),
			rounds: Number(values.rounds),
			secondsPerWindow: Number(values.seconds),
			note:
				'ms of CPU per request, median over rounds; "self"/"under" rows are shares of the profile scaled ' +
				'to the main thread CPU time; "under" = time with that place on the stack',
			table,
			windows,
		};
		const queryRequests = Number(values.queries);
		await n8n.stop(); // idempotent: one n8n at a time
		const queries = queryRequests
			? await countQueries(packages, SETTINGS[setting], template, queryRequests, prime)
			: undefined;
		Object.assign(out, { queries });
		const file = join(PROJECT_ROOT, 'bench', 'tmp', `profile-${setting}.json`);
		await mkdir(join(PROJECT_ROOT, 'bench', 'tmp'), { recursive: true });
		await writeFile(file, JSON.stringify(out, null, 2));
		const widths = [58, ...Array(columns.length + 1).fill(14)];
		const line = (cells: Array<string | number>) =>
			cells.map((c, i) => String(c).padEnd(widths[i])).join('');
		process.stdout.write(`\n${line(['ms per request', ...columns, 'ours − floor'])}\n`);
		for (const entry of table) {
			process.stdout.write(
				`${line([entry.row, ...columns.map((c) => entry[c]), entry['ours − floor'] ?? ''])}\n`,
			);
		}
		for (const [key, q] of Object.entries(queries ?? {})) {
			const statements = Object.entries(q.byStatement)
				.sort((a, b) => b[1] - a[1])
				.map(([statement, n]) => `${statement} ${n.toFixed(2)}`)
				.join(', ');
			process.stdout.write(`SQL per request, ${key}: ${q.perRequest.toFixed(2)} (${statements})\n`);
		}
		process.stdout.write(`\nwrote ${file}\n`);
	} finally {
		await n8n.stop();
		await sandbox.stop();
		await packages.remove();
	}
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
