// The sandbox: a faithful local implementation of the captioning service's published contract
// (../shared/captioning-api.md), plus a visibly separate control API under /_sandbox/ for tests and demos.
// Every choice the contract leaves open is written down in ASSUMPTIONS.md.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Deliverer, type DeliveryAttempt } from './delivery';
import { type ClientConfig, TokenStore } from './oauth';
import { signPath, verifySignedPath } from './signing';
import { DEFAULT_TEXT, type GeneratedTranscript, generateTranscript } from './transcripts';

export const EVENT_TYPES = ['transcription.created', 'transcription.transcribed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface SandboxOptions {
	host?: string;
	/** 0 picks a free port. */
	port?: number;
	/** The `<service>` of `application/vnd.<service>.v1`. */
	serviceName?: string;
	clients?: ClientConfig[];
	accessTokenTtlSeconds?: number;
	refreshTokenTtlSeconds?: number | null;
	/** Requests per window per client on the API; null switches rate limiting off. */
	rateLimit?: { limit: number; windowMs: number } | null;
	/** Send X-RateLimit-Limit/Remaining/Reset on API answers (the contract shows no such headers). */
	announceRateLimit?: boolean;
	retryDelaysMs?: number[];
	deliveryTimeoutMs?: number;
	deliveryContentType?: string;
	signedUrlTtlSeconds?: number;
	transcribeAfterMs?: number;
	/** Delay before serving a signed file, to show that slow file servers never hold up a webhook's answer. */
	fileDelayMs?: number;
	/** Log one line per request to stderr (the CLI turns this on). */
	logRequests?: boolean;
}

export const DEFAULT_CLIENT: ClientConfig = {
	clientId: 'sandbox-client-id',
	clientSecret: 'sandbox-client-secret',
	assertions: ['sandbox-assertion-token'],
};

export interface WebhookEndpoint {
	id: string;
	clientId: string;
	callbackUri: string;
	enabledEvents: EventType[];
	createdAt: string;
}

export interface Transcription {
	id: string;
	clientId: string | null;
	title: string;
	text: string;
	status: 'created' | 'transcribed';
	createdAt: string;
	files: Record<string, { content: string; contentType: string; fileName: string }>;
	durationSeconds: number;
	averageConfidence: number | null;
}

export interface SentEvent {
	id: string;
	eventType: EventType;
	endpointId: string;
	transcriptionId: string;
	body: string;
}

export interface TranscribeInput {
	title?: string;
	text?: string;
	transcribeAfterMs?: number;
	/** Only this client's endpoints hear of it; by default every endpoint does. */
	clientId?: string;
}

export type TokenFault = 'http500' | 'html' | 'garbage' | null;

const MAX_BODY_BYTES = 1024 * 1024;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1)$/;

class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly pointer?: string,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				reject(new HttpError(413, 'payload_too_large', 'The request body exceeds 1 MiB.'));
				req.destroy();
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

function send(
	res: ServerResponse,
	status: number,
	body: unknown,
	contentType = 'application/vnd.api+json; charset=utf-8',
	headers: Record<string, string> = {},
) {
	const text =
		body === undefined || Buffer.isBuffer(body) || typeof body === 'string'
			? (body ?? '')
			: JSON.stringify(body);
	res.writeHead(status, {
		...headers,
		...(text.length
			? { 'content-type': contentType, 'content-length': Buffer.byteLength(text) }
			: {}),
	});
	res.end(text);
}

function jsonApiError(error: HttpError) {
	return {
		errors: [
			{
				status: String(error.status),
				code: error.code,
				title: error.code.replace(/_/g, ' '),
				detail: error.message,
				...(error.pointer ? { source: { pointer: error.pointer } } : {}),
			},
		],
	};
}

/** `Accept` may list several media ranges; the version is chosen by the vendor type among them. */
export function acceptsVersion(accept: string | undefined, mediaType: string): boolean {
	return (accept ?? '')
		.split(',')
		.map((range) => range.split(';')[0].trim().toLowerCase())
		.includes(mediaType.toLowerCase());
}

