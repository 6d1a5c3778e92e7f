// Runs the package's nodes of a saved workflow (test/fixtures/saved-0.1.0) in n8n-core's real contexts against a
// sandbox, as n8n would run them in the workflow's order: each node gets the items its parent output. A trigger
// that n8n starts (Webhook, Manual) gives one empty request item; the Captioning Trigger is published and given a
// transcription of the sandbox's; nodes of other types do not run here (their outputs feed nothing the package's
// nodes read), and an AI tool runs with one empty item, as an agent's call gives it. The node classes are
// parameters, so that a release's own build (test/e2e/released.test.ts) runs the same workflows.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	type IDataObject,
	type ICredentialType,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type IVersionedNodeType,
	NodeHelpers,
} from 'n8n-workflow';

import { PROJECT_ROOT } from '../../harness/install';
import type { ExampleWorkflow } from '../../harness/examples';
import type { Sandbox } from '../../sandbox/server';
import { allowingHost } from './allowedHost';
import { createHarness, CREDENTIAL_ID } from './n8nContext';
import { credentialsFor } from './sandboxClient';
import { startWebhookServer } from './webhookServer';

export const SAVED_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'saved-0.1.0');

const PACKAGE = 'n8n-nodes-captioning.';
const STARTERS = ['n8n-nodes-base.webhook', 'n8n-nodes-base.manualTrigger'];

/** The workflows 0.1.0's editor saved, by file name. */
export function savedWorkflows(): Record<string, ExampleWorkflow> {
	const files = readdirSync(SAVED_DIR).filter((file) => file.endsWith('.json'));
	return Object.fromEntries(
		files.sort().map((file) => [file, JSON.parse(readFileSync(join(SAVED_DIR, file), 'utf8'))]),
	);
}

/** The workflow with every node of the package at `typeVersion` (as if the user had picked that version). */
export function atVersion(workflow: ExampleWorkflow, typeVersion: number): ExampleWorkflow {
	const copy = JSON.parse(JSON.stringify(workflow)) as ExampleWorkflow;
	for (const node of copy.nodes) {
		if (node.type === `${PACKAGE}captioning` || node.type === `${PACKAGE}captioningTool`) {
			node.typeVersion = typeVersion;
		}
	}
	return copy;
}

export interface PackageClasses {
	action: INodeType;
	/** 0.1.0's trigger is one INodeType; from 0.2.0 it is versioned (a description per typeVersion). */
	trigger: INodeType | IVersionedNodeType;
	credential: ICredentialType;
}

/** Output items per node name (the first output), of the nodes that ran. */
export type Outputs = Record<string, INodeExecutionData[]>;

/** The items a published Captioning Trigger node started an execution with, for one transcription. */
async function triggerItems(
	sandbox: Sandbox,
	classes: PackageClasses,
	saved: INode,
): Promise<INodeExecutionData[]> {
	const h = createHarness(
		credentialsFor(sandbox),
		{ captioningTrigger: classes.trigger },
		classes.credential,
	);
	const node: INode = { ...saved, type: 'captioningTrigger', credentials: savedCredentials() };
	const server = await startWebhookServer(h, classes.trigger, node, {});
	try {
		h.urls.webhookBaseUrl = `${server.baseUrl}/webhook`;
		const workflow = h.workflow(node, { [`node:${node.name}`]: {} });
		const hooks = NodeHelpers.getVersionedNodeType(classes.trigger, node.typeVersion)
			.webhookMethods!.default!;
		const context = h.hookContext(node, workflow);
		if (!(await hooks.checkExists.call(context))) await hooks.create.call(context);
		server.staticData = JSON.parse(JSON.stringify(workflow.getStaticData('node', node)));
		await sandbox.transcribe({
			title: 'Board meeting',
			text: 'Hello world. This is a caption test.',
		});
		await sandbox.idle();
		const execution = server.executions.find((e) => e.items[0]?.json.eventType !== undefined);
		if (!execution) throw new Error(`${saved.name} started no execution`);
		return execution.items;
	} finally {
		await server.close();
	}
}

const savedCredentials = () => ({
	captioningApi: { id: CREDENTIAL_ID, name: 'Captioning account' },
});

/** A saved Download with its operation said: the editor saves the default operation, Download, as none. */
function savedDownload(parameters: IDataObject): IDataObject {
	const isDownload =
		(parameters.resource ?? 'captionFile') === 'captionFile' && parameters.operation === undefined;
	return isDownload ? { ...parameters, operation: 'download' } : parameters;
}

/**
 * Runs the package's nodes of `workflow` against `sandbox` with `classes`, in the workflow's order; `afterNode` sees
 * each node's output as it comes (the sandbox as it is then: Delete removes what Create made).
 */
export async function runSavedWorkflow(
	workflow: ExampleWorkflow,
	sandbox: Sandbox,
	classes: PackageClasses,
	afterNode: (name: string, items: INodeExecutionData[]) => void = () => {},
): Promise<Outputs> {
	const h = createHarness(
		credentialsFor(sandbox),
		{ captioning: classes.action, captioningTool: classes.action },
		classes.credential,
	);
	const outputs: Outputs = {};
	const parents = new Map<string, string>();
	for (const [from, byType] of Object.entries(workflow.connections)) {
		for (const target of (byType.main ?? []).flat()) parents.set(target.node, from);
	}
	const run = async (saved: INode, items: INodeExecutionData[]) => {
		const node: INode = {
			...saved,
			type: saved.type.slice(PACKAGE.length),
			// the sandbox's files are on this machine, which the address policy fetches from only when allowed (0.1.0,
			// which has no such option, ignores it)
			parameters: allowingHost(
				savedDownload(saved.parameters as IDataObject),
				sandbox.url,
			) as INodeParameters,
			credentials: savedCredentials(),
		};
		const [output] = (await classes.action.execute!.call(
			h.executeContext(node, items),
		)) as INodeExecutionData[][];
		return output;
	};
	// depth-first from each start, each node's targets in their order: n8n's execution order "v1"
	const visit = async (name: string, items: INodeExecutionData[]): Promise<void> => {
		outputs[name] = items;
		afterNode(name, items);
		const targets = (workflow.connections[name]?.main ?? []).flat();
		for (const { node: target } of targets) {
			const saved = workflow.nodes.find((n) => n.name === target) as unknown as INode;
			if (!saved.type.startsWith(PACKAGE)) continue;
			await visit(target, await run(saved, items));
		}
	};
	for (const saved of workflow.nodes as unknown as INode[]) {
		if (parents.has(saved.name)) continue;
		if (STARTERS.includes(saved.type)) {
			await visit(saved.name, [{ json: { headers: {}, params: {}, query: {}, body: {} } }]);
		} else if (saved.type === `${PACKAGE}captioningTrigger`) {
			await visit(saved.name, await triggerItems(sandbox, classes, saved));
		} else if (saved.type === `${PACKAGE}captioningTool`) {
			outputs[saved.name] = await run(saved, [{ json: {} }]);
			afterNode(saved.name, outputs[saved.name]);
		}
	}
	return outputs;
}
