// Builders for the workflows the suites, the dev stack and the benchmark create through the public API: the
// Captioning Trigger's workflow, n8n's Webhook node, and nodes joined in a line. Each returns the body
// POST /api/v1/workflows takes.
import { randomUUID } from 'node:crypto';

import { CREDENTIAL_TYPE } from './credentials';

export const TRIGGER_TYPE = 'n8n-nodes-captioning.captioningTrigger';
export const ACTION_TYPE = 'n8n-nodes-captioning.captioning';
export const TRIGGER_NODE = 'Captioning Trigger';
export const RECEIVED_NODE = 'Received';

/** A node as the public API takes it; the builders below fill in what they are not given. */
export type WorkflowNode = Record<string, unknown> & { name: string };

/**
 * The workflow the suites activate: the Captioning Trigger with the given parameters, followed by a NoOp named
 * RECEIVED_NODE unless `alone`. The body for POST /api/v1/workflows.
 */
export function triggerWorkflow(options: {
	name: string;
	webhookId: string;
	credential: { id: string; name: string };
	parameters: Record<string, unknown>;
	alone?: boolean;
}): Record<string, unknown> {
	const trigger = {
		id: randomUUID(),
		name: TRIGGER_NODE,
		type: TRIGGER_TYPE,
		// the version a user gets when adding the node; CAPTIONING_TRIGGER_VERSION=1 runs the suites at version 1
		typeVersion: Number(process.env.CAPTIONING_TRIGGER_VERSION ?? 3),
		position: [0, 0],
		webhookId: options.webhookId,
		parameters: options.parameters,
		credentials: { captioningApi: options.credential },
	};
	const received = {
		id: randomUUID(),
		name: RECEIVED_NODE,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [250, 0],
		parameters: {},
	};
	return {
		name: options.name,
		nodes: options.alone ? [trigger] : [trigger, received],
		connections: options.alone ? {} : inLine([TRIGGER_NODE, RECEIVED_NODE]),
		settings: { executionOrder: 'v1' },
	};
}

/**
 * n8n's Webhook node, named "Webhook", for POST requests at `path`: by default version 2.1 answering with
 * the last node's output; `parameters` adds to or overrides its parameters.
 */
export function webhookNode(
	path: string,
	options: { typeVersion?: number; parameters?: Record<string, unknown> } = {},
): WorkflowNode {
	return {
		id: randomUUID(),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: options.typeVersion ?? 2.1,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: 'lastNode',
			options: {},
			...options.parameters,
		},
	};
}

/**
 * n8n's HTTP Request node (version 4.2) calling `url` with the Captioning API credential as its predefined
 * credential type, the service's answer read as JSON (it comes with the service's own media type, which n8n would
 * read as text); `parameters` adds to or overrides its parameters.
 */
export function captioningHttpRequestNode(
	name: string,
	url: string,
	credential: { id: string; name: string },
	parameters: Record<string, unknown> = {},
): WorkflowNode {
	return {
		id: randomUUID(),
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'GET',
			url,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: CREDENTIAL_TYPE,
			options: { response: { response: { responseFormat: 'json' } } },
			...parameters,
		},
		credentials: { [CREDENTIAL_TYPE]: credential },
	};
}

/** The connections of nodes in a line: each one's main output to the next one's input. */
export function inLine(names: readonly string[]): Record<string, unknown> {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < names.length - 1; i++) {
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

/** A workflow of `nodes` in a line, 250 apart from left to right unless a node has its position. */
export function linearWorkflow(
	name: string,
	nodes: readonly WorkflowNode[],
): Record<string, unknown> {
	return {
		name,
		nodes: nodes.map((node, i) => ({ position: [250 * i, 0], ...node })),
		connections: inLine(nodes.map((node) => node.name)),
		settings: { executionOrder: 'v1' },
	};
}
