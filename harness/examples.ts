// The importable workflows in examples/, for the e2e tests and `npm run dev`: loading them, making the
// edits a user makes after importing one (a URL, a folder, a credential), and the body the public API
// takes. Which credential an example's nodes use is fixed up as a user's import would (see
// examples/README.md): by the credential's name, or by writing its id into the workflow.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PROJECT_ROOT } from './install';

export const EXAMPLES_DIR = join(PROJECT_ROOT, 'examples');

/** The name the examples give their Captioning credential; n8n links one of this name on import. */
export const EXAMPLE_CREDENTIAL_NAME = 'Captioning account';

export interface CredentialReference {
	id: string | null;
	name: string;
}

export interface ExampleNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, CredentialReference>;
	webhookId?: string;
	disabled?: boolean;
}

/** An item as n8n pins it: the JSON, and binary data inline (base64) where the node output files. */
export interface PinnedItem {
	json: Record<string, unknown>;
	binary?: Record<
		string,
		{ data: string; mimeType: string; fileName?: string } & Record<string, unknown>
	>;
}

export interface ExampleWorkflow {
	name: string;
	nodes: ExampleNode[];
	connections: Record<string, Record<string, { node: string; type: string; index: number }[][]>>;
	settings?: Record<string, unknown>;
	/** Output pinned per node name: every example pins its trigger's output for one real event. */
	pinData?: Record<string, PinnedItem[]>;
}

/** The name every example gives its Captioning Trigger, whose output it pins. */
export const EXAMPLE_TRIGGER_NAME = 'Captioning Trigger';

/** File names of every example, sorted. */
export function listExampleFiles(): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort();
}

/** A fresh copy of an example, to patch freely. */
export function loadExample(file: string): ExampleWorkflow {
	return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as ExampleWorkflow;
}

export function findNode(workflow: Pick<ExampleWorkflow, 'nodes'>, name: string): ExampleNode {
	const node = workflow.nodes.find((n) => n.name === name);
	if (!node)
		throw new Error(`no node "${name}" in ${workflow.nodes.map((n) => n.name).join(', ')}`);
	return node;
}

interface Assignment {
	id: string;
	name: string;
	value: unknown;
	type: string;
}

/** Sets a field of an Edit Fields (Set) node, as a user edits an example's "Settings" node. */
export function setAssignment(
	workflow: ExampleWorkflow,
	nodeName: string,
	field: string,
	value: unknown,
): void {
	const node = findNode(workflow, nodeName);
	const list = (node.parameters.assignments as { assignments?: Assignment[] } | undefined)
		?.assignments;
	const assignment = list?.find((a) => a.name === field);
	if (!assignment) throw new Error(`node "${nodeName}" sets no field "${field}"`);
	assignment.value = value;
}

/** Points every node that uses a credential of this type at the given one. */
export function useCredential(
	workflow: ExampleWorkflow,
	type: string,
	credential: { id: string; name: string },
): void {
	for (const node of workflow.nodes) {
		if (node.credentials?.[type])
			node.credentials[type] = { id: credential.id, name: credential.name };
	}
}

/** The node types in the examples that receive webhooks (the Captioning Trigger). */
const WEBHOOK_NODE_TYPES = ['n8n-nodes-captioning.captioningTrigger'];

/** The event an example pins on its trigger: what "Execute workflow" runs the steps after the trigger with. */
export function pinnedEvent(workflow: ExampleWorkflow): PinnedItem {
	const [item, ...more] = workflow.pinData?.[EXAMPLE_TRIGGER_NAME] ?? [];
	if (!item || more.length > 0) {
		throw new Error(`"${workflow.name}" does not pin exactly one event on ${EXAMPLE_TRIGGER_NAME}`);
	}
	return item;
}

/**
 * The fields POST/PUT /api/v1/workflows accepts. A webhook node without a webhookId gets one, as n8n's editor
 * gives one on import: n8n 2.x's server does the same, 1.x's does not, and without it 1.x registers a path with
 * the node's name that it cannot route.
 */
export function toPublicApiBody(workflow: ExampleWorkflow): Record<string, unknown> {
	return {
		name: workflow.name,
		nodes: workflow.nodes.map((node) =>
			WEBHOOK_NODE_TYPES.includes(node.type) && !node.webhookId
				? { ...node, webhookId: randomUUID() }
				: node,
		),
		connections: workflow.connections,
		settings: workflow.settings ?? { executionOrder: 'v1' },
	};
}

/**
 * What the editor saves (POST /rest/workflows): the public API's fields, the pinned data (n8n 1.x's public API
 * takes none) and `active`, which n8n 1.x's REST API requires.
 */
export function toEditorBody(workflow: ExampleWorkflow): Record<string, unknown> {
	return { ...toPublicApiBody(workflow), active: false, pinData: workflow.pinData ?? {} };
}
