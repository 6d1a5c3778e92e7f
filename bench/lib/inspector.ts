// The V8 inspector of the n8n the benchmark started with --inspect (its DevTools protocol over a WebSocket).

/** The inspector URL of n8n's main process, from the first "Debugger listening on ws://..." line it prints. */
export const inspectorUrlIn = (chunk: string): string | undefined =>
	/Debugger listening on (ws:\/\/\S+)/.exec(chunk)?.[1];

/** A connection to one inspector: commands sent, their results awaited by id. */
export class Inspector {
	private id = 0;
	private pending = new Map<number, (result: unknown) => void>();
	private constructor(private socket: WebSocket) {
		socket.addEventListener('message', (event) => {
			const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
			if (message.id !== undefined) this.pending.get(message.id)?.(message.result);
		});
	}
	static async connect(url: string): Promise<Inspector> {
		const socket = new WebSocket(url);
		await new Promise((resolve, reject) => {
			socket.addEventListener('open', resolve, { once: true });
			socket.addEventListener('error', reject, { once: true });
		});
		return new Inspector(socket);
	}
	send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
		const id = ++this.id;
		return new Promise((resolve) => {
			this.pending.set(id, resolve as (result: unknown) => void);
			this.socket.send(JSON.stringify({ id, method, params }));
		});
	}
	close() {
		this.socket.close();
	}
}
