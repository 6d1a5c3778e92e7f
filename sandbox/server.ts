// The sandbox: a faithful local implementation of the captioning service's published contract
// (docs/captioning-api.md), plus a visibly separate control API under /_sandbox/ for tests and demos.
// Every choice the contract leaves open is written down in ASSUMPTIONS.md; where it has several plausible
// readings, each is a named variant (variants.ts) that this file only wires in.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Deliverer, type DeliveryAttempt } from './delivery';
import { EventLog, type SentEvent } from './eventLog';
import {
	type Answer,
	AnswerError,
	HttpError,
	JSON_TYPE,
	jsonApiError,
	readBody,
	send,
	sendAnswer,
} from './http';
import { type ClientConfig, TokenStore } from './oauth';
import { FixedWindowLimiter, rateLimitedError, rateLimitHeaders } from './rateLimit';
import { signPath, verifySignedPath } from './signing';
import { DEFAULT_TEXT, type GeneratedTranscript, generateTranscript } from './transcripts';
import {
	defaultVariants,
	deliveryContentType,
	echoRequest,
	encodeNumbers,
	endpointIdFor,
	eventIdAllocator,
	includedResources,
	parseVariantPatch,
	resourceType,
	refusedTokenAnswer,
	TOKEN_RATE_LIMITED,
	tokenRefusalStatus,
	tokenRequestLimited,
	VARIANT_DIMENSIONS,
	VariantError,
	type Variants,
} from './variants';
import {
	assertRouteOffered,
	type EventType,
	isEndpointPath,
	serveEndpoints,
	type WebhookEndpoint,
} from './webhookEndpoints';

export { EVENT_TYPES, type EventType, type WebhookEndpoint } from './webhookEndpoints';
export type { SentEvent } from './eventLog';
export { VARIANT_DIMENSIONS, type VariantDimension, type Variants } from './variants';

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
	/** A Content-Type for deliveries outside the `delivery` variants; when set it wins over them. */
	deliveryContentType?: string;
	signedUrlTtlSeconds?: number;
	transcribeAfterMs?: number;
	/** Delay before serving a signed file, to show that slow file servers never hold up a webhook's answer. */
	fileDelayMs?: number;
	/** Log one line per request to stderr (the CLI turns this on). */
	logRequests?: boolean;
	/** Readings of what the contract leaves "not shown" (sandbox/variants.ts); unnamed dimensions keep the default. */
	variants?: Partial<Variants>;
}

export const DEFAULT_CLIENT: ClientConfig = {
	clientId: 'sandbox-client-id',
	clientSecret: 'sandbox-client-secret',
	assertions: ['sandbox-assertion-token'],
};

/** A second account of the same service, to switch a credential to (A20). */
export const SECOND_CLIENT: ClientConfig = {
	clientId: 'sandbox-second-client-id',
	clientSecret: 'sandbox-second-client-secret',
	assertions: ['sandbox-second-assertion-token'],
};

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

export interface TranscribeInput {
	title?: string;
	text?: string;
	transcribeAfterMs?: number;
	/** Only this client's endpoints hear of it; by default every endpoint does. */
	clientId?: string;
}

export type TokenFault = 'http500' | 'html' | 'garbage' | null;

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1)$/;

/** `Accept` may list several media ranges; the version is chosen by the vendor type among them. */
export function acceptsVersion(accept: string | undefined, mediaType: string): boolean {
	return (accept ?? '')
		.split(',')
		.map((range) => range.split(';')[0].trim().toLowerCase())
		.includes(mediaType.toLowerCase());
}

export class Sandbox {
	readonly options: Required<
		Omit<
			SandboxOptions,
			'rateLimit' | 'refreshTokenTtlSeconds' | 'deliveryContentType' | 'variants'
		>
	> & {
		rateLimit: SandboxOptions['rateLimit'];
		refreshTokenTtlSeconds: number | null;
		deliveryContentType: string | undefined;
	};
	readonly tokens: TokenStore;
	readonly deliverer: Deliverer;
	readonly endpoints = new Map<string, WebhookEndpoint>();
	readonly transcriptions = new Map<string, Transcription>();
	/** One record per event per endpoint; `get(id)` and `all(id)` look them up by event id. */
	readonly events = new EventLog();
	readonly stats = {
		assertionGrants: 0,
		refreshGrants: 0,
		failedGrants: 0,
		apiRequests: 0,
		rateLimited: 0,
	};
	/** What reached the API (method, path, status): tests assert on the wire, not on our own client. */
	readonly requestLog: {
		method: string;
		path: string;
		status: number;
		/** When the request arrived (epoch milliseconds, the real clock): token logs are read in time. */
		at: number;
		grantType?: string;
		/** The client a token request named (its client_id; never the secret). */
		clientId?: string;
		/** Which refresh token (by serial number, never its value) a refresh grant presented. */
		refreshSerial?: number;
		/** Which refresh token a grant issued. */
		issuedRefreshSerial?: number;
	}[] = [];
	tokenFault: TokenFault = null;
	/** Signed-file requests received so far, counted on arrival (before fileDelayMs): a download has begun. */
	fileRequestsReceived = 0;

