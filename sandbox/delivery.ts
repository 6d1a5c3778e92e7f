// Webhook delivery as section 6.2: a POST per subscribed endpoint, retried after a non-2xx answer at most 5 times.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export const MAX_REDELIVERIES = 5;

export interface DeliveryAttempt {
	eventId: string;
	eventType: string;
	endpointId: string;
	callbackUri: string;
	attempt: number;
	at: string;
	durationMs: number;
	status?: number;
	error?: string;
}

export interface DeliveryTask {
	eventId: string;
	eventType: string;
	endpointId: string;
	callbackUri: string;
	body: string;
	/** The event's own Content-Type; the settings' one otherwise. */
	contentType?: string;
}

export interface DelivererSettings {
	/** Wait before each redelivery; its length caps the redeliveries (at most MAX_REDELIVERIES). */
	retryDelaysMs: number[];
	timeoutMs: number;
	contentType: string;
	/** Hosts the sandbox may deliver to; anything else is logged as refused (no traffic leaves the machine). */
	isAllowedHost: (hostname: string) => boolean;
}

function post(
	uri: string,
	body: string,
	contentType: string,
	timeoutMs: number,
): Promise<{ status: number }> {
	return new Promise((resolve, reject) => {
		const url = new URL(uri);
		const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
		const req = send(
			url,
			{
				method: 'POST',
				headers: {
					'content-type': contentType,
					'content-length': Buffer.byteLength(body),
					'user-agent': 'Captioning-Webhooks/1.0 (sandbox)',
				},
				timeout: timeoutMs,
				agent: false,
			},
			(res) => {
				res.resume();
				res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
				res.on('error', reject);
			},
		);
		req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
		req.on('error', reject);
		req.end(body);
	});
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Deliverer {
	readonly log: DeliveryAttempt[] = [];
	private readonly pending = new Set<Promise<void>>();
	private closed = false;

	constructor(private settings: DelivererSettings) {}

	configure(patch: Partial<DelivererSettings>) {
		this.settings = { ...this.settings, ...patch };
	}

	enqueue(task: DeliveryTask): void {
		const run = this.deliver(task).finally(() => this.pending.delete(run));
		this.pending.add(run);
	}

	/** Resolves when every delivery, retries included, has finished. */
	async idle(): Promise<void> {
		while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
	}

	close() {
		this.closed = true;
	}

	private async deliver(task: DeliveryTask): Promise<void> {
		const delays = this.settings.retryDelaysMs.slice(0, MAX_REDELIVERIES);
		for (let attempt = 1; attempt <= delays.length + 1 && !this.closed; attempt++) {
			if (attempt > 1) await sleep(delays[attempt - 2]);
			if (this.closed) return;
			const started = Date.now();
			const entry: DeliveryAttempt = {
				eventId: task.eventId,
				eventType: task.eventType,
				endpointId: task.endpointId,
				callbackUri: task.callbackUri,
				attempt,
				at: new Date(started).toISOString(),
				durationMs: 0,
			};
			try {
				const { hostname } = new URL(task.callbackUri);
				if (!this.settings.isAllowedHost(hostname)) {
					throw new Error(`the sandbox delivers only to loopback hosts, not ${hostname}`);
				}
				const { status } = await post(
					task.callbackUri,
					task.body,
					task.contentType ?? this.settings.contentType,
					this.settings.timeoutMs,
				);
				entry.status = status;
			} catch (error) {
				entry.error = (error as Error).message;
			}
			entry.durationMs = Date.now() - started;
			this.log.push(entry);
			if (entry.status !== undefined && entry.status >= 200 && entry.status < 300) return;
		}
	}
}
