// The value oracle through the real flow (issue 39, item 5): answers and deliveries built from generated values
// (valueShapes.ts), served by a loopback service over real HTTP, and read by the nodes as n8n runs them: the action
// node's Create and Get in n8n-core's ExecuteContext with its real request helpers and credential, a refused
// Create's error, and the trigger's webhook() in n8n-core's WebhookContext with Download Caption Files and Raw Body
// on or off, the body read by n8n first (the types it parses, both lines) or by the trigger. Each outcome must be
// what model.ts computes. Fewer runs than values.test.ts: each is real HTTP.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';

import { Captioning } from '../../nodes/Captioning/Captioning.node';
import { CaptioningTrigger } from '../../nodes/Captioning/CaptioningTrigger.node';
import { hashToken } from '../../nodes/Captioning/trigger/token';
import { createHarness, type Harness } from '../helpers/n8nContext';
import { startWebhookServer, type WebhookServer } from '../helpers/webhookServer';
import { httpDate } from './generate';
import { jsonText, type Wire } from './jsonText';
import { judgeValues, newValueTally, type ValueTally, valueTallyLine } from './oracle';
import {
	createCase,
	createValues,
	DELIVERY_NAMES,
	deliveryCase,
	deliveryOutcome,
	DISPOSITION,
	ENDPOINT_NAMES,
	errorCase,
	errorValues,
	eventValues,
	itemOutcome,
	LIST_NAMES,
	listCase,
	listOutcome,
	listValues,
	type Prediction,
	readCase,
	readValues,
	servedFile,
} from './valueShapes';
import type { Outcome } from './oracle';

const RUNS = Number(process.env.CAPTIONING_PROPERTY_FLOW_RUNS ?? 40);
const SEED = 39;
const SERVICE = 'https://api.example.com';
const EVENTS = ['transcription.created', 'transcription.transcribed'];

interface Served {
	status: number;
	headers: Record<string, string | string[]>;
	body: string;
}

let server: Server;
let base = '';
/** What the loopback service answers next, and the paths it was asked. */
let answer: (path: string) => Served = () => ({ status: 500, headers: {}, body: '' });
const asked: string[] = [];
const tallies = new Map<string, ValueTally>();
const captioning = new Captioning();
const trigger = new CaptioningTrigger();

