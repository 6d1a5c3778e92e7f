// Where n8n's CPU goes per request, for our trigger in its steady state against the floor and n8n's Webhook
// node: one n8n in one setting, its main thread profiled through the inspector (V8 sampling profiler) while
// closed-loop load runs against one target at a time, and every thread's CPU read from /proc. Not part of
// `npm run bench`; writes bench/tmp/profile-<setting>.json and prints ms per request by cause.
//
//   bash scripts/run.sh exec tsx bench/profile.ts [--setting lazy] [--preview-v2] [--rounds 2] [--seconds 15]
//     [--prime 1100] [--prefilled] [--save-profiles] [--targets ours,floor,floorCred,webhook]
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { type N8nInstance, PROJECT_ROOT, startN8n } from '../harness';
import { type Sandbox, startSandbox } from '../sandbox/server';
import { type BuiltPackages, buildPackages, SHIPPED_TRIGGER_TYPE } from './lib/build';
import { EARLIER_LIST_FIELD, fullSeenList, PRIME_EVENTS } from './lib/earlierList';
import { analyseProfile, type CpuProfile, type Marker } from './lib/cpuprofile';
import { eventTemplate, type EventTemplate } from './lib/event';
import { Inspector, inspectorUrlIn } from './lib/inspector';
import { postOnce, runLoad } from './lib/load';
import {
	perRequestTable,
	type ProfileWindow,
	referenceOf,
	type TableRow,
} from './lib/profileTable';
import { countStatements, type QueryCount } from './lib/queries';
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
import {
	createTarget,
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
		prime: { type: 'string', default: String(PRIME_EVENTS) },
		prefilled: { type: 'boolean', default: false },
		'save-profiles': { type: 'boolean', default: false },
		targets: {
			type: 'string',
			default: 'ours,floor,floorCred,webhook',
			description: "item 1's target keys to profile, comma-separated (e.g. ours,floorCred,floorCredDesc)",
		},
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

/** Where the profile's summary (and, with --save-profiles, each window's raw profile) is written. */
const OUT_DIR = join(PROJECT_ROOT, 'bench', 'tmp');

const OURS = 'n8n-nodes-captioning/dist/nodes/Captioning/';
/** Places on the request path, in the order printed; a sample counts for each one on its stack. */
const MARKERS: Marker[] = [
	{
		label: 'ours: webhook() (sync parts)',
		url: `${OURS}CaptioningTrigger.node.js`,
		functionName: 'webhook',
	},
	{ label: 'ours: trigger/pipeline.js', url: `${OURS}trigger/pipeline.js` },
	{ label: 'ours: trigger/token.js', url: `${OURS}trigger/token.js` },
	{ label: 'ours: trigger/body.js', url: `${OURS}trigger/body.js` },
	{ label: 'ours: trigger/event.js', url: `${OURS}trigger/event.js` },
	{
		label: 'ours: trigger/dedupe/claims.js (in-process claims)',
		url: `${OURS}trigger/dedupe/claims.js`,
	},
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

/** The window's raw profile, for Chrome DevTools or a closer look: bench/tmp/profile-<setting>-<target>-<round>. */
async function saveProfile(profile: CpuProfile, name: string): Promise<void> {
	await mkdir(OUT_DIR, { recursive: true });
	await writeFile(
		join(OUT_DIR, `profile-${values.setting}-${name}.cpuprofile`),
		JSON.stringify(profile),
	);
}

async function profileWindow(
	n8n: N8nInstance,
	inspector: Inspector,
	pid: number,
	target: Target,
	template: EventTemplate,
	seconds: number,
	round: number,
): Promise<ProfileWindow> {
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
	// after the CPU is read: writing the file is not the window's work
	if (values['save-profiles']) await saveProfile(profile, `${target.key}-${round}`);
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

type QueryCounts = Record<string, QueryCount>;

/**
 * The targets profiled and counted (`--targets`): by default ours in its steady state, the floor bare and with a
 * credential, the Webhook node.
 */
const profiledSpecs = (packages: BuiltPackages) =>
	targetSpecs(packages.trigger).filter((s) => values.targets.split(',').includes(s.key));

/**
 * SQL statements per request, counted from n8n's own query log (a separate n8n started with typeorm's query
 * logging on, never used for a timing), nothing else talking to n8n meanwhile. Ours is primed first.
 */
async function countQueries(
	packages: BuiltPackages,
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
		for (const spec of profiledSpecs(packages)) {
			const target = await createTarget(n8n, sandbox, credentialId, spec);
			if (spec.key === 'ours') await primeTarget(n8n, target, prime, template);
			for (const mode of sendingModes(target, template, requests)) {
				const before = await newestExecutionId(n8n);
				await sleep(2000);
				const start = output.length;
				await mode.send();
				await sleep(3000);
				const counted = countStatements(output.slice(start), mode.sent);
				await waitForFinished(n8n, target.workflowId, before, mode.sent);
				counts[`${spec.key}, ${mode.name}`] = counted;
				process.stderr.write(
					`${spec.key}, ${mode.name}: ${counted.perRequest.toFixed(1)} SQL statements per request\n`,
				);
			}
		}
		return counts;
	} finally {
		await n8n.stop();
		await sandbox.stop();
	}
}

/** `one at a time` (300 ms apart) and `4 connections` (closed loop): how the SQL count sends. */
function sendingModes(
	target: Target,
	template: EventTemplate,
	requests: number,
): Array<{ name: string; sent: number; send: () => Promise<void> }> {
	return [
		{
			name: 'one at a time',
			sent: requests,
			send: async () => {
				for (let i = 0; i < requests; i++) {
					const answer = await postOnce(target.url, template.next());
					if (answer.status !== 200) throw new Error(`${target.key}: ${answer.status}`);
					await sleep(300);
				}
			},
		},
		{
			name: '4 connections',
			sent: requests * 5,
			send: async () => {
				const load = await runLoad({
					url: target.url,
					concurrency: 4,
					warmupMs: 0,
					durationMs: 600_000,
					maxRequests: requests * 5,
					body: template.next,
				});
				if (load.errors) throw new Error(`${target.key}: ${load.firstError}`);
			},
		},
	];
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
			inspectorUrl ??= inspectorUrlIn(chunk);
		},
	});
	try {
		const pid = findPidByCommandLine(`${n8n.userFolder}/.captioning-watchdog.cjs`)!;
		const inspector = await startProfiler(inspectorUrl);
		const credentialId = await createCaptioningCredential(n8n, sandbox, 'profile');
		const targets: Target[] = [];
		for (const spec of profiledSpecs(packages)) {
			targets.push(await createTarget(n8n, sandbox, credentialId, spec));
		}
		const ours = targets.find((t) => t.key === 'ours')!;
		const prime = Number(values.prime);
		const primed = await primeTarget(n8n, ours, prime, template);
		process.stderr.write(`primed ours with ${prime} events in ${primed.seconds.toFixed(0)} s\n`);
		const staticBytes = await savedStaticDataBytes(n8n, ours.workflowId);
		if (values.prefilled) {
			targets.push(await prefilledTarget(n8n, sandbox, credentialId, packages));
		}
		const windows = await profileRounds(n8n, inspector, pid, targets, template);
		inspector.close();
		const { columns, table } = perRequestTable(windows);
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
		const file = join(OUT_DIR, `profile-${setting}.json`);
		await mkdir(OUT_DIR, { recursive: true });
		await writeFile(file, JSON.stringify({ ...out, queries }, null, 2));
		printProfile(columns, table, queries);
		process.stdout.write(`\nwrote ${file}\n`);
	} finally {
		await n8n.stop();
		await sandbox.stop();
		await packages.remove();
	}
}