export class Sandbox {
	readonly options: Required<Omit<SandboxOptions, 'rateLimit' | 'refreshTokenTtlSeconds'>> & {
		rateLimit: SandboxOptions['rateLimit'];
		refreshTokenTtlSeconds: number | null;
	};
	readonly tokens: TokenStore;
	readonly deliverer: Deliverer;
	readonly endpoints = new Map<string, WebhookEndpoint>();
	readonly transcriptions = new Map<string, Transcription>();
	readonly events = new Map<string, SentEvent>();
	readonly stats = {
		assertionGrants: 0,
		refreshGrants: 0,
		failedGrants: 0,
		apiRequests: 0,
		rateLimited: 0,
	};
	/** What reached the API (method, path, status): tests assert on the wire, not on our own client. */
	readonly requestLog: { method: string; path: string; status: number; grantType?: string }[] = [];
	tokenFault: TokenFault = null;

	private server: Server | undefined;
	private clockOffsetMs = 0;
	private readonly signingKey = randomUUID();
	private readonly windows = new Map<string, { start: number; count: number }>();
	private baseUrl = '';

	constructor(options: SandboxOptions = {}) {
		this.options = {
			host: options.host ?? '127.0.0.1',
			port: options.port ?? 0,
			serviceName: options.serviceName ?? 'service',
			clients: options.clients ?? [DEFAULT_CLIENT],
			accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 7200,
			refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? null,
			rateLimit:
				options.rateLimit === undefined ? { limit: 20, windowMs: 1000 } : options.rateLimit,
			retryDelaysMs: options.retryDelaysMs ?? [2_000, 10_000, 30_000, 60_000, 120_000],
			deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10_000,
			deliveryContentType: options.deliveryContentType ?? 'application/json; charset=utf-8',
			signedUrlTtlSeconds: options.signedUrlTtlSeconds ?? 3600,
			transcribeAfterMs: options.transcribeAfterMs ?? 1000,
			fileDelayMs: options.fileDelayMs ?? 0,
			announceRateLimit: options.announceRateLimit ?? true,
			logRequests: options.logRequests ?? false,
		};
		this.tokens = new TokenStore(this.options.clients, {
			accessTokenTtlSeconds: this.options.accessTokenTtlSeconds,
			refreshTokenTtlSeconds: this.options.refreshTokenTtlSeconds,
			now: () => this.now(),
		});
		this.deliverer = new Deliverer({
			retryDelaysMs: this.options.retryDelaysMs,
			timeoutMs: this.options.deliveryTimeoutMs,
			contentType: this.options.deliveryContentType,
			isAllowedHost: (hostname) => LOOPBACK.test(hostname),
		});
	}

	get url(): string {
		return this.baseUrl;
	}

	get mediaType(): string {
		return `application/vnd.${this.options.serviceName}.v1`;
	}

	get deliveries(): DeliveryAttempt[] {
		return this.deliverer.log;
	}

	/** The service's clock; tests move it forward instead of sleeping until tokens or URLs expire. */
	now(): number {
		return Date.now() + this.clockOffsetMs;
	}

	advanceClock(seconds: number) {
		this.clockOffsetMs += seconds * 1000;
	}

	async start(): Promise<this> {
		this.server = createServer((req, res) => void this.handle(req, res));
		this.server.keepAliveTimeout = 5000;
		await new Promise<void>((resolve, reject) => {
			this.server!.once('error', reject);
			this.server!.listen(this.options.port, this.options.host, () => resolve());
		});
		const { port } = this.server.address() as AddressInfo;
		this.baseUrl = `http://${this.options.host}:${port}`;
		return this;
	}

	async stop(): Promise<void> {
		this.deliverer.close();
		if (!this.server) return;
		const server = this.server;
		this.server = undefined;
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}

	/** Waits until every delivery, retries included, has finished. */
	idle(): Promise<void> {
		return this.deliverer.idle();
	}

	// ---- simulation ---------------------------------------------------------------------------------------------

