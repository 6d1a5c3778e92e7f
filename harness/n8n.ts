// A real n8n main process (the cached install scripts/env.sh makes) for the suites, the dev stack and the
// benchmark: a fresh user folder in the OS temp dir, offline settings, loopback-only ports, community
// packages installed as n8n installs them (install.ts), n8n started and stopped (process.ts), and an owner
// logged in with an API key for the REST client (rest.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	assertIsolatedFolder,
	assertNode24,
	installCommunityPackage,
	type InstalledPackage,
	resolveN8nDir,
} from './install';
import {
	answersOk,
	captureOutput,
	crash,
	delay,
	freePort,
	n8nEnvironment,
	type ProcessOutput,
	type RunningProcess,
	spawnN8n,
	tail,
	terminate,
	writeWatchdog,
} from './process';
import {
	createOwnerSession,
	type N8nClient,
	type OwnerCredentials,
	type OwnerSession,
} from './rest';

/** What n8n's start command prints once it has activated the active workflows: start-up is over. */
export const STARTED_LINE = 'Editor is now accessible via';

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
	/**
	 * A program n8n's main process runs under, with its arguments, before Node's own command line: the
	 * benchmark's `valgrind --tool=callgrind …`, which counts the instructions n8n executes.
	 */
	commandPrefix?: readonly string[];
}

export interface N8nInstance extends N8nClient {
	/** http://127.0.0.1:<port> */
	readonly baseUrl: string;
	/** Production webhooks: `${webhookBaseUrl}/<path>` (http://127.0.0.1:<port>/webhook). */
	readonly webhookBaseUrl: string;
	/** Test webhooks (editor "listen for test event"): http://127.0.0.1:<port>/webhook-test. */
	readonly webhookTestBaseUrl: string;
	/** N8N_USER_FOLDER; n8n keeps its data in `${userFolder}/.n8n`. */
	readonly userFolder: string;
	readonly n8nDir: string;
	readonly port: number;
	readonly owner: OwnerCredentials;
	readonly installedPackages: readonly InstalledPackage[];
	/** One entry per start, in order. */
	readonly timings: readonly StartupTiming[];
	/** n8n's stdout and stderr so far, all starts, without colour codes. */
	logs(): string;
	/**
	 * Stops n8n and starts it again on the same user folder and ports. `whileStopped` runs after n8n has
	 * exited and before it starts again: what happens to the outside world while n8n is down. `crash` stops it
	 * with SIGKILL instead of a graceful shutdown: requests in flight are cut off. `env` changes n8n's
	 * environment from this start on (`undefined` removes a variable), e.g. another WEBHOOK_URL.
	 */
	restart(options?: {
		whileStopped?: () => Promise<void>;
		crash?: boolean;
		env?: Record<string, string | undefined>;
	}): Promise<void>;
	/** Stops n8n and every process it started; removes the temp user folder. Idempotent. */
	stop(): Promise<void>;
}

export const E2E_OWNER: OwnerCredentials = {
	email: 'owner@captioning.test',
	password: 'Captioning-e2e-1',
	firstName: 'E2E',
	lastName: 'Owner',
};

export async function startN8n(options: StartOptions = {}): Promise<N8nInstance> {
	assertNode24();
	const n8nDir = resolveN8nDir();
	const folder = await openUserFolder(options);
	const owner = options.owner ?? E2E_OWNER;
	const output = captureOutput(options.onOutput);
	let main: MainProcess | undefined;
	const cleanup = async (): Promise<void> => {
		await main?.halt();
		await folder.remove();
	};
	try {
		const installedPackages = await installPackages(folder.path, options.packageTarball);
		const { port, brokerPort } = await twoFreePorts(options.port);
		const env = n8nEnvironment(
			{ userFolder: folder.path, port, brokerPort, logLevel: options.logLevel ?? 'info' },
			options.env,
		);
		const launch: Launch = {
			n8nDir,
			userFolder: folder.path,
			env,
			watchdog: await writeWatchdog(folder.path),
			baseUrl: `http://127.0.0.1:${port}`,
			readyTimeoutMs: options.readyTimeoutMs ?? 180_000,
			output,
			commandPrefix: options.commandPrefix ?? [],
		};
		const session = createOwnerSession(launch.baseUrl, output.logs);
		const apiKeyLabel = options.apiKeyLabel ?? 'captioning-e2e';
		main = mainProcess(launch, session, { owner, apiKeyLabel, reusedFolder: !folder.owned });
		await main.boot(false);
		const facts = { port, owner, installedPackages };
		return n8nInstance(launch, facts, session, main, cleanup);
	} catch (error) {
		await cleanup().catch(() => undefined);
		throw error;
	}
}

interface UserFolder {
	path: string;
	/** Made by this start (a temp dir), not given by the caller. */
	owned: boolean;
	/** Removes it unless the caller gave it or asked to keep it. */
	remove(): Promise<void>;
}

async function openUserFolder(options: StartOptions): Promise<UserFolder> {
	const owned = options.userFolder === undefined;
	const path = options.userFolder ?? (await mkdtemp(join(tmpdir(), 'captioning-n8n-')));
	assertIsolatedFolder(path);
	const keep = options.keepUserFolder === true || process.env.CAPTIONING_E2E_KEEP === '1';
	return {
		path,
		owned,
		async remove() {
			if (owned && !keep) await rm(path, { recursive: true, force: true, maxRetries: 3 });
		},
	};
}

