// Runs a real n8n (the cached install scripts/env.sh makes) for end-to-end tests: a fresh user folder in
// the OS temp dir, offline settings, loopback-only ports, an owner with an API key, and community
// packages installed on disk exactly as n8n's CommunityPackagesService installs them.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const N8N_VERSION = process.env.CAPTIONING_N8N_VERSION ?? '2.41.1';

/** What differs between the n8n lines the harness starts, decided from the version alone. */
export interface N8nProfile {
	major: number;
	/** N8N_DISABLED_MODULES: 2.x has an MCP registry module that calls home; 1.x rejects the name. */
	disabledModules: string | undefined;
	/**
	 * N8N_DEFAULT_BINARY_DATA_MODE: filesystem, 2.x's default, on 1.x as well (1.x keeps binary data in the
	 * execution unless told otherwise), so that stored files have an id and stream from disk.
	 */
	binaryDataMode: string | undefined;
}

export function n8nProfile(version: string = N8N_VERSION): N8nProfile {
	const major = Number(version.split('.')[0]);
	if (!Number.isInteger(major) || major < 1) {
		throw new Error(`CAPTIONING_N8N_VERSION=${version} is not an n8n version (e.g. 2.41.1)`);
	}
	return {
		major,
		disabledModules: major >= 2 ? 'mcp-registry' : undefined,
		binaryDataMode: major >= 2 ? undefined : 'filesystem',
	};
}

/** What n8n's start command prints once it has activated the active workflows: start-up is over. */
export const STARTED_LINE = 'Editor is now accessible via';
export const PROJECT_ROOT = resolve(__dirname, '..');
/** n8n's default (N8N_COMMUNITY_PACKAGES_REGISTRY); n8n passes it to every npm command it runs. */
export const N8N_DEFAULT_REGISTRY = 'https://registry.npmjs.org';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpResponse {
	status: number;
	headers: Headers;
	/** Parsed JSON when the body is JSON, else the text. */
	body: unknown;
}

export class N8nHttpError extends Error {
	constructor(
		readonly method: string,
		readonly url: string,
		readonly status: number,
		readonly body: unknown,
	) {
		super(
			`${method} ${url} -> ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`,
		);
		this.name = 'N8nHttpError';
	}
}

