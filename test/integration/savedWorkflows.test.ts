// Workflows saved by 0.1.0 (test/fixtures/saved-0.1.0: as 0.1.0's editor saved them, the package's nodes at
// typeVersion 1) through n8n-core's real contexts against the sandbox: they output what they output in 0.1.0
// (test/helpers/savedOutputs.ts, written from a run of 0.1.0's own build, which test/e2e/released.test.ts runs
// again). The same workflows with the nodes at typeVersion 2, the version a new node gets, output today's shapes.
import type { INodeExecutionData } from 'n8n-workflow';

import { CaptioningApi } from '../../credentials/CaptioningApi.credentials';
import { Captioning } from '../../nodes/Captioning/Captioning.node';
import { CaptioningTrigger } from '../../nodes/Captioning/CaptioningTrigger.node';
import { type Sandbox, startSandbox } from '../../sandbox/server';
import type { WebhookEndpoint as SandboxEndpoint } from '../../sandbox/webhookEndpoints';
import {
	captionsWorkflowOutputs,
	endpointsWorkflowOutputs,
	jsonOf,
	type Producer,
	toolOutputs,
	triggerItem,
	vttAsSrt,
} from '../helpers/savedOutputs';
import { atVersion, runSavedWorkflow, savedWorkflows } from '../helpers/savedWorkflows';

const classes = {
	action: new Captioning(),
	trigger: new CaptioningTrigger(),
	credential: new CaptioningApi(),
};
const saved = savedWorkflows();

let sandbox: Sandbox;
beforeEach(async () => {
	sandbox = await startSandbox({ rateLimit: null, transcribeAfterMs: 0 });
});
afterEach(async () => {
	await sandbox?.stop();
});

const decoded = (item: INodeExecutionData, key: string) =>
	Buffer.from(item.binary?.[key]?.data ?? '', 'base64').toString('utf8');

/** Each node's output JSON, for the nodes `expected` names. */
const jsonByNode = (outputs: Record<string, INodeExecutionData[]>, expected: object) =>
	Object.fromEntries(Object.keys(expected).map((name) => [name, jsonOf(outputs[name])]));

test('the fixtures are workflows of 0.1.0: every node of the package at typeVersion 1', () => {
	expect(Object.keys(saved)).toEqual(['ai-tool.json', 'captions.json', 'webhook-endpoints.json']);
	for (const [file, workflow] of Object.entries(saved)) {
		const ours = workflow.nodes.filter((n) => n.type.startsWith('n8n-nodes-captioning.'));
		expect([file, ours.length > 0, ours.every((n) => n.typeVersion === 1)]).toEqual([
			file,
			true,
			true,
		]);
	}
});

describe.each<[string, Producer]>([
	['saved by 0.1.0 (typeVersion 1)', { typeVersion: 1 }],
	['moved to typeVersion 2', { typeVersion: 2 }],
])('workflows %s', (_, producer) => {
	const workflowOf = (file: string) =>
		'typeVersion' in producer ? atVersion(saved[file], producer.typeVersion) : saved[file];

	test('webhook-endpoints.json: Create, Get Many, Get and Delete', async () => {
		let created: SandboxEndpoint[] = [];
		const outputs = await runSavedWorkflow(
			workflowOf('webhook-endpoints.json'),
			sandbox,
			classes,
			(name) => {
				if (name === 'Create Endpoint') created = [...sandbox.endpoints.values()];
			},
		);
		expect(created).toHaveLength(1);
		const expected = endpointsWorkflowOutputs(created[0], sandbox.url, producer);
		expect(jsonByNode(outputs, expected)).toEqual(expected);
		expect(sandbox.endpoints.size).toBe(0);
	});

	test('captions.json: the trigger, Download and Convert (file, text, segments, cues from words)', async () => {
		const outputs = await runSavedWorkflow(workflowOf('captions.json'), sandbox, classes);
		const [event] = [...sandbox.events].filter((e) => e.eventType === 'transcription.transcribed');
		const trigger = triggerItem(event.body);
		const expected = captionsWorkflowOutputs(trigger, producer);
		expect(jsonByNode(outputs, expected)).toEqual(expected);

		const vtt = sandbox.transcriptions.get(event.transcriptionId)!.files.vtt.content;
		const [downloaded] = outputs['Download VTT'];
		expect(downloaded.binary!.data).toMatchObject({
			mimeType: 'text/vtt',
			fileName: 'board-meeting.vtt',
		});
		expect(decoded(downloaded, 'data')).toBe(vtt);
		const [converted] = outputs['Convert to SRT'];
		expect(converted.binary!.srt).toMatchObject({
			mimeType: 'application/x-subrip',
			fileName: 'board-meeting.srt',
		});
		expect(decoded(converted, 'srt')).toBe(vttAsSrt(vtt));
		// the input's file stays beside the new one
		expect(decoded(converted, 'data')).toBe(vtt);
	});

	test('ai-tool.json: what the agent gets from the Captioning tool', async () => {
		const outputs = await runSavedWorkflow(workflowOf('ai-tool.json'), sandbox, classes);
		const expected = toolOutputs(producer);
		expect(jsonByNode(outputs, expected)).toEqual(expected);
	});
});

test('a version 1 Create never outputs a callback token 0.1.0 showed: the token is redacted at every version', async () => {
	const workflow = atVersion(saved['webhook-endpoints.json'], 1);
	const create = workflow.nodes.find((n) => n.name === 'Create Endpoint')!;
	create.parameters = {
		...create.parameters,
		callbackUri: 'https://n8n.example.com/webhook/abc/webhook?token=s3cret-Token_1',
	};
	const outputs = await runSavedWorkflow(
		{ ...workflow, connections: { Webhook: workflow.connections.Webhook } },
		sandbox,
		classes,
	);
	expect(jsonOf(outputs['Create Endpoint'])).toEqual([
		expect.objectContaining({
			attributes: expect.objectContaining({
				callback_uri: 'https://n8n.example.com/webhook/abc/webhook?token=[redacted]',
			}),
		}),
	]);
});
