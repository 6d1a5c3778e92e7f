// n8n 2.41 in queue mode on one machine, as a small production setup runs it: one main process (editor,
// public API, activation; N8N_DISABLE_PRODUCTION_MAIN_PROCESS, so it serves no production webhooks), one or
// more `n8n webhook` processes serving /webhook/, and `n8n worker`s running the executions; all on one
// PostgreSQL and one Redis, with one encryption key. Each process has its own user folder with the
// package installed as n8n installs it (as separate containers would), its own task-broker port and, for
// workers, its own health port. WEBHOOK_URL points at the webhook processes (through a readiness-gated load
// balancer by default), so triggers register its URL.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	freePort,
	installCommunityPackage,
	n8nEnvironment,
	type N8nInstance,
	type N8nProcess,
	startN8n,
	startN8nProcess,
	stripAnsi,
} from '../../harness';
import { type Balancer, startBalancer } from './balancer';
import type { Services } from './services';

export interface QueueClusterOptions {
	/** `npm pack` tarball of the package, installed into every process's user folder. */
	packageTarball: string;
	services: Services;
	workers?: number;
	/** `n8n webhook` processes behind the balancer; default 1 (more need the balancer). */
	webhooks?: number;
	/** Executions each worker runs at once (`n8n worker --concurrency`); n8n's default is 10. */
	workerConcurrency?: number;
	logLevel?: 'error' | 'warn' | 'info' | 'debug';
	/** Extra environment for every process. */
	env?: Record<string, string | undefined>;
	log?: (line: string) => void;
	/**
	 * Put the webhook process behind a readiness-gated load balancer (test/queue/balancer.ts), as a
	 * deployment does; WEBHOOK_URL is then the balancer's. Default true; false makes WEBHOOK_URL the
	 * webhook process's own port.
	 */
	balancer?: boolean;
}

export interface QueueCluster {
	main: N8nInstance;
	/** The first webhook process (webhooks[0]). */
	webhook: N8nProcess;
	webhooks: N8nProcess[];
	workers: N8nProcess[];
	/** `${WEBHOOK_URL}webhook`: where the service reaches production webhooks. */
	webhookBaseUrl: string;
	/** http://127.0.0.1:<port> of the first webhook process itself. */
	webhookProcessUrl: string;
	/** http://127.0.0.1:<port> of each webhook process itself, in the order of `webhooks`. */
	webhookProcessUrls: string[];
	balancer?: Balancer;
	/** When the cluster started (epoch ms): the zero of the times in logs(). */
	startedAt: number;
	/** Every process's output so far, each line prefixed with the process's name and its time. */
	logs(): string;
	/** Stops every process and removes their user folders. Idempotent. */
	stop(): Promise<void>;
}

/**
 * A free port below the kernel's ephemeral range. The webhook process gets its port again when it restarts;
 * an ephemeral one could meanwhile be taken by any program on the machine that listens on port 0 (other
 * tests' servers) or connects somewhere, and the service's redeliveries would reach that program instead.
 */
