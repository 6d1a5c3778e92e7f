// `npm run dev`: the sandbox and a real n8n with this package installed from its npm tarball, as a
// user installs it, on 127.0.0.1; an owner account, a Captioning credential for the sandbox and the
// dev example workflow (examples/dev-transcription-feed.json), active. Ctrl-C stops everything.
// The n8n user folder persists under the cache, so a second start skips n8n's migrations and, while
// the package's sources are unchanged, the build and install too.
// Not `n8n-node dev`: it runs `npx n8n@latest` and links the checkout into n8n's custom folder, whose nodes
// load as `CUSTOM.*` types that no example or saved workflow names (docs/development.md, Getting started).
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, readFileSync, type WriteStream } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

import {
	EXAMPLE_CREDENTIAL_NAME,
	type ExecutionSummary,
	installCommunityPackage,
	isAlive,
	loadExample,
	N8N_VERSION,
	N8nHttpError,
	type N8nInstance,
	type OwnerCredentials,
	packInputsHash,
	packProject,
	PROJECT_ROOT,
	sandboxCredentialData,
	startN8n,
	toPublicApiBody,
	useCredential,
} from '../harness';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { nonDefaultVariants, parseVariantArgs } from '../sandbox/variants';

const PACKAGE_NAME = 'n8n-nodes-captioning';
const EXAMPLE_FILE = 'dev-transcription-feed.json';
const CACHE =
	process.env.CAPTIONING_CACHE ??
	join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), PACKAGE_NAME);
const DEV_OWNER: OwnerCredentials = {
	email: 'dev@captioning.test',
	password: 'Captioning-dev-1',
	firstName: 'Caption',
	lastName: 'Developer',
};

const USAGE = `Usage: npm run dev -- [options]

Starts the captioning sandbox and n8n ${N8N_VERSION} with this package installed, on 127.0.0.1.

Options:
  --port <n>          n8n's port (default 5678, or CAPTIONING_DEV_PORT)
  --sandbox-port <n>  the sandbox's port (default 5680, or SANDBOX_PORT)
  --fresh             start from an empty n8n user folder (drops the dev DB, workflows, executions)
  --rebuild           build and reinstall the package even if its sources did not change
  --verbose           print n8n's own log lines here too (they always go to <user folder>/n8n.log)
  --quiet             do not print the sandbox's request lines
  --variant D=V       play a variant of the service (repeatable or comma-separated), e.g. create=flat,manage=absent-405
  -h, --help          this text

The user folder is ${join(CACHE, 'dev-user-folder')} (or CAPTIONING_DEV_USER_FOLDER).
`;

interface DevState {
	sourceHash?: string;
	credentialId?: string;
	workflowId?: string;
	exampleHash?: string;
	/** The workflow's versionId after dev.ts last wrote it: a different one means the user edited it. */
	versionId?: string;
}

function parseOptions() {
	const { values } = parseArgs({
		options: {
			port: { type: 'string', default: process.env.CAPTIONING_DEV_PORT ?? '5678' },
			'sandbox-port': { type: 'string', default: process.env.SANDBOX_PORT ?? '5680' },
			fresh: { type: 'boolean', default: false },
			rebuild: { type: 'boolean', default: false },
			verbose: { type: 'boolean', default: false },
			quiet: { type: 'boolean', default: false },
			variant: { type: 'string', multiple: true, default: [] },
			help: { type: 'boolean', short: 'h', default: false },
		},
	});
	const port = (name: string, value: string): number => {
		const n = Number(value);
		if (!Number.isInteger(n) || n < 1 || n > 65535)
			throw new Error(`--${name} ${value} is no port`);
		return n;
	};
	return {
		port: port('port', values.port),
		sandboxPort: port('sandbox-port', values['sandbox-port']),
		fresh: values.fresh,
		rebuild: values.rebuild,
		verbose: values.verbose,
		quiet: values.quiet,
		// the sandbox's readings of what the contract leaves open (ASSUMPTIONS.md), e.g. manage=absent-405
		variants: parseVariantArgs(values.variant ?? []),
		help: values.help,
		userFolder: process.env.CAPTIONING_DEV_USER_FOLDER ?? join(CACHE, 'dev-user-folder'),
	};
}

type Options = ReturnType<typeof parseOptions>;

const paint = (code: number, text: string): string =>
	process.stdout.isTTY ? `\x1b[${code}m${text}\x1b[0m` : text;
