// The Webhook Endpoint resource locator of Get and Delete: "From List" as n8n's editor loads it (listSearch in
// n8n-core's real LoadOptionsContext) against the sandbox over real HTTP, and the three values a saved workflow
// may hold for it (From List, By ID, and the plain string of 0.1.0) read by the operations.
import { LoadOptionsContext } from 'n8n-core';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { Captioning } from '../../nodes/Captioning/Captioning.node';
import { SEARCH_METHOD } from '../../nodes/Captioning/actions/webhookEndpoint/shared';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox/server';
import { createHarness, type Harness } from '../helpers/n8nContext';
import { createEndpoint, credentialsFor, obtainToken } from '../helpers/sandboxClient';

const captioning = new Captioning();
let sandbox: Sandbox;
let h: Harness;

async function setUp(options: SandboxOptions = {}) {
	sandbox = await startSandbox({ rateLimit: null, transcribeAfterMs: 0, ...options });
	h = createHarness(credentialsFor(sandbox), { captioning });
}

afterEach(async () => {
	await sandbox?.stop();
});

/** What the editor calls when the dropdown opens or the user types in its search box. */
async function search(filter?: string) {
	const node = h.makeNode('captioning', { resource: 'webhookEndpoint', operation: 'get' });
	const ctx = new LoadOptionsContext(h.workflow(node), node, h.additionalData(), 'endpointId');
	return await captioning.methods.listSearch[SEARCH_METHOD].call(ctx, filter);
}

async function run(parameters: IDataObject) {
	const node = h.makeNode('captioning', parameters as INodeParameters);
	const [output] = await captioning.execute.call(h.executeContext(node, [{ json: {} }]));
	return output;
}

async function createTwo() {
	const { access_token } = await obtainToken(sandbox);
	await createEndpoint(sandbox, access_token, 'https://example.com/hooks/slack', [
		'transcription.transcribed',
	]);
	await createEndpoint(
		sandbox,
		access_token,
		'https://n8n.example.com/webhook/abc/webhook?token=s3cr3t-callback-token',
		['transcription.created', 'transcription.transcribed'],
	);
	return [...sandbox.endpoints.values()];
}

describe('From List', () => {
	test('lists every endpoint by its callback URI, the ID as the value, a trigger token redacted', async () => {
		await setUp();
		const [slack, trigger] = await createTwo();
		const { results } = await search();
		expect(results).toEqual([
			{
				name: 'https://example.com/hooks/slack',
				value: slack.id,
				description: `transcription.transcribed (ID ${slack.id})`,
			},
			{
				name: 'https://n8n.example.com/webhook/abc/webhook?token=[redacted]',
				value: trigger.id,
				description: `transcription.created, transcription.transcribed (ID ${trigger.id})`,
			},
		]);
		expect(JSON.stringify(results)).not.toContain('s3cr3t-callback-token');
	});

	test('the search box filters by URI, ID or event, ignoring case', async () => {
		await setUp();
		const [slack, trigger] = await createTwo();
		const values = async (filter: string) => (await search(filter)).results.map((r) => r.value);
		expect(await values('SLACK')).toEqual([slack.id]);
		expect(await values(trigger.id)).toEqual([trigger.id]);
		expect(await values('transcription.created')).toEqual([trigger.id]);
		expect(await values('nothing like it')).toEqual([]);
		// the token is not searchable either
		expect(await values('s3cr3t')).toEqual([]);
	});

	test('follows the pages of a paged list', async () => {
		await setUp({ variants: { list: 'paged' } });
		const { access_token } = await obtainToken(sandbox);
		for (let n = 0; n < 5; n++) {
			await createEndpoint(sandbox, access_token, `https://example.com/hooks/${n}`, [
				'transcription.transcribed',
			]);
		}
		expect((await search()).results.map((r) => r.name)).toEqual(
			[0, 1, 2, 3, 4].map((n) => `https://example.com/hooks/${n}`),
		);
	});

	test.each(['absent-404', 'absent-405'] as const)(
		'a service without a list (%s) gets a message for the dropdown that says to use By ID',
		async (manage) => {
			await setUp({ variants: { manage } });
			const error = await search().catch((e: unknown) => e);
			expect(error).toMatchObject({
				name: 'NodeApiError',
				message: `The captioning service does not list its webhook endpoints (HTTP ${manage.slice(-3)})`,
				description: expect.stringMatching(/^Choose By ID instead and give the endpoint’s ID/),
				httpCode: manage.slice(-3),
			});
		},
	);
});

describe('the values Get and Delete read', () => {
	test.each([
		['From List', (id: string) => ({ __rl: true, mode: 'list', value: id, cachedResultName: 'x' })],
		['By ID', (id: string) => ({ __rl: true, mode: 'id', value: ` ${id} ` })],
		['a plain string (workflows saved by 0.1.0)', (id: string) => id],
	])('%s', async (_, value) => {
		await setUp();
		const [slack] = await createTwo();
		const [got] = await run({
			resource: 'webhookEndpoint',
			operation: 'get',
			endpointId: value(slack.id),
		});
		expect(got.json).toMatchObject({
			id: slack.id,
			callback_uri: 'https://example.com/hooks/slack',
		});
		const [deleted] = await run({
			resource: 'webhookEndpoint',
			operation: 'delete',
			endpointId: value(slack.id),
		});
		expect(deleted.json).toEqual({ id: slack.id, deleted: true });
		expect(sandbox.endpoints.has(slack.id)).toBe(false);
	});

	test('nothing picked is the user’s error, saying where to pick', async () => {
		await setUp();
		await expect(
			run({
				resource: 'webhookEndpoint',
				operation: 'get',
				endpointId: { __rl: true, mode: 'list', value: '' },
			}),
		).rejects.toMatchObject({
			name: 'NodeOperationError',
			message: 'No webhook endpoint is selected',
			description: 'Pick one under Webhook Endpoint (From List), or give its ID (By ID).',
		});
	});
});
