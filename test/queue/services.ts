// Redis and PostgreSQL for n8n's queue mode, from Debian's packages (installed on first use), each on a
// private port on 127.0.0.1 with its data in a private temp folder: never a system cluster, never the
// default ports. stop() stops both and removes the folder; an exit hook stops them if the test process
// ends without it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../harness';

const execFileAsync = promisify(execFile);

const DEFAULT_PORTS = new Set([5432, 6379]);
const REDIS_SERVER = '/usr/bin/redis-server';
const PG_ROOT = '/usr/lib/postgresql';
const POLICY_RC = '/usr/sbin/policy-rc.d';

export interface PostgresSettings {
	host: string;
	port: number;
	user: string;
	password: string;
	database: string;
}

export interface Services {
	redis: { host: string; port: number };
	postgres: PostgresSettings;
	/** The private folder with both servers' data and logs. */
	dir: string;
	/** Seconds spent installing packages (0 when both were there) and starting the servers. */
	timings: { installSeconds: number; startSeconds: number };
	/** Runs one SQL statement in the n8n database with psql; returns its unaligned, tuples-only output. */
	sql(statement: string): Promise<string>;
	/** Like sql(), in another database of the cluster (`postgres` to create one). */
	sqlIn(database: string, statement: string): Promise<string>;
	/** Stops both servers and removes their folder. Idempotent. */
	stop(): Promise<void>;
}

type Log = (line: string) => void;