	/** Like startTranscription, and resolves once transcription.transcribed is queued for delivery. */
	async transcribe(
		input: TranscribeInput = {},
	): Promise<{ transcription: Transcription; events: SentEvent[] }> {
		const started = this.startTranscription(input);
		const transcribed = await started.completed;
		return { transcription: started.transcription, events: [...started.created, ...transcribed] };
	}

	/**
	 * Simulates "a media object was transcribed": creates a transcription (transcription.created) now, and
	 * completes it (transcription.transcribed) after transcribeAfterMs.
	 */
	startTranscription(input: TranscribeInput = {}): {
		transcription: Transcription;
		created: SentEvent[];
		completed: Promise<SentEvent[]>;
	} {
		const id = randomUUID();
		const text = input.text ?? DEFAULT_TEXT;
		const generated = generateTranscript(text, id);
		const transcription: Transcription = {
			id,
			clientId: input.clientId ?? null,
			title: input.title ?? 'Quarterly product update',
			text,
			status: 'created',
			createdAt: new Date(this.now()).toISOString(),
			files: {},
			durationSeconds: generated.durationSeconds,
			averageConfidence: null,
		};
		this.transcriptions.set(id, transcription);
		const created = this.emit('transcription.created', transcription);
		const delay = input.transcribeAfterMs ?? this.options.transcribeAfterMs;
		const completed = new Promise<void>((resolve) => setTimeout(resolve, delay)).then(() =>
			this.complete(transcription, generated),
		);
		return { transcription, created, completed };
	}

	private complete(transcription: Transcription, generated: GeneratedTranscript): SentEvent[] {
		transcription.status = 'transcribed';
		transcription.averageConfidence = generated.averageConfidence;
		const slug =
			transcription.title
				.toLowerCase()
				.replace(/[^a-z0-9]+/g, '-')
				.replace(/^-|-$/g, '') || 'transcription';
		transcription.files = {
			vtt: {
				content: generated.vtt,
				contentType: 'text/vtt; charset=utf-8',
				fileName: `${slug}.vtt`,
			},
			google_stt: {
				content: generated.googleStt,
				contentType: 'application/json; charset=utf-8',
				fileName: `${slug}.google_stt.json`,
			},
		};
		return this.emit('transcription.transcribed', transcription);
	}

	/** Sends an event again with the same id and body, as the service's redelivery would. */
	redeliver(eventId: string): boolean {
		const event = this.events.get(eventId);
		const endpoint = event && this.endpoints.get(event.endpointId);
		if (!event || !endpoint) return false;
		this.deliverer.enqueue({
			eventId,
			eventType: event.eventType,
			endpointId: endpoint.id,
			callbackUri: endpoint.callbackUri,
			body: event.body,
		});
		return true;
	}

	signedUrl(path: string): string {
		const expires = Math.floor(this.now() / 1000) + this.options.signedUrlTtlSeconds;
		return `${this.baseUrl}${signPath(this.signingKey, path, expires)}`;
	}

	private transcriptionResource(transcription: Transcription) {
		return {
			id: transcription.id,
			type: 'transcription',
			attributes: {
				title: transcription.title,
				duration: transcription.durationSeconds,
				average_confidence: transcription.averageConfidence,
				media: { url: this.signedUrl(`/media/${transcription.id}/media.wav`) },
				transcriptions: Object.entries(transcription.files).map(([format, file]) => ({
					format,
					url: this.signedUrl(`/files/${transcription.id}/${file.fileName}`),
				})),
			},
		};
	}