const say = (line = ''): void => {
	process.stdout.write(`${line}\n`);
};
const step = (line: string): void => {
	process.stdout.write(`${paint(36, '[dev]')} ${line}\n`);
};
const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

async function assertPortFree(port: number, what: string, flag: string): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const server = createServer();
		server.once('error', (error: NodeJS.ErrnoException) =>
			reject(
				error.code === 'EADDRINUSE'
					? new Error(`port ${port} on 127.0.0.1 is in use: stop what uses it or pass ${flag}`)
					: error,
			),
		);
		server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
	}).catch((error: Error) => {
		throw new Error(`${what}: ${error.message}`);
	});
}

async function readState(file: string): Promise<DevState> {
	try {
		return JSON.parse(await readFile(file, 'utf8')) as DevState;
	} catch {
		return {};
	}
}

function parentOf(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses
	return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * The processes this one must not outlive: tsx, and under `npm run dev` also the shell and npm above
 * it. A SIGTERM to npm alone ends npm and its shell but not tsx, which would keep the stack running.
 */
function launchers(): number[] {
	const chain = [process.ppid];
	if (process.env.npm_lifecycle_event !== 'dev') return chain;
	try {
		for (let pid = parentOf(process.ppid); pid > 1 && chain.length < 6; pid = parentOf(pid)) {
			chain.push(pid);
			if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('npm')) break;
		}
	} catch {
		// no /proc (macOS): watch tsx only
	}
	return chain;
}

/** Two n8n processes on one SQLite file corrupt it: one dev stack per user folder. */
async function assertFolderFree(userFolder: string): Promise<void> {
	const holder = Number(await readFile(join(userFolder, 'dev.pid'), 'utf8').catch(() => ''));
	if (holder > 0 && holder !== process.pid && isAlive(holder)) {
		throw new Error(
			`npm run dev already runs with ${userFolder} (process ${holder}); stop it first, or set ` +
				'CAPTIONING_DEV_USER_FOLDER to another folder',
		);
	}
}

async function claimUserFolder(userFolder: string): Promise<() => Promise<void>> {
	await assertFolderFree(userFolder);
	const pidFile = join(userFolder, 'dev.pid');
	await writeFile(pidFile, String(process.pid), 'utf8');
	return async () => {
		await rm(pidFile, { force: true });
	};
}