async function installPackages(
	userFolder: string,
	tarballs: StartOptions['packageTarball'],
): Promise<InstalledPackage[]> {
	const installed: InstalledPackage[] = [];
	for (const tarball of [tarballs ?? []].flat()) {
		installed.push(await installCommunityPackage(userFolder, tarball));
	}
	return installed;
}

/** n8n's port (the given one, or a free one) and another free one for its task runner broker. */
async function twoFreePorts(
	given: number | undefined,
): Promise<{ port: number; brokerPort: number }> {
	const port = given ?? (await freePort());
	let brokerPort = await freePort();
	while (brokerPort === port) brokerPort = await freePort();
	return { port, brokerPort };
}

/** How to start this n8n, the same at every boot. */
interface Launch {
	n8nDir: string;
	userFolder: string;
	env: NodeJS.ProcessEnv;
	watchdog: string;
	baseUrl: string;
	readyTimeoutMs: number;
	output: ProcessOutput;
	commandPrefix: readonly string[];
}

interface SignIn {
	owner: OwnerCredentials;
	apiKeyLabel: string;
	reusedFolder: boolean;
}

/** n8n's main process across restarts: each boot spawns it, waits until it has started, signs in. */
interface MainProcess {
	readonly timings: readonly StartupTiming[];
	boot(isRestart: boolean): Promise<void>;
	/** Stops the current process, if one was spawned: gracefully, or as a crash (SIGKILL). */
	halt(options?: { crash?: boolean }): Promise<void>;
}

function mainProcess(launch: Launch, session: OwnerSession, signIn: SignIn): MainProcess {
	let proc: RunningProcess | undefined;
	const timings: StartupTiming[] = [];
	return {
		timings,
		async boot(isRestart) {
			const started = Date.now();
			const outputFrom = launch.output.chunks.length;
			const { n8nDir, userFolder, watchdog, env, output, commandPrefix } = launch;
			proc = spawnN8n(n8nDir, userFolder, watchdog, env, output.onOutput, ['start'], commandPrefix);
			await waitUntilStarted(launch, proc, started, outputFrom);
			const readySeconds = (Date.now() - started) / 1000;
			const { owner, apiKeyLabel, reusedFolder } = signIn;
			if (!isRestart) await session.setUpOwner(owner, { reusedFolder });
			await session.login(owner);
			if (!session.apiKey) await session.createApiKey(apiKeyLabel, { reusedFolder });
			timings.push({
				readySeconds,
				totalSeconds: (Date.now() - started) / 1000,
				restart: isRestart,
			});
		},
		async halt({ crash: crashed = false } = {}) {
			if (proc) await (crashed ? crash(proc) : terminate(proc));
		},
	};
}

// Started: /healthz/readiness answers 200 and the start command has printed STARTED_LINE, after it activated
// the active workflows. 1.x answers readiness once its DB is migrated, before its REST routes exist; 2.x
// once the server is configured, and activates workflows after that.
async function waitUntilStarted(
	launch: Launch,
	current: RunningProcess,
	started: number,
	outputFrom: number,
): Promise<void> {
	const { baseUrl, output, readyTimeoutMs } = launch;
	const deadline = started + readyTimeoutMs;
	let ready = false;
	for (;;) {
		if (current.hasExited()) {
			const { code, signal } = await current.exited;
			throw new Error(
				`n8n exited during start-up (code ${code}, signal ${signal}). Output:\n${tail(output.logs())}`,
			);
		}
		ready ||= await answersOk(`${baseUrl}/healthz/readiness`);
		if (ready && output.chunks.slice(outputFrom).join('').includes(STARTED_LINE)) return;
		if (Date.now() > deadline) {
			throw new Error(
				`n8n was not ${ready ? 'started' : 'ready'} within ${readyTimeoutMs / 1000} s. ` +
					`Output:\n${tail(output.logs())}`,
			);
		}
		await delay(250);
	}
}

function n8nInstance(
	launch: Launch,
	facts: Pick<N8nInstance, 'port' | 'owner' | 'installedPackages'>,
	session: OwnerSession,
	main: MainProcess,
	cleanup: () => Promise<void>,
): N8nInstance {
	const { baseUrl } = launch;
	let stopped = false;
	return {
		baseUrl,
		webhookBaseUrl: `${baseUrl}/webhook`,
		webhookTestBaseUrl: `${baseUrl}/webhook-test`,
		get apiKey() {
			return session.apiKey;
		},
		userFolder: launch.userFolder,
		n8nDir: launch.n8nDir,
		...facts,
		timings: main.timings,
		api: session.api,
		rest: session.rest,
		request: session.request,
		requestAsOwner: session.requestAsOwner,
		createWorkflow: session.createWorkflow,
		createCredential: session.createCredential,
		activateWorkflow: session.activateWorkflow,
		deactivateWorkflow: session.deactivateWorkflow,
		waitForExecutions: session.waitForExecutions,
		logs: launch.output.logs,
		async restart(restartOptions = {}) {
			if (stopped) throw new Error('restart() after stop()');
			await main.halt({ crash: restartOptions.crash });
			await restartOptions.whileStopped?.();
			for (const [key, value] of Object.entries(restartOptions.env ?? {})) {
				if (value === undefined) delete launch.env[key];
				else launch.env[key] = value;
			}
			await main.boot(true);
		},
		async stop() {
			if (stopped) return;
			stopped = true;
			await cleanup();
		},
	};
}
