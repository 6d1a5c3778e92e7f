// A real HTTP server on 127.0.0.1 that records what the sandbox delivers and answers with programmed statuses.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	body: string;
}

export interface Receiver {
	url: string;
	received: Received[];
	/** Statuses to answer with, in order; after the list runs out, 200. */
	respondWith(statuses: number[]): void;
	close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
	const received: Received[] = [];
	let statuses: number[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			received.push({
				method: req.method ?? '',
				path: req.url ?? '',
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
			});
			res.writeHead(statuses.shift() ?? 200).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		received,
		respondWith: (list) => (statuses = [...list]),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
