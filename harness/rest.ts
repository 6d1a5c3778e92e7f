// The HTTP client of one n8n main process: any request, the public API with an API key, the internal REST
// API as the logged-in owner (owner set-up, login, API keys), and what the suites, the dev stack and the
// benchmark do through them: credentials, workflows, activation through n8n's publication outbox,
// executions (waited for, or every page of them).
import { randomUUID } from 'node:crypto';

import { n8nProfile } from './install';
import { delay, tail } from './process';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpResponse {
	status: number;
	headers: Headers;
	/** Parsed JSON when the body is JSON, else the text. */
	body: unknown;
}

export class N8nHttpError extends Error {
	constructor(
		readonly method: string,
		readonly url: string,
		readonly status: number,
		readonly body: unknown,
	) {
		super(
			`${method} ${url} -> ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`,
		);
		this.name = 'N8nHttpError';
	}
}

export interface OwnerCredentials {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	finished: boolean;
	mode: string;
	startedAt: string;
	stoppedAt: string | null;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	data?: any;
}

export interface PublicationStatus {
	status: 'not_published' | 'in_progress' | 'published' | 'partial' | 'failed';
	liveVersionId: string | null;
	pendingVersionId: string | null;
	triggers: { nodeId: string; status: string; errorMessage: string | null }[];
}

export interface WaitForExecutionsOptions {
	/** How many finished executions to wait for; default 1. */
	count?: number;
	timeoutMs?: number;
}

/** What a suite, the dev stack or the benchmark asks of a running n8n over HTTP. */
export interface N8nClient {
	readonly apiKey: string;
	/** Public API (`/api/v1` + path) with X-N8N-API-KEY; throws N8nHttpError unless 2xx. */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	api<T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T>;
	/** Internal REST API (`/rest` + path) as the logged-in owner; unwraps `{ data }`. */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	rest<T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T>;
	/** Any request (absolute URL or path on baseUrl); never throws on a status. */
	request(
		method: HttpMethod,
		urlOrPath: string,
		options?: { body?: unknown; headers?: Record<string, string> },
	): Promise<HttpResponse>;
	/** Like request(), with the owner's session: what the editor fetches, e.g. /types/nodes.json. */
	requestAsOwner(
		method: HttpMethod,
		urlOrPath: string,
		options?: { body?: unknown; headers?: Record<string, string> },
	): Promise<HttpResponse>;
	/** POST /api/v1/workflows; returns the created workflow (with its id). */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	createWorkflow(workflow: Record<string, unknown>): Promise<any>;
	/** POST /api/v1/credentials; returns the created credential (with its id). */
	createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<{ id: string; name: string; type: string }>;
	/**
	 * POST /api/v1/workflows/<id>/activate (publishes the latest version), then waits until n8n's
	 * publication outbox has registered its triggers and webhooks; throws if one failed.
	 */
	activateWorkflow(id: string, options?: { timeoutMs?: number }): Promise<void>;
	/**
	 * POST /api/v1/workflows/<id>/deactivate, then waits until n8n has removed its triggers and
	 * webhooks (trigger nodes' webhookMethods.delete have run).
	 */
	deactivateWorkflow(id: string, options?: { timeoutMs?: number }): Promise<void>;
	/** Polls GET /api/v1/executions?workflowId=..&includeData=true until enough have finished. */
	waitForExecutions(
		workflowId: string,
		options?: WaitForExecutionsOptions,
	): Promise<ExecutionSummary[]>;
}

/** The client, and the owner's session it keeps: what startN8n does once n8n answers. */
export interface OwnerSession extends N8nClient {
	/** POST /rest/owner/setup; on a reused user folder, the owner set up before is kept. */
	setUpOwner(owner: OwnerCredentials, options: { reusedFolder: boolean }): Promise<void>;
	/** Logs the owner in: rest() and requestAsOwner() then carry the session cookie. */
	login(owner: OwnerCredentials): Promise<void>;
	/**
	 * Creates an API key with every scope for api(); on a reused user folder, keys with the same label
	 * left by earlier starts are deleted first.
	 */
	createApiKey(label: string, options: { reusedFolder: boolean }): Promise<void>;
}

