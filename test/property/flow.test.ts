// The same oracle through the real flow: n8n-core's real request helpers, preAuthentication and the credential's
// authenticate, the package's transport and list reading, against a loopback service that answers each run's
// mutated token answer and list page, and serves the list only to the bearer token its token answer issued.
// Fewer runs than answers.test.ts: each is real HTTP.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import fc from 'fast-check';
import { NodeApiError } from 'n8n-workflow';

import { listEndpoints } from '../../nodes/Captioning/transport/webhookEndpoints';
import { createHarness } from '../helpers/n8nContext';
import {
	type Answer,
	apply,
	asHeaders,
	describeMutation,
	type Json,
	type Mutation,
	mutationArbitrary,
} from './mutations';
import { classify, judge, newTally, type Oracle, type Outcome, tallyLine } from './oracle';

const RUNS = 250;
const SECRET = 'cs-flow-secret-0001';
const ASSERTION = 'as-flow-assertion-0002';
const ACCESS = 'at-flow-access';
const CALLBACK_TOKEN = 'FlowCallbackToken0123456789abcdef';

let server: Server;
let baseUrl = '';
/** What the loopback service answers now. */
let answers: { token: Answer; list: Answer };
/** Requests the service refused for want of the bearer its token answer issued. */
let refused = 0;
const tallies = { token: newTally(), list: newTally() };

/** The bearer the current token answer issued, as the service checks it: none when it issued none. */
function issued(): string | undefined {
	const token = (answers.token.body as Record<string, Json> | null)?.access_token;
	return typeof token === 'string' && token.trim() !== '' ? token : undefined;
}

