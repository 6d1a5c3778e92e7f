// A real HTTP server that hands each request to a trigger's webhook() inside n8n-core's real WebhookContext,
// doing what n8n's live-webhook handler does around it (packages/cli/src/webhooks/live-webhooks.ts and
// webhook-helpers.ts in n8n 2.41.1 and 1.123.81): the request augmented with rawBody/readRawBody/query/
// contentType, an onReceived answer when the node did not answer, an "execution" recorded when webhook()
// returned workflowData, and the static data as n8n keeps it: a copy read for each request, wrapped by a real
// Workflow, and saved whole, only if changed, when n8n answers (docs/design.md, "A delivery's way").
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookContext } from 'n8n-core';
import {
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type IVersionedNodeType,
	type IWebhookData,
	NodeHelpers,
} from 'n8n-workflow';

import type { Harness } from './n8nContext';

export interface Execution {
	items: INodeExecutionData[];
	mode: 'production' | 'test';
}

export interface WebhookServer {
	baseUrl: string;
	executions: Execution[];
	/** The node's static data as n8n's database would hold it. */
	staticData: IDataObject;
	/** How many times a request's copy of the static data was saved (n8n saves a copy only when it changed). */
	staticSaves: number;
	close(): Promise<void>;
}

type AugmentedRequest = IncomingMessage & {
	rawBody?: Buffer;
	readRawBody: () => Promise<void>;
	query: Record<string, string | string[]>;
	params: Record<string, string>;
	contentType?: string;
	encoding?: BufferEncoding;
	body?: unknown;
};

function augment(req: IncomingMessage, res: ServerResponse) {
	const request = req as AugmentedRequest;
	const url = new URL(req.url ?? '/', 'http://localhost');
	const query: Record<string, string | string[]> = {};
	for (const key of new Set(url.searchParams.keys())) {
		const all = url.searchParams.getAll(key);
		query[key] = all.length > 1 ? all : all[0];
	}
	request.query = query;
	request.params = {};
	// as n8n's parseIncomingMessage: the media type lowercased (not trimmed), the charset utf-8 unless given
	const [type, ...parameters] = (req.headers['content-type'] ?? '').split(';');
	request.contentType = type.toLowerCase();
	const charset = parameters
		.map((p) => p.split('='))
		.find(([k]) => k.trim().toLowerCase() === 'charset');
	request.encoding = (
		charset?.[1]?.trim().replace(/^"|"$/g, '') ?? 'utf-8'
	).toLowerCase() as BufferEncoding;
	request.readRawBody = async () => {
		if (request.rawBody) return;
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		request.rawBody = Buffer.concat(chunks);
	};
	const response = res as ServerResponse & {
		status: (c: number) => typeof response;
		json: (b: unknown) => typeof response;
	};
	response.status = (code) => {
		res.statusCode = code;
		return response;
	};
	response.json = (body) => {
		res.setHeader('content-type', 'application/json; charset=utf-8');
		res.end(JSON.stringify(body));
		return response;
	};
	return { request, response };
}

function tokenRoute(url: string, webhookId: string | undefined) {
	const segments = new URL(url, 'http://localhost').pathname.split('/').filter(Boolean);
	if (!webhookId || segments.length !== 4 || segments[1] !== webhookId) return undefined;
	if (segments[2] !== webhookId) return undefined;
	return { path: `${webhookId}/:token`, token: decodeURIComponent(segments[3]) };
}

export interface WebhookServerOptions {
	/**
	 * n8n reads the bytes (rawBody) and parses the body before the node runs, as both lines do for the types they
	 * parse (application/json and the like, webhook-helpers' parseBody); otherwise the node reads them itself
	 * (readRawBody), as for the types n8n leaves alone at typeVersion 2 and later.
	 */
	bodyReadByN8n?: boolean;
	/**
	 * Which n8n line's static-data handling: in 2.x, handing a start to the runner clears the copy's change flag
	 * (workflow-runner.js:244-252 builds a second Workflow on the same object), so only changes made after that are
	 * saved with n8n's answer; 1.x saves every change. Default 2.x.
	 */
	line?: '2.x' | '1.x';
}