async function run(
	command: string,
	args: string[],
	options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<string> {
	try {
		const { stdout } = await execFileAsync(command, args, {
			env: options.env ?? process.env,
			timeout: options.timeoutMs ?? 120_000,
			maxBuffer: 64 * 1024 * 1024,
		});
		return stdout;
	} catch (error) {
		const { stdout, stderr } = error as { stdout?: string; stderr?: string };
		throw new Error(`\`${command} ${args.join(' ')}\` failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
	}
}

/** The bin folder of the newest PostgreSQL Debian installed (/usr/lib/postgresql/<major>/bin). */
function postgresBinDir(): string | undefined {
	if (!existsSync(PG_ROOT)) return undefined;
	const majors = readdirSync(PG_ROOT)
		.filter((name) => /^\d+$/.test(name) && existsSync(join(PG_ROOT, name, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return majors.length > 0 ? join(PG_ROOT, majors[0], 'bin') : undefined;
}

/**
 * `apt-get update` once, then `apt-get install -y` what is missing. A machine without a policy-rc.d
 * gets one for the duration of the install, so that the packages' own services do not start on the
 * default ports.
 */
async function ensureDebianPackages(log: Log): Promise<number> {
	const missing: string[] = [];
	if (!existsSync(REDIS_SERVER)) missing.push('redis-server');
	if (!postgresBinDir()) missing.push('postgresql');
	if (missing.length === 0) return 0;
	const started = Date.now();
	if (process.getuid?.() !== 0) {
		throw new Error(
			`${missing.join(' and ')} missing; install as root: ` +
				`apt-get update && apt-get install -y redis-server postgresql`,
		);
	}
	log(`installing ${missing.join(', ')} from Debian's packages (apt-get)`);
	const ownPolicy = !existsSync(POLICY_RC);
	if (ownPolicy) await writeFile(POLICY_RC, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
	try {
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		const lock = ['-o', 'DPkg::Lock::Timeout=300'];
		await run('apt-get', [...lock, 'update'], { env, timeoutMs: 600_000 });
		await run('apt-get', [...lock, 'install', '-y', 'redis-server', 'postgresql'], {
			env,
			timeoutMs: 900_000,
		});
	} finally {
		if (ownPolicy) await rm(POLICY_RC, { force: true });
	}
	if (!existsSync(REDIS_SERVER) || !postgresBinDir()) {
		throw new Error('apt-get install redis-server postgresql left them missing');
	}
	return (Date.now() - started) / 1000;
}

async function privatePort(): Promise<number> {
	for (;;) {
		const port = await freePort();
		if (!DEFAULT_PORTS.has(port)) return port;
	}
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** Sends PING over TCP until Redis answers +PONG. */
async function waitForRedis(port: number, proc: ChildProcess, timeoutMs = 20_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (proc.exitCode !== null) throw new Error(`redis-server exited (${proc.exitCode})`);
		const pong = await new Promise<boolean>((resolve) => {
			const socket = connect({ host: '127.0.0.1', port });
			let answer = '';
			socket.setTimeout(1_000, () => socket.destroy());
			socket.on('connect', () => socket.write('PING\r\n'));
			socket.on('data', (chunk) => {
				answer += chunk.toString();
				if (answer.includes('\r\n')) socket.end();
			});
			socket.on('close', () => resolve(answer.startsWith('+PONG')));
			socket.on('error', () => undefined);
		});
		if (pong) return;
		if (Date.now() > deadline) throw new Error(`redis on ${port} did not answer PING`);
		await delay(100);
	}
}

// Last resort when the test process ends without stop(): both servers die with it.
const liveStops = new Set<() => void>();
let exitHook = false;
function onExit(stop: () => void): () => void {
	if (!exitHook) {
		exitHook = true;
		process.on('exit', () => {
			for (const fn of liveStops) fn();
		});
	}
	liveStops.add(stop);
	return () => {
		liveStops.delete(stop);
	};
}

function killQuietly(pid: number | undefined, signal: NodeJS.Signals): void {
	if (pid === undefined) return;
	try {
		process.kill(pid, signal);
	} catch {
		// already gone
	}
}

export async function startServices(options: { log?: Log } = {}): Promise<Services> {
	const log = options.log ?? (() => undefined);
	const installSeconds = await ensureDebianPackages(log);
	const started = Date.now();
	const binDir = postgresBinDir()!;
	const asRoot = process.getuid?.() === 0;

	const dir = await mkdtemp(join(tmpdir(), 'captioning-queue-services-'));
	// the postgres user (PostgreSQL refuses to run as root) must reach its folder inside
	await chmod(dir, 0o755);
	const pgDir = join(dir, 'postgres');
	const pgData = join(pgDir, 'data');
	const pgSocket = join(pgDir, 'socket');
	const redisDir = join(dir, 'redis');
	await mkdir(pgSocket, { recursive: true });
	await mkdir(redisDir, { recursive: true });

	let redis: ChildProcess | undefined;
	let pgStarted = false;
	let stopped = false;
	let forget = (): void => undefined;

	// as root, PostgreSQL's programs run as the postgres user the package created
	const owner = asRoot
		? {
				uid: Number((await run('id', ['-u', 'postgres'])).trim()),
				gid: Number((await run('id', ['-g', 'postgres'])).trim()),
			}
		: undefined;
	const giveToPostgres = async (path: string) => {
		if (owner) await chown(path, owner.uid, owner.gid);
	};
	const pgCommand = (bin: string, args: string[]): [string, string[]] =>
		asRoot
			? ['runuser', ['-u', 'postgres', '--', join(binDir, bin), ...args]]
			: [join(binDir, bin), args];

	let watchdog: ChildProcess | undefined;
	const stop = async (): Promise<void> => {
		if (stopped) return;
		stopped = true;
		forget();
		killQuietly(watchdog?.pid, 'SIGKILL');
		if (pgStarted) {
			const [cmd, args] = pgCommand('pg_ctl', ['-D', pgData, '-m', 'fast', '-w', 'stop']);
			await run(cmd, args).catch(() => killPostmaster(pgData, 'SIGQUIT'));
		}
		if (redis && redis.exitCode === null) {
			const exited = new Promise((resolve) => redis!.once('exit', resolve));
			redis.kill('SIGTERM');
			await Promise.race([exited, delay(10_000)]);
			if (redis.exitCode === null) redis.kill('SIGKILL');
		}
		await rm(dir, { recursive: true, force: true, maxRetries: 3 });
	};
	forget = onExit(() => {
		killQuietly(redis?.pid, 'SIGKILL');
		killPostmaster(pgData, 'SIGQUIT');
	});

	try {
		// Redis: no persistence, loopback only
		const redisPort = await privatePort();
		redis = spawn(
			REDIS_SERVER,
			[
				'--port',
				String(redisPort),
				'--bind',
				'127.0.0.1',
				'--protected-mode',
				'yes',
				'--dir',
				redisDir,
				'--save',
				'',
				'--appendonly',
				'no',
				'--daemonize',
				'no',
				'--logfile',
				join(redisDir, 'redis.log'),
			],
			{ stdio: 'ignore' },
		);
		await waitForRedis(redisPort, redis);

		// PostgreSQL: a fresh cluster owned by the postgres user when we are root
		await giveToPostgres(pgDir);
		await giveToPostgres(pgSocket);
		const password = randomBytes(18).toString('base64url');
		const pwFile = join(pgDir, 'pwfile');
		await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
		await giveToPostgres(pwFile);
		const user = 'n8n';
		{
			const [cmd, args] = pgCommand('initdb', [
				'-D',
				pgData,
				'-U',
				user,
				`--pwfile=${pwFile}`,
				'--auth=scram-sha-256',
				'--encoding=UTF8',
				'--locale=C',
			]);
			await run(cmd, args);
		}
		await rm(pwFile, { force: true });
		const pgPort = await privatePort();
		const serverOptions = [
			`-p ${pgPort}`,
			'-c listen_addresses=127.0.0.1',
			`-c unix_socket_directories=${pgSocket}`,
			'-c max_connections=200',
			// a throwaway cluster: durability buys nothing here
			'-c fsync=off',
			'-c synchronous_commit=off',
			'-c full_page_writes=off',
		].join(' ');
		{
			const [cmd, args] = pgCommand('pg_ctl', [
				'-D',
				pgData,
				'-l',
				join(pgDir, 'postgres.log'),
				'-o',
				serverOptions,
				'-w',
				'-t',
				'60',
				'start',
			]);
			pgStarted = true;
			await run(cmd, args);
		}
		const postgres: PostgresSettings = {
			host: '127.0.0.1',
			port: pgPort,
			user,
			password,
			database: 'n8n',
		};
		const psql = async (database: string, statement: string): Promise<string> =>
			await run(
				join(binDir, 'psql'),
				[
					'-h',
					postgres.host,
					'-p',
					String(postgres.port),
					'-U',
					user,
					'-d',
					database,
					'-v',
					'ON_ERROR_STOP=1',
					'-At',
					'-c',
					statement,
				],
				{ env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '10' } },
			);
		await psql('postgres', 'CREATE DATABASE n8n');
		// if this process is killed (no exit hook runs), a detached watchdog stops both and removes the folder
		const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
		const [pgCmd, pgArgs] = pgCommand('pg_ctl', ['-D', pgData, '-m', 'immediate', 'stop']);
		watchdog = spawn(
			'sh',
			[
				'-c',
				`while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
					`kill -9 ${redis.pid} 2>/dev/null; ${[pgCmd, ...pgArgs].map(quote).join(' ')} ` +
					`>/dev/null 2>&1; rm -rf ${quote(dir)}`,
			],
			{ detached: true, stdio: 'ignore' },
		);
		watchdog.unref();
		log(
			`redis on 127.0.0.1:${redisPort}, postgres ${binDir.split('/').at(-2)} on ` +
				`127.0.0.1:${pgPort} (data in ${dir})`,
		);
		return {
			redis: { host: '127.0.0.1', port: redisPort },
			postgres,
			dir,
			timings: { installSeconds, startSeconds: (Date.now() - started) / 1000 },
			sql: (statement) => psql(postgres.database, statement),
			sqlIn: psql,
			stop,
		};
	} catch (error) {
		await stop().catch(() => undefined);
		throw error;
	}
}

/** Signals the postmaster whose pid its data folder records (synchronous: usable in an exit hook). */
function killPostmaster(pgData: string, signal: NodeJS.Signals): void {
	try {
		const pid = Number(readFileSync(join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0]);
		if (Number.isInteger(pid) && pid > 0) killQuietly(pid, signal);
	} catch {
		// not running
	}
}