async function ensurePackage(
	options: Options,
	state: DevState,
): Promise<{ version: string; built: boolean }> {
	const hash = packInputsHash();
	const installed = join(options.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
	const manifest = join(installed, 'package.json');
	if (!options.rebuild && state.sourceHash === hash && existsSync(manifest)) {
		const { version } = JSON.parse(await readFile(manifest, 'utf8')) as { version: string };
		step(`${PACKAGE_NAME} ${version}: sources unchanged since the last start, reusing the install`);
		return { version, built: false };
	}
	const started = Date.now();
	step(`building and packing ${PACKAGE_NAME} (npm run build, npm pack)`);
	const tarball = await packProject({ reuse: !options.rebuild });
	try {
		const { version } = await installCommunityPackage(options.userFolder, tarball);
		state.sourceHash = hash;
		step(`installed ${PACKAGE_NAME} ${version} into n8n's nodes folder (${seconds(started)})`);
		return { version, built: true };
	} finally {
		await rm(dirname(tarball), { recursive: true, force: true });
	}
}

interface CredentialSummary {
	id: string;
	name: string;
	type: string;
}

/** The "Captioning account" credential, created or pointed at this start's sandbox. */
async function ensureCredential(
	n8n: N8nInstance,
	sandbox: Sandbox,
	state: DevState,
): Promise<CredentialSummary> {
	const data = sandboxCredentialData(sandbox);
	const { data: list } = await n8n.api<{ data: CredentialSummary[] }>(
		'GET',
		'/credentials?limit=250',
	);
	const existing =
		list.find((c) => c.id === state.credentialId && c.type === 'captioningApi') ??
		list.find((c) => c.name === EXAMPLE_CREDENTIAL_NAME && c.type === 'captioningApi');
	if (existing) {
		// replaces the data, stored tokens included: they belong to an earlier sandbox
		await n8n.api('PATCH', `/credentials/${existing.id}`, { data });
		state.credentialId = existing.id;
		return existing;
	}
	const created = await n8n.createCredential(EXAMPLE_CREDENTIAL_NAME, 'captioningApi', data);
	state.credentialId = created.id;
	return created;
}

interface WorkflowSummary {
	id: string;
	name: string;
	active: boolean;
	versionId: string;
}

/**
 * Imports the dev example on the first start. Later starts keep the workflow as it is, unless the
 * example file changed and the user has not edited the workflow since dev.ts wrote it.
 */
async function ensureWorkflow(
	n8n: N8nInstance,
	credential: CredentialSummary,
	state: DevState,
): Promise<WorkflowSummary> {
	const text = await readFile(join(PROJECT_ROOT, 'examples', EXAMPLE_FILE), 'utf8');
	const exampleHash = createHash('sha256').update(text).digest('hex');
	const example = loadExample(EXAMPLE_FILE);
	// what a user importing through the API does: point the nodes at their credential
	useCredential(example, 'captioningApi', credential);
	const body = toPublicApiBody(example);

	let current: WorkflowSummary | undefined;
	if (state.workflowId) {
		try {
			current = await n8n.api<WorkflowSummary>('GET', `/workflows/${state.workflowId}`);
		} catch (error) {
			if (!(error instanceof N8nHttpError && error.status === 404)) throw error;
		}
	}
	let workflow: WorkflowSummary;
	let wrote = true;
	if (!current) {
		workflow = await n8n.createWorkflow(body);
		step(`imported examples/${EXAMPLE_FILE} as workflow ${workflow.id}`);
	} else if (state.exampleHash !== exampleHash && current.versionId === state.versionId) {
		workflow = await n8n.api<WorkflowSummary>('PUT', `/workflows/${current.id}`, body);
		step(`examples/${EXAMPLE_FILE} changed: updated workflow ${workflow.id}`);
	} else {
		workflow = current;
		wrote = false;
		if (state.exampleHash !== exampleHash) {
			step(
				`examples/${EXAMPLE_FILE} changed, but you edited workflow ${current.id}: kept yours ` +
					'(delete it, or start with --fresh, to get the new example)',
			);
		}
	}
	if (current?.active && !wrote) {
		// n8n 2.41 does not re-run a webhook trigger's registration when it restarts (only other
		// triggers are re-registered); this sandbox is a new one that knows no endpoints yet
		await n8n.deactivateWorkflow(workflow.id);
	}
	await n8n.activateWorkflow(workflow.id);
	const active = await n8n.api<WorkflowSummary>('GET', `/workflows/${workflow.id}`);
	state.workflowId = active.id;
	if (wrote) {
		state.exampleHash = exampleHash;
		state.versionId = active.versionId;
	}
	return active;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the trigger has registered its endpoint at the sandbox; re-publishes it once if not. */
async function ensureRegistered(
	n8n: N8nInstance,
	sandbox: Sandbox,
	workflowId: string,
	logFile: string,
): Promise<void> {
	const registered = async (timeoutMs: number): Promise<boolean> => {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			const endpoints = [...sandbox.endpoints.values()];
			if (endpoints.some((e) => e.callbackUri.startsWith(`${n8n.webhookBaseUrl}/`))) return true;
			await delay(100);
		}
		return false;
	};
	if (await registered(10_000)) return;
	step('the trigger did not register at the sandbox: deactivating and activating the workflow');
	await n8n.deactivateWorkflow(workflowId);
	await n8n.activateWorkflow(workflowId);
	if (await registered(20_000)) return;
	throw new Error(
		`the workflow is active but registered no webhook endpoint at the sandbox; see ${logFile}`,
	);
}

/** Prints a line per finished execution of the workflow; notices when n8n stops answering. */
function watchExecutions(
	n8n: N8nInstance,
	workflowId: string,
	onDead: () => void,
): () => Promise<void> {
	const seen = new Set<string>();
	let failures = 0;
	let primed = false;
	let stopped = false;
	let timer: NodeJS.Timeout | undefined;
	let inFlight: Promise<void> = Promise.resolve();
	const poll = async (): Promise<void> => {
		try {
			const { data } = await n8n.api<{ data: ExecutionSummary[] }>(
				'GET',
				`/executions?workflowId=${workflowId}&limit=50`,
			);
			failures = 0;
			for (const execution of [...data].reverse()) {
				if (seen.has(execution.id) || !execution.stoppedAt) continue;
				seen.add(execution.id);
				if (!primed) continue;
				const mark = execution.status === 'success' ? paint(32, '✔') : paint(31, '✘');
				step(
					`${mark} execution ${execution.id} ${execution.status}: ` +
						`${n8n.baseUrl}/workflow/${workflowId}/executions/${execution.id}`,
				);
			}
			primed = true;
		} catch {
			failures++;
			if (failures === 5 && !stopped) onDead();
		}
	};
	const schedule = (): void => {
		if (stopped) return;
		timer = setTimeout(() => {
			inFlight = poll().finally(schedule);
		}, 1000);
	};
	inFlight = poll().finally(schedule);
	return async () => {
		stopped = true;
		if (timer) clearTimeout(timer);
		await inFlight;
	};
}

/** What is running so far, for the shutdown to stop in reverse order; each field is set as its part starts. */
interface Running {
	sandbox?: Sandbox;
	n8n?: N8nInstance;
	stopWatching?: () => Promise<void>;
	releaseFolder?: () => Promise<void>;
	log?: WriteStream;
	stopping?: Promise<void>;
}

async function main(): Promise<void> {
	const options = optionsOrUsage();
	if (!options) return;
	const started = Date.now();
	const running: Running = {};
	const shutdown = (reason: string, code: number) => stopAll(running, reason, code);
	onSignals(running, shutdown);
	try {
		await startStack(options, running, started, shutdown);
	} catch (error) {
		step(`${paint(31, 'failed:')} ${(error as Error).message}`);
		await shutdown('start-up failed', 1);
	}
}

/** The parsed options; undefined once the usage was printed (for --help, or after a bad option). */
function optionsOrUsage(): Options | undefined {
	let options: Options;
	try {
		options = parseOptions();
	} catch (error) {
		process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
		process.exitCode = 2;
		return undefined;
	}
	if (options.help) {
		process.stdout.write(USAGE);
		return undefined;
	}
	return options;
}

/** Stops what runs, once however often it is asked, and exits with `code`. */
function stopAll(running: Running, reason: string, code: number): Promise<void> {
	running.stopping ??= (async () => {
		say();
		// during start-up n8n is not ours to stop yet: the harness's exit hook kills it on exit
		step(`${reason}: stopping n8n and the sandbox`);
		await running.stopWatching?.().catch(() => undefined);
		await running.n8n?.stop().catch((error: Error) => step(`stopping n8n: ${error.message}`));
		await running.sandbox?.stop().catch(() => undefined);
		await running.releaseFolder?.().catch(() => undefined);
		const { log } = running;
		await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
		step('stopped');
		process.exit(code);
	})();
	return running.stopping;
}

type Shutdown = (reason: string, code: number) => Promise<void>;

/** The first signal stops everything in order; a later one stops at once. */
function onSignals(running: Running, shutdown: Shutdown): void {
	let firstSignalAt = 0;
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.on(signal, () => {
			if (!running.stopping) {
				firstSignalAt = Date.now();
				void shutdown(signal, 0);
				return;
			}
			// one Ctrl-C reaches this process twice (from the terminal, and relayed by tsx): only a
			// later one means "force"; the harness's exit hook then kills n8n's process group
			if (Date.now() - firstSignalAt < 1500) return;
			step('stopping now');
			process.exit(130);
		});
	}
}

