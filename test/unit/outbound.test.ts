// The guarded GET, step by step, with n8n's helper and resolver replaced by recordings: what is asked of n8n (the
// checked address, the name kept in Host and TLS), which hops are refused before any request, and the n8n 1.x way
// (no resolver: the answer's own address is judged before its body is read).
import { EventEmitter } from 'node:events';

import type { IHttpRequestOptions } from 'n8n-workflow';

import type { AddressPolicy } from '../../nodes/Captioning/transport/addressPolicy';
import {
	MAX_FILE_REDIRECTS,
	n8nResolver,
	openOutbound,
	type OutboundHelpers,
	type Resolve,
} from '../../nodes/Captioning/transport/outbound';

const policy: AddressPolicy = { allowed: [], setting: 'Allowed File Hosts under Options' };
const request = () => ({ signal: new AbortController().signal, idleTimeoutMs: 30_000 });

class FakeBody extends EventEmitter {
	destroyed = false;
	constructor(readonly socket?: { remoteAddress?: string }) {
		super();
	}
	destroy() {
		this.destroyed = true;
	}
}

interface Reply {
	status?: number;
	location?: string;
	remote?: string | null;
}

/** A helper that answers each request with the next reply, and records what it was asked. */
function recording(replies: Reply[], resolve?: Resolve) {
	const asked: IHttpRequestOptions[] = [];
	const bodies: FakeBody[] = [];
	const helpers: OutboundHelpers = {
		http: async (options) => {
			asked.push(options);
			const reply = replies.shift() ?? {};
			const body = new FakeBody(
				reply.remote === null ? undefined : { remoteAddress: reply.remote ?? '93.184.216.34' },
			);
			bodies.push(body);
			return {
				statusCode: reply.status ?? 200,
				headers: reply.location ? { location: reply.location } : {},
				body,
			};
		},
		...(resolve ? { resolve } : {}),
	};
	return { helpers, asked, bodies };
}

/** A test resolver: names to addresses, as /etc/hosts or DNS would answer them. */
function resolver(table: Record<string, string[]>): Resolve & { names: string[] } {
	const names: string[] = [];
	const resolve = async (name: string) => {
		names.push(name);
		const addresses = table[name];
		if (!addresses)
			throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
		return addresses;
	};
	return Object.assign(resolve, { names });
}

