// What the user's workflow does after its de-duplication step, seen from outside n8n: a loopback HTTP server
// that records every JSON body POSTed to it. The queue suite points the example workflow's "Post Event" node
// here and counts the posts per event id: those are the downstream executions a user would notice.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
	/** ISO time the body had arrived in full. */
	at: string;
	path: string;
	body: Record<string, unknown>;
}

export interface Collector {
	/** http://127.0.0.1:<port> */
	url: string;
	readonly received: readonly Received[];
	/** Bodies that were not a JSON object, kept apart so that a broken node shows up. */
	readonly unreadable: readonly string[];
	stop(): Promise<void>;
}

export async function startCollector(): Promise<Collector> {
	const received: Received[] = [];
	const unreadable: string[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			let body: unknown;
			try {
				body = JSON.parse(text);
			} catch {
				body = undefined;
			}
			if (body && typeof body === 'object' && !Array.isArray(body)) {
				received.push({
					at: new Date().toISOString(),
					path: req.url ?? '',
					body: body as Record<string, unknown>,
				});
			} else {
				unreadable.push(text.slice(0, 200));
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{"ok":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		received,
		unreadable,
		async stop() {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