/** A client of the n8n at `baseUrl`; `logs` gives n8n's output for the errors of waits that time out. */
export function createOwnerSession(baseUrl: string, logs: () => string): OwnerSession {
	const browserId = randomUUID();
	let cookie = '';
	let apiKey = '';

	const request: N8nClient['request'] = async (method, urlOrPath, requestOptions = {}) => {
		const url = urlOrPath.startsWith('http') ? urlOrPath : `${baseUrl}${urlOrPath}`;
		const headers: Record<string, string> = {
			accept: 'application/json',
			...requestOptions.headers,
		};
		let body: string | undefined;
		if (requestOptions.body !== undefined) {
			headers['content-type'] ??= 'application/json';
			body =
				typeof requestOptions.body === 'string'
					? requestOptions.body
					: JSON.stringify(requestOptions.body);
		}
		const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(60_000) });
		const text = await res.text();
		let parsed: unknown = text;
		if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') {
			try {
				parsed = JSON.parse(text);
			} catch {
				parsed = text;
			}
		}
		return { status: res.status, headers: res.headers, body: parsed };
	};

	const expectOk = async (
		method: HttpMethod,
		path: string,
		body: unknown,
		headers: Record<string, string>,
	): Promise<HttpResponse> => {
		const res = await request(method, path, { body, headers });
		if (res.status < 200 || res.status >= 300) {
			throw new N8nHttpError(method, `${baseUrl}${path}`, res.status, res.body);
		}
		return res;
	};

	const restHeaders = (): Record<string, string> => ({
		'browser-id': browserId,
		...(cookie ? { cookie } : {}),
	});
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	const rest = async <T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T> => {
		const res = await expectOk(method, `/rest${path}`, body, restHeaders());
		const payload = res.body as { data?: T } | T;
		return payload !== null && typeof payload === 'object' && 'data' in payload
			? (payload.data as T)
			: (payload as T);
	};
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	const api = async <T = any>(method: HttpMethod, path: string, body?: unknown): Promise<T> => {
		const res = await expectOk(method, `/api/v1${path}`, body, { 'x-n8n-api-key': apiKey });
		return res.body as T;
	};

	// n8n 1.x adds "Allowed HTTP Request Domains" to credentials that authenticate requests, and its public
	// API's schema then wants `allowedDomains` unless the choice is given: set it as the editor saves it.
	const withEditorDefaults = async (
		type: string,
		data: Record<string, unknown>,
	): Promise<Record<string, unknown>> => {
		if (n8nProfile().major >= 2 || 'allowedHttpRequestDomains' in data) return data;
		const schema = await api<{ properties?: Record<string, unknown> }>(
			'GET',
			`/credentials/schema/${encodeURIComponent(type)}`,
		);
		return schema.properties?.allowedHttpRequestDomains
			? { allowedHttpRequestDomains: 'all', ...data }
			: data;
	};

	const waitForPublication = async (
		id: string,
		want: 'published' | 'not_published',
		timeoutMs: number,
	): Promise<void> => {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const res = await request(
				'GET',
				`/rest/workflows/${encodeURIComponent(id)}/publication-status`,
				{ headers: restHeaders() },
			);
			// 404: N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false, (de)activation was synchronous
			if (res.status === 404) return;
			const status = (res.body as { data?: PublicationStatus }).data;
			if (res.status !== 200 || !status) {
				throw new N8nHttpError(
					'GET',
					`${baseUrl}/rest/workflows/${id}/publication-status`,
					res.status,
					res.body,
				);
			}
			if (status.status === want && status.pendingVersionId === null) return;
			if (want === 'published' && (status.status === 'failed' || status.status === 'partial')) {
				throw new Error(`publishing workflow ${id} failed: ${JSON.stringify(status.triggers)}`);
			}
			if (Date.now() > deadline) {
				throw new Error(`workflow ${id} still ${status.status} (want ${want})\n${tail(logs())}`);
			}
			await delay(100);
		}
	};

	return {
		get apiKey() {
			return apiKey;
		},
		api,
		rest,
		request,
		async requestAsOwner(method, urlOrPath, requestOptions = {}) {
			return await request(method, urlOrPath, {
				...requestOptions,
				headers: { ...restHeaders(), ...requestOptions.headers },
			});
		},
		async setUpOwner(owner, { reusedFolder }) {
			const setup = await request('POST', '/rest/owner/setup', {
				body: owner,
				headers: { 'browser-id': browserId },
			});
			// a reused user folder already has its owner
			if (setup.status !== 200 && !(setup.status === 400 && reusedFolder)) {
				throw new N8nHttpError('POST', `${baseUrl}/rest/owner/setup`, setup.status, setup.body);
			}
		},
		async login(owner) {
			const res = await expectOk(
				'POST',
				'/rest/login',
				{ emailOrLdapLoginId: owner.email, password: owner.password },
				{ 'browser-id': browserId },
			);
			const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
			if (!auth) throw new Error('login answered without an n8n-auth cookie');
			cookie = auth.split(';')[0];
		},
		async createApiKey(label, { reusedFolder }) {
			if (reusedFolder) {
				type Key = { id: string; label: string };
				const listed = await rest<Key[] | { items: Key[] }>('GET', '/api-keys?ownership=mine');
				const existing = Array.isArray(listed) ? listed : listed.items;
				for (const key of existing.filter((k) => k.label === label)) {
					await rest('DELETE', `/api-keys/${encodeURIComponent(key.id)}`);
				}
			}
			const scopes = await rest<string[]>('GET', '/api-keys/scopes');
			const created = await rest<{ rawApiKey: string }>('POST', '/api-keys', {
				label,
				scopes,
				expiresAt: null,
			});
			apiKey = created.rawApiKey;
		},
		async createWorkflow(workflow) {
			return await api('POST', '/workflows', workflow);
		},
		async createCredential(name, type, data) {
			return await api('POST', '/credentials', {
				name,
				type,
				data: await withEditorDefaults(type, data),
			});
		},
		async activateWorkflow(id, activateOptions = {}) {
			await api('POST', `/workflows/${encodeURIComponent(id)}/activate`, {});
			// n8n 2.41 publishes through an outbox: the call returns before the webhooks are registered
			await waitForPublication(id, 'published', activateOptions.timeoutMs ?? 30_000);
		},
		async deactivateWorkflow(id, deactivateOptions = {}) {
			await api('POST', `/workflows/${encodeURIComponent(id)}/deactivate`, {});
			await waitForPublication(id, 'not_published', deactivateOptions.timeoutMs ?? 30_000);
		},
		async waitForExecutions(workflowId, waitOptions = {}) {
			const count = waitOptions.count ?? 1;
			const deadline = Date.now() + (waitOptions.timeoutMs ?? 30_000);
			for (;;) {
				const page = await api<{ data: ExecutionSummary[] }>(
					'GET',
					`/executions?workflowId=${encodeURIComponent(workflowId)}&includeData=true&limit=250`,
				);
				const done = page.data.filter((e) => e.stoppedAt !== null && e.stoppedAt !== undefined);
				if (done.length >= count) return done;
				if (Date.now() > deadline) {
					throw new Error(
						`${done.length}/${count} executions of workflow ${workflowId} finished in time; ` +
							`listed: ${JSON.stringify(page.data.map((e) => [e.id, e.status]))}\n${tail(logs())}`,
					);
				}
				await delay(250);
			}
		},
	};
}

