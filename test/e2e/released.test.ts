// 0.1.0 itself, built from its commit and packed as npm would have published it, runs the workflows of
// test/fixtures/saved-0.1.0: they are what its editor saved (the parameters n8n's editor keeps when it saves a node,
// NodeHelpers.getNodeParameters without defaults, over 0.1.0's own descriptions), and they output what
// test/helpers/savedOutputs.ts says 0.1.0 output, the values test/integration/savedWorkflows.test.ts holds this
// package's typeVersion 1 to. No n8n starts: the nodes run in n8n-core's contexts against the sandbox.
import { execFile } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import {
	type INodeParameters,
	type INodeType,
	type INodeTypeDescription,
	NodeHelpers,
} from 'n8n-workflow';

import { packCommit, PROJECT_ROOT, RELEASE_0_1_0, removePacked } from '../../harness';
import { type Sandbox, startSandbox } from '../../sandbox/server';
import type { WebhookEndpoint as SandboxEndpoint } from '../../sandbox/webhookEndpoints';
import {
	captionsWorkflowOutputs,
	endpointsWorkflowOutputs,
	jsonOf,
	toolOutputs,
	triggerItem,
} from '../helpers/savedOutputs';
import { type PackageClasses, runSavedWorkflow, savedWorkflows } from '../helpers/savedWorkflows';

const RELEASE = { release: '0.1.0' } as const;
// what n8n adds to a node used as a tool, and is no parameter of the node's own
const TOOL_PARAMETERS = ['descriptionType', 'toolDescription'];

let tarball: string | undefined;
let classes: PackageClasses;
let sandbox: Sandbox | undefined;
const saved = savedWorkflows();

beforeAll(async () => {
	tarball = await packCommit(RELEASE_0_1_0);
	const root = join(dirname(tarball), 'installed');
	await mkdir(root);
	await promisify(execFile)('tar', ['-xzf', tarball, '-C', root]);
	const dist = join(root, 'package', 'dist');
	// what it requires (n8n-workflow, zod, ...) from this checkout's node_modules, as buildSources builds it
	await symlink(join(PROJECT_ROOT, 'node_modules'), join(root, 'package', 'node_modules'), 'dir');
	/* eslint-disable @typescript-eslint/no-require-imports -- the released build, loaded as n8n loads it */
	classes = {
		action: new (require(join(dist, 'nodes/Captioning/Captioning.node.js')).Captioning)(),
		trigger: new (require(
			join(dist, 'nodes/Captioning/CaptioningTrigger.node.js'),
		).CaptioningTrigger)(),
		credential: new (require(
			join(dist, 'credentials/CaptioningApi.credentials.js'),
		).CaptioningApi)(),
	};
	/* eslint-enable @typescript-eslint/no-require-imports */
});

afterAll(async () => {
	await removePacked(tarball);
});

beforeEach(async () => {
	sandbox = await startSandbox({ rateLimit: null, transcribeAfterMs: 0 });
});
afterEach(async () => {
	await sandbox?.stop();
});

const sb = () => sandbox!;

test("the fixtures hold what 0.1.0's editor saved: nothing at its default, nothing its nodes lack", () => {
	const descriptionOf = (type: string): INodeTypeDescription | undefined =>
		type.endsWith('.captioningTrigger')
			? (classes.trigger as INodeType).description
			: type.startsWith('n8n-nodes-captioning.')
				? classes.action.description
				: undefined;
	const differences: unknown[] = [];
	for (const [file, workflow] of Object.entries(saved)) {
		for (const node of workflow.nodes) {
			const description = descriptionOf(node.type);
			if (!description) continue;
			const own = Object.fromEntries(
				Object.entries(node.parameters).filter(([key]) => !TOOL_PARAMETERS.includes(key)),
			) as INodeParameters;
			const asNode = { ...node, parameters: own } as never;
			const all = NodeHelpers.getNodeParameters(
				description.properties,
				own,
				true,
				false,
				asNode,
				description,
			);
			// what the editor's getNodeDataToSave keeps of a node (n8n 2.41.1 and 1.123.81 alike)
			const kept = NodeHelpers.getNodeParameters(
				description.properties,
				all!,
				false,
				false,
				asNode,
				description,
			);
			if (JSON.stringify(kept) !== JSON.stringify(own))
				differences.push({ file, node: node.name, kept });
		}
	}
	expect(differences).toEqual([]);
});

test('webhook-endpoints.json: what 0.1.0 output', async () => {
	let created: SandboxEndpoint[] = [];
	const outputs = await runSavedWorkflow(saved['webhook-endpoints.json'], sb(), classes, (name) => {
		if (name === 'Create Endpoint') created = [...sb().endpoints.values()];
	});
	const expected = endpointsWorkflowOutputs(created[0], sb().url, RELEASE);
	for (const [name, items] of Object.entries(expected)) {
		expect([name, jsonOf(outputs[name])]).toEqual([name, items]);
	}
});

test('captions.json: what 0.1.0 output', async () => {
	const outputs = await runSavedWorkflow(saved['captions.json'], sb(), classes);
	const [event] = [...sb().events].filter((e) => e.eventType === 'transcription.transcribed');
	const expected = captionsWorkflowOutputs(triggerItem(event.body), RELEASE);
	for (const [name, items] of Object.entries(expected)) {
		expect([name, jsonOf(outputs[name])]).toEqual([name, items]);
	}
});

test('ai-tool.json: what 0.1.0 output', async () => {
	const outputs = await runSavedWorkflow(saved['ai-tool.json'], sb(), classes);
	const expected = toolOutputs(RELEASE);
	for (const [name, items] of Object.entries(expected)) {
		expect([name, jsonOf(outputs[name])]).toEqual([name, items]);
	}
});