	private server: Server | undefined;
	private clockOffsetMs = 0;
	private readonly signingKey = randomUUID();
	private readonly limiter = new FixedWindowLimiter();
	/** Token requests per client id since the readings were last set: `token-rate-limit` refuses every other one. */
	private readonly tokenRequests = new Map<string, number>();
	private baseUrl = '';
	private current: Variants = defaultVariants();
	private endpointSequence = 0;

	constructor(options: SandboxOptions = {}) {
		this.options = {
			host: options.host ?? '127.0.0.1',
			port: options.port ?? 0,
			serviceName: options.serviceName ?? 'service',
			clients: options.clients ?? [DEFAULT_CLIENT, SECOND_CLIENT],
			accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 7200,
			refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? null,
			rateLimit:
				options.rateLimit === undefined ? { limit: 20, windowMs: 1000 } : options.rateLimit,
			retryDelaysMs: options.retryDelaysMs ?? [2_000, 10_000, 30_000, 60_000, 120_000],
			deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10_000,
			deliveryContentType: options.deliveryContentType,
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
			reading: () => this.current['token-answer'],
			revokesEarlier: () => this.current['earlier-tokens'] === 'revoked',
		});
		this.deliverer = new Deliverer({
			retryDelaysMs: this.options.retryDelaysMs,
			timeoutMs: this.options.deliveryTimeoutMs,
			contentType: JSON_TYPE,
			isAllowedHost: (hostname) => LOOPBACK.test(hostname),
		});
		if (options.variants) this.setVariants(options.variants);
	}

	/** The readings of the "not shown" parts now played (a copy; change them with setVariants). */
	get variants(): Readonly<Variants> {
		return Object.freeze({ ...this.current });
	}

	/** Changes the named dimensions, leaving the others; throws a VariantError naming an unknown one. */
	setVariants(patch: Partial<Variants>): Readonly<Variants> {
		this.current = { ...this.current, ...parseVariantPatch(patch) };
		this.tokenRequests.clear();
		return this.variants;
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

	/**
	 * A new endpoint's id: a UUID; with `endpoint-ids` an integer past 2^32 or a zero-padded number; with
	 * `members=loose` the next whole number, as a service that numbers rows.
	 */
	newEndpointId(): string {
		if (this.current['endpoint-ids'] === 'uuid' && this.current.members !== 'loose') {
			return randomUUID();
		}
		const n = ++this.endpointSequence;
		return endpointIdFor(this.current['endpoint-ids'], n) ?? String(n);
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

	/**
	 * Sends an event again with the same id and body, as the service's redelivery would: to every endpoint that
	 * received it (several with `event-id=shared`), or only to `endpointId`. False when none is left to send to.
	 */
	redeliver(eventId: string, endpointId?: string): boolean {
		let sent = false;
		for (const event of this.events.all(eventId)) {
			const endpoint = this.endpoints.get(event.endpointId);
			if (!endpoint || (endpointId !== undefined && endpoint.id !== endpointId)) continue;
			this.deliverer.enqueue({
				eventId,
				eventType: event.eventType,
				endpointId: endpoint.id,
				callbackUri: endpoint.callbackUri,
				body: event.body,
				contentType: event.contentType,
			});
			sent = true;
		}
		return sent;
	}

	signedUrl(path: string): string {
		const expires = Math.floor(this.now() / 1000) + this.options.signedUrlTtlSeconds;
		return `${this.baseUrl}${signPath(this.signingKey, path, expires)}`;
	}

	private transcriptionResource(transcription: Transcription) {
		return {
			id: transcription.id,
			type: resourceType(this.current['resource-types'], 'transcription'),
			attributes: encodeNumbers(this.current.numbers, {
				title: transcription.title,
				duration: transcription.durationSeconds,
				average_confidence: transcription.averageConfidence,
				media: { url: this.signedUrl(`/media/${transcription.id}/media.wav`) },
				transcriptions: Object.entries(transcription.files).map(([format, file]) => ({
					format,
					url: this.signedUrl(`/files/${transcription.id}/${file.fileName}`),
				})),
			}),
		};
	}

	private emit(eventType: EventType, transcription: Transcription): SentEvent[] {
		const sent: SentEvent[] = [];
		const nextId = eventIdAllocator(this.current['event-id'], randomUUID);
		const contentType =
			this.options.deliveryContentType ?? deliveryContentType(this.current.delivery);
		for (const endpoint of this.endpoints.values()) {
			if (!endpoint.enabledEvents.includes(eventType)) continue;
			if (transcription.clientId && transcription.clientId !== endpoint.clientId) continue;
			const id = nextId();
			const types = this.current['resource-types'];
			const subject = this.transcriptionResource(transcription);
			const body = JSON.stringify({
				data: {
					id,
					type: resourceType(types, 'webhook_event'),
					attributes: {
						created_at: new Date(this.now()).toISOString(),
						event_type: eventType,
						uri: endpoint.callbackUri,
					},
					relationships: { subject: { data: { id: transcription.id, type: subject.type } } },
				},
				included: includedResources(this.current.included, types, subject, {
					mediaUrl: this.signedUrl(`/media/${transcription.id}/media.wav`),
					userId: endpoint.clientId,
				}),
			});
			const event: SentEvent = {
				id,
				eventType,
				endpointId: endpoint.id,
				transcriptionId: transcription.id,
				body,
				contentType,
			};
			this.events.add(event);
			sent.push(event);
			this.deliverer.enqueue({
				eventId: id,
				eventType,
				endpointId: endpoint.id,
				callbackUri: endpoint.callbackUri,
				body,
				contentType,
			});
		}
		return sent;
	}

	// ---- HTTP ---------------------------------------------------------------------------------------------------

	private async handle(req: IncomingMessage, res: ServerResponse) {
		const url = new URL(req.url ?? '/', 'http://sandbox');
		const method = req.method ?? 'GET';
		const entry: (typeof this.requestLog)[number] = {
			method,
			path: url.pathname,
			status: 0,
			at: Date.now(),
		};
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
				entry.clientId = url.searchParams.get('client_id') ?? undefined;
				const presented = this.tokens.refreshSerialOf(url.searchParams.get('refresh_token'));
				if (presented !== undefined) entry.refreshSerial = presented;
				return this.tokenEndpoint(req, res, url, entry);
			}
			if (url.pathname.startsWith('/_sandbox/')) return await this.control(req, res, url);
			if (url.pathname.startsWith('/files/') || url.pathname.startsWith('/media/')) {
				this.fileRequestsReceived++;
				if (this.options.fileDelayMs > 0) {
					await new Promise((resolve) => setTimeout(resolve, this.options.fileDelayMs));
				}
				return this.signedFile(req, res, url);
			}
			if (isEndpointPath(url.pathname)) {
				// a route the service lacks is the router's answer, given before any authentication
				assertRouteOffered(this.current.manage, method, url.pathname);
				const clientId = this.authenticate(req);
				this.limitRate(clientId, res);
				this.stats.apiRequests++;
				return await serveEndpoints(this, req, res, url, clientId);
			}
			throw new HttpError(404, 'not_found', `No route matches ${method} ${url.pathname}.`);
		} catch (error) {
			if (error instanceof AnswerError) {
				if (!res.headersSent) sendAnswer(res, this.echoed(req, url, error.answer));
				return;
			}
			const httpError =
				error instanceof HttpError
					? error
					: new HttpError(500, 'internal_error', 'The sandbox failed to handle this request.');
			if (!(error instanceof HttpError))
				process.stderr.write(`[sandbox] ${(error as Error).stack}\n`);
			if (!res.headersSent) {
				const { status, headers } = httpError;
				sendAnswer(res, this.echoed(req, url, { status, body: jsonApiError(httpError), headers }));
			}
		}
	}

	/** An error answer as the error-echo reading writes it (the control API never echoes). */
	private echoed(req: IncomingMessage, url: URL, answer: Answer): Answer {
		if (answer.status < 400 || url.pathname.startsWith('/_sandbox/')) return answer;
		const request = { authorization: req.headers.authorization, query: url.search.slice(1) };
		return { ...answer, body: echoRequest(this.current['error-echo'], answer.body, request) };
	}

	private tokenEndpoint(
		req: IncomingMessage,
		res: ServerResponse,
		url: URL,
		entry: { issuedRefreshSerial?: number },
	) {
		if (req.method !== 'POST') {
			throw new HttpError(405, 'method_not_allowed', 'Use POST for /oauth/token.', undefined, {
				allow: 'POST',
			});
		}
		req.resume();
		const clientId = url.searchParams.get('client_id') ?? '';
		const ordinal = (this.tokenRequests.get(clientId) ?? 0) + 1;
		if (this.current['token-rate-limit'] !== 'none') this.tokenRequests.set(clientId, ordinal);
		if (tokenRequestLimited(this.current['token-rate-limit'], ordinal)) {
			this.stats.rateLimited++;
			return sendAnswer(res, this.echoed(req, url, TOKEN_RATE_LIMITED));
		}
		if (this.tokenFault === 'http500') {
			const failed = { errors: [{ status: '500', title: 'Internal Server Error' }] };
			return sendAnswer(res, this.echoed(req, url, { status: 500, body: failed }));
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
			const refusal = tokenRefusalStatus(this.current['token-refusal'], status);
			const answer = { status: refusal, body, contentType: JSON_TYPE, headers: noStore };
			return sendAnswer(res, this.echoed(req, url, answer));
		}
		if (url.searchParams.get('grant_type') === 'assertion') this.stats.assertionGrants++;
		else this.stats.refreshGrants++;
		if (result.issuedRefreshSerial !== undefined)
			entry.issuedRefreshSerial = result.issuedRefreshSerial;
		return send(res, 200, result.body, 'application/json; charset=utf-8', noStore);
	}

	/** Section 5.3: every API call carries a valid bearer token and the version's Accept header. */
	private authenticate(req: IncomingMessage): string {
		const bearer = this.tokens.checkBearer(req.headers.authorization);
		if (!bearer.ok && bearer.presented) {
			throw new AnswerError(
				refusedTokenAnswer(
					this.current['expired-token'],
					this.options.serviceName,
					bearer.description,
				),
			);
		}
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

	private limitRate(clientId: string, res: ServerResponse) {
		const settings = this.options.rateLimit;
		if (!settings) return;
		const now = Date.now();
		const decision = this.limiter.take(clientId, settings, now);
		if (this.options.announceRateLimit) {
			for (const [name, value] of Object.entries(rateLimitHeaders(decision))) {
				res.setHeader(name, value);
			}
		}
		if (!decision.allowed) {
			this.stats.rateLimited++;
			throw rateLimitedError(decision, settings, this.current['retry-after'], now);
		}
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

	/**
	 * POST /_sandbox/variants: `{"reset": true}` restores the defaults first and forgets the rate-limit windows, as a
	 * fresh service would (a reading played after another starts with its whole allowance); all or nothing is applied.
	 */
	private controlVariants(body: Record<string, unknown>) {
		const { reset, ...patch } = body;
		if (reset !== undefined && typeof reset !== 'boolean') {
			throw new HttpError(400, 'invalid_request', 'reset must be true or false.', '/reset');
		}
		try {
			const checked = parseVariantPatch(patch);
			this.current = { ...(reset ? defaultVariants() : this.current), ...checked };
			this.tokenRequests.clear();
			if (reset) this.limiter.clear();
		} catch (error) {
			if (!(error instanceof VariantError)) throw error;
			throw new HttpError(400, 'unknown_variant', error.message, `/${error.dimension ?? ''}`);
		}
	}

	private async control(req: IncomingMessage, res: ServerResponse, url: URL) {
		const route = `${req.method} ${url.pathname}`;
		const raw = await readBody(req);
		let body: Record<string, unknown> = {};
		if (raw.length > 0) {
			let parsed: unknown;
			try {
				parsed = JSON.parse(raw.toString('utf8'));
			} catch {
				throw new HttpError(400, 'invalid_json', 'Control calls take a JSON body.');
			}
			if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
				throw new HttpError(400, 'invalid_json', 'Control calls take a JSON object.');
			}
			body = parsed as Record<string, unknown>;
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
			case route === 'GET /_sandbox/redirect': {
				// a redirect from the service's own origin to anywhere: what a hostile or compromised file route does
				const to = url.searchParams.get('to');
				if (!to) throw new HttpError(400, 'invalid_request', 'to must be the URL to redirect to.');
				const status = Number(url.searchParams.get('status') ?? 302);
				return send(res, [301, 302, 303, 307, 308].includes(status) ? status : 302, '', JSON_TYPE, {
					location: to,
				});
			}
			case route === 'GET /_sandbox/variants':
				return json(200, { variants: this.current, dimensions: VARIANT_DIMENSIONS });
			case route === 'POST /_sandbox/variants':
				this.controlVariants(body);
				return json(200, { variants: this.current, dimensions: VARIANT_DIMENSIONS });
			case /^POST \/_sandbox\/events\/[^/]+\/redeliver$/.test(route): {
				const endpointId = typeof body.endpointId === 'string' ? body.endpointId : undefined;
				const ok = this.redeliver(url.pathname.split('/')[3], endpointId);
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