	private emit(eventType: EventType, transcription: Transcription): SentEvent[] {
		const sent: SentEvent[] = [];
		for (const endpoint of this.endpoints.values()) {
			if (!endpoint.enabledEvents.includes(eventType)) continue;
			if (transcription.clientId && transcription.clientId !== endpoint.clientId) continue;
			const id = randomUUID();
			const body = JSON.stringify({
				data: {
					id,
					type: 'webhook_event',
					attributes: {
						created_at: new Date(this.now()).toISOString(),
						event_type: eventType,
						uri: endpoint.callbackUri,
					},
					relationships: { subject: { data: { id: transcription.id, type: 'transcription' } } },
				},
				included: [this.transcriptionResource(transcription)],
			});
			const event: SentEvent = {
				id,
				eventType,
				endpointId: endpoint.id,
				transcriptionId: transcription.id,
				body,
			};
			this.events.set(id, event);
			sent.push(event);
			this.deliverer.enqueue({
				eventId: id,
				eventType,
				endpointId: endpoint.id,
				callbackUri: endpoint.callbackUri,
				body,
			});
		}
		return sent;
	}

	// ---- HTTP ---------------------------------------------------------------------------------------------------

	private async handle(req: IncomingMessage, res: ServerResponse) {
		const url = new URL(req.url ?? '/', 'http://sandbox');
		const method = req.method ?? 'GET';
		const entry: (typeof this.requestLog)[number] = { method, path: url.pathname, status: 0 };
		res.on('finish', () => {
			entry.status = res.statusCode;
			this.requestLog.push(entry);
			if (this.options.logRequests) {
				// never the query string: it carries the client secret and assertion on token calls
				process.stderr.write(`[sandbox] ${method} ${url.pathname} -> ${res.statusCode}\n`);
			}
		});
		try {
			if (url.pathname === '/oauth/token') {
				entry.grantType = url.searchParams.get('grant_type') ?? undefined;
				return this.tokenEndpoint(req, res, url);
			}
			if (url.pathname.startsWith('/_sandbox/')) return await this.control(req, res, url);
			if (url.pathname.startsWith('/files/') || url.pathname.startsWith('/media/')) {
				if (this.options.fileDelayMs > 0) {
					await new Promise((resolve) => setTimeout(resolve, this.options.fileDelayMs));
				}
				return this.signedFile(req, res, url);
			}
			if (url.pathname === '/webhook_endpoints' || url.pathname.startsWith('/webhook_endpoints/')) {
				return await this.api(req, res, url);
			}
			throw new HttpError(404, 'not_found', `No route matches ${method} ${url.pathname}.`);
		} catch (error) {
			const httpError =
				error instanceof HttpError
					? error
					: new HttpError(500, 'internal_error', 'The sandbox failed to handle this request.');
			if (!(error instanceof HttpError))
				process.stderr.write(`[sandbox] ${(error as Error).stack}\n`);
			if (!res.headersSent)
				send(res, httpError.status, jsonApiError(httpError), undefined, httpError.headers);
		}
	}

	private tokenEndpoint(req: IncomingMessage, res: ServerResponse, url: URL) {
		if (req.method !== 'POST') {
			throw new HttpError(405, 'method_not_allowed', 'Use POST for /oauth/token.', undefined, {
				allow: 'POST',
			});
		}
		req.resume();
		if (this.tokenFault === 'http500') {
			return send(res, 500, { errors: [{ status: '500', title: 'Internal Server Error' }] });
		}
		if (this.tokenFault === 'html') {
			// what a wrong Base URL typically answers: somebody's web page
			return send(
				res,
				200,
				'<!doctype html><html><body><h1>Welcome</h1></body></html>',
				'text/html',
			);
		}
		if (this.tokenFault === 'garbage') {
			return send(
				res,
				200,
				{ access_token: 42, token_type: 'Bearer' },
				'application/json; charset=utf-8',
			);
		}
		const result = this.tokens.grant(url.searchParams);
		const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
		if ('error' in result) {
			this.stats.failedGrants++;
			const { status, ...body } = result;
			return send(res, status, body, 'application/json; charset=utf-8', noStore);
		}
		if (url.searchParams.get('grant_type') === 'assertion') this.stats.assertionGrants++;
		else this.stats.refreshGrants++;
		return send(res, 200, result, 'application/json; charset=utf-8', noStore);
	}