export interface OwnerCredentials {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export interface InstalledPackage {
	name: string;
	version: string;
	/** <user folder>/.n8n/nodes/node_modules/<name> */
	directory: string;
}

export interface StartupTiming {
	/** Spawn until /healthz/readiness answers 200 and n8n has finished starting (STARTED_LINE). */
	readySeconds: number;
	/** Spawn until the owner is logged in and the API key exists. */
	totalSeconds: number;
	/** False for the first start of a user folder, when n8n runs all its migrations. */
	restart: boolean;
}

export interface StartOptions {
	/** Tarball(s) from `npm pack`, installed into the user folder before n8n starts. */
	packageTarball?: string | string[];
	/** Extra or overriding environment for n8n; `undefined` removes one of the harness defaults. */
	env?: Record<string, string | undefined>;
	port?: number;
	/** Reuse a user folder (it is then not deleted on stop); default: a new temp dir. */
	userFolder?: string;
	/** Default 180 s: a first start runs ~300 migrations, slow on a busy 2-core machine. */
	readyTimeoutMs?: number;
	/** N8N_LOG_LEVEL; default info. */
	logLevel?: 'error' | 'warn' | 'info' | 'debug';
	/** Keep the user folder after stop() (also with CAPTIONING_E2E_KEEP=1), to read its logs or DB. */
	keepUserFolder?: boolean;
	/** The owner account set up on a fresh user folder and logged in with; default E2E_OWNER. */
	owner?: OwnerCredentials;
	/**
	 * Label of the API key created at start; keys with this label left by earlier starts of a reused
	 * user folder are deleted first. Default 'captioning-e2e'.
	 */
	apiKeyLabel?: string;
	/** Receives n8n's stdout and stderr as they arrive (they are also kept for logs()). */
	onOutput?: (chunk: string) => void;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	finished: boolean;
	mode: string;
	startedAt: string;
	stoppedAt: string | null;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	data?: any;
}

export interface PublicationStatus {
	status: 'not_published' | 'in_progress' | 'published' | 'partial' | 'failed';
	liveVersionId: string | null;
	pendingVersionId: string | null;
	triggers: { nodeId: string; status: string; errorMessage: string | null }[];
}

export interface WaitForExecutionsOptions {
	/** How many finished executions to wait for; default 1. */
	count?: number;
	timeoutMs?: number;
}

export interface N8nInstance {
	/** http://127.0.0.1:<port> */
	readonly baseUrl: string;
	/** Production webhooks: `${webhookBaseUrl}/<path>` (http://127.0.0.1:<port>/webhook). */
	readonly webhookBaseUrl: string;
	/** Test webhooks (editor "listen for test event"): http://127.0.0.1:<port>/webhook-test. */
	readonly webhookTestBaseUrl: string;
	readonly apiKey: string;
	/** N8N_USER_FOLDER; n8n keeps its data in `${userFolder}/.n8n`. */
	readonly userFolder: string;
	readonly n8nDir: string;
	readonly port: number;
	readonly owner: OwnerCredentials;
	readonly installedPackages: readonly InstalledPackage[];
	/** One entry per start, in order. */
	readonly timings: readonly StartupTiming[];
	/** Public API (`/api/v1` + path) with X-N8N-API-KEY; throws N8nHttpError unless 2xx. */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	api<T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T>;
	/** Internal REST API (`/rest` + path) as the logged-in owner; unwraps `{ data }`. */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	rest<T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T>;
	/** Any request (absolute URL or path on baseUrl); never throws on a status. */
	request(
		method: HttpMethod,
		urlOrPath: string,
		options?: { body?: unknown; headers?: Record<string, string> },
	): Promise<HttpResponse>;
	/** Like request(), with the owner's session: what the editor fetches, e.g. /types/nodes.json. */
	requestAsOwner(
		method: HttpMethod,
		urlOrPath: string,
		options?: { body?: unknown; headers?: Record<string, string> },
	): Promise<HttpResponse>;
	/** POST /api/v1/workflows; returns the created workflow (with its id). */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	createWorkflow(workflow: Record<string, unknown>): Promise<any>;
	/** POST /api/v1/credentials; returns the created credential (with its id). */
	createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<{ id: string; name: string; type: string }>;
	/**
	 * POST /api/v1/workflows/<id>/activate (publishes the latest version), then waits until n8n's
	 * publication outbox has registered its triggers and webhooks; throws if one failed.
	 */
	activateWorkflow(id: string, options?: { timeoutMs?: number }): Promise<void>;
	/**
	 * POST /api/v1/workflows/<id>/deactivate, then waits until n8n has removed its triggers and
	 * webhooks (trigger nodes' webhookMethods.delete have run).
	 */
	deactivateWorkflow(id: string, options?: { timeoutMs?: number }): Promise<void>;
	/** Polls GET /api/v1/executions?workflowId=..&includeData=true until enough have finished. */
	waitForExecutions(
		workflowId: string,
		options?: WaitForExecutionsOptions,
	): Promise<ExecutionSummary[]>;
	/** n8n's stdout and stderr so far, all starts, without colour codes. */
	logs(): string;
	/**
	 * Stops n8n and starts it again on the same user folder and ports. `whileStopped` runs after n8n has
	 * exited and before it starts again: what happens to the outside world while n8n is down.
	 */
	restart(options?: { whileStopped?: () => Promise<void> }): Promise<void>;
	/** Stops n8n and every process it started; removes the temp user folder. Idempotent. */
	stop(): Promise<void>;
}

export const E2E_OWNER: OwnerCredentials = {
	email: 'owner@captioning.test',
	password: 'Captioning-e2e-1',
	firstName: 'E2E',
	lastName: 'Owner',
};

// ---------------------------------------------------------------------------------------------------
// Locating n8n

/** The cached n8n install: CAPTIONING_N8N_DIR, or the folder scripts/env.sh's ensure_n8n fills. */
export function resolveN8nDir(): string {
	const explicit = process.env.CAPTIONING_N8N_DIR;
	if (explicit) {
		if (!existsSync(n8nBin(explicit))) {
			throw new Error(
				`CAPTIONING_N8N_DIR=${explicit} has no ${relative(explicit, n8nBin(explicit))}`,
			);
		}
		return explicit;
	}
	const cache =
		process.env.CAPTIONING_CACHE ??
		join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'n8n-nodes-captioning');
	const dir = join(cache, `n8n-${N8N_VERSION}`);
	if (!existsSync(join(dir, '.complete'))) {
		throw new Error(
			`n8n ${N8N_VERSION} is not installed at ${dir} (no .complete marker). Install it once ` +
				`(5-8 minutes, ~3 GB) from the repo root with:\n  bash -c 'source scripts/env.sh && ensure_n8n'`,
		);
	}
	return dir;
}

export function n8nBin(n8nDir: string): string {
	return join(n8nDir, 'node_modules', 'n8n', 'bin', 'n8n');
}

