// Workflow helpers on top of an N8nInstance that several suites need: the trigger workflow they activate,
// and a deactivation that waits for n8n's publication outbox.
import { randomUUID } from 'node:crypto';

import type { N8nInstance } from './n8n';
import { N8nHttpError, type PublicationStatus } from './rest';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * POST /api/v1/workflows/<id>/deactivate, then waits until the publication outbox has removed the
 * triggers (n8n 2.41 unpublishes asynchronously, as it publishes).
 */
export async function deactivateWorkflow(
	n8n: N8nInstance,
	id: string,
	options: { timeoutMs?: number } = {},
): Promise<void> {
	await n8n.api('POST', `/workflows/${encodeURIComponent(id)}/deactivate`, {});
	const deadline = Date.now() + (options.timeoutMs ?? 30_000);
	for (;;) {
		let status: PublicationStatus;
		try {
			status = await n8n.rest<PublicationStatus>(
				'GET',
				`/workflows/${encodeURIComponent(id)}/publication-status`,
			);
		} catch (error) {
			// N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false: deactivation was synchronous
			if (error instanceof N8nHttpError && error.status === 404) return;
			throw error;
		}
		if (status.status === 'not_published' && status.pendingVersionId === null) return;
		if (Date.now() > deadline) {
			throw new Error(`workflow ${id} still ${JSON.stringify(status)} after deactivation`);
		}
		await delay(100);
	}
}

export const TRIGGER_TYPE = 'n8n-nodes-captioning.captioningTrigger';
export const TRIGGER_NODE = 'Captioning Trigger';
export const RECEIVED_NODE = 'Received';

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
		typeVersion: Number(process.env.CAPTIONING_TRIGGER_VERSION ?? 2),
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
		connections: options.alone
			? {}
			: { [TRIGGER_NODE]: { main: [[{ node: RECEIVED_NODE, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}