	/** Section 5.3: every API call carries a valid bearer token and the version's Accept header. */
	private authenticate(req: IncomingMessage): string {
		const bearer = this.tokens.checkBearer(req.headers.authorization);
		if (!bearer.ok) {
			throw new HttpError(401, 'invalid_token', bearer.description, undefined, {
				'www-authenticate': `Bearer realm="${this.options.serviceName}", error="invalid_token", error_description="${bearer.description}"`,
			});
		}
		if (!acceptsVersion(req.headers.accept, this.mediaType)) {
			throw new HttpError(
				406,
				'not_acceptable',
				`The Accept header must name the API version: send "Accept: ${this.mediaType}" (got "${req.headers.accept ?? ''}").`,
			);
		}
		return bearer.clientId;
	}

	private rateLimit(clientId: string, res: ServerResponse) {
		const limit = this.options.rateLimit;
		if (!limit) return;
		const now = Date.now();
		// fixed windows aligned to the epoch, as most API gateways count
		const start = Math.floor(now / limit.windowMs) * limit.windowMs;
		let window = this.windows.get(clientId);
		if (!window || window.start !== start) {
			window = { start, count: 0 };
			this.windows.set(clientId, window);
		}
		const resetMs = window.start + limit.windowMs - now;
		const announce = this.options.announceRateLimit;
		if (announce) {
			res.setHeader('x-ratelimit-limit', String(limit.limit));
			res.setHeader('x-ratelimit-reset', String(Math.ceil((window.start + limit.windowMs) / 1000)));
		}
		if (window.count >= limit.limit) {
			this.stats.rateLimited++;
			if (announce) res.setHeader('x-ratelimit-remaining', '0');
			throw new HttpError(
				429,
				'rate_limited',
				`Rate limit of ${limit.limit} requests per ${limit.windowMs / 1000} s exceeded; retry after the time in Retry-After.`,
				undefined,
				{ 'retry-after': String(Math.max(1, Math.ceil(resetMs / 1000))) },
			);
		}
		window.count++;
		if (announce) res.setHeader('x-ratelimit-remaining', String(limit.limit - window.count));
	}

	private async api(req: IncomingMessage, res: ServerResponse, url: URL) {
		const clientId = this.authenticate(req);
		this.rateLimit(clientId, res);
		this.stats.apiRequests++;
		const id = url.pathname.split('/')[2];
		const method = req.method ?? 'GET';
		if (id === undefined) {
			if (method === 'POST') return this.createEndpoint(req, res, clientId);
			if (method === 'GET') {
				const mine = [...this.endpoints.values()].filter((e) => e.clientId === clientId);
				return send(res, 200, { data: mine.map((e) => this.endpointResource(e)) });
			}
			throw new HttpError(
				405,
				'method_not_allowed',
				`${method} is not allowed on /webhook_endpoints.`,
				undefined,
				{ allow: 'GET, POST' },
			);
		}
		const endpoint = this.endpoints.get(id);
		if (!endpoint || endpoint.clientId !== clientId) {
			throw new HttpError(404, 'not_found', `Webhook endpoint ${id} does not exist.`);
		}
		if (method === 'GET') return send(res, 200, { data: this.endpointResource(endpoint) });
		if (method === 'DELETE') {
			this.endpoints.delete(id);
			return send(res, 204, undefined);
		}
		throw new HttpError(
			405,
			'method_not_allowed',
			`${method} is not allowed on a webhook endpoint.`,
			undefined,
			{ allow: 'GET, DELETE' },
		);
	}

	private endpointResource(endpoint: WebhookEndpoint) {
		return {
			id: endpoint.id,
			type: 'webhook_endpoint',
			attributes: {
				callback_uri: endpoint.callbackUri,
				enabled_events: endpoint.enabledEvents,
				created_at: endpoint.createdAt,
			},
			links: { self: `${this.baseUrl}/webhook_endpoints/${endpoint.id}` },
		};
	}