/** The inspector of the n8n started with --inspect, its sampling profiler enabled at 500 µs. */
async function startProfiler(inspectorUrl: string | undefined): Promise<Inspector> {
	if (!inspectorUrl) throw new Error('n8n printed no inspector URL');
	const inspector = await Inspector.connect(inspectorUrl);
	await inspector.send('Profiler.enable');
	await inspector.send('Profiler.setSamplingInterval', { interval: 500 });
	return inspector;
}

/** --prefilled: ours upgraded from an earlier version, whose full list in the static data activation drops. */
async function prefilledTarget(
	n8n: N8nInstance,
	sandbox: Sandbox,
	credentialId: string,
	packages: BuiltPackages,
): Promise<Target> {
	const workflow = await n8n.createWorkflow(
		triggerWorkflow({
			name: 'profile: prefilled',
			type: SHIPPED_TRIGGER_TYPE,
			typeVersion: packages.trigger.defaultVersion,
			credentialId,
			nodeStaticData: {
				[EARLIER_LIST_FIELD]: fullSeenList(Date.now()),
			},
		}),
	);
	await n8n.activateWorkflow(workflow.id);
	const { webhookId } = (workflow.nodes as { name: string; webhookId: string }[]).find(
		(n) => n.name === TRIGGER_NODE_NAME,
	)!;
	return { key: 'oursFresh', workflowId: workflow.id, url: triggerUrl(sandbox, n8n, webhookId) };
}

/** --rounds rounds of one window per target, the order reversed every other round. */
async function profileRounds(
	n8n: N8nInstance,
	inspector: Inspector,
	pid: number,
	targets: Target[],
	template: EventTemplate,
): Promise<ProfileWindow[]> {
	const windows: ProfileWindow[] = [];
	for (let round = 1; round <= Number(values.rounds); round++) {
		for (const target of roundOrder(targets, round)) {
			const seconds = Number(values.seconds);
			const window = await profileWindow(n8n, inspector, pid, target, template, seconds, round);
			windows.push(window);
			process.stderr.write(
				`round ${round} ${target.key}: ${window.eventsPerSecond.toFixed(1)} ev/s, ` +
					`${(window.groupCpuMs / window.requests).toFixed(1)} ms CPU/req, load ${window.load1}\n`,
			);
		}
	}
	return windows;
}

/** The table as columns of ms per request, then SQL statements per request by statement. */
function printProfile(
	columns: string[],
	table: TableRow[],
	queries: QueryCounts | undefined,
): void {
	const widths = [58, ...Array(columns.length + 1).fill(14)];
	const line = (cells: Array<string | number>) =>
		cells.map((c, i) => String(c).padEnd(widths[i])).join('');
	const difference = `ours − ${referenceOf(columns) ?? 'floor'}`;
	process.stdout.write(`\n${line(['ms per request', ...columns, difference])}\n`);
	for (const entry of table) {
		process.stdout.write(
			`${line([entry.row, ...columns.map((c) => entry[c]), entry[difference] ?? ''])}\n`,
		);
	}
	for (const [key, q] of Object.entries(queries ?? {})) {
		const statements = Object.entries(q.byStatement)
			.sort((a, b) => b[1] - a[1])
			.map(([statement, n]) => `${statement} ${n.toFixed(2)}`)
			.join(', ');
		process.stdout.write(`SQL per request, ${key}: ${q.perRequest.toFixed(2)} (${statements})\n`);
	}
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