function assertNode24(): void {
	const major = Number(process.versions.node.split('.')[0]);
	if (major < 24) {
		throw new Error(
			`the harness runs n8n ${N8N_VERSION} on Node 24 but the tests run on ${process.version}: ` +
				'run them through `bash scripts/run.sh exec jest -c jest.e2e.config.js`',
		);
	}
}

// ---------------------------------------------------------------------------------------------------
// Ports and processes

/** A TCP port that is free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
	return await new Promise((resolvePort, reject) => {
		const server = createServer();
		server.unref();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as AddressInfo;
			server.close(() => resolvePort(port));
		});
	});
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pgid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pgid, signal);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
	}
}

function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	// Last resort when a test forgets stop() or jest exits early: 'exit' handlers must be synchronous.
	process.on('exit', () => {
		for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
	});
}

// Preloaded into n8n with --require: if the test process dies without stop() (SIGKILL, a CI timeout),
// n8n is re-parented, notices, and shuts itself and its task runner down (an EOF on a stdin pipe did not
// reach it reliably). Node also preloads this into n8n's worker threads: main thread only.
const WATCHDOG = `'use strict';
if (require('node:worker_threads').isMainThread) {
	const parent = process.ppid;
	const timer = setInterval(() => {
		if (process.ppid === parent) return;
		clearInterval(timer);
		process.kill(process.pid, 'SIGTERM');
		setTimeout(() => { try { process.kill(-process.pid, 'SIGKILL'); } catch {} }, 15000).unref();
	}, 1000).unref();
}
`;

interface RunningProcess {
	child: ChildProcess;
	pid: number;
	exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	hasExited: () => boolean;
}

function spawnN8n(
	n8nDir: string,
	userFolder: string,
	watchdog: string,
	env: NodeJS.ProcessEnv,
	onOutput: (chunk: string) => void,
	args: readonly string[] = ['start'],
): RunningProcess {
	const child = spawn(process.execPath, ['--require', watchdog, n8nBin(n8nDir), ...args], {
		// n8n loads a .env from its cwd: the user folder has none
		cwd: userFolder,
		env,
		// its own process group, so that stop() can reach the task runner it spawns as well
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	if (child.pid === undefined) throw new Error('failed to spawn n8n');
	const pid = child.pid;
	liveGroups.add(pid);
	installExitHook();
	let done = false;
	child.stdout?.setEncoding('utf8').on('data', onOutput);
	child.stderr?.setEncoding('utf8').on('data', onOutput);
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
		(resolveExit) => {
			child.once('exit', (code, signal) => {
				done = true;
				resolveExit({ code, signal });
			});
		},
	);
	return { child, pid, exited, hasExited: () => done };
}

async function terminate(proc: RunningProcess, graceMs = 20_000): Promise<void> {
	if (!proc.hasExited()) {
		// n8n's own SIGTERM handler stops its task runner and closes the DB
		try {
			process.kill(proc.pid, 'SIGTERM');
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
		}
		const timer = delay(graceMs);
		const clean = await Promise.race([proc.exited.then(() => true), timer.then(() => false)]);
		if (!clean) killGroup(proc.pid, 'SIGKILL');
		await proc.exited;
	}
	killGroup(proc.pid, 'SIGKILL');
	liveGroups.delete(proc.pid);
}

function delay(ms: number): Promise<void> {
	return new Promise((resolveDelay) => setTimeout(resolveDelay, ms).unref());
}

// ---------------------------------------------------------------------------------------------------
// Installing a community package as n8n does

interface NodesLedger {
	name: string;
	private: boolean;
	dependencies: Record<string, string>;
}

async function readLedger(path: string): Promise<NodesLedger | null> {
	try {
		const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<NodesLedger>;
		return parsed.dependencies ? (parsed as NodesLedger) : null;
	} catch {
		return null;
	}
}

/**
 * Installs an `npm pack` tarball into `<userFolder>/.n8n/nodes` the way n8n's (2.41 and 1.123 alike)
 * CommunityPackagesService.downloadPackage does after its `npm pack <name>@<version>`: untar into
 * node_modules/<name>, drop devDependencies, peerDependencies and optionalDependencies from its
 * package.json, `npm install` its remaining dependencies in place with n8n's flags, and record it in the
 * ledger package.json n8n keeps in the nodes folder. n8n then loads it at start-up
 * (CommunityPackagesModule.nodeLoaders scans nodes/node_modules for n8n-nodes-* packages).
 * Not done: the installed_packages/installed_nodes DB rows, which only feed the Settings > Community
 * nodes list and the reinstall-missing check; loading does not read them.
 */