async function portOutsideEphemeralRange(): Promise<number> {
	let low = 32768;
	try {
		low = Number(
			(await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')).split(/\s+/)[0],
		);
	} catch {
		// not Linux: the usual default
	}
	const top = Math.min(low, 32768) - 1;
	for (let attempt = 0; attempt < 50; attempt++) {
		const port = 20000 + Math.floor(Math.random() * (top - 20000));
		const free = await new Promise<boolean>((resolve) => {
			const server = createServer();
			server.once('error', () => resolve(false));
			server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
		});
		if (free) return port;
	}
	throw new Error(`no free port between 20000 and ${top}`);
}

export async function startQueueCluster(options: QueueClusterOptions): Promise<QueueCluster> {
	const log = options.log ?? (() => undefined);
	const { redis, postgres } = options.services;
	const logLevel = options.logLevel ?? 'info';
	const webhookCount = options.webhooks ?? 1;
	if (webhookCount > 1 && options.balancer === false) {
		throw new Error('several webhook processes need the balancer: WEBHOOK_URL is one address');
	}
	const webhookPorts: number[] = [];
	for (let i = 0; i < webhookCount; i++) webhookPorts.push(await portOutsideEphemeralRange());
	const webhookProcessUrls = webhookPorts.map((port) => `http://127.0.0.1:${port}`);
	let balancer: Balancer | undefined;
	if (options.balancer !== false) {
		balancer = await startBalancer({
			port: await portOutsideEphemeralRange(),
			backends: webhookPorts.map((port) => ({ host: '127.0.0.1', port })),
		});
	}
	const webhookBase = balancer?.url ?? webhookProcessUrls[0];
	const shared: Record<string, string | undefined> = {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
		N8N_ENCRYPTION_KEY: randomBytes(24).toString('base64url'),
		WEBHOOK_URL: `${webhookBase}/`,
		// n8n 2.41's default expression engine ('vm') builds an isolated-vm isolate for every webhook request
		// to a typeVersion-1 trigger (webhook-helpers' parseRequestBody evaluates
		// $parameter.options.binaryData) and for every execution: ~30 ms of CPU each, which caps a webhook
		// process at ~10 requests/s on this 2-core machine. The classic engine keeps the burst about the
		// trigger.
		N8N_EXPRESSION_ENGINE: 'legacy',
		...options.env,
	};
	const folders: string[] = [];
	const processes: N8nProcess[] = [];
	const output: string[] = [];
	const clusterStarted = Date.now();
	// each line with the seconds since the cluster started: n8n's own lines carry no time
	const collect =
		(name: string) =>
		(chunk: string): void => {
			const at = ((Date.now() - clusterStarted) / 1000).toFixed(1);
			for (const line of stripAnsi(chunk).split('\n')) {
				if (line.trim()) output.push(`[${name}] +${at} s ${line}`);
			}
		};
	let main: N8nInstance | undefined;
	let stopped = false;

	const stop = async (): Promise<void> => {
		if (stopped) return;
		stopped = true;
		// workers and the webhook process first, then main (it owns the schema and the leadership)
		await Promise.allSettled(processes.map((p) => p.stop()));
		await main?.stop().catch(() => undefined);
		await balancer?.close().catch(() => undefined);
		await Promise.allSettled(
			folders.map((folder) => rm(folder, { recursive: true, force: true, maxRetries: 3 })),
		);
	};

	const userFolder = async (): Promise<string> => {
		const folder = await mkdtemp(join(tmpdir(), 'captioning-queue-n8n-'));
		folders.push(folder);
		await installCommunityPackage(folder, options.packageTarball);
		return folder;
	};

	try {
		// main first: it creates the schema (n8n's migrations) the others expect
		const mainStarted = Date.now();
		main = await startN8n({
			packageTarball: options.packageTarball,
			logLevel,
			env: { ...shared, N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' },
			onOutput: collect('main'),
		});
		log(`main ready on ${main.baseUrl} in ${((Date.now() - mainStarted) / 1000).toFixed(1)} s`);

		const othersStarted = Date.now();
		const startWebhook = async (index: number): Promise<N8nProcess> => {
			const folder = await userFolder();
			const env = n8nEnvironment(
				{ userFolder: folder, port: webhookPorts[index], brokerPort: await freePort(), logLevel },
				shared,
			);
			const proc = await startN8nProcess({
				args: ['webhook'],
				userFolder: folder,
				env,
				readyUrl: `${webhookProcessUrls[index]}/healthz/readiness`,
				onOutput: collect(webhookCount > 1 ? `webhook${index + 1}` : 'webhook'),
			});
			processes.push(proc);
			return proc;
		};
		const startWorker = async (index: number): Promise<N8nProcess> => {
			const folder = await userFolder();
			const healthPort = await freePort();
			const env = n8nEnvironment(
				{ userFolder: folder, port: await freePort(), brokerPort: await freePort(), logLevel },
				{
					...shared,
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(healthPort),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				},
			);
			const proc = await startN8nProcess({
				args: ['worker', `--concurrency=${options.workerConcurrency ?? 10}`],
				userFolder: folder,
				env,
				readyUrl: `http://127.0.0.1:${healthPort}/healthz/readiness`,
				onOutput: collect(`worker${index + 1}`),
			});
			processes.push(proc);
			return proc;
		};
		// all at once; a failed start fails the cluster once every other start has settled
		const starts = await Promise.allSettled([
			...Array.from({ length: webhookCount }, (_, i) => startWebhook(i)),
			...Array.from({ length: options.workers ?? 2 }, (_, i) => startWorker(i)),
		]);
		const failed = starts.find((s): s is PromiseRejectedResult => s.status === 'rejected');
		if (failed) throw failed.reason;
		const started = starts.map((s) => (s as PromiseFulfilledResult<N8nProcess>).value);
		const webhooks = started.slice(0, webhookCount);
		const workers = started.slice(webhookCount);
		log(
			`${webhookCount === 1 ? 'webhook process' : `${webhookCount} webhook processes`} on ` +
				`${webhookProcessUrls.join(', ')}${balancer ? ` behind ${balancer.url}` : ''} and ` +
				`${workers.length} workers ready in ` +
				`${((Date.now() - othersStarted) / 1000).toFixed(1)} s`,
		);
		return {
			main,
			webhook: webhooks[0],
			webhooks,
			workers,
			webhookBaseUrl: `${webhookBase}/webhook`,
			webhookProcessUrl: webhookProcessUrls[0],
			webhookProcessUrls,
			balancer,
			startedAt: clusterStarted,
			logs: () => output.join('\n'),
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}
