// Workflows, credentials and execution bookkeeping for the benchmark, on top of the n8n harness's real n8n (harness/).
import { randomUUID } from 'node:crypto';

import {
	createSandboxCredential,
	type ExecutionSummary,
	inLine,
	listExecutions,
	type N8nInstance,
	webhookNode,
} from '../../harness';
import type { ClientConfig } from '../../sandbox/oauth';
import { DEFAULT_CLIENT, type Sandbox } from '../../sandbox/server';
import { ACTION_TYPE } from './build';
import { FLOOR_CREDENTIAL_TYPE, FLOOR_DESC_TRIGGER_TYPE, FLOOR_TRIGGER_TYPE } from './floor';
import { sleep } from './machine';

export const TRIGGER_NODE_NAME = 'Captioning Trigger';
export const FLOOR_NODE_NAME = 'Floor Trigger';
export const WEBHOOK_NODE_NAME = 'Webhook';

export async function createCaptioningCredential(
	n8n: N8nInstance,
	sandbox: Sandbox,
	name: string,
	client: ClientConfig = DEFAULT_CLIENT,
): Promise<string> {
	return (await createSandboxCredential(n8n, sandbox, name, { client })).id;
}

/** A node's reference to the Captioning credential the benchmark created (ours, the action node, floorCred). */
const captioningCredential = (id: string) => ({ [FLOOR_CREDENTIAL_TYPE]: { id, name: 'bench' } });

/**
 * With a credential id, a Captioning action node carrying it and connected to nothing: it never runs, but n8n
 * checks every credential a workflow's nodes carry before each execution, as it checks one on the trigger.
 * Without one, no node.
 */
const unconnectedCredentialNodes = (credentialId: string | undefined) =>
	credentialId === undefined
		? []
		: [
				{
					id: randomUUID(),
					name: 'Captioning (not connected)',
					type: ACTION_TYPE,
					typeVersion: 1,
					position: [250, 250],
					parameters: { resource: 'webhookEndpoint' },
					credentials: captioningCredential(credentialId),
				},
			];

/** A workflow's saved static data holding `data` for the node named `nodeName` (n8n's `node:<name>` key). */
const savedStaticData = (nodeName: string, data: Record<string, unknown> | undefined) =>
	data ? { staticData: { [`node:${nodeName}`]: data } } : {};

const noOp = (x: number) => ({
	id: randomUUID(),
	name: 'No Operation, do nothing',
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position: [x, 0],
	parameters: {},
});

/** The Captioning Trigger's parameters in the benchmark: registration via the API, both events, no options. */
const OURS_PARAMETERS = {
	registration: 'api',
	events: ['transcription.created', 'transcription.transcribed'],
	options: {},
};

/**
 * Captioning Trigger -> NoOp. `nodeStaticData` pre-fills the trigger's saved static data (a full
 * de-duplication list there is not a state traffic leaves: n8n 2.41.1 does not save static data on the
 * webhook path that starts an execution).
 */
export function triggerWorkflow(options: {
	name: string;
	type: string;
	typeVersion: number;
	credentialId: string;
	events?: string[];
	nodeStaticData?: Record<string, unknown>;
}) {
	const noop = noOp(250);
	return {
		name: options.name,
		nodes: [
			{
				id: randomUUID(),
				name: TRIGGER_NODE_NAME,
				type: options.type,
				typeVersion: options.typeVersion,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { ...OURS_PARAMETERS, ...(options.events ? { events: options.events } : {}) },
				credentials: captioningCredential(options.credentialId),
			},
			noop,
		],
		connections: inLine([TRIGGER_NODE_NAME, noop.name]),
		settings: { executionOrder: 'v1' },
		...savedStaticData(TRIGGER_NODE_NAME, options.nodeStaticData),
	};
}

/** The floor (bench/lib/floor.ts) at `typeVersion` -> NoOp. */
export function floorWorkflow(options: {
	name: string;
	typeVersion: number;
	/** A credential on the floor node: n8n then checks it before each execution, as it does ours. */
	credentialId?: string;
	/** Pre-fills the floor node's saved static data (the floor never reads it). */
	nodeStaticData?: Record<string, unknown>;
	/** A credential on another node of the workflow, one that never runs (unconnectedCredentialNodes). */
	otherNodeCredentialId?: string;
	/** The floor with the Captioning Trigger's properties (FLOOR_DESC_TRIGGER_TYPE), its parameters as ours'. */
	oursDescription?: boolean;
}) {
	const noop = noOp(250);
	return {
		name: options.name,
		nodes: [
			{
				id: randomUUID(),
				name: FLOOR_NODE_NAME,
				type: options.oursDescription ? FLOOR_DESC_TRIGGER_TYPE : FLOOR_TRIGGER_TYPE,
				typeVersion: options.typeVersion,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: options.oursDescription ? OURS_PARAMETERS : { options: {} },
				...(options.credentialId
					? { credentials: captioningCredential(options.credentialId) }
					: {}),
			},
			noop,
			...unconnectedCredentialNodes(options.otherNodeCredentialId),
		],
		connections: inLine([FLOOR_NODE_NAME, noop.name]),
		settings: { executionOrder: 'v1' },
		...savedStaticData(FLOOR_NODE_NAME, options.nodeStaticData),
	};
}

