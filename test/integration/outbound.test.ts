// The guarded GET through n8n-core 2.41.1's real helpers and resolver, over real sockets: refused addresses reach no
// server (a canary counts what arrives), a name is connected to at its checked address with Host and TLS kept on
// the name (a certificate for files.test is verified as files.test, and refused for another name), and a redirect
// to an internal address is refused at its hop.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

import {
	type AddressPolicy,
	parseAllowedHosts,
} from '../../nodes/Captioning/transport/addressPolicy';
import {
	n8nResolver,
	openOutbound,
	type OutboundHelpers,
	type Resolve,
} from '../../nodes/Captioning/transport/outbound';
import { createHarness } from '../helpers/n8nContext';

const TLS = join(__dirname, '..', 'fixtures', 'tls');

interface Seen {
	host?: string;
	path?: string;
	sni?: string;
}

function listen(server: Server): Promise<number> {
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
	);
}

function recordingServer(
	answer: (req: IncomingMessage) => {
		status: number;
		headers?: Record<string, string>;
		body?: string;
	},
) {
	const seen: Seen[] = [];
	const handle = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
		seen.push({
			host: req.headers.host,
			path: req.url,
			sni: (req.socket as unknown as { servername?: string }).servername,
		});
		const { status, headers, body } = answer(req);
		res.writeHead(status, headers);
		res.end(body ?? '');
	};
	return { seen, handle };
}

const canary = recordingServer(() => ({ status: 200, body: 'CANARY-BODY' }));
const files = recordingServer((req) =>
	req.url === '/to-canary'
		? { status: 302, headers: { location: `http://127.0.0.1:${canaryPort}/stolen` } }
		: { status: 200, body: 'WEBVTT\n' },
);
let canaryServer: Server;
let filesServer: Server;
let tlsServer: Server;
let canaryPort = 0;
let filesPort = 0;
let tlsPort = 0;
const defaultCAs = getCACertificates('default');

beforeAll(async () => {
	canaryServer = createServer(canary.handle);
	filesServer = createServer(files.handle);
	tlsServer = createTlsServer(
		{ key: readFileSync(join(TLS, 'files.key')), cert: readFileSync(join(TLS, 'files.pem')) },
		files.handle,
	);
	[canaryPort, filesPort, tlsPort] = await Promise.all([
		listen(canaryServer),
		listen(filesServer),
		listen(tlsServer),
	]);
	setDefaultCACertificates([...defaultCAs, readFileSync(join(TLS, 'ca.pem'), 'utf8')]);
});

afterAll(async () => {
	setDefaultCACertificates(defaultCAs);
	await Promise.all(
		[canaryServer, filesServer, tlsServer].map((s) => new Promise((r) => s.close(r))),
	);
});

beforeEach(() => {
	canary.seen.length = 0;
	files.seen.length = 0;
});

const h = createHarness({ baseUrl: 'http://127.0.0.1:1', clientId: 'c', clientSecret: 's' });
const ctx = h.executeContext(h.makeNode('captioning', {}), [{ json: {} }]);
const n8nHelpers = (resolve?: Resolve): OutboundHelpers => ({
	http: (options) => ctx.helpers.httpRequest(options),
	resolve: resolve ?? n8nResolver(ctx.helpers),
});
const policy = (allowed = '', baseUrl?: string): AddressPolicy => ({
	allowed: parseAllowedHosts(allowed).hosts,
	setting: 'Allowed File Hosts under Options',
	...(baseUrl ? { baseUrl } : {}),
});
const request = () => ({ signal: new AbortController().signal, idleTimeoutMs: 5_000 });
/** The test resolver: names that resolve to loopback, as a hostile DNS would answer them. */
const testResolver: Resolve = async (name) =>
	name.endsWith('.test') ? ['127.0.0.1'] : ['93.184.216.34'];

async function read(outcome: Awaited<ReturnType<typeof openOutbound>>): Promise<string> {
	if (!outcome.ok) return `refused: ${outcome.refused.reason}`;
	const chunks: Buffer[] = [];
	for await (const chunk of outcome.answer.body) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString();
}