	private async createEndpoint(req: IncomingMessage, res: ServerResponse, clientId: string) {
		const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
		const body = await readBody(req);
		if (contentType !== 'application/x-www-form-urlencoded') {
			throw new HttpError(
				415,
				'unsupported_media_type',
				`Send the fields form-encoded (Content-Type: application/x-www-form-urlencoded), not "${contentType || 'none'}".`,
			);
		}
		const form = new URLSearchParams(body.toString('utf8'));
		const callbackUri = form.get('callback_uri');
		if (!callbackUri) {
			throw new HttpError(
				422,
				'missing_field',
				'callback_uri is required.',
				'/data/attributes/callback_uri',
			);
		}
		let parsed: URL | undefined;
		try {
			parsed = new URL(callbackUri);
		} catch {
			parsed = undefined;
		}
		if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
			throw new HttpError(
				422,
				'invalid_callback_uri',
				`callback_uri must be an absolute http or https URI (got "${callbackUri}").`,
				'/data/attributes/callback_uri',
			);
		}
		if (form.has('enabled_events') && !form.has('enabled_events[]')) {
			throw new HttpError(
				422,
				'invalid_enabled_events',
				'enabled_events must be sent as repeated enabled_events[] fields, one per event name.',
				'/data/attributes/enabled_events',
			);
		}
		const events = form.getAll('enabled_events[]');
		if (events.length === 0) {
			throw new HttpError(
				422,
				'missing_field',
				'enabled_events[] needs at least one event name.',
				'/data/attributes/enabled_events',
			);
		}
		const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
		if (unknown.length > 0) {
			throw new HttpError(
				422,
				'invalid_enabled_events',
				`Unknown event name(s): ${unknown.join(', ')}. Allowed: ${EVENT_TYPES.join(', ')}.`,
				'/data/attributes/enabled_events',
			);
		}
		const endpoint: WebhookEndpoint = {
			id: randomUUID(),
			clientId,
			callbackUri,
			enabledEvents: [...new Set(events)] as EventType[],
			createdAt: new Date(this.now()).toISOString(),
		};
		this.endpoints.set(endpoint.id, endpoint);
		return send(res, 201, { data: this.endpointResource(endpoint) }, undefined, {
			location: `${this.baseUrl}/webhook_endpoints/${endpoint.id}`,
		});
	}

	private signedFile(req: IncomingMessage, res: ServerResponse, url: URL) {
		req.resume();
		if (req.method !== 'GET' && req.method !== 'HEAD') {
			throw new HttpError(405, 'method_not_allowed', 'Signed files are read with GET.', undefined, {
				allow: 'GET, HEAD',
			});
		}
		// as object stores do: a signed URL is its own authorisation, and a second one is refused
		if (req.headers.authorization) {
			throw new HttpError(
				400,
				'invalid_request',
				'Only one auth mechanism allowed: a signed URL must be fetched without an Authorization header.',
			);
		}
		const check = verifySignedPath(
			this.signingKey,
			url.pathname,
			url.searchParams,
			Math.floor(this.now() / 1000),
		);
		if (!check.ok) {
			const detail =
				check.reason === 'expired'
					? `This signed URL expired at ${new Date(check.expiredAt! * 1000).toISOString()}. Signed URLs are valid for ${this.options.signedUrlTtlSeconds} s after the event is sent; download files when the event arrives.`
					: check.reason === 'missing'
						? 'This file needs a signed URL (expires and signature query parameters).'
						: 'The signature of this URL does not match: it was altered or forged.';
			throw new HttpError(
				403,
				check.reason === 'expired' ? 'url_expired' : 'signature_mismatch',
				detail,
			);
		}
		const [, kind, id, name] = url.pathname.split('/');
		const transcription = this.transcriptions.get(id);
		if (!transcription) throw new HttpError(404, 'not_found', 'No such file.');
		if (kind === 'media') {
			return send(res, 200, silentWav(), 'audio/wav', {
				'content-disposition': 'attachment; filename="media.wav"',
			});
		}
		const file = Object.values(transcription.files).find((f) => f.fileName === name);
		if (!file) throw new HttpError(404, 'not_found', 'No such file.');
		res.writeHead(200, {
			'content-type': file.contentType,
			'content-length': Buffer.byteLength(file.content),
			'content-disposition': `attachment; filename="${file.fileName}"`,
		});
		res.end(req.method === 'HEAD' ? undefined : file.content);
	}

	// ---- control API (not part of the service's contract) ---------------------------------------------------------

	private async control(req: IncomingMessage, res: ServerResponse, url: URL) {
		const route = `${req.method} ${url.pathname}`;
		const raw = await readBody(req);
		let body: Record<string, unknown> = {};
		if (raw.length > 0) {
			try {
				body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
			} catch {
				throw new HttpError(400, 'invalid_json', 'Control calls take a JSON body.');
			}
		}
		const json = (status: number, data: unknown) =>
			send(res, status, data, 'application/json; charset=utf-8');
		switch (true) {
			case route === 'POST /_sandbox/transcriptions': {
				// answer once the transcription exists; it completes in the background
				const { transcription, created } = this.startTranscription({
					title: typeof body.title === 'string' ? body.title : undefined,
					text: typeof body.text === 'string' ? body.text : undefined,
					transcribeAfterMs:
						typeof body.transcribeAfterMs === 'number' ? body.transcribeAfterMs : undefined,
				});
				return json(202, {
					id: transcription.id,
					status: 'created',
					events: created.map((e) => e.id),
				});
			}
			case route === 'GET /_sandbox/deliveries':
				return json(200, { deliveries: this.deliveries });
			case route === 'GET /_sandbox/events':
				return json(200, { events: [...this.events.values()].map(({ body: _b, ...e }) => e) });
			case route === 'GET /_sandbox/webhook_endpoints':
				return json(200, { endpoints: [...this.endpoints.values()] });
			case route === 'GET /_sandbox/stats':
				return json(200, this.stats);
			case /^POST \/_sandbox\/events\/[^/]+\/redeliver$/.test(route): {
				const ok = this.redeliver(url.pathname.split('/')[3]);
				if (!ok) throw new HttpError(404, 'not_found', 'No such event, or its endpoint is gone.');
				return json(202, { redelivering: true });
			}
			case route === 'POST /_sandbox/clock': {
				const seconds = Number(body.advanceSeconds);
				if (!Number.isFinite(seconds))
					throw new HttpError(400, 'invalid_request', 'advanceSeconds must be a number.');
				this.advanceClock(seconds);
				return json(200, { now: new Date(this.now()).toISOString() });
			}
			case route === 'POST /_sandbox/revoke': {
				const which = body.tokens === 'access' || body.tokens === 'refresh' ? body.tokens : 'all';
				return json(200, { revoked: this.tokens.revoke(which) });
			}
			case route === 'POST /_sandbox/faults': {
				const fault = body.token;
				if (fault !== null && fault !== 'http500' && fault !== 'html' && fault !== 'garbage') {
					throw new HttpError(
						400,
						'invalid_request',
						'token must be "http500", "html", "garbage" or null.',
					);
				}
				this.tokenFault = fault;
				return json(200, { token: fault });
			}
			default:
				throw new HttpError(404, 'not_found', `No control route ${route}.`);
		}
	}
}

/** A tenth of a second of silence: a real, playable stand-in for the transcribed media. */
function silentWav(): Buffer {
	const samples = 800;
	const buffer = Buffer.alloc(44 + samples);
	buffer.write('RIFF', 0);
	buffer.writeUInt32LE(36 + samples, 4);
	buffer.write('WAVEfmt ', 8);
	buffer.writeUInt32LE(16, 16);
	buffer.writeUInt16LE(1, 20);
	buffer.writeUInt16LE(1, 22);
	buffer.writeUInt32LE(8000, 24);
	buffer.writeUInt32LE(8000, 28);
	buffer.writeUInt16LE(1, 32);
	buffer.writeUInt16LE(8, 34);
	buffer.write('data', 36);
	buffer.writeUInt32LE(samples, 40);
	buffer.fill(128, 44);
	return buffer;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	return new Sandbox(options).start();
}