export async function installCommunityPackage(
	userFolder: string,
	tarballPath: string,
	options: { registry?: string } = {},
): Promise<InstalledPackage> {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const ledgerPath = join(nodesDir, 'package.json');
	await mkdir(nodesDir, { recursive: true });
	// what CommunityPackagesService.ensurePackageJson writes on a fresh instance (no DB rows yet)
	const ledger = (await readLedger(ledgerPath)) ?? {
		name: 'installed-nodes',
		private: true,
		dependencies: {},
	};

	const tarball = resolve(tarballPath);
	const { stdout: manifestText } = await execFileAsync('tar', [
		'-xzOf',
		tarball,
		'package/package.json',
	]);
	const manifest = JSON.parse(manifestText) as { name?: string; version?: string };
	const name = manifest.name ?? '';
	if (!/^(@[a-z0-9][a-z0-9\-._]*\/)?n8n-nodes-[a-z0-9\-._]*$/.test(name)) {
		throw new Error(
			`${tarball}: n8n only loads packages named n8n-nodes-* or @scope/n8n-nodes-*, not "${name}"`,
		);
	}
	const nodeModules = join(nodesDir, 'node_modules');
	const packageDir = join(nodeModules, name);
	if (relative(nodeModules, packageDir).split(sep).join('/') !== name) {
		throw new Error(`invalid package name ${name}`);
	}
	await rm(packageDir, { recursive: true, force: true });
	await mkdir(packageDir, { recursive: true });
	await execFileAsync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], {
		cwd: nodesDir,
	});

	const packageJsonPath = join(packageDir, 'package.json');
	const packageJson = JSON.parse(await readFile(packageJsonPath, 'utf8')) as Record<
		string,
		unknown
	>;
	for (const section of ['devDependencies', 'peerDependencies', 'optionalDependencies']) {
		delete packageJson[section];
	}
	await writeFile(packageJsonPath, JSON.stringify(packageJson, null, 2), 'utf8');

	const registry = (options.registry ?? N8N_DEFAULT_REGISTRY).replace(/\/+$/, '');
	try {
		await execFileAsync(
			'npm',
			[
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
				`--registry=${registry}`,
			],
			{ cwd: packageDir, maxBuffer: 16 * 1024 * 1024 },
		);
	} catch (error) {
		const { stdout, stderr } = error as { stdout?: string; stderr?: string };
		throw new Error(`npm install in ${packageDir} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
	}

	const version = String(packageJson.version ?? '');
	ledger.dependencies[name] = version;
	await writeFile(ledgerPath, JSON.stringify(ledger, null, 2), 'utf8');
	return { name, version, directory: packageDir };
}

// ---------------------------------------------------------------------------------------------------
// Starting n8n

// Outside settings that would change what this n8n does (another DB, a NODE_PATH that changes how
// community packages resolve modules, jest's NODE_ENV=test which n8n refuses to load nodes under).
const INHERITED_ENV_BLOCKLIST =
	/^(N8N_|DB_|EXECUTIONS_|QUEUE_|NODES_|CREDENTIALS_|EXTERNAL_|WORKFLOWS_|CODE_|NODE_FUNCTION_)|^(WEBHOOK_URL|GENERIC_TIMEZONE|NODE_PATH|NODE_OPTIONS|NODE_ENV|E2E_TESTS|ENVIRONMENT|DEPLOYMENT_NAME|VUE_APP_URL_BASE_API)$/;

/** The environment the harness gives n8n (before StartOptions.env). */
export function harnessEnv(opts: {
	userFolder: string;
	port: number;
	brokerPort: number;
	logLevel: string;
}): Record<string, string> {
	const base = `http://127.0.0.1:${opts.port}`;
	const profile = n8nProfile();
	return {
		NODE_ENV: 'production',
		N8N_USER_FOLDER: opts.userFolder,
		DB_TYPE: 'sqlite',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		// loopback only
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(opts.port),
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',
		N8N_EDITOR_BASE_URL: `${base}/`,
		WEBHOOK_URL: `${base}/`,
		N8N_RUNNERS_MODE: 'internal',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(opts.brokerPort),
		// offline: nothing at start-up or at run time calls home
		...(profile.disabledModules ? { N8N_DISABLED_MODULES: profile.disabledModules } : {}),
		...(profile.binaryDataMode ? { N8N_DEFAULT_BINARY_DATA_MODE: profile.binaryDataMode } : {}),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		EXTERNAL_FRONTEND_HOOKS_URLS: '',
		// community packages come from disk only: no reinstall from the registry, no vetted-list lookups
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		// nodes under test call servers on 127.0.0.1 (already n8n's default, stated for clarity)
		N8N_SSRF_PROTECTION_ENABLED: 'false',
		N8N_PUBLIC_API_DISABLED: 'false',
		N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
		// every execution kept with its data, for the assertions
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		EXECUTIONS_DATA_PRUNE: 'false',
		N8N_LOG_LEVEL: opts.logLevel,
		N8N_LOG_OUTPUT: 'console',
		N8N_LOG_FORMAT: 'text',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '15',
	};
}

/**
 * The whole environment of an n8n process: this process's environment without the settings that would
 * change what n8n does (INHERITED_ENV_BLOCKLIST), then harnessEnv, then `overrides` (where `undefined`
 * removes a variable).
 */
export function n8nEnvironment(
	opts: Parameters<typeof harnessEnv>[0],
	overrides: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!INHERITED_ENV_BLOCKLIST.test(key)) env[key] = value;
	}
	Object.assign(env, harnessEnv(opts));
	for (const [key, value] of Object.entries(overrides)) {
		if (value === undefined) delete env[key];
		else env[key] = value;
	}
	return env;
}