describe('openOutbound with a resolver (n8n 2.x)', () => {
	test('a name is resolved, judged, and connected to at the checked address; Host and TLS keep the name', async () => {
		const resolve = resolver({ 'files.example.com': ['93.184.216.34'] });
		const { helpers, asked } = recording([{}], resolve);
		const outcome = await openOutbound(
			helpers,
			'https://files.example.com:8443/a.vtt?sig=1',
			policy,
			request(),
		);
		expect(outcome).toMatchObject({ ok: true, answer: { statusCode: 200 } });
		expect(resolve.names).toEqual(['files.example.com']);
		expect(asked).toEqual([
			expect.objectContaining({
				method: 'GET',
				url: 'https://93.184.216.34:8443/a.vtt?sig=1',
				headers: { host: 'files.example.com:8443' },
				agentOptions: { servername: 'files.example.com' },
				encoding: 'stream',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				timeout: 30_000,
			}),
		]);
		// the answer is the name's, not the address's
		expect(outcome.ok && outcome.answer.url.href).toBe(
			'https://files.example.com:8443/a.vtt?sig=1',
		);
	});

	test('an IPv6 address is connected to in brackets; plain http needs no server name', async () => {
		const { helpers, asked } = recording(
			[{}],
			resolver({ 'files.example.com': ['2606:2800:220:1::248'] }),
		);
		await openOutbound(helpers, 'http://files.example.com/a.vtt', policy, request());
		expect(asked[0]).toMatchObject({
			url: 'http://[2606:2800:220:1::248]/a.vtt',
			headers: { host: 'files.example.com' },
		});
		expect(asked[0].agentOptions).toBeUndefined();
	});

	test('a name that resolves to loopback (the test resolver’s, or the machine’s own name) is refused before any request', async () => {
		const resolve = resolver({
			'rebind.example.com': ['93.184.216.34', '127.0.0.1'],
			vm: ['127.0.0.1'],
		});
		for (const url of ['http://rebind.example.com/a.vtt', 'http://vm:5678/a.vtt']) {
			const { helpers, asked } = recording([{}], resolve);
			const outcome = await openOutbound(helpers, url, policy, request());
			expect(outcome).toMatchObject({
				ok: false,
				refused: { reason: 'loopback', address: '127.0.0.1' },
			});
			expect(asked).toEqual([]);
		}
	});

	test('literals and refused literals need no lookup', async () => {
		const resolve = resolver({});
		const { helpers, asked } = recording([{}], resolve);
		await openOutbound(helpers, 'http://93.184.216.34/a.vtt', policy, request());
		expect(await openOutbound(helpers, 'http://[::]:80/a.vtt', policy, request())).toMatchObject({
			ok: false,
			refused: { reason: 'unspecified' },
		});
		expect(asked.map((o) => [o.url, o.headers])).toEqual([['http://93.184.216.34/a.vtt', {}]]);
		expect(resolve.names).toEqual([]);
	});

	test('a lookup that fails is thrown as n8n threw it', async () => {
		const { helpers } = recording([{}], resolver({}));
		await expect(
			openOutbound(helpers, 'http://nowhere.example/a', policy, request()),
		).rejects.toMatchObject({
			code: 'ENOTFOUND',
		});
	});

	test('a 302 from the service’s own origin to an internal address is refused at that hop', async () => {
		const own: AddressPolicy = { ...policy, baseUrl: 'http://127.0.0.1:5680' };
		const { helpers, asked, bodies } = recording(
			[{ status: 302, location: 'http://127.0.0.1:9/canary' }],
			resolver({}),
		);
		const outcome = await openOutbound(
			helpers,
			'http://127.0.0.1:5680/files/1/a.vtt?sig=1',
			own,
			request(),
		);
		expect(outcome).toEqual({
			ok: false,
			refused: expect.objectContaining({
				reason: 'loopback',
				message:
					'http://127.0.0.1:5680/files/1/a.vtt?[redacted] redirected (HTTP 302) to a URL that was not fetched: 127.0.0.1 is a loopback address (n8n’s own machine). Only public addresses and the origin of the credential’s Base URL are fetched unless allowed: if this file server is trusted, add 127.0.0.1:9 to Allowed File Hosts under Options.',
			}),
		});
		expect(asked).toHaveLength(1);
		expect(bodies[0].destroyed).toBe(true);
	});

	test('redirects to allowed places are followed, a relative Location against the name’s URL', async () => {
		const resolve = resolver({
			'files.example.com': ['93.184.216.34'],
			'cdn.example.net': ['151.101.1.1'],
		});
		const { helpers, asked } = recording(
			[
				{ status: 301, location: '/moved/a.vtt' },
				{ status: 307, location: 'https://cdn.example.net/a.vtt' },
				{},
			],
			resolve,
		);
		const outcome = await openOutbound(
			helpers,
			'https://files.example.com/a.vtt',
			policy,
			request(),
		);
		expect(asked.map((o) => [o.url, (o.headers as Record<string, string>).host])).toEqual([
			['https://93.184.216.34/a.vtt', 'files.example.com'],
			['https://93.184.216.34/moved/a.vtt', 'files.example.com'],
			['https://151.101.1.1/a.vtt', 'cdn.example.net'],
		]);
		expect(outcome.ok && outcome.answer.url.href).toBe('https://cdn.example.net/a.vtt');
	});

	test(`more than ${MAX_FILE_REDIRECTS} redirects are refused`, async () => {
		const replies = Array.from({ length: 7 }, () => ({
			status: 302,
			location: 'http://93.184.216.34/again',
		}));
		const { helpers, asked } = recording(replies);
		const outcome = await openOutbound(helpers, 'http://93.184.216.34/a.vtt', policy, request());
		expect(outcome).toEqual({
			ok: false,
			refused: expect.objectContaining({
				reason: 'redirects',
				message: 'http://93.184.216.34/a.vtt was not fetched: it was redirected more than 5 times.',
			}),
		});
		expect(asked).toHaveLength(MAX_FILE_REDIRECTS + 1);
	});

	test('a redirect without a Location, or a non-redirect status, is the answer', async () => {
		const { helpers } = recording([
			{ status: 302 },
			{ status: 404, location: 'http://127.0.0.1/' },
		]);
		expect(await openOutbound(helpers, 'http://93.184.216.34/a', policy, request())).toMatchObject({
			ok: true,
			answer: { statusCode: 302 },
		});
		expect(await openOutbound(helpers, 'http://93.184.216.34/a', policy, request())).toMatchObject({
			ok: true,
			answer: { statusCode: 404 },
		});
	});

	test('the caller’s signal stops the request; close() closes the connection of the answer', async () => {
		const outer = new AbortController();
		const { helpers, asked, bodies } = recording([{}]);
		const outcome = await openOutbound(helpers, 'http://93.184.216.34/a', policy, {
			signal: outer.signal,
			idleTimeoutMs: 5,
		});
		const signal = asked[0].abortSignal as AbortSignal;
		expect(signal.aborted).toBe(false);
		outer.abort();
		expect(signal.aborted).toBe(true);
		if (outcome.ok) outcome.answer.close();
		expect(bodies[0].destroyed).toBe(true);
	});
});