/** The whole start: user folder, sandbox, package, n8n, credential and workflow, then the banner and the watch. */
async function startStack(
	options: Options,
	running: Running,
	started: number,
	shutdown: Shutdown,
): Promise<void> {
	await assertPortFree(options.port, 'n8n', '--port');
	await assertPortFree(options.sandboxPort, 'the sandbox', '--sandbox-port');
	const firstStart = await prepareUserFolder(options, running);
	const stateFile = join(options.userFolder, 'captioning-dev.json');
	const state = await readState(stateFile);

	const sandbox = await startDevSandbox(options);
	running.sandbox = sandbox;
	const pkg = await ensurePackage(options, state);
	await writeFile(stateFile, JSON.stringify(state, null, 2), 'utf8');

	const logFile = join(options.userFolder, 'n8n.log');
	const n8n = await startDevN8n(options, running, logFile, firstStart);

	const credential = await ensureCredential(n8n, sandbox, state);
	const workflow = await ensureWorkflow(n8n, credential, state);
	await writeFile(stateFile, JSON.stringify(state, null, 2), 'utf8');
	await ensureRegistered(n8n, sandbox, workflow.id, logFile);

	printReady({ started, n8n, sandbox, workflow, credential, pkg, logFile });
	running.stopWatching = watchStack(n8n, workflow.id, logFile, shutdown);
}

