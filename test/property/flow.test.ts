// The same property through the real flow: n8n-core's real request helpers, preAuthentication and the
// credential's authenticate, the package's transport and list reading, against a loopback service that answers
// each run's mutated token answer and list page. Fewer runs than answers.test.ts: each is real HTTP.
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
	touchesUsed,
} from './mutations';

const RUNS = 250;
const SECRET = 'cs-flow-secret-0001';
const ASSERTION = 'as-flow-assertion-0002';
const CALLBACK_TOKEN = 'FlowCallbackToken0123456789abcdef';

let server: Server;
let baseUrl = '';
/** What the loopback service answers now. */
let answers: { token: Answer; list: Answer };
const counts = { token: 0, list: 0 };

beforeAll(async () => {
	server = createServer((req, res) => {
		req.resume();
		const path = (req.url ?? '').split('?')[0];
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
		`Mutations through n8n-core's real helpers (test/property/flow.test.ts): token answer ${counts.token}, list page ${counts.list}\n`,
	);
});

const tokenAnswer = (): Answer => ({
	headers: { 'cache-control': 'no-store' },
	body: {
		access_token: 'at-flow-access',
		token_type: 'Bearer',
		expires_in: 7200,
		refresh_token: 'rt-flow-refresh',
		scope: 'write_transcriptions write_media',
		created_at: 1_767_225_600,
	},
});

const endpoint = (id: string): Json => ({
	id,
	type: 'webhook_endpoint',
	attributes: {
		callback_uri: `https://n8n.example.com/webhook/${id}/webhook?token=${CALLBACK_TOKEN}`,
		enabled_events: ['transcription.transcribed'],
		created_at: '2026-01-01T00:00:00.000Z',
	},
	links: { self: `${baseUrl}/webhook_endpoints/${id}` },
});
const listAnswer = (): Answer => ({
	headers: { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19', 'x-ratelimit-reset': '1' },
	body: {
		data: [endpoint('e1'), endpoint('e2')],
		links: { next: `${baseUrl}/webhook_endpoints?page%5Bnumber%5D=2&page%5Bsize%5D=2` },
	},
});

let client = 0;
type Outcome = { ok: true; decision: unknown } | { ok: false; message: string };

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
		if (!list.supported) return { ok: true, decision: 'unsupported' };
		const endpoints = list.endpoints.map((e) => [e.id, e.callback_uri, e.enabled_events]);
		return { ok: true, decision: { endpoints, incomplete: list.incomplete ?? null } };
	} catch (error) {
		if (!(error instanceof NodeApiError)) throw error;
		const text = JSON.stringify({ m: error.message, d: error.description, r: error.errorResponse });
		for (const secret of [SECRET, ASSERTION]) expect(text).not.toContain(secret);
		return { ok: false, message: `${error.message} — ${error.description ?? ''}` };
	}
}

function property(which: 'token' | 'list', used: string[], words: RegExp) {
	return async () => {
		answers = { token: tokenAnswer(), list: listAnswer() };
		const base = await listOnce();
		expect(base.ok).toBe(true);
		const original = answers[which];
		await fc.assert(
			fc.asyncProperty(mutationArbitrary(original), async (m: Mutation) => {
				const mutated = apply(original, m);
				if (!mutated) return;
				answers = { token: tokenAnswer(), list: listAnswer(), [which]: mutated };
				counts[which]++;
				const outcome = await listOnce();
				const what = `${which}: ${describeMutation(m)}`;
				if (!touchesUsed(m, used)) {
					expect({ what, outcome }).toEqual({ what, outcome: base });
				} else if (!outcome.ok) {
					expect({ what, message: outcome.message }).toEqual({
						what,
						message: expect.stringMatching(words),
					});
				}
			}),
			{ numRuns: RUNS, seed: 22 },
		);
	};
}

test(
	'a mutated token answer: the same list where access_token is not touched, else a failure that names it',
	property(
		'token',
		[
			'body.access_token',
			'body.expires_in',
			'body.refresh_token',
			'body.error',
			'body.error_description',
		],
		/access_token|token response|refused the assertion grant/,
	),
	30_000,
);

test(
	'a mutated list page: the same endpoints where no used member is touched, else a list or a failure that names it',
	property(
		'list',
		[
			'body.data',
			'body.data.*.id',
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
		/not a list of webhook endpoints|data/,
	),
	30_000,
);