describe('openOutbound without a resolver (n8n 1.x): the answer’s address is judged before its body', () => {
	test('a name is asked for uncompressed, and an answer from a public address is kept', async () => {
		const { helpers, asked, bodies } = recording([{ remote: '93.184.216.34' }]);
		const outcome = await openOutbound(
			helpers,
			'https://files.example.com/a.vtt',
			policy,
			request(),
		);
		expect(outcome.ok).toBe(true);
		expect(asked[0]).toMatchObject({
			url: 'https://files.example.com/a.vtt',
			headers: { 'accept-encoding': 'identity' },
		});
		expect(bodies[0].destroyed).toBe(false);
	});

	test('an answer from an internal address (also IPv4-mapped) is closed unread', async () => {
		for (const remote of ['127.0.0.1', '::ffff:127.0.0.1', '::1', '10.0.0.8']) {
			const { helpers, bodies } = recording([{ remote }]);
			const outcome = await openOutbound(helpers, 'http://vm:5678/a.vtt', policy, request());
			expect(outcome).toMatchObject({
				ok: false,
				refused: {
					message: expect.stringMatching(/^http:\/\/vm:5678\/a\.vtt was not read: vm resolves to /),
				},
			});
			expect(bodies[0].destroyed).toBe(true);
		}
	});

	test('an answer whose address cannot be read (compressed despite the ask) is refused', async () => {
		const { helpers, bodies } = recording([{ remote: null }]);
		expect(
			await openOutbound(helpers, 'http://files.example.com/a.vtt', policy, request()),
		).toMatchObject({
			ok: false,
			refused: { reason: 'unverified' },
		});
		expect(bodies[0].destroyed).toBe(true);
	});

	test('a listed address range allows the answer’s address', async () => {
		const listed: AddressPolicy = {
			...policy,
			allowed: [
				{
					entry: '10.0.0.0/8',
					kind: 'range',
					network: { family: 4, bytes: [10, 0, 0, 0] },
					prefix: 8,
				},
			],
		};
		const { helpers } = recording([{ remote: '::ffff:10.0.0.8' }]);
		expect((await openOutbound(helpers, 'http://minio.lan/a.vtt', listed, request())).ok).toBe(
			true,
		);
	});
});

describe('n8nResolver', () => {
	test('n8n 2.x’s egress filter, asked with the instance’s policy, for every address', async () => {
		const calls: unknown[] = [];
		const helpers = {
			getSecureEgressFilter(policyName: string) {
				calls.push(policyName);
				return {
					createSecureLookup:
						() => (name: string, options: unknown, done: (e: Error | null, a: unknown) => void) => {
							calls.push([name, options]);
							if (name === 'bad.example')
								done(Object.assign(new Error('blocked'), { name: 'SsrfBlockedIpError' }), []);
							else
								done(null, [
									{ address: '93.184.216.34', family: 4 },
									{ address: '::1', family: 6 },
								]);
						},
				};
			},
		};
		const resolve = n8nResolver(helpers)!;
		expect(await resolve('files.example.com')).toEqual(['93.184.216.34', '::1']);
		await expect(resolve('bad.example')).rejects.toMatchObject({ name: 'SsrfBlockedIpError' });
		expect(calls).toEqual([
			'safe',
			['files.example.com', { all: true }],
			['bad.example', { all: true }],
		]);
	});

	test('none on n8n 1.x', () => {
		expect(n8nResolver({ httpRequest: () => undefined })).toBeUndefined();
	});
});
