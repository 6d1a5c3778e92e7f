// The package inside a real n8n 2.41.1, installed from its `npm pack` tarball as n8n installs community
// packages, against the sandbox running in this jest process. One n8n (and one restart) for the whole
// file: the tests run in order and build on each other, as a user's day with the package would.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import {
	ACTION_TYPE,
	captioningHttpRequestNode,
	createSandboxCredential,
	CREDENTIAL_TYPE,
	type ExecutionSummary,
	linearWorkflow,
	listExecutions,
	type N8nInstance,
	packProject,
	RECEIVED_NODE,
	removePacked,
	startN8n,
	TRIGGER_NODE,
	triggerWorkflow,
	webhookNode,
	type WorkflowNode,
} from '../../harness';
import { convertCaptions } from '../../nodes/Captioning/captions';
import {
	DEFAULT_CLIENT,
	type Sandbox,
	SECOND_CLIENT,
	type SentEvent,
	startSandbox,
} from '../../sandbox/server';
import { sampleEvent } from '../helpers/deliveryEvent';
import { startReceiver, type Receiver } from '../helpers/receiver';
import {
	createActiveWorkflow,
	is2xx,
	outputOf,
	requireStarted,
	stopAll,
	waitFor,
} from '../helpers/suite';

const EVENTS = ['transcription.created', 'transcription.transcribed'];
/** A new manual trigger's Secret Token, and the tokens a 0.1.0 registration carried: none may show anywhere. */
const MANUAL_SECRET = 'manual-secret-7Qm2vX9pLk4rT8wZ-e2e';
const legacySecrets: string[] = [];
// Redeliveries 1, 4, 10, 22 and 46 s after the first attempt: n8n's restart (5-15 s on a busy 2-core
// machine) fits well inside.
const RETRY_DELAYS_MS = [1_000, 3_000, 6_000, 12_000, 24_000];
const SPOKEN =
	'Captions arrive in n8n within seconds. Every word that was spoken is in the transcript.';

let sandbox: Sandbox | undefined;
let n8n: N8nInstance | undefined;
let receiver: Receiver | undefined;
let tarball: string | undefined;
let credential: { id: string; name: string } = { id: '', name: '' };

// shared between the tests, which run in this order
const trigger = { workflowId: '', webhookId: '', endpointId: '', callbackUri: '' };
let firstTranscribed: SentEvent | undefined;
/** Every event the sandbox sent to the trigger. */
const sent: SentEvent[] = [];

const sb = requireStarted('the sandbox', () => sandbox);
const instance = requireStarted('n8n', () => n8n);

function attemptsFor(eventId: string) {
	return sb().deliveries.filter((d) => d.eventId === eventId);
}

const eventIdOf = (execution: ExecutionSummary): string =>
	outputOf(execution, TRIGGER_NODE)[0].json.eventId;

/** Simulates a transcription and waits until the sandbox has delivered every event it caused. */
async function transcribe(title: string): Promise<{ id: string; events: SentEvent[] }> {
	const { transcription, events } = await sb().transcribe({ title, text: SPOKEN });
	sent.push(...events);
	await sb().idle();
	return { id: transcription.id, events };
}

/**
 * Proves that nothing started an execution since `expected` ones: a fresh transcription's two events are
 * delivered after whatever came before, so once they have executed, an extra execution would be listed.
 */
async function expectTriggerExecutionsExactly(expected: SentEvent[]): Promise<void> {
	const before = [...expected];
	const barrier = await transcribe('Barrier');
	const want = [...before, ...barrier.events].map((e) => e.id).sort();
	await instance().waitForExecutions(trigger.workflowId, { count: want.length });
	const executions = await listExecutions(instance(), {
		workflowId: trigger.workflowId,
		includeData: true,
	});
	expect(executions.map(eventIdOf).sort()).toEqual(want);
}

/** A linear workflow Webhook -> nodes..., activated. */
async function createWebhookWorkflow(
	name: string,
	webhook: WorkflowNode,
	nodes: WorkflowNode[],
): Promise<string> {
	return await createActiveWorkflow(instance(), linearWorkflow(name, [webhook, ...nodes]));
}

async function callWebhook(path: string, body: unknown) {
	const res = await instance().request('POST', `${instance().webhookBaseUrl}/${path}`, { body });
	if (res.status !== 200) {
		throw new Error(
			`webhook ${path} answered ${res.status}: ${JSON.stringify(res.body)}\n` +
				instance().logs().split('\n').slice(-60).join('\n'),
		);
	}
	return res;
}