async function writeWatchdog(userFolder: string): Promise<string> {
	const watchdog = join(userFolder, '.captioning-watchdog.cjs');
	await writeFile(watchdog, WATCHDOG, 'utf8');
	return watchdog;
}

const ANSI = new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g');

export async function startN8n(options: StartOptions = {}): Promise<N8nInstance> {
	assertNode24();
	const n8nDir = resolveN8nDir();
	const ownsFolder = options.userFolder === undefined;
	const userFolder = options.userFolder ?? (await mkdtemp(join(tmpdir(), 'captioning-n8n-')));
	assertIsolatedFolder(userFolder);
	const keep = options.keepUserFolder === true || process.env.CAPTIONING_E2E_KEEP === '1';
	const output: string[] = [];
	const verbose = process.env.CAPTIONING_E2E_VERBOSE === '1';
	const owner = options.owner ?? E2E_OWNER;
	const apiKeyLabel = options.apiKeyLabel ?? 'captioning-e2e';
	const onOutput = (chunk: string): void => {
		output.push(chunk);
		if (verbose) process.stderr.write(chunk);
		options.onOutput?.(chunk);
	};
	const logs = (): string => output.join('').replace(ANSI, '');

	let proc: RunningProcess | undefined;
	let stopped = false;
	const cleanup = async (): Promise<void> => {
		if (proc) await terminate(proc);
		if (ownsFolder && !keep) await rm(userFolder, { recursive: true, force: true, maxRetries: 3 });
	};

	try {
		const installedPackages: InstalledPackage[] = [];
		const tarballs =
			options.packageTarball === undefined
				? []
				: Array.isArray(options.packageTarball)
					? options.packageTarball
					: [options.packageTarball];
		for (const tarball of tarballs) {
			installedPackages.push(await installCommunityPackage(userFolder, tarball));
		}

		const port = options.port ?? (await freePort());
		let brokerPort = await freePort();
		while (brokerPort === port) brokerPort = await freePort();
		const env = n8nEnvironment(
			{ userFolder, port, brokerPort, logLevel: options.logLevel ?? 'info' },
			options.env,
		);
		const watchdog = await writeWatchdog(userFolder);

		const baseUrl = `http://127.0.0.1:${port}`;
		const readyTimeoutMs = options.readyTimeoutMs ?? 180_000;
		const browserId = randomUUID();
		let cookie = '';
		let apiKey = '';
		const timings: StartupTiming[] = [];

		const request: N8nInstance['request'] = async (method, urlOrPath, requestOptions = {}) => {
			const url = urlOrPath.startsWith('http') ? urlOrPath : `${baseUrl}${urlOrPath}`;
			const headers: Record<string, string> = {
				accept: 'application/json',
				...requestOptions.headers,
			};
			let body: string | undefined;
			if (requestOptions.body !== undefined) {
				headers['content-type'] ??= 'application/json';
				body =
					typeof requestOptions.body === 'string'
						? requestOptions.body
						: JSON.stringify(requestOptions.body);
			}
			const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(60_000) });
			const text = await res.text();
			let parsed: unknown = text;
			if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') {
				try {
					parsed = JSON.parse(text);
				} catch {
					parsed = text;
				}
			}
			return { status: res.status, headers: res.headers, body: parsed };
		};

		const expectOk = async (
			method: HttpMethod,
			path: string,
			body: unknown,
			headers: Record<string, string>,
		): Promise<HttpResponse> => {
			const res = await request(method, path, { body, headers });
			if (res.status < 200 || res.status >= 300) {
				throw new N8nHttpError(method, `${baseUrl}${path}`, res.status, res.body);
			}
			return res;
		};

		const restHeaders = (): Record<string, string> => ({
			'browser-id': browserId,
			...(cookie ? { cookie } : {}),
		});
		// eslint-disable-next-line @typescript-eslint/no-explicit-any
		const rest = async <T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T> => {
			const res = await expectOk(method, `/rest${path}`, body, restHeaders());
			const payload = res.body as { data?: T } | T;
			return payload !== null && typeof payload === 'object' && 'data' in payload
				? (payload.data as T)
				: (payload as T);
		};
		// eslint-disable-next-line @typescript-eslint/no-explicit-any
		const api = async <T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T> => {
			const res = await expectOk(method, `/api/v1${path}`, body, { 'x-n8n-api-key': apiKey });
			return res.body as T;
		};

		// n8n 1.x adds "Allowed HTTP Request Domains" to credentials that authenticate requests, and its public
		// API's schema then wants `allowedDomains` unless the choice is given: set it as the editor saves it.
		const withEditorDefaults = async (
			type: string,
			data: Record<string, unknown>,
		): Promise<Record<string, unknown>> => {
			if (n8nProfile().major >= 2 || 'allowedHttpRequestDomains' in data) return data;
			const schema = await api<{ properties?: Record<string, unknown> }>(
				'GET',
				`/credentials/schema/${encodeURIComponent(type)}`,
			);
			return schema.properties?.allowedHttpRequestDomains
				? { allowedHttpRequestDomains: 'all', ...data }
				: data;
		};

		const login = async (): Promise<void> => {
			const res = await expectOk(
				'POST',
				'/rest/login',
				{ emailOrLdapLoginId: owner.email, password: owner.password },
				{ 'browser-id': browserId },
			);
			const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
			if (!auth) throw new Error('login answered without an n8n-auth cookie');
			cookie = auth.split(';')[0];
		};

		const readinessAnswers = async (): Promise<boolean> => {
			try {
				const res = await fetch(`${baseUrl}/healthz/readiness`, {
					signal: AbortSignal.timeout(2_000),
				});
				await res.arrayBuffer();
				return res.status === 200;
			} catch {
				return false; // not listening yet
			}
		};

		// Ready: /healthz/readiness answers 200 and the start command has printed its last line, after it
		// activated the active workflows. 1.x answers readiness once its DB is migrated, before its REST
		// routes exist; 2.x once the server is configured, and activates workflows after that.
		const waitUntilReady = async (
			started: number,
			current: RunningProcess,
			outputFrom: number,
		): Promise<void> => {
			const deadline = started + readyTimeoutMs;
			let ready = false;
			for (;;) {
				if (current.hasExited()) {
					const { code, signal } = await current.exited;
					throw new Error(
						`n8n exited during start-up (code ${code}, signal ${signal}). Output:\n${tail(logs())}`,
					);
				}
				ready ||= await readinessAnswers();
				if (ready && output.slice(outputFrom).join('').includes(STARTED_LINE)) return;
				if (Date.now() > deadline) {
					throw new Error(
						`n8n was not ${ready ? 'started' : 'ready'} within ${readyTimeoutMs / 1000} s. ` +
							`Output:\n${tail(logs())}`,
					);
				}
				await delay(250);
			}
		};

		const boot = async (isRestart: boolean): Promise<void> => {
			const started = Date.now();
			const outputFrom = output.length;
			proc = spawnN8n(n8nDir, userFolder, watchdog, env, onOutput);
			await waitUntilReady(started, proc, outputFrom);
			const readySeconds = (Date.now() - started) / 1000;
			if (!isRestart) {
				const setup = await request('POST', '/rest/owner/setup', {
					body: owner,
					headers: { 'browser-id': browserId },
				});
				// a reused user folder already has its owner
				if (setup.status !== 200 && !(setup.status === 400 && !ownsFolder)) {
					throw new N8nHttpError('POST', `${baseUrl}/rest/owner/setup`, setup.status, setup.body);
				}
			}
			await login();
			if (!apiKey) {
				if (!ownsFolder) {
					type Key = { id: string; label: string };
					const listed = await rest<Key[] | { items: Key[] }>('GET', '/api-keys?ownership=mine');
					const existing = Array.isArray(listed) ? listed : listed.items;
					for (const key of existing.filter((k) => k.label === apiKeyLabel)) {
						await rest('DELETE', `/api-keys/${encodeURIComponent(key.id)}`);
					}
				}
				const scopes = await rest<string[]>('GET', '/api-keys/scopes');
				const created = await rest<{ rawApiKey: string }>('POST', '/api-keys', {
					label: apiKeyLabel,
					scopes,
					expiresAt: null,
				});
				apiKey = created.rawApiKey;
			}
			timings.push({
				readySeconds,
				totalSeconds: (Date.now() - started) / 1000,
				restart: isRestart,
			});
		};

		const waitForPublication = async (
			id: string,
			want: 'published' | 'not_published',
			timeoutMs: number,
		): Promise<void> => {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const res = await request(
					'GET',
					`/rest/workflows/${encodeURIComponent(id)}/publication-status`,
					{ headers: restHeaders() },
				);
				// 404: N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false, (de)activation was synchronous
				if (res.status === 404) return;
				const status = (res.body as { data?: PublicationStatus }).data;
				if (res.status !== 200 || !status) {
					throw new N8nHttpError(
						'GET',
						`${baseUrl}/rest/workflows/${id}/publication-status`,
						res.status,
						res.body,
					);
				}
				if (status.status === want && status.pendingVersionId === null) return;
				if (want === 'published' && (status.status === 'failed' || status.status === 'partial')) {
					throw new Error(`publishing workflow ${id} failed: ${JSON.stringify(status.triggers)}`);
				}
				if (Date.now() > deadline) {
					throw new Error(`workflow ${id} still ${status.status} (want ${want})\n${tail(logs())}`);
				}
				await delay(100);
			}
		};

		await boot(false);

		const instance: N8nInstance = {
			baseUrl,
			webhookBaseUrl: `${baseUrl}/webhook`,
			webhookTestBaseUrl: `${baseUrl}/webhook-test`,
			get apiKey() {
				return apiKey;
			},
			userFolder,
			n8nDir,
			port,
			owner,
			installedPackages,
			timings,
			api,
			rest,
			request,
			async requestAsOwner(method, urlOrPath, requestOptions = {}) {
				return await request(method, urlOrPath, {
					...requestOptions,
					headers: { ...restHeaders(), ...requestOptions.headers },
				});
			},
			async createWorkflow(workflow) {
				return await api('POST', '/workflows', workflow);
			},
			async createCredential(name, type, data) {
				return await api('POST', '/credentials', {
					name,
					type,
					data: await withEditorDefaults(type, data),
				});
			},
			async activateWorkflow(id, activateOptions = {}) {
				await api('POST', `/workflows/${encodeURIComponent(id)}/activate`, {});
				// n8n 2.41 publishes through an outbox: the call returns before the webhooks are registered
				await waitForPublication(id, 'published', activateOptions.timeoutMs ?? 30_000);
			},
			async deactivateWorkflow(id, deactivateOptions = {}) {
				await api('POST', `/workflows/${encodeURIComponent(id)}/deactivate`, {});
				await waitForPublication(id, 'not_published', deactivateOptions.timeoutMs ?? 30_000);
			},
			async waitForExecutions(workflowId, waitOptions = {}) {
				const count = waitOptions.count ?? 1;
				const deadline = Date.now() + (waitOptions.timeoutMs ?? 30_000);
				for (;;) {
					const page = await api<{ data: ExecutionSummary[] }>(
						'GET',
						`/executions?workflowId=${encodeURIComponent(workflowId)}&includeData=true&limit=250`,
					);
					const done = page.data.filter((e) => e.stoppedAt !== null && e.stoppedAt !== undefined);
					if (done.length >= count) return done;
					if (Date.now() > deadline) {
						throw new Error(
							`${done.length}/${count} executions of workflow ${workflowId} finished in time; ` +
								`listed: ${JSON.stringify(page.data.map((e) => [e.id, e.status]))}\n${tail(logs())}`,
						);
					}
					await delay(250);
				}
			},
			logs,
			async restart(restartOptions = {}) {
				if (stopped) throw new Error('restart() after stop()');
				if (proc) await terminate(proc);
				await restartOptions.whileStopped?.();
				await boot(true);
			},
			async stop() {
				if (stopped) return;
				stopped = true;
				await cleanup();
			},
		};
		return instance;
	} catch (error) {
		await cleanup().catch(() => undefined);
		throw error;
	}
}