/** What n8n's WorkflowRunner awaits between taking a start and answering (its database calls): a few turns. */
const runnerIo = () => new Promise((resolve) => setTimeout(resolve, 2));

export async function startWebhookServer(
	h: Harness,
	/** The node's type: a versioned one answers with the node's typeVersion, as n8n's NodeTypes do. */
	type: INodeType | IVersionedNodeType,
	node: INode,
	staticData: IDataObject,
	port = 0,
	options: WebhookServerOptions = {},
): Promise<WebhookServer> {
	const nodeType = NodeHelpers.getVersionedNodeType(type, node.typeVersion);
	const executions: Execution[] = [];
	const state = { staticData, saves: 0 };
	const server: Server = createServer((req, res) => {
		void (async () => {
			const { request, response } = augment(req, res);
			if (options.bodyReadByN8n) {
				await request.readRawBody();
				// as n8n 2.41's parseBody: JSON.parse for application/json after one byte order mark, in the
				// request's charset, and 422 before any node runs when that fails; other types are not JSON to n8n
				request.body = {};
				if (request.contentType === 'application/json' && request.rawBody?.length) {
					const text = request.rawBody.toString(request.encoding);
					try {
						request.body = JSON.parse(text.replace(/^\uFEFF/, ''));
					} catch {
						res.statusCode = 422;
						res.end(JSON.stringify({ message: 'Failed to parse request body' }));
						return;
					}
				}
			}
			const mode = req.url?.startsWith('/webhook-test/') ? 'test' : 'production';
			// as n8n: a Workflow built from the stored static data for every request
			const rawStaticData = JSON.parse(
				JSON.stringify({ [`node:${node.name}`]: state.staticData }),
			) as IDataObject;
			const wf = h.workflow(node, rawStaticData);
			const additionalData = {
				...h.additionalData(),
				httpRequest: request,
				httpResponse: response,
			};
			// the token route (`<webhook id>/<webhook id>/<token>`, CaptioningTrigger's "setup" webhook) as n8n
			// routes it: its last segment becomes the `token` path parameter
			const route = tokenRoute(req.url ?? '/', node.webhookId);
			if (route) request.params = { token: route.token };
			const webhookData = {
				httpMethod: 'POST',
				node: node.name,
				path: route ? route.path : 'webhook',
				webhookDescription: route
					? { name: 'setup', httpMethod: 'POST', path: ':token' }
					: { name: 'default', httpMethod: 'POST', path: 'webhook' },
				workflowId: wf.id,
				workflowExecuteAdditionalData: additionalData,
				webhookId: node.webhookId,
			} as IWebhookData;
			const context = new WebhookContext(
				wf,
				node,
				additionalData as never,
				mode === 'test' ? 'manual' : 'webhook',
				webhookData,
				[],
				null,
			);
			// n8n saves the whole copy, if changed, before its answer goes out (live-webhooks.js:147)
			const save = () => {
				if (wf.staticData.__dataChanged !== true) return;
				state.staticData = JSON.parse(JSON.stringify(wf.getStaticData('node', node)));
				state.saves++;
				wf.staticData.__dataChanged = false;
			};
			try {
				const result = await nodeType.webhook!.call(context);
				const n8nAnswers = result.noWebhookResponse !== true && !res.headersSent;
				if (!n8nAnswers || !result.workflowData) save();
				if (result.workflowData) {
					if (n8nAnswers && (options.line ?? '2.x') === '2.x') {
						// WorkflowRunner.run wraps the same object in a second Workflow: its change flag is cleared
						h.workflow(node, rawStaticData);
					}
					executions.push({ items: result.workflowData[0], mode });
					if (n8nAnswers) {
						await runnerIo();
						save();
					}
				}
				if (n8nAnswers) {
					response
						.status(200)
						.json(
							result.workflowData
								? { message: 'Workflow was started' }
								: { message: 'Webhook call received' },
						);
				}
			} catch (error) {
				if (!res.headersSent) response.status(500).json({ message: (error as Error).message });
			}
		})();
	});
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
	const address = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${address.port}`,
		executions,
		get staticData() {
			return state.staticData;
		},
		set staticData(value) {
			state.staticData = value;
		},
		get staticSaves() {
			return state.saves;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
