// A raw HTTP/1.1 client for hostile requests: any method, path and query exactly as given, repeated
// headers, arbitrary body bytes. fetch() would normalise or refuse most of what these tests send.
import { Agent, request } from 'node:http';

export interface RawRequest {
	method: string;
	/** Path and query, sent as they are. */
	path: string;
	/** In order; a name given twice is sent as two header lines. */
	headers: Array<[string, string]>;
	body?: Buffer;
}

export interface RawResponse {
	/** 0 when the connection failed before a status line arrived. */
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	/** The parsed body when it is JSON. */
	json?: unknown;
	/** A socket error (e.g. the server closed the connection while the body was still being sent). */
	error?: string;
	ms: number;
}

export interface Sender {
	/** `timeoutMs` overrides the sender's for this request. */
	send(req: RawRequest, timeoutMs?: number): Promise<RawResponse>;
	close(): void;
}

/** Requests to one host:port on 127.0.0.1 over at most `sockets` keep-alive connections. */
export function createSender(port: number, sockets: number, timeoutMs = 60_000): Sender {
	const agent = new Agent({ keepAlive: true, maxSockets: sockets });
	const attempt = (req: RawRequest, timeout: number): Promise<RawResponse & { reused: boolean }> =>
		new Promise((resolve) => {
			const started = Date.now();
			let settled = false;
			let socketError: string | undefined;
			const finish = (response: Omit<RawResponse, 'ms'>) => {
				if (settled) return;
				settled = true;
				resolve({ ...response, ms: Date.now() - started, reused: outgoing.reusedSocket });
			};
			const headers: Record<string, string | string[]> = {};
			for (const [name, value] of req.headers) {
				const key = name.toLowerCase();
				const known = headers[key];
				headers[key] = known === undefined ? value : [...[known].flat(), value];
			}
			const outgoing = request(
				{
					host: '127.0.0.1',
					port,
					method: req.method,
					path: req.path,
					headers,
					agent,
					timeout,
				},
				(res) => {
					const chunks: Buffer[] = [];
					res.on('data', (chunk: Buffer) => chunks.push(chunk));
					res.on('error', (error) => {
						socketError ??= error.message;
					});
					res.on('close', () => {
						const text = Buffer.concat(chunks).toString('utf8');
						let json: unknown;
						if (String(res.headers['content-type'] ?? '').includes('json') && text) {
							try {
								json = JSON.parse(text);
							} catch {
								json = undefined;
							}
						}
						finish({
							status: res.statusCode ?? 0,
							headers: res.headers,
							text,
							json,
							error: socketError,
						});
					});
				},
			);
			outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer in ${timeout} ms`)));
			outgoing.on('error', (error: NodeJS.ErrnoException) => {
				socketError ??= error.code ?? error.message;
				// a response that already arrived wins; otherwise the error is the outcome
				setImmediate(() => finish({ status: 0, headers: {}, text: '', error: socketError }));
			});
			outgoing.end(req.body);
		});
	const send = async (req: RawRequest, timeout = timeoutMs): Promise<RawResponse> => {
		const first = await attempt(req, timeout);
		// a kept-alive socket the server closed just as it was reused: Node's documented retry case
		if (first.status === 0 && first.reused && ['ECONNRESET', 'EPIPE'].includes(first.error ?? '')) {
			return attempt(req, timeout);
		}
		return first;
	};
	return { send, close: () => agent.destroy() };
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the items' order. */
export async function mapPool<T, R>(
	items: readonly T[],
	limit: number,
	work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const index = next++;
			results[index] = await work(items[index], index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	return results;
}