// ---------------------------------------------------------------------------------------------------
// Other n8n processes (queue mode: `n8n webhook`, `n8n worker`)

export interface N8nProcessOptions {
	/** The command line after n8n's binary: ['webhook'], ['worker', '--concurrency=5']. */
	args: readonly string[];
	/** Its N8N_USER_FOLDER, with community packages already installed (installCommunityPackage). */
	userFolder: string;
	/** Its whole environment, e.g. from n8nEnvironment(). */
	env: NodeJS.ProcessEnv;
	/** Polled until it answers 200, e.g. the process's /healthz/readiness. */
	readyUrl: string;
	/** Default 180 s. */
	readyTimeoutMs?: number;
	/** Receives its stdout and stderr as they arrive (they are also kept for logs()). */
	onOutput?: (chunk: string) => void;
}

export interface N8nProcess {
	readonly args: readonly string[];
	/** Spawn until readyUrl answered 200, one entry per start. */
	readonly readySeconds: readonly number[];
	/** Whether the current start has exited. */
	hasExited(): boolean;
	/** Its stdout and stderr so far, all starts, without colour codes. */
	logs(): string;
	/**
	 * Signals its process group (n8n and the task runner it spawned) and waits until n8n has exited.
	 * SIGKILL, the default, is a crash: no graceful shutdown, requests in flight are cut off.
	 */
	kill(signal?: NodeJS.Signals): Promise<void>;
	/** Starts it again with the same settings after kill() and waits until it is ready. */
	restart(): Promise<void>;
	/** SIGTERM (n8n's graceful shutdown), SIGKILL after 20 s. Idempotent; the folder stays. */
	stop(): Promise<void>;
}