/** --fresh empties the folder; the folder is then claimed for this process. Whether n8n has yet to migrate it. */
async function prepareUserFolder(options: Options, running: Running): Promise<boolean> {
	if (options.fresh) {
		await assertFolderFree(options.userFolder);
		step(`--fresh: removing ${options.userFolder}`);
		await rm(options.userFolder, { recursive: true, force: true });
	}
	await mkdir(options.userFolder, { recursive: true });
	running.releaseFolder = await claimUserFolder(options.userFolder);
	return !existsSync(join(options.userFolder, '.n8n', 'database.sqlite'));
}

async function startDevSandbox(options: Options): Promise<Sandbox> {
	const sandbox = await startSandbox({
		port: options.sandboxPort,
		logRequests: !options.quiet,
		variants: options.variants,
	});
	step(`sandbox listening on ${sandbox.url}`);
	const playing = nonDefaultVariants(sandbox.variants);
	if (playing.length) step(`sandbox variants: ${playing.join(', ')}`);
	return sandbox;
}

/** n8n on the persistent folder, its output to n8n.log (and stderr with --verbose). */
async function startDevN8n(
	options: Options,
	running: Running,
	logFile: string,
	firstStart: boolean,
): Promise<N8nInstance> {
	// Files the Read/Write Files from Disk node may use (examples/store-vtt-and-srt.json)
	const filesDir = join(options.userFolder, 'files');
	await mkdir(filesDir, { recursive: true });
	const logStream = createWriteStream(logFile, { flags: 'w' });
	running.log = logStream;
	const n8nStarted = Date.now();
	step(
		firstStart
			? `starting n8n ${N8N_VERSION} on a new user folder (it runs its migrations once)`
			: `starting n8n ${N8N_VERSION}`,
	);
	const n8n = await startN8n({
		userFolder: options.userFolder,
		port: options.port,
		owner: DEV_OWNER,
		apiKeyLabel: 'captioning-dev',
		keepUserFolder: true,
		env: {
			N8N_RESTRICT_FILE_ACCESS_TO: filesDir,
			// the folder persists: keep a week of executions, not all of them forever
			EXECUTIONS_DATA_PRUNE: 'true',
			EXECUTIONS_DATA_MAX_AGE: '168',
		},
		onOutput: (chunk) => {
			logStream.write(chunk);
			if (options.verbose) process.stderr.write(chunk);
		},
	});
	running.n8n = n8n;
	const [timing] = n8n.timings;
	step(
		`n8n ready on ${n8n.baseUrl} (${seconds(n8nStarted)}; ` +
			`answering after ${timing.readySeconds.toFixed(1)} s)`,
	);
	return n8n;
}

function printReady(stack: {
	started: number;
	n8n: N8nInstance;
	sandbox: Sandbox;
	workflow: WorkflowSummary;
	credential: CredentialSummary;
	pkg: { version: string; built: boolean };
	logFile: string;
}): void {
	const { n8n, sandbox, workflow, credential, pkg } = stack;
	const simulate =
		`curl -s -X POST ${sandbox.url}/_sandbox/transcriptions ` +
		`-H 'content-type: application/json' -d '{"title":"My first captions"}'`;
	say();
	say(paint(1, `Captioning dev stack ready in ${seconds(stack.started)}`));
	say();
	say(`  n8n editor  ${n8n.baseUrl}/workflow/${workflow.id}`);
	say(`  login       ${DEV_OWNER.email} / ${DEV_OWNER.password}`);
	say(`  workflow    "${workflow.name}" (active; examples/${EXAMPLE_FILE})`);
	say(
		`  package     ${PACKAGE_NAME} ${pkg.version}, installed from its npm tarball` +
			(pkg.built ? '' : ' (unchanged; --rebuild forces a build)'),
	);
	say(`  sandbox     ${sandbox.url} (credential "${credential.name}")`);
	say(`  n8n log     ${stack.logFile}`);
	say();
	say('Simulate a transcription (two executions follow: created, then transcribed):');
	say(`  ${simulate}`);
	say();
	say('Ctrl-C stops n8n and the sandbox.');
	say();
}

/** Prints each execution as it ends; stops everything when n8n or the launching npm is gone. */
function watchStack(
	n8n: N8nInstance,
	workflowId: string,
	logFile: string,
	shutdown: Shutdown,
): () => Promise<void> {
	const stopExecutions = watchExecutions(n8n, workflowId, () => {
		void shutdown(`n8n stopped answering (see ${logFile})`, 1);
	});
	const watched = launchers();
	const launcherCheck = setInterval(() => {
		if (watched.every(isAlive)) return;
		void shutdown('the npm run dev that started this is gone', 0);
	}, 1000);
	return async () => {
		clearInterval(launcherCheck);
		await stopExecutions();
	};
}

void main();