test('n8n 2.41.1 gives nodes its resolver', async () => {
	const resolve = n8nResolver(ctx.helpers);
	expect(resolve).toBeDefined();
	expect(await resolve!('localhost')).toContain('127.0.0.1');
});

test('every loopback spelling, the machine’s own name and a name resolving to loopback reach no server', async () => {
	const urls = [
		`http://127.0.0.1:${canaryPort}/a`,
		`http://2130706433:${canaryPort}/a`,
		`http://0x7f.1:${canaryPort}/a`,
		`http://0177.0.0.1:${canaryPort}/a`,
		`http://127.1:${canaryPort}/a`,
		`http://[::ffff:127.0.0.1]:${canaryPort}/a`,
		`http://0.0.0.0:${canaryPort}/a`,
		`http://localhost:${canaryPort}/a`,
		`http://${hostname()}:${canaryPort}/a`,
	];
	for (const url of urls) {
		expect({
			url,
			got: await read(await openOutbound(n8nHelpers(), url, policy(), request())),
		}).toEqual({
			url,
			got: expect.stringMatching(/^refused: (loopback|unspecified)$/),
		});
	}
	expect(
		await read(
			await openOutbound(
				n8nHelpers(testResolver),
				`http://canary.test:${canaryPort}/a`,
				policy(),
				request(),
			),
		),
	).toBe('refused: loopback');
	expect(canary.seen).toEqual([]);
});

test('the same URL with its host allowed is fetched; a name is connected to at its address, Host kept', async () => {
	expect(
		await read(
			await openOutbound(
				n8nHelpers(),
				`http://127.0.0.1:${filesPort}/a.vtt`,
				policy(`127.0.0.1:${filesPort}`),
				request(),
			),
		),
	).toBe('WEBVTT\n');
	expect(
		await read(
			await openOutbound(
				n8nHelpers(testResolver),
				`http://files.test:${filesPort}/b.vtt`,
				policy(`127.0.0.0/8:${filesPort}`),
				request(),
			),
		),
	).toBe('WEBVTT\n');
	expect(files.seen).toEqual([
		{ host: `127.0.0.1:${filesPort}`, path: '/a.vtt' },
		{ host: `files.test:${filesPort}`, path: '/b.vtt' },
	]);
});

test('https to a checked address verifies the certificate against the name, and its SNI is the name', async () => {
	const allowed = policy(`127.0.0.1:${tlsPort}`);
	expect(
		await read(
			await openOutbound(
				n8nHelpers(testResolver),
				`https://files.test:${tlsPort}/c.vtt`,
				allowed,
				request(),
			),
		),
	).toBe('WEBVTT\n');
	expect(files.seen).toEqual([
		{ host: `files.test:${tlsPort}`, path: '/c.vtt', sni: 'files.test' },
	]);
	// the same address under another name: the certificate is not that name's
	await expect(
		openOutbound(
			n8nHelpers(testResolver),
			`https://other.test:${tlsPort}/c.vtt`,
			allowed,
			request(),
		),
	).rejects.toMatchObject({ message: expect.stringMatching(/altnames|does not match/i) });
	expect(files.seen).toHaveLength(1);
});

test('a 302 from the service’s own origin to loopback is refused at that hop: the canary sees nothing', async () => {
	const own = policy('', `http://127.0.0.1:${filesPort}`);
	const outcome = await openOutbound(
		n8nHelpers(),
		`http://127.0.0.1:${filesPort}/to-canary`,
		own,
		request(),
	);
	expect(outcome).toMatchObject({
		ok: false,
		refused: {
			reason: 'loopback',
			message: expect.stringContaining('redirected (HTTP 302) to a URL that was not fetched'),
		},
	});
	// another port of the Base URL's host is another origin
	expect(
		await read(
			await openOutbound(n8nHelpers(), `http://127.0.0.1:${canaryPort}/x`, own, request()),
		),
	).toBe('refused: loopback');
	expect(canary.seen).toEqual([]);
	expect(files.seen).toEqual([{ host: `127.0.0.1:${filesPort}`, path: '/to-canary' }]);
});
