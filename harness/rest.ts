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

/** What a session keeps between calls: the owner's browser id and login cookie, and the API key. */
interface Connection {
	readonly baseUrl: string;
	readonly logs: () => string;
	readonly browserId: string;
	cookie: string;
	apiKey: string;
}

/** A client of the n8n at `baseUrl`; `logs` gives n8n's output for the errors of waits that time out. */
export function createOwnerSession(baseUrl: string, logs: () => string): OwnerSession {
	const c: Connection = { baseUrl, logs, browserId: randomUUID(), cookie: '', apiKey: '' };
	return {
		get apiKey() {
			return c.apiKey;
		},
		api: (method, path, body) => callApi(c, method, path, body),
		rest: (method, path, body) => callRest(c, method, path, body),
		request: (method, urlOrPath, options) => send(baseUrl, method, urlOrPath, options),
		requestAsOwner: (method, urlOrPath, options = {}) =>
			send(baseUrl, method, urlOrPath, {
				...options,
				headers: { ...ownerHeaders(c), ...options.headers },
			}),
		setUpOwner: (owner, { reusedFolder }) => setUpOwner(c, owner, reusedFolder),
		login: (owner) => logIn(c, owner),
		createApiKey: (label, { reusedFolder }) => createApiKey(c, label, reusedFolder),
		createWorkflow: (workflow) => callApi(c, 'POST', '/workflows', workflow),
		createCredential: async (name, type, data) =>
			await callApi(c, 'POST', '/credentials', {
				name,
				type,
				data: await withEditorDefaults(c, type, data),
			}),
		activateWorkflow: (id, options = {}) => publish(c, id, 'published', options.timeoutMs),
		deactivateWorkflow: (id, options = {}) => publish(c, id, 'not_published', options.timeoutMs),
		waitForExecutions: (workflowId, options = {}) => waitForExecutions(c, workflowId, options),
	};
}

type RequestOptions = Parameters<N8nClient['request']>[2];

/** One request (an absolute URL or a path on baseUrl); JSON bodies are sent and read as JSON. */
async function send(
	baseUrl: string,
	method: HttpMethod,
	urlOrPath: string,
	options: RequestOptions = {},
): Promise<HttpResponse> {
	const url = urlOrPath.startsWith('http') ? urlOrPath : `${baseUrl}${urlOrPath}`;
	const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
	let body: string | undefined;
	if (options.body !== undefined) {
		headers['content-type'] ??= 'application/json';
		body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
	}
	const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(60_000) });
	return {
		status: res.status,
		headers: res.headers,
		body: readBody(res.headers, await res.text()),
	};
}