/** n8n's Webhook node (v2, static parameters, answers on receipt), the start of the reference workflows. */
const onReceivedWebhook = (path: string) =>
	webhookNode(path, { typeVersion: 2, parameters: { responseMode: 'onReceived' } });

/**
 * n8n's Webhook node (v2, static parameters, answers on receipt) -> NoOp; with `otherNodeCredentialId`, also a
 * node carrying a credential that never runs (unconnectedCredentialNodes).
 */
export function webhookWorkflow(options: {
	name: string;
	path: string;
	otherNodeCredentialId?: string;
}) {
	const noop = noOp(250);
	return {
		name: options.name,
		nodes: [
			onReceivedWebhook(options.path),
			noop,
			...unconnectedCredentialNodes(options.otherNodeCredentialId),
		],
		connections: inLine([WEBHOOK_NODE_NAME, noop.name]),
		settings: { executionOrder: 'v1' },
	};
}

export const ACTION_NODE_NAME = 'Captioning';

/**
 * Webhook -> Split Out (the request's `items` array, one item each) -> Captioning: one API call per item.
 * Called with `{ items: [...] }` bodies to run the action node on N items.
 */
export function actionWorkflow(options: {
	name: string;
	path: string;
	credentialId: string;
	parameters: Record<string, unknown>;
}) {
	const split = {
		id: randomUUID(),
		name: 'Split Out',
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		position: [250, 0],
		parameters: { fieldToSplitOut: 'body.items', options: {} },
	};
	return {
		name: options.name,
		nodes: [
			onReceivedWebhook(options.path),
			split,
			{
				id: randomUUID(),
				name: ACTION_NODE_NAME,
				type: ACTION_TYPE,
				typeVersion: 1,
				position: [500, 0],
				parameters: options.parameters,
				credentials: captioningCredential(options.credentialId),
			},
		],
		connections: inLine([WEBHOOK_NODE_NAME, split.name, ACTION_NODE_NAME]),
		settings: { executionOrder: 'v1' },
	};
}

export async function deactivate(n8n: N8nInstance, workflowId: string): Promise<void> {
	await n8n.api('POST', `/workflows/${encodeURIComponent(workflowId)}/deactivate`, {});
}

/** The production URL of an activated Captioning Trigger, with its token, from the sandbox's registration. */
export function triggerUrl(sandbox: Sandbox, n8n: N8nInstance, webhookId: string): string {
	const prefix = `${n8n.webhookBaseUrl}/${webhookId}/webhook?`;
	const endpoint = [...sandbox.endpoints.values()].find((e) => e.callbackUri.startsWith(prefix));
	if (!endpoint) throw new Error(`no endpoint registered at the sandbox for ${prefix}`);
	return endpoint.callbackUri;
}

/**
 * The same trigger's token route, for a URL with the token in its query (`<base>/<id>/webhook?token=T`):
 * `<base>/<id>/<id>/T`, which n8n routes to the same node (docs/design.md, "Where the token travels").
 */
export function tokenRouteOf(queryUrl: string): string {
	const url = new URL(queryUrl);
	const token = url.searchParams.get('token');
	const match = /^(.*)\/([^/]+)\/webhook$/.exec(url.pathname);
	if (!token || !match)
		throw new Error(`not a trigger URL with a token: ${url.origin}${url.pathname}`);
	url.pathname = `${match[1]}/${match[2]}/${match[2]}/${encodeURIComponent(token)}`;
	url.search = '';
	return url.toString();
}

/** Executions of a workflow newer than `afterId` (ids grow), newest first. */
export async function executionsAfter(
	n8n: N8nInstance,
	workflowId: string,
	afterId: number,
	includeData = false,
): Promise<ExecutionSummary[]> {
	return await listExecutions(n8n, {
		workflowId,
		newerThan: afterId,
		includeData,
		pageSize: includeData ? 100 : 250,
	});
}

/** The newest execution id of the whole instance (0 when there is none). */
export async function newestExecutionId(n8n: N8nInstance): Promise<number> {
	const page = await n8n.api<{ data: ExecutionSummary[] }>('GET', '/executions?limit=1');
	return page.data.length ? Number(page.data[0].id) : 0;
}

/**
 * Waits until `count` executions of the workflow newer than `afterId` have finished; returns them and the time
 * the last one stopped.
 */
export async function waitForFinished(
	n8n: N8nInstance,
	workflowId: string,
	afterId: number,
	count: number,
	options: { timeoutMs?: number; includeData?: boolean } = {},
): Promise<ExecutionSummary[]> {
	const deadline = Date.now() + (options.timeoutMs ?? 120_000);
	for (;;) {
		const executions = await executionsAfter(n8n, workflowId, afterId, options.includeData);
		const finished = executions.filter((e) => e.stoppedAt);
		// and none still running: a request cut off at the end of a load run may have started one too
		if (finished.length >= count && finished.length === executions.length) return finished;
		if (Date.now() > deadline) {
			throw new Error(
				`only ${finished.length}/${count} executions of workflow ${workflowId} finished in time`,
			);
		}
		await sleep(500);
	}
}