const captioningCredential = (name: string) => createSandboxCredential(instance(), sb(), name);

let packSeconds = 0;

beforeAll(async () => {
	const packStarted = Date.now();
	tarball = await packProject();
	packSeconds = (Date.now() - packStarted) / 1000;
	sandbox = await startSandbox({ retryDelaysMs: RETRY_DELAYS_MS });
	receiver = await startReceiver();
	n8n = await startN8n({ packageTarball: tarball, logLevel: 'debug' });
	const created = await captioningCredential('Captioning sandbox');
	credential = { id: created.id, name: created.name };
}, 300_000);

afterAll(async () => {
	if (n8n) {
		process.stdout.write(
			`build + pack ${packSeconds.toFixed(1)} s; n8n start-up: ${n8n.timings
				.map((t) => `${t.restart ? 'restart' : 'first'} ${t.totalSeconds.toFixed(1)} s`)
				.join(', ')}\n`,
		);
	}
	await stopAll([
		() => n8n?.stop(),
		() => sandbox?.stop(),
		() => receiver?.close(),
		() => removePacked(tarball),
	]);
});

describe('Captioning package in a real n8n', () => {
	it('registers exactly one endpoint with the production URL and the chosen events on activation', async () => {
		trigger.webhookId = randomUUID();
		const created = await instance().createWorkflow(
			triggerWorkflow({
				name: 'Captions arrive',
				webhookId: trigger.webhookId,
				credential,
				parameters: {
					registration: 'api',
					events: EVENTS,
					options: { downloadFormats: ['vtt', 'google_stt'] },
				},
			}),
		);
		trigger.workflowId = created.id;
		expect(sb().endpoints.size).toBe(0);

		await instance().activateWorkflow(trigger.workflowId);

		const endpoints = [...sb().endpoints.values()];
		expect(endpoints).toHaveLength(1);
		const [endpoint] = endpoints;
		const productionUrl = `${instance().webhookBaseUrl}/${trigger.webhookId}/webhook`;
		expect(endpoint.callbackUri.startsWith(`${productionUrl}?token=`)).toBe(true);
		const token = new URL(endpoint.callbackUri).searchParams.get('token');
		expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
		expect([...endpoint.enabledEvents].sort()).toEqual(EVENTS);
		expect(endpoint.clientId).toBe(DEFAULT_CLIENT.clientId);
		expect(
			sb().requestLog.filter((r) => r.method === 'POST' && r.path === '/webhook_endpoints'),
		).toEqual([expect.objectContaining({ status: 201 })]);
		trigger.endpointId = endpoint.id;
		trigger.callbackUri = endpoint.callbackUri;
	});

	it('starts one execution per event, with the caption files downloaded into binary data', async () => {
		const { id, events } = await transcribe('Weekly All-Hands');
		expect(events.map((e) => e.eventType)).toEqual(EVENTS);
		for (const event of events) {
			expect(attemptsFor(event.id)).toEqual([expect.objectContaining({ attempt: 1, status: 200 })]);
		}

		const executions = await instance().waitForExecutions(trigger.workflowId, { count: 2 });
		expect(executions).toHaveLength(2);
		expect(executions.every((e) => e.status === 'success' && e.mode === 'webhook')).toBe(true);
		const byEvent = new Map(executions.map((e) => [eventIdOf(e), e]));
		expect([...byEvent.keys()].sort()).toEqual(events.map((e) => e.id).sort());

		const [createdEvent, transcribedEvent] = events;
		const [createdItem] = outputOf(byEvent.get(createdEvent.id)!, RECEIVED_NODE);
		expect(createdItem.json).toMatchObject({
			eventType: 'transcription.created',
			transcriptionId: id,
			title: 'Weekly All-Hands',
			formats: [],
		});
		expect(createdItem.binary).toBeUndefined();

		const items = outputOf(byEvent.get(transcribedEvent.id)!, RECEIVED_NODE);
		expect(items).toHaveLength(1);
		const [item] = items;
		expect(item.json).toMatchObject({
			eventId: transcribedEvent.id,
			eventType: 'transcription.transcribed',
			transcriptionId: id,
			title: 'Weekly All-Hands',
		});
		expect([...item.json.formats].sort()).toEqual(['google_stt', 'vtt']);
		expect(item.json.downloadErrors).toBeUndefined();
		expect(String(item.json.transcript).replace(/\s+/g, ' ').trim()).toBe(SPOKEN);
		expect(item.binary.vtt).toMatchObject({
			mimeType: 'text/vtt',
			fileName: 'weekly-all-hands.vtt',
			fileExtension: 'vtt',
		});
		expect(item.binary.google_stt).toMatchObject({
			mimeType: 'application/json',
			fileName: 'weekly-all-hands.google_stt.json',
		});

		// the files n8n stored are the service's files, byte for byte (what a user downloads in the editor)
		const files = sb().transcriptions.get(id)!.files;
		const stored = (binaryId: string) =>
			instance().rest<unknown>(
				'GET',
				`/binary-data?id=${encodeURIComponent(binaryId)}&action=download`,
			);
		expect(await stored(item.binary.vtt.id)).toBe(files.vtt.content);
		expect(await stored(item.binary.google_stt.id)).toEqual(JSON.parse(files.google_stt.content));
		firstTranscribed = transcribedEvent;
	});

	it('acknowledges an event delivered again and does not run it a second time', async () => {
		const event = firstTranscribed!;
		expect(sb().redeliver(event.id)).toBe(true);
		await sb().idle();
		const attempts = attemptsFor(event.id);
		expect(attempts).toHaveLength(2);
		expect(attempts.every((a) => is2xx(a.status))).toBe(true);

		await expectTriggerExecutionsExactly(sent);
	});

	it('runs an event delivered while n8n was down exactly once when n8n is back within the retries', async () => {
		let whileDown: SentEvent[] = [];
		await instance().restart({
			whileStopped: async () => {
				const { events } = await sb().transcribe({
					title: 'Sent while n8n was down',
					text: SPOKEN,
					transcribeAfterMs: 0,
				});
				whileDown = events;
				sent.push(...events);
				// n8n starts again only once the service has seen it fail to answer
				await waitFor('failed first deliveries', () =>
					events.every((e) => attemptsFor(e.id).length > 0),
				);
			},
		});
		expect(whileDown.map((e) => e.eventType)).toEqual(EVENTS);
		await sb().idle();

		for (const event of whileDown) {
			const attempts = attemptsFor(event.id);
			expect(attempts[0].status).toBeUndefined();
			expect(attempts[0].error).toMatch(/ECONNREFUSED|connect/i);
			expect(is2xx(attempts[attempts.length - 1].status)).toBe(true);
			expect(attempts.filter((a) => is2xx(a.status))).toHaveLength(1);
		}
		const executions = await instance().waitForExecutions(trigger.workflowId, {
			count: sent.length,
		});
		const ids = executions.map(eventIdOf);
		for (const event of whileDown) expect(ids.filter((id) => id === event.id)).toHaveLength(1);
		expect(executions.every((e) => e.status === 'success')).toBe(true);
		// the transcribed one downloaded its files after the restart too
		const transcribed = executions.find((e) => eventIdOf(e) === whileDown[1].id)!;
		expect(Object.keys(outputOf(transcribed, RECEIVED_NODE)[0].binary ?? {}).sort()).toEqual([
			'google_stt',
			'vtt',
		]);
		await expectTriggerExecutionsExactly(sent);
	});

	it('keeps its one registration across the restart; an event it ran before runs again there, once', async () => {
		expect([...sb().endpoints.values()]).toEqual([
			expect.objectContaining({ id: trigger.endpointId, callbackUri: trigger.callbackUri }),
		]);
		const registrations = sb().requestLog.filter(
			(r) => r.method === 'POST' && r.path === '/webhook_endpoints',
		);
		expect(registrations).toHaveLength(1);
		expect(sb().requestLog.filter((r) => r.method === 'DELETE')).toEqual([]);

		// the restarted process never saw these events and the static data keeps no list (a delivery writes
		// nothing there): the window README states, closed by the queue-mode example's claim. Redelivered twice,
		// each runs once more, not twice: the claims of this process know it from its first start here
		const firstCreated = sent.find((e) => e.eventType === EVENTS[0])!;
		for (const event of [firstTranscribed!, firstCreated]) {
			for (let copy = 0; copy < 2; copy++) {
				expect(sb().redeliver(event.id)).toBe(true);
				await sb().idle();
			}
			expect(attemptsFor(event.id).every((a) => is2xx(a.status))).toBe(true);
			sent.push(event);
		}
		await expectTriggerExecutionsExactly(sent);
	});

	it('removes the endpoint at the service when the workflow is deactivated', async () => {
		await instance().api('POST', `/workflows/${trigger.workflowId}/deactivate`, {});
		await waitFor('the endpoint to be deleted', () => sb().endpoints.size === 0);
		expect(
			sb().requestLog.filter(
				(r) => r.method === 'DELETE' && r.path.startsWith('/webhook_endpoints/'),
			),
		).toEqual([
			expect.objectContaining({ path: `/webhook_endpoints/${trigger.endpointId}`, status: 204 }),
		]);
		// the service has nobody to tell any more
		const { events } = await sb().transcribe({ title: 'After deactivation' });
		expect(events).toEqual([]);
	});

	it('creates an endpoint and converts its captions to SRT with the Captioning node', async () => {
		const createPath = `captioning-create-${randomUUID()}`;
		const createWorkflowId = await createWebhookWorkflow(
			'Register endpoint',
			webhookNode(createPath),
			[
				{
					id: randomUUID(),
					name: 'Create Endpoint',
					type: ACTION_TYPE,
					typeVersion: 2,
					parameters: {
						resource: 'webhookEndpoint',
						operation: 'create',
						callbackUri: '={{ $json.body.callbackUri }}',
						events: ['transcription.transcribed'],
					},
					credentials: { captioningApi: credential },
				},
			],
		);
		const callbackUri = `${receiver!.url}/captions`;
		const created = await callWebhook(createPath, { callbackUri });
		const resource = created.body as { id: string; callback_uri: string; enabled_events: string[] };
		// one flat shape whatever the service's answer (JSON:API, flat, Location or empty)
		expect(resource).toMatchObject({
			callback_uri: callbackUri,
			enabled_events: ['transcription.transcribed'],
		});
		expect(sb().endpoints.get(resource.id)).toMatchObject({
			callbackUri,
			enabledEvents: ['transcription.transcribed'],
		});
		const [execution] = await instance().waitForExecutions(createWorkflowId);
		expect(execution.status).toBe('success');

		// the endpoint the node created is live: the service delivers the next transcription to it
		const { transcription } = await sb().transcribe({ title: 'Board meeting', text: SPOKEN });
		await sb().idle();
		expect(receiver!.received).toHaveLength(1);
		const delivered = JSON.parse(receiver!.received[0].body);
		expect(delivered.data.attributes.event_type).toBe('transcription.transcribed');
		const vttUrl: string = delivered.included[0].attributes.transcriptions.find(
			(t: { format: string }) => t.format === 'vtt',
		).url;

		const srtPath = `captioning-srt-${randomUUID()}`;
		const srtWorkflowId = await createWebhookWorkflow(
			'Captions to SRT',
			webhookNode(srtPath, {
				parameters: { responseData: 'firstEntryBinary', responseBinaryPropertyName: 'srt' },
			}),
			[
				{
					id: randomUUID(),
					name: 'Download VTT',
					type: ACTION_TYPE,
					typeVersion: 1,
					parameters: {
						resource: 'captionFile',
						operation: 'download',
						source: 'url',
						url: '={{ $json.body.url }}',
						format: 'vtt',
						binaryPropertyName: 'vtt',
						// the sandbox runs on this machine: a trusted file server the user lists
						options: { allowedHosts: new URL(sb().url).host },
					},
				},
				{
					id: randomUUID(),
					name: 'Convert to SRT',
					type: ACTION_TYPE,
					typeVersion: 1,
					parameters: {
						resource: 'captionFile',
						operation: 'convert',
						binaryPropertyName: 'vtt',
						from: 'auto',
						to: 'srt',
						outputBinaryPropertyName: 'srt',
						options: {},
					},
				},
			],
		);
		const answer = await callWebhook(srtPath, { url: vttUrl });
		const vtt = transcription.files.vtt.content;
		const expected = convertCaptions({ from: 'vtt', to: 'srt', content: vtt }).content;
		expect(answer.headers.get('content-type')).toMatch(/^application\/x-subrip/);
		expect(answer.body).toBe(expected);
		expect(answer.body).toMatch(/^1\r?\n00:00:00,\d{3} --> 00:00:\d\d,\d{3}\r?\nCaptions arrive/);

		const [converted] = await instance().waitForExecutions(srtWorkflowId);
		expect(converted.status).toBe('success');
		const [item] = outputOf(converted, 'Convert to SRT');
		expect(item.binary.vtt).toMatchObject({ mimeType: 'text/vtt', fileName: 'board-meeting.vtt' });
		expect(item.binary.srt).toMatchObject({
			mimeType: 'application/x-subrip',
			fileName: 'board-meeting.srt',
		});
	});

	it("offers the Captioning API credential for the service's other calls: in the HTTP Request node, the Accept header and the bearer filled in, and the Captioning node's Custom API Call", async () => {
		// what the editor reads: the HTTP Request node lists a credential type with `authenticate` (n8n serialises
		// a function as {})
		const credentialTypes = await instance().requestAsOwner('GET', '/types/credentials.json');
		const type = (credentialTypes.body as Array<Record<string, unknown>>).find(
			(t) => t.name === 'captioningApi',
		);
		expect(type).toMatchObject({ authenticate: {} });
		// the HTTP Request node made from the credential, which n8n keeps out of the nodes panel because the
		// package's nodes use the credential (docs/design.md, "Custom API calls")
		expect(type!.httpRequestNode).toEqual({
			name: 'Captioning',
			docsUrl: expect.stringMatching(/\/docs\/credentials\.md#in-n8ns-http-request-node$/),
			apiBaseUrlPlaceholder: 'https://api.example.com/',
			hidden: true,
		});
		// n8n adds its Custom API Call to Resource and every Operation of a node whose credential authenticates
		const nodeTypes = await instance().requestAsOwner('GET', '/types/nodes.json');
		const captioning = (
			nodeTypes.body as Array<{
				name: string;
				properties: Array<{ name: string; options?: Array<{ name: string; value: unknown }> }>;
			}>
		).find((t) => t.name === ACTION_TYPE)!;
		const lists = captioning.properties.filter((p) => ['resource', 'operation'].includes(p.name));
		expect(lists.map((p) => p.options!.at(-1))).toEqual(
			lists.map(() => ({ name: 'Custom API Call', value: '__CUSTOM_API_CALL__' })),
		);

		// the worked example's second step (docs/credentials.md): a JSON POST to a path the contract does not
		// publish, here answered by a local stand-in for it; a credential of its own (the second account's, so that
		// no other credential's call shares its grant), with no token yet
		const own = await createSandboxCredential(instance(), sb(), 'Captioning for a custom call', {
			client: SECOND_CLIENT,
		});
		const path = `captioning-custom-${randomUUID()}`;
		const startTranscription = captioningHttpRequestNode(
			'Start Transcription',
			`${receiver!.url}/transcriptions`,
			{ id: own.id, name: own.name },
			{
				method: 'POST',
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={{ JSON.stringify({ media_id: $json.body.mediaId }) }}',
				options: {},
			},
		);
		// as the editor saves the credential's own HTTP Request node, through the editor's API (the public API
		// refuses `extendsCredential`)
		const created = (await instance().rest('POST', '/workflows', {
			...linearWorkflow('Custom API call', [
				webhookNode(path),
				{ ...startTranscription, extendsCredential: CREDENTIAL_TYPE },
			]),
			active: false,
		})) as { id: string };
		await instance().activateWorkflow(created.id);
		await callWebhook(path, { mediaId: 'media-1' });
		const [call] = receiver!.received.filter((r) => r.path === '/transcriptions');
		expect(call).toMatchObject({ method: 'POST', body: '{"media_id":"media-1"}' });
		expect(call.headers.accept).toBe(sb().mediaType);
		expect(call.headers.authorization).toMatch(/^Bearer \S+$/);
		// the bearer is a token the service issued and still honours
		expect(sb().tokens.checkBearer(call.headers.authorization)).toMatchObject({ ok: true });
	});

	it("lets n8n's HTTP Request node call the API with the Captioning credential", async () => {
		// a credential of its own, with no token yet: the first call has to obtain one
		const fresh = await captioningCredential('Captioning for HTTP Request');
		const path = `captioning-http-${randomUUID()}`;
		const workflowId = await createWebhookWorkflow('List endpoints', webhookNode(path), [
			captioningHttpRequestNode('HTTP Request', `${sb().url}/webhook_endpoints`, {
				id: fresh.id,
				name: fresh.name,
			}),
		]);
		const listed = (body: unknown) =>
			(body as { data: Array<{ id: string; attributes: { callback_uri: string } }> }).data;

		// what each request was and how it ended (not when it came, nor from which client)
		const requestsSince = (at: number) =>
			sb()
				.requestLog.slice(at)
				.map((request) =>
					Object.fromEntries(
						Object.entries(request).filter(([key]) => key !== 'at' && key !== 'clientId'),
					),
				);
		let from = sb().requestLog.length;
		const first = await callWebhook(path, {});
		expect(listed(first.body).map((e) => e.attributes.callback_uri)).toEqual([
			`${receiver!.url}/captions`,
		]);
		expect(requestsSince(from)).toEqual([
			{
				method: 'POST',
				path: '/oauth/token',
				grantType: 'assertion',
				status: 200,
				issuedRefreshSerial: expect.any(Number),
			},
			{ method: 'GET', path: '/webhook_endpoints', status: 200 },
		]);

		// two hours later the token has expired: n8n renews it through the credential and retries once
		sb().advanceClock(7_200 + 60);
		from = sb().requestLog.length;
		const second = await callWebhook(path, {});
		expect(listed(second.body)).toHaveLength(1);
		expect(requestsSince(from)).toEqual([
			{ method: 'GET', path: '/webhook_endpoints', status: 401 },
			{
				method: 'POST',
				path: '/oauth/token',
				grantType: 'refresh_token',
				status: 200,
				refreshSerial: expect.any(Number),
				issuedRefreshSerial: expect.any(Number),
			},
			{ method: 'GET', path: '/webhook_endpoints', status: 200 },
		]);
		const executions = await instance().waitForExecutions(workflowId, { count: 2 });
		expect(executions.every((e) => e.status === 'success')).toBe(true);
	});

	it('a credential switched to another account: re-activation registers one endpoint there, deletes nothing at the old, whose deliveries are refused (401)', async () => {
		const own = await captioningCredential('Captioning, account switched');
		const webhookId = randomUUID();
		const url = `${instance().webhookBaseUrl}/${webhookId}/webhook`;
		const created = await instance().createWorkflow(
			triggerWorkflow({
				name: 'Account switch',
				webhookId,
				credential: { id: own.id, name: own.name },
				parameters: { registration: 'api', events: EVENTS, options: {} },
			}),
		);
		const mine = () =>
			[...sb().endpoints.values()].filter((e) => e.callbackUri.startsWith(`${url}?token=`));
		await instance().activateWorkflow(created.id);
		const [old] = mine();
		expect(old.clientId).toBe(DEFAULT_CLIENT.clientId);

		// the user points the credential at the other account, as the editor saves an edit (hidden fields kept)
		await instance().api('PATCH', `/credentials/${own.id}`, {
			data: {
				clientId: SECOND_CLIENT.clientId,
				clientSecret: SECOND_CLIENT.clientSecret,
				assertion: SECOND_CLIENT.assertions[0],
			},
			isPartialData: true,
		});
		const from = sb().requestLog.length;
		const logFrom = instance().logs().length;
		await instance().deactivateWorkflow(created.id);
		await instance().activateWorkflow(created.id);

		const now = mine();
		expect(now).toHaveLength(2);
		const current = now.find((e) => e.id !== old.id)!;
		expect(current.clientId).toBe(SECOND_CLIENT.clientId);
		// nothing deleted at either account; the old endpoint is as it was
		expect(sb().endpoints.get(old.id)).toEqual(old);
		const calls = sb().requestLog.slice(from);
		expect(calls.filter((r) => r.method === 'DELETE')).toEqual([]);
		// the saved tokens were the old account's: n8n ran preAuthentication before the first call, not after a 401
		expect(calls[0]).toMatchObject({ path: '/oauth/token', grantType: 'assertion', status: 200 });
		expect(calls.filter((r) => r.status === 401)).toEqual([]);
		// n8n's log says which endpoint to delete in the old account's dashboard
		const log = instance().logs().slice(logFrom);
		const warning = log.split('\n').find((line) => line.includes('another account'));
		expect(warning).toContain(`The webhook endpoint ${old.id} that delivers to ${url}`);
		expect(warning).toContain("delete it in that account's developers dashboard");

		// both endpoints hear of a transcription: the old one's token is no longer this trigger's
		const { events } = await sb().transcribe({ title: 'After the switch', text: SPOKEN });
		const to = (id: string) => events.filter((e) => e.endpointId === id).map((e) => e.id);
		expect(to(old.id)).toHaveLength(2);
		await waitFor('the old endpoint’s deliveries to be answered', () =>
			to(old.id).every(
				(id) => attemptsFor(id).length > 0 && attemptsFor(id)[0].status !== undefined,
			),
		);
		for (const id of to(old.id)) expect(attemptsFor(id)[0].status).toBe(401);
		const executions = await instance().waitForExecutions(created.id, { count: 2 });
		expect(executions.map(eventIdOf).sort()).toEqual([...to(current.id)].sort());
		for (const id of to(current.id)) expect(attemptsFor(id).map((a) => a.status)).toEqual([200]);

		await instance().deactivateWorkflow(created.id);
		expect(mine()).toEqual([old]);
	});

	it('a new manual trigger (typeVersion 3) cannot be published without its Webhook Secret; with it, it refuses a delivery without the Secret Token (401) and starts one with it', async () => {
		const webhookId = randomUUID();
		const url = `${instance().webhookBaseUrl}/${webhookId}/webhook`;
		const manualTrigger = (secretCredential?: { id: string; name: string }) => {
			const workflow = triggerWorkflow({
				name: 'Manual, new',
				webhookId,
				credential,
				parameters: {
					registration: 'manual',
					events: EVENTS,
					options: { downloadFormats: ['vtt'] },
				},
			});
			const [trigger] = workflow.nodes as Array<Record<string, unknown>>;
			trigger.credentials = secretCredential
				? { captioningWebhookSecretApi: secretCredential }
				: {};
			return workflow;
		};
		const created = await instance().createWorkflow(manualTrigger());
		// n8n 2.41 refuses itself (a required credential is missing); the trigger would say so next
		await expect(instance().activateWorkflow(created.id)).rejects.toThrow(
			/Webhook Secret|captioningWebhookSecretApi|This trigger has no Secret Token\./,
		);
		const secret = await instance().createCredential(
			'Webhook Secret',
			'captioningWebhookSecretApi',
			{
				secretToken: MANUAL_SECRET,
			},
		);
		await instance().api('PUT', `/workflows/${created.id}`, manualTrigger(secret));
		await instance().activateWorkflow(created.id);
		const body = sampleEvent({ id: randomUUID(), eventType: 'transcription.created' });
		for (const to of [url, `${url}?token=guess`]) {
			const refused = await instance().request('POST', to, { body });
			expect(refused.status).toBe(401);
		}
		const accepted = await instance().request('POST', `${url}?token=${MANUAL_SECRET}`, { body });
		expect(accepted.status).toBe(200);
		const [execution] = await instance().waitForExecutions(created.id);
		expect(outputOf(execution, TRIGGER_NODE)[0].json).toMatchObject({
			eventId: body.data.id,
			eventType: 'transcription.created',
		});
		await instance().deactivateWorkflow(created.id);
	});

	it('a manual trigger saved by 0.1.0 (typeVersion 1, no Secret Token) still runs, downloads nothing, and warns in n8n’s log at every publication', async () => {
		const webhookId = randomUUID();
		const url = `${instance().webhookBaseUrl}/${webhookId}/webhook`;
		const saved = triggerWorkflow({
			name: 'Manual, saved by 0.1.0',
			webhookId,
			credential,
			parameters: {
				registration: 'manual',
				events: EVENTS,
				options: { downloadFormats: ['vtt', 'google_stt'] },
			},
		});
		(saved.nodes as Array<{ typeVersion: number }>)[0].typeVersion = 1;
		const created = await instance().createWorkflow(saved);
		const logFrom = instance().logs().length;
		await instance().activateWorkflow(created.id);
		await instance().deactivateWorkflow(created.id);
		await instance().activateWorkflow(created.id);
		const warnings = instance()
			.logs()
			.slice(logFrom)
			.split('\n')
			.filter((line) => line.includes('has no Secret Token'));
		expect(warnings).toHaveLength(2);
		for (const line of warnings) {
			expect(line).toMatch(
				/\| warn +\| Captioning Trigger "Captioning Trigger": This trigger has no Secret Token: any request to its URL starts the workflow, and Download Caption Files is skipped\./,
			);
		}
		// anyone may send it: a forged event naming loopback addresses (a "metadata" service) fetches nothing
		const body = sampleEvent({ id: randomUUID() });
		const metadata = `${receiver!.url}/latest/meta-data/iam/security-credentials/`;
		body.included[0].attributes.transcriptions = [
			{ format: 'vtt', url: metadata },
			{ format: 'google_stt', url: 'http://127.0.0.1:9/a.json' },
		];
		const receivedBefore = receiver!.received.length;
		const res = await instance().request('POST', url, { body });
		expect(res.status).toBe(200);
		const [execution] = await instance().waitForExecutions(created.id);
		expect(receiver!.received.length).toBe(receivedBefore);
		expect(execution.status).toBe('success');
		const [item] = outputOf(execution, RECEIVED_NODE);
		expect(item.binary).toBeUndefined();
		expect(item.json.downloadErrors).toHaveLength(2);
		expect(item.json.downloadErrors).toEqual(
			expect.arrayContaining(
				['vtt', 'google_stt'].map((format) =>
					expect.objectContaining({
						format,
						message: expect.stringMatching(
							new RegExp(
								`^The ${format} file was not downloaded: this trigger has no Secret Token`,
							),
						),
					}),
				),
			),
		);
		await instance().deactivateWorkflow(created.id);
	});

	it('an automatic registration saved by 0.1.0 (token in the query, the plain token in static data) keeps receiving events after the upgrade', async () => {
		// the service has nobody else to tell: earlier tests' endpoints would only slow the deliveries down
		sb().endpoints.clear();
		const webhookId = randomUUID();
		const url = `${instance().webhookBaseUrl}/${webhookId}/webhook`;
		const saved = triggerWorkflow({
			name: 'Registered by 0.1.0',
			webhookId,
			credential,
			parameters: { registration: 'api', events: EVENTS, options: {} },
		});
		(saved.nodes as Array<{ typeVersion: number }>)[0].typeVersion = 1;
		const created = await instance().createWorkflow(saved);
		await instance().activateWorkflow(created.id);
		const [endpoint] = [...sb().endpoints.values()];
		// what 0.1.0 registered and saved: its own token in the query, the plain token in the static data
		const legacyToken = randomBytes(24).toString('base64url');
		legacySecrets.push(legacyToken);
		await instance().restart({
			whileStopped: async () => {
				endpoint.callbackUri = `${url}?token=${legacyToken}`;
				const db = new DatabaseSync(join(instance().userFolder, '.n8n', 'database.sqlite'));
				try {
					const staticData = {
						[`node:${TRIGGER_NODE}`]: {
							registration: {
								endpointId: endpoint.id,
								webhookUrl: url,
								events: EVENTS,
								token: legacyToken,
							},
						},
					};
					const changed = db
						.prepare('UPDATE workflow_entity SET staticData = ? WHERE id = ?')
						.run(JSON.stringify(staticData), created.id);
					expect(changed.changes).toBe(1);
				} finally {
					db.close();
				}
			},
		});
		const { events } = await sb().transcribe({ title: 'After the upgrade', text: SPOKEN });
		await sb().idle();
		expect(events.map((e) => e.endpointId)).toEqual([endpoint.id, endpoint.id]);
		for (const event of events) expect(attemptsFor(event.id).map((a) => a.status)).toEqual([200]);
		const executions = await instance().waitForExecutions(created.id, { count: 2 });
		expect(executions.map(eventIdOf).sort()).toEqual(events.map((e) => e.id).sort());
		expect(JSON.stringify(executions)).not.toContain(legacyToken);
		// unpublishing finds the endpoint by the hash of 0.1.0's token, and deletes it
		await instance().deactivateWorkflow(created.id);
		expect(sb().endpoints.has(endpoint.id)).toBe(false);
	});

	it('never shows a secret or token in execution data or in n8n logs', async () => {
		const issued = sb().tokens.issuedSecrets();
		// two credentials' assertion grants and one refresh: every token n8n ever held
		expect(issued.length).toBeGreaterThanOrEqual(6);
		// the trigger's callback token as well: whoever has it can start the workflow
		const callbackToken = new URL(trigger.callbackUri).searchParams.get('token') ?? '';
		expect(callbackToken).not.toBe('');
		const secrets = [
			MANUAL_SECRET,
			...legacySecrets,
			DEFAULT_CLIENT.clientSecret,
			DEFAULT_CLIENT.assertions[0],
			SECOND_CLIENT.clientSecret,
			SECOND_CLIENT.assertions[0],
			callbackToken,
			...issued,
		];

		const executions = await listExecutions(instance(), { includeData: true });
		expect(executions.length).toBeGreaterThanOrEqual(sent.length);
		const executionText = JSON.stringify(executions);
		const logs = instance().logs();
		// the scan reads the right material: the executions talked to the service, the logs saw the trigger
		expect(executionText).toContain(sb().url);
		expect(logs).toContain(trigger.webhookId);

		const found = (text: string) =>
			secrets.flatMap((secret) =>
				[secret, encodeURIComponent(secret)].filter((form) => text.includes(form)),
			);
		expect(found(executionText)).toEqual([]);
		expect(found(logs)).toEqual([]);
	});
});
