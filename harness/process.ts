// n8n processes: free loopback ports, the environment the harness gives n8n, n8n spawned in a process group
// of its own with a watchdog, stopped with its task runner, and its output kept. startN8nProcess runs any n8n
// command line (queue mode's `n8n webhook`, `n8n worker`); startN8n (n8n.ts) builds the main process on it.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

import { assertNode24, n8nBin, n8nProfile, resolveN8nDir } from './install';

// ---------------------------------------------------------------------------------------------------
// Ports, waiting, output

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

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

export function delay(ms: number): Promise<void> {
	return new Promise((resolveDelay) => setTimeout(resolveDelay, ms).unref());
}

/** The last lines of a log, for an error message. */
export function tail(text: string, lines = 80): string {
	return text.split('\n').slice(-lines).join('\n');
}

const ANSI = new RegExp(String.fromCharCode(27) + '\\[[0-9;]*m', 'g');

/** n8n's output without its colour codes. */
export const stripAnsi = (text: string): string => text.replace(ANSI, '');

/** Whether `url` answers 200 within 2 s; false while nothing listens there. */
export async function answersOk(url: string): Promise<boolean> {
	try {
		const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
		await res.arrayBuffer();
		return res.status === 200;
	} catch {
		return false;
	}
}

export interface ProcessOutput {
	/** Every chunk of stdout and stderr so far, in order, all starts. */
	readonly chunks: readonly string[];
	/** Takes a chunk: keeps it, echoes it with CAPTIONING_E2E_VERBOSE=1, and hands it to `forward`. */
	onOutput(chunk: string): void;
	/** Everything so far, without colour codes. */
	logs(): string;
}

export function captureOutput(forward?: (chunk: string) => void): ProcessOutput {
	const chunks: string[] = [];
	const verbose = process.env.CAPTIONING_E2E_VERBOSE === '1';
	return {
		chunks,
		onOutput(chunk) {
			chunks.push(chunk);
			if (verbose) process.stderr.write(chunk);
			forward?.(chunk);
		},
		logs: () => stripAnsi(chunks.join('')),
	};
}

// ---------------------------------------------------------------------------------------------------
// The environment

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

// ---------------------------------------------------------------------------------------------------
// Spawning and stopping

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

/** Writes the watchdog into the user folder; returns its path, for spawnN8n. */
export async function writeWatchdog(userFolder: string): Promise<string> {
	const watchdog = join(userFolder, '.captioning-watchdog.cjs');
	await writeFile(watchdog, WATCHDOG, 'utf8');
	return watchdog;
}

export interface RunningProcess {
	child: ChildProcess;
	pid: number;
	exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	hasExited: () => boolean;
}

export function spawnN8n(
	n8nDir: string,
	userFolder: string,
	watchdog: string,
	env: NodeJS.ProcessEnv,
	onOutput: (chunk: string) => void,
	args: readonly string[] = ['start'],
	commandPrefix: readonly string[] = [],
): RunningProcess {
	const command = [
		...commandPrefix,
		process.execPath,
		'--require',
		watchdog,
		n8nBin(n8nDir),
		...args,
	];
	const child = spawn(command[0], command.slice(1), {
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

/** SIGTERM (n8n's graceful shutdown), SIGKILL to the whole group after `graceMs`; waits for the exit. */
export async function terminate(proc: RunningProcess, graceMs = 20_000): Promise<void> {
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

/** SIGKILL to the whole group, a crash: no graceful shutdown, requests in flight cut off; waits for the exit. */
export async function crash(proc: RunningProcess): Promise<void> {
	killGroup(proc.pid, 'SIGKILL');
	await proc.exited;
	liveGroups.delete(proc.pid);
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
	const { onOutput, logs } = captureOutput(options.onOutput);
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
			if (await answersOk(options.readyUrl)) break;
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