/**
 * Starts n8n with any command line (a real n8n only on Node 24) and waits until `readyUrl` answers 200;
 * the caller owns the user folder and the environment. startN8n() is the one to use for a main process
 * (owner, API key, workflows).
 */
export async function startN8nProcess(options: N8nProcessOptions): Promise<N8nProcess> {
	assertNode24();
	const n8nDir = resolveN8nDir();
	const watchdog = await writeWatchdog(options.userFolder);
	const output: string[] = [];
	const verbose = process.env.CAPTIONING_E2E_VERBOSE === '1';
	const onOutput = (chunk: string): void => {
		output.push(chunk);
		if (verbose) process.stderr.write(chunk);
		options.onOutput?.(chunk);
	};
	const logs = (): string => output.join('').replace(ANSI, '');
	const readySeconds: number[] = [];
	const timeoutMs = options.readyTimeoutMs ?? 180_000;
	let proc: RunningProcess | undefined;
	let stopped = false;

	const boot = async (): Promise<void> => {
		const started = Date.now();
		const current = spawnN8n(n8nDir, options.userFolder, watchdog, options.env, onOutput, [
			...options.args,
		]);
		proc = current;
		for (;;) {
			if (current.hasExited()) {
				const { code, signal } = await current.exited;
				throw new Error(
					`n8n ${options.args.join(' ')} exited during start-up (code ${code}, signal ${signal}). ` +
						`Output:\n${tail(logs())}`,
				);
			}
			try {
				const res = await fetch(options.readyUrl, { signal: AbortSignal.timeout(2_000) });
				await res.arrayBuffer();
				if (res.status === 200) break;
			} catch {
				// not listening yet
			}
			if (Date.now() - started > timeoutMs) {
				await terminate(current);
				throw new Error(
					`n8n ${options.args.join(' ')} was not ready within ${timeoutMs / 1000} s. ` +
						`Output:\n${tail(logs())}`,
				);
			}
			await delay(250);
		}
		readySeconds.push((Date.now() - started) / 1000);
	};

	await boot();
	return {
		args: options.args,
		readySeconds,
		hasExited: () => proc?.hasExited() ?? true,
		logs,
		async kill(signal = 'SIGKILL') {
			if (!proc) return;
			killGroup(proc.pid, signal);
			await proc.exited;
			killGroup(proc.pid, 'SIGKILL');
			liveGroups.delete(proc.pid);
		},
		async restart() {
			if (stopped) throw new Error('restart() after stop()');
			if (proc) await terminate(proc);
			await boot();
		},
		async stop() {
			if (stopped) return;
			stopped = true;
			if (proc) await terminate(proc);
		},
	};
}

function tail(text: string, lines = 80): string {
	return text.split('\n').slice(-lines).join('\n');
}

// A node_modules folder above the user folder would be searched before n8n's NODE_PATH when a
// community package requires a module, and the tests would pass on resolutions a real install lacks.
function assertIsolatedFolder(userFolder: string): void {
	const root = realpathSync(PROJECT_ROOT);
	let dir = realpathSync(userFolder);
	if (dir === root || dir.startsWith(root + sep)) {
		throw new Error(`the n8n user folder ${dir} must not be inside the project (${root})`);
	}
	const candidates = [join(dir, '.n8n', 'node_modules')];
	for (;;) {
		candidates.push(join(dir, 'node_modules'));
		const parent = dirname(dir);
		if (parent === dir) break;
		dir = parent;
	}
	const found = candidates.find((candidate) => existsSync(candidate));
	if (found) {
		throw new Error(
			`${found} exists above the n8n user folder ${userFolder}: community packages would resolve ` +
				'modules from it. Use a temp dir without one (TMPDIR).',
		);
	}
}