beforeAll(async () => {
	server = createServer((req, res) => {
		req.resume();
		const path = (req.url ?? '').split('?')[0];
		const bearer = issued();
		if (path !== '/oauth/token' && (!bearer || req.headers.authorization !== `Bearer ${bearer}`)) {
			refused++;
			res.writeHead(401, {
				'content-type': 'application/vnd.api+json',
				'www-authenticate': 'Bearer error="invalid_token"',
			});
			res.end(JSON.stringify({ errors: [{ status: '401', title: 'invalid token' }] }));
			return;
		}
		const answer: Answer =
			path === '/oauth/token'
				? answers.token
				: (req.url ?? '').includes('page%5Bnumber%5D=2')
					? { headers: {}, body: { data: [] } }
					: answers.list;
		const headers = asHeaders(answer.headers);
		res.writeHead(200, { ...headers, 'content-type': 'application/json' });
		res.end(JSON.stringify(answer.body));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
	process.stdout.write(
		[
			"Mutations through n8n-core's real helpers (test/property/flow.test.ts), judged against the list written by hand:",
			tallyLine('token answer', tallies.token),
			tallyLine('list page', tallies.list),
			'',
		].join('\n'),
	);
});

const tokenAnswer = (): Answer => ({
	headers: { 'cache-control': 'no-store' },
	body: {
		access_token: ACCESS,
		token_type: 'Bearer',
		expires_in: 3600,
		refresh_token: 'rt-flow-refresh',
		scope: 'write_transcriptions write_media',
		created_at: 1_767_225_600,
	},
});

const callbackUri = (id: string) =>
	`https://n8n.example.com/webhook/${id}/webhook?token=${CALLBACK_TOKEN}`;
const endpoint = (id: string): Json => ({
	id,
	type: 'webhook_endpoint',
	attributes: {
		callback_uri: callbackUri(id),
		enabled_events: ['transcription.transcribed'],
		created_at: '2026-01-01T00:00:00.000Z',
	},
	links: { self: `${baseUrl}/webhook_endpoints/${id}` },
});
const listAnswer = (): Answer => ({
	headers: { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19', 'x-ratelimit-reset': '1' },
	body: {
		data: [endpoint('11'), endpoint('12')],
		links: { next: `${baseUrl}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=2` },
	},
});

/** Both pages of the list, as written by hand. */
const LIST = { ids: ['11', '12'], callbackUris: [callbackUri('11'), callbackUri('12')] };

let client = 0;

/** One execution's GET /webhook_endpoints, every page, on a credential of its own. */
async function listOnce(): Promise<Outcome> {
	client++;
	const h = createHarness({
		baseUrl,
		clientId: `flow-client-${client}`,
		clientSecret: SECRET,
		assertion: ASSERTION,
		mediaType: 'application/vnd.service.v1',
	});
	const ctx = h.executeContext(h.makeNode('credentialProbe'), [{ json: {} }]);
	try {
		const list = await listEndpoints(ctx);
		if (!list.supported) return { ok: false, message: 'the list is not offered' };
		return {
			ok: true,
			value: {
				ids: list.endpoints.map((e) => e.id),
				callbackUris: list.endpoints.map((e) => e.callback_uri),
			},
			warnings: [list.incomplete, list.skipped].filter((w): w is string => w !== undefined),
		};
	} catch (error) {
		if (!(error instanceof NodeApiError)) throw error;
		const text = JSON.stringify({ m: error.message, d: error.description, r: error.errorResponse });
		for (const secret of [SECRET, ASSERTION]) expect(text).not.toContain(secret);
		return { ok: false, message: `${error.message} — ${error.description ?? ''}` };
	}
}

function property(which: 'token' | 'list', used: string[], oracle: Oracle) {
	return async () => {
		answers = { token: tokenAnswer(), list: listAnswer() };
		expect(await listOnce()).toEqual({ ok: true, value: LIST, warnings: [] });
		const original = answers[which];
		const tally = tallies[which];
		await fc.assert(
			fc.asyncProperty(mutationArbitrary(original), async (m: Mutation) => {
				const mutated = apply(original, m);
				if (!mutated) return;
				tally.mutations++;
				const kind = classify([m], used, oracle, original, mutated);
				if (kind === 'value') {
					tally.values++;
					return;
				}
				answers = { token: tokenAnswer(), list: listAnswer(), [which]: mutated };
				const outcome = await listOnce();
				const what = `${which}: ${describeMutation(m)} (${kind})`;
				try {
					tally[judge(oracle, outcome, kind, what, { mutation: m, used })]++;
				} catch (error) {
					tally.other++;
					throw error;
				}
			}),
			{ numRuns: RUNS, seed: 29 },
		);
	};
}

test('the loopback service serves the list only to the bearer its token answer issued', async () => {
	answers = { token: tokenAnswer(), list: listAnswer() };
	const before = refused;
	const get = (authorization?: string) =>
		fetch(`${baseUrl}/webhook_endpoints`, { headers: authorization ? { authorization } : {} });
	expect((await get()).status).toBe(401);
	expect((await get('Bearer at-another-token')).status).toBe(401);
	expect((await get(`Bearer ${ACCESS}`)).status).toBe(200);
	expect(refused - before).toBe(2);
});

test(
	'a mutated token answer: the same list where it still issues the token, else a failure that names it',
	property(
		'token',
		[
			'body.access_token',
			'body.expires_in',
			'body.refresh_token',
			'body.error',
			'body.error_description',
		],
		{ expected: LIST, words: /access_token|token response|refused the assertion grant/ },
	),
	30_000,
);

test(
	'a mutated list page: the list written by hand where it means the same, else each change named',
	property(
		'list',
		[
			'body.data',
			'body.data.*.id',
			'body.data.*.attributes',
			'body.data.*.attributes.callback_uri',
			'body.data.*.attributes.enabled_events',
			'body.data.*.callback_uri',
			'body.data.*.enabled_events',
			'body.links.next',
			'body.links.next.href',
			'headers.link',
			'headers.x-ratelimit-remaining',
			'headers.x-ratelimit-reset',
		],
		{
			expected: LIST,
			optional: ['ids'],
			fields: { ids: /not a webhook endpoint/, callbackUris: /not a webhook endpoint/ },
			lists: ['body.data'],
			words: /not a list of webhook endpoints|data/,
		},
	),
	30_000,
);