/** Parsed JSON when the answer says it is JSON and parses, else the text. */
function readBody(headers: Headers, text: string): unknown {
	if (!(headers.get('content-type') ?? '').includes('json') || text === '') return text;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

async function expectOk(
	c: Connection,
	method: HttpMethod,
	path: string,
	body: unknown,
	headers: Record<string, string>,
): Promise<HttpResponse> {
	const res = await send(c.baseUrl, method, path, { body, headers });
	if (res.status < 200 || res.status >= 300) {
		throw new N8nHttpError(method, `${c.baseUrl}${path}`, res.status, res.body);
	}
	return res;
}

/** What the internal REST API wants of the owner's requests: the browser id, and the cookie once logged in. */
function ownerHeaders(c: Connection): Record<string, string> {
	return { 'browser-id': c.browserId, ...(c.cookie ? { cookie: c.cookie } : {}) };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function callRest<T = any>(
	c: Connection,
	method: HttpMethod,
	path: string,
	body?: unknown,
): Promise<T> {
	const res = await expectOk(c, method, `/rest${path}`, body, ownerHeaders(c));
	const payload = res.body as { data?: T } | T;
	return payload !== null && typeof payload === 'object' && 'data' in payload
		? (payload.data as T)
		: (payload as T);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function callApi<T = any>(
	c: Connection,
	method: HttpMethod,
	path: string,
	body?: unknown,
): Promise<T> {
	const res = await expectOk(c, method, `/api/v1${path}`, body, { 'x-n8n-api-key': c.apiKey });
	return res.body as T;
}

async function setUpOwner(
	c: Connection,
	owner: OwnerCredentials,
	reusedFolder: boolean,
): Promise<void> {
	const setup = await send(c.baseUrl, 'POST', '/rest/owner/setup', {
		body: owner,
		headers: { 'browser-id': c.browserId },
	});
	// a reused user folder already has its owner
	if (setup.status !== 200 && !(setup.status === 400 && reusedFolder)) {
		throw new N8nHttpError('POST', `${c.baseUrl}/rest/owner/setup`, setup.status, setup.body);
	}
}

async function logIn(c: Connection, owner: OwnerCredentials): Promise<void> {
	const res = await expectOk(
		c,
		'POST',
		'/rest/login',
		{ emailOrLdapLoginId: owner.email, password: owner.password },
		{ 'browser-id': c.browserId },
	);
	const auth = res.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
	if (!auth) throw new Error('login answered without an n8n-auth cookie');
	c.cookie = auth.split(';')[0];
}

async function createApiKey(c: Connection, label: string, reusedFolder: boolean): Promise<void> {
	if (reusedFolder) await deleteApiKeys(c, label);
	const scopes = await callRest<string[]>(c, 'GET', '/api-keys/scopes');
	const created = await callRest<{ rawApiKey: string }>(c, 'POST', '/api-keys', {
		label,
		scopes,
		expiresAt: null,
	});
	c.apiKey = created.rawApiKey;
}

/** Deletes the owner's API keys labelled `label`, left by earlier starts of a reused user folder. */
async function deleteApiKeys(c: Connection, label: string): Promise<void> {
	type Key = { id: string; label: string };
	const listed = await callRest<Key[] | { items: Key[] }>(c, 'GET', '/api-keys?ownership=mine');
	const existing = Array.isArray(listed) ? listed : listed.items;
	for (const key of existing.filter((k) => k.label === label)) {
		await callRest(c, 'DELETE', `/api-keys/${encodeURIComponent(key.id)}`);
	}
}

// n8n 1.x adds "Allowed HTTP Request Domains" to credentials that authenticate requests, and its public
// API's schema then wants `allowedDomains` unless the choice is given: set it as the editor saves it.
async function withEditorDefaults(
	c: Connection,
	type: string,
	data: Record<string, unknown>,
): Promise<Record<string, unknown>> {
	if (n8nProfile().major >= 2 || 'allowedHttpRequestDomains' in data) return data;
	const schema = await callApi<{ properties?: Record<string, unknown> }>(
		c,
		'GET',
		`/credentials/schema/${encodeURIComponent(type)}`,
	);
	return schema.properties?.allowedHttpRequestDomains
		? { allowedHttpRequestDomains: 'all', ...data }
		: data;
}

/** Activates or deactivates the workflow, then waits until n8n's publication outbox has done it. */
async function publish(
	c: Connection,
	id: string,
	want: 'published' | 'not_published',
	timeoutMs = 30_000,
): Promise<void> {
	const action = want === 'published' ? 'activate' : 'deactivate';
	await callApi(c, 'POST', `/workflows/${encodeURIComponent(id)}/${action}`, {});
	// n8n 2.41 publishes through an outbox: the call returns before the webhooks are (un)registered
	await waitForPublication(c, id, want, timeoutMs);
}

async function waitForPublication(
	c: Connection,
	id: string,
	want: 'published' | 'not_published',
	timeoutMs: number,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const res = await send(
			c.baseUrl,
			'GET',
			`/rest/workflows/${encodeURIComponent(id)}/publication-status`,
			{ headers: ownerHeaders(c) },
		);
		// 404: N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false, (de)activation was synchronous
		if (res.status === 404) return;
		const status = (res.body as { data?: PublicationStatus }).data;
		if (res.status !== 200 || !status) {
			throw new N8nHttpError(
				'GET',
				`${c.baseUrl}/rest/workflows/${id}/publication-status`,
				res.status,
				res.body,
			);
		}
		if (status.status === want && status.pendingVersionId === null) return;
		if (want === 'published' && (status.status === 'failed' || status.status === 'partial')) {
			throw new Error(`publishing workflow ${id} failed: ${JSON.stringify(status.triggers)}`);
		}
		if (Date.now() > deadline) {
			throw new Error(`workflow ${id} still ${status.status} (want ${want})\n${tail(c.logs())}`);
		}
		await delay(100);
	}
}

async function waitForExecutions(
	c: Connection,
	workflowId: string,
	options: WaitForExecutionsOptions,
): Promise<ExecutionSummary[]> {
	const count = options.count ?? 1;
	const deadline = Date.now() + (options.timeoutMs ?? 30_000);
	for (;;) {
		const page = await callApi<{ data: ExecutionSummary[] }>(
			c,
			'GET',
			`/executions?workflowId=${encodeURIComponent(workflowId)}&includeData=true&limit=250`,
		);
		const done = page.data.filter((e) => e.stoppedAt !== null && e.stoppedAt !== undefined);
		if (done.length >= count) return done;
		if (Date.now() > deadline) {
			throw new Error(
				`${done.length}/${count} executions of workflow ${workflowId} finished in time; ` +
					`listed: ${JSON.stringify(page.data.map((e) => [e.id, e.status]))}\n${tail(c.logs())}`,
			);
		}
		await delay(250);
	}
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