/**
 * Every execution (of one workflow, or all), newest first, following the public API's cursor. With
 * `newerThan`, only those with a greater id, and no page after the first that reaches an older one.
 */
export async function listExecutions(
	n8n: Pick<N8nClient, 'api'>,
	options: {
		workflowId?: string;
		includeData?: boolean;
		newerThan?: number;
		/** Executions per page; default 250, the public API's maximum. */
		pageSize?: number;
	} = {},
): Promise<ExecutionSummary[]> {
	const all: ExecutionSummary[] = [];
	let cursor: string | undefined;
	do {
		const query = new URLSearchParams({
			includeData: String(options.includeData ?? false),
			limit: String(options.pageSize ?? 250),
		});
		if (options.workflowId) query.set('workflowId', options.workflowId);
		if (cursor) query.set('cursor', cursor);
		const page = await n8n.api<{ data: ExecutionSummary[]; nextCursor?: string | null }>(
			'GET',
			`/executions?${query}`,
		);
		const { newerThan } = options;
		const wanted =
			newerThan === undefined ? page.data : page.data.filter((e) => Number(e.id) > newerThan);
		all.push(...wanted);
		// ids grow: past a page that reached an older execution, every one is older
		cursor = wanted.length < page.data.length ? undefined : (page.nextCursor ?? undefined);
	} while (cursor);
	return all;
}
