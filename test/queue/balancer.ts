// The load balancer a queue-mode deployment puts in front of its webhook processes, reduced to what matters
// here: it forwards each request to the next backend (round robin) whose /healthz/readiness answers 200, and
// answers 503 itself when none does. Without it a restarting webhook process is reached while it starts, and
// n8n 2.41 answers those requests itself: `200 n8n is starting up. Please wait` before its migrations check,
// then 404 before its webhook routes exist (abstract-server.ts), so a delivery answered 2xx is never executed.
// No retries: the requests are POSTs, and the service redelivers whatever did not get a 2xx.
import {
	createServer,
	request as httpRequest,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';

export interface Backend {
	host: string;
	port: number;
}

export interface Balancer {
	/** http://127.0.0.1:<port> */
	url: string;
	/** Requests answered by the balancer itself, by status (503: no ready backend, 502: backend failed). */
	readonly answeredItself: Record<number, number>;
	/** Why a backend failed the 502s, by error code ('ECONNRESET', 'ECONNREFUSED', …). */
	readonly backendErrors: Record<string, number>;
	/** Requests forwarded to each backend, in the order of `backends`. */
	readonly forwarded: number[];
	close(): Promise<void>;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export async function startBalancer(options: {
	port: number;
	backends: readonly Backend[];
	/** How often each backend's readiness is checked; default 250 ms. */
	checkEveryMs?: number;
}): Promise<Balancer> {
	const { backends } = options;
	if (backends.length === 0) throw new Error('the balancer needs at least one backend');
	const answeredItself: Record<number, number> = {};
	const backendErrors: Record<string, number> = {};
	const forwarded = backends.map(() => 0);
	const ready = backends.map(() => false);
	let next = 0;
	let closed = false;

	const checkReadiness = async (backend: Backend): Promise<boolean> => {
		try {
			const res = await fetch(`http://${backend.host}:${backend.port}/healthz/readiness`, {
				signal: AbortSignal.timeout(2_000),
			});
			await res.arrayBuffer();
			return res.status === 200;
		} catch {
			return false;
		}
	};
	const checkers = backends.map(async (backend, index) => {
		while (!closed) {
			ready[index] = await checkReadiness(backend);
			await delay(options.checkEveryMs ?? 250);
		}
	});

	/** The next ready backend after the last one used, or undefined when none is ready. */
	const pick = (): number | undefined => {
		for (let step = 0; step < backends.length; step++) {
			const index = (next + step) % backends.length;
			if (ready[index]) {
				next = index + 1;
				return index;
			}
		}
		return undefined;
	};

	const answer = (res: ServerResponse, status: number, message: string) => {
		answeredItself[status] = (answeredItself[status] ?? 0) + 1;
		if (res.headersSent) {
			res.destroy();
			return;
		}
		res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
		res.end(JSON.stringify({ error: message }));
	};

	const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const index = pick();
		if (index === undefined) {
			req.resume();
			answer(res, 503, 'no webhook process is ready');
			return;
		}
		const backend = backends[index];
		forwarded[index]++;
		const upstream = httpRequest(
			{
				host: backend.host,
				port: backend.port,
				method: req.method,
				path: req.url,
				headers: { ...req.headers, host: `${backend.host}:${backend.port}` },
				agent: false,
			},
			(upstreamRes) => {
				res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
				upstreamRes.pipe(res);
				upstreamRes.on('error', () => res.destroy());
			},
		);
		upstream.on('error', (error: NodeJS.ErrnoException) => {
			// the backend died or refused: take it out until its readiness says otherwise
			ready[index] = false;
			const code = error.code ?? error.message.slice(0, 40);
			backendErrors[code] = (backendErrors[code] ?? 0) + 1;
			answer(res, 502, 'the webhook process failed to answer');
		});
		req.pipe(upstream);
		req.on('error', () => upstream.destroy());
		res.on('close', () => {
			if (!res.writableFinished) upstream.destroy();
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port, '127.0.0.1', () => resolve());
	});
	return {
		url: `http://127.0.0.1:${options.port}`,
		answeredItself,
		backendErrors,
		forwarded,
		async close() {
			closed = true;
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			await Promise.all(checkers);
		},
	};
}