beforeAll(async () => {
	server = createServer((req, res) => {
		req.resume();
		const path = req.url ?? '/';
		asked.push(`${req.method} ${path}`);
		const served =
			path.split('?')[0] === '/oauth/token'
				? {
						status: 200,
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ access_token: 'at-flow-values', expires_in: 3600 }),
					}
				: answer(path);
		res.writeHead(served.status, served.headers);
		res.end(served.body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
	process.stdout.write(
		[
			"Generated answers through n8n-core's real helpers and contexts (test/property/flowValues.test.ts):",
			...[...tallies].map(([name, t]) => valueTallyLine(name, t)),
			'',
		].join('\n'),
	);
});

let clients = 0;
const harness = () =>
	createHarness(
		{
			baseUrl: base,
			clientId: `flow-values-${++clients}`,
			clientSecret: 'cs-flow-values',
			assertion: 'as-flow-values',
			mediaType: 'application/vnd.service.v1',
		},
		{ captioning, captioningTrigger: trigger },
	);

/** Text as the loopback service writes it: the service's address is the loopback's. */
const local = (text: string) => text.split(SERVICE).join(base);
const localValue = <T>(value: T): T => JSON.parse(local(JSON.stringify(value))) as T;

async function runAction(h: Harness, parameters: INodeParameters): Promise<Outcome> {
	const ctx = h.executeContext(h.makeNode('captioning', parameters), [{ json: {} }]);
	try {
		const [[item]] = await captioning.execute.call(ctx);
		return itemOutcome(item.json);
	} catch (error) {
		const { message, description } = error as { message: string; description?: string };
		return { ok: false, message: [message, description].filter(Boolean).join(' — ') };
	}
}

function judged(name: string, names: Record<string, RegExp>) {
	const tally = newValueTally();
	tallies.set(name, tally);
	return (predicted: Prediction, outcome: Outcome) => {
		tally.answers++;
		if (JSON.stringify(outcome).includes('Cb7okenValueSuite')) {
			throw new Error(`${name}: the callback token shows in ${JSON.stringify(outcome)}`);
		}
		try {
			tally[judgeValues(predicted, outcome, names, name)]++;
		} catch (error) {
			tally.other++;
			throw error;
		}
	};
}

test('Create through the real helpers: the echo as stored, the rest said', async () => {
	const judge = judged('create answer (Create in ExecuteContext)', ENDPOINT_NAMES);
	await fc.assert(
		fc.asyncProperty(createValues, async (v) => {
			const c = createCase(v, SERVICE);
			const { status, headers, body } = c.answer;
			answer = () => ({
				status,
				headers: localValue(headers),
				body: body === undefined || typeof body === 'symbol' ? '' : local(jsonText(body)),
			});
			const outcome = await runAction(harness(), {
				resource: 'webhookEndpoint',
				operation: 'create',
				callbackUri: c.sent.callbackUri,
				events: c.sent.events,
			});
			judge(localValue(c.predicted), outcome);
		}),
		{ numRuns: RUNS, seed: SEED },
	);
});

test('Get through the real helpers: the id asked in the path, verbatim; the record as stored', async () => {
	const judge = judged('item read (Get in ExecuteContext)', ENDPOINT_NAMES);
	// the node trims what the user typed as an id; a service's id is never padded with white space
	const values = readValues.filter((v) => {
		const id = readCase(v).asked;
		return id.trim() === id;
	});
	await fc.assert(
		fc.asyncProperty(values, async (v) => {
			const c = readCase(v);
			const path = `/webhook_endpoints/${encodeURIComponent(c.asked)}`;
			answer = (p): Served =>
				p === path
					? {
							status: 200,
							headers: { 'content-type': 'application/json' },
							body: jsonText(c.answer.body),
						}
					: { status: 404, headers: {}, body: '' };
			const outcome = await runAction(harness(), {
				resource: 'webhookEndpoint',
				operation: 'get',
				endpointId: { __rl: true, mode: 'id', value: c.asked },
			});
			// a read the service could not answer: the error names what the body lacks
			judge(c.predicted.ok ? c.predicted : { ok: false, names: /callback_uri/ }, outcome);
		}),
		{ numRuns: RUNS, seed: SEED },
	);
});

test("a refused Create through the real helpers: the service's words, every error's, without the token", async () => {
	const judge = judged('JSON:API error document (Create refused, 422)', {});
	await fc.assert(
		fc.asyncProperty(errorValues, async (v) => {
			const c = errorCase(v);
			answer = () => ({
				status: c.answer.status,
				headers: c.answer.headers,
				body: jsonText(c.answer.body),
			});
			const outcome = await runAction(harness(), {
				resource: 'webhookEndpoint',
				operation: 'create',
				callbackUri: c.callbackUri,
				events: ['transcription.transcribed'],
			});
			judge(c.predicted, outcome);
		}),
		{ numRuns: RUNS, seed: SEED },
	);
});

test('Get Many through the real helpers: every endpoint as stored, the next page followed, what is no endpoint said', async () => {
	const judge = judged('list page (Get Many in ExecuteContext)', LIST_NAMES);
	await fc.assert(
		fc.asyncProperty(listValues, async (v) => {
			const c = listCase(v);
			const pages: string[] = [];
			answer = (path) => {
				pages.push(path);
				const first = pages.length === 1;
				return {
					status: 200,
					headers: {
						'content-type': 'application/json',
						...(first ? localValue(c.first.headers) : {}),
					},
					body: first ? local(jsonText(c.first.body)) : '{"data":[]}',
				};
			};
			const h = harness();
			const ctx = h.executeContext(
				h.makeNode('captioning', {
					resource: 'webhookEndpoint',
					operation: 'getAll',
					returnAll: true,
				}),
				[{ json: {} }],
			);
			const [items] = await captioning.execute.call(ctx);
			const hints = (ctx as unknown as { hints: Array<{ message: string }> }).hints;
			const outcome = listOutcome(
				items.map((i) => i.json),
				hints.map((hint) => hint.message),
				pages[1],
			);
			judge(c.predicted, outcome);
		}),
		{ numRuns: RUNS, seed: SEED },
	);
});

test('a rate-limited Create through the real helpers: a wait beyond the budget, in seconds or as a date, named', async () => {
	const judge = judged('rate-limit headers (Create answered 429)', {});
	const waits = fc.tuple(
		fc.integer({ min: 61, max: 3600 }),
		fc.constantFrom('seconds', 'imf', 'rfc850', 'asctime'),
	);
	await fc.assert(
		fc.asyncProperty(waits, async ([seconds, form]) => {
			const retryAfter =
				form === 'seconds' ? String(seconds) : httpDate(Date.now() + seconds * 1000, form as never);
			answer = () => ({
				status: 429,
				headers: { 'content-type': 'application/json', 'retry-after': retryAfter },
				body: '{"errors":[{"status":"429","title":"rate limited"}]}',
			});
			const outcome = await runAction(harness(), {
				resource: 'webhookEndpoint',
				operation: 'create',
				callbackUri: 'https://n8n.example.com/webhook/a/webhook',
				events: ['transcription.transcribed'],
			});
			// a date is whole seconds: the wait it names is at most one less
			const named = form === 'seconds' ? `${seconds}` : `(?:${seconds}|${seconds - 1})`;
			judge({ ok: false, names: new RegExp(`rate limit.*\\b${named} s\\b`) }, outcome);
		}),
		{ numRuns: Math.min(RUNS, 20), seed: SEED },
	);
});

describe('deliveries through webhook() in the real WebhookContext', () => {
	let h: Harness;
	let hook: WebhookServer | undefined;

	afterEach(async () => await hook?.close());

	test('each delivery as the model reads it, its files fetched, once; with the body read by n8n or by the trigger', async () => {
		const judge = judged('webhook event (webhook() in WebhookContext)', DELIVERY_NAMES);
		await fc.assert(
			fc.asyncProperty(eventValues, fc.boolean(), async (v, readByN8n) => {
				const c = deliveryCase(v);
				answer = (path) => {
					const file = servedFile(path);
					return {
						status: 200,
						headers: {
							'content-type': 'application/octet-stream',
							...(v.disposition ? { 'content-disposition': DISPOSITION } : {}),
						},
						body: file.body,
					};
				};
				h = harness();
				const node = h.makeNode(
					'captioningTrigger',
					{ registration: 'api', events: EVENTS, options: c.options },
					'Captioning Trigger',
				);
				node.typeVersion = 3;
				// the claims of this process are per workflow and node: each run is a trigger of its own
				node.id = `flow-values-trigger-${clients}`;
				await hook?.close();
				hook = await startWebhookServer(
					h,
					trigger,
					node,
					{ registration: { webhookUrl: 'x', events: EVENTS, tokenHash: hashToken(c.token) } },
					0,
					{ bodyReadByN8n: readByN8n },
				);
				const url = `${hook.baseUrl}/webhook/${node.webhookId}/webhook?token=${c.token}`;
				const post = (body: Wire) =>
					fetch(url, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: local(jsonText(body)),
					});
				const first = await post(c.wire);
				const again = await post(c.wire);
				const other = await post(c.other);
				const statuses = [first.status, again.status, other.status];
				const duplicate = ((await again.json()) as { duplicate?: boolean }).duplicate;
				const executions = hook.executions.length;
				if (!executions) throw new Error(`no execution: ${statuses} ${await first.text()}`);
				const outcome = deliveryOutcome(hook.executions[0].items[0], v.rawBody);
				if (outcome.ok) outcome.value.once = { statuses, duplicate, executions };
				const predicted = localValue(c.predicted);
				predicted.value.once = { statuses: [200, 200, 200], duplicate: true, executions: 2 };
				judge(predicted, outcome);
			}),
			{ numRuns: RUNS, seed: SEED },
		);
	});
});
