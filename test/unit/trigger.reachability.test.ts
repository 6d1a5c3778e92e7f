import { checkReachability, hostClass } from '../../nodes/Captioning/trigger/reachability';

const hostOf = (url: string) => new URL(url).hostname;

describe('hostClass (the host as new URL() gives it, no DNS)', () => {
	it.each([
		['http://localhost:5678/', 'loopback'],
		['http://LOCALHOST./', 'loopback'],
		['http://n8n.localhost/', 'loopback'],
		['http://127.0.0.1/', 'loopback'],
		['http://127.1/', 'loopback'],
		['http://127.200.3.4/', 'loopback'],
		['http://[::1]:5678/', 'loopback'],
		['http://[::ffff:127.0.0.1]/', 'loopback'],
		['http://0.0.0.0:5678/', 'unspecified'],
		['http://0.1.2.3/', 'unspecified'],
		['http://[::]/', 'unspecified'],
		['http://169.254.169.254/', 'link-local'],
		['http://169.254.10.20/', 'link-local'],
		['http://[fe80::1]/', 'link-local'],
		['http://[febf::1]/', 'link-local'],
		['http://[::ffff:169.254.169.254]/', 'link-local'],
		// everything else may be reachable from where the service runs: registered
		['http://10.1.2.3/', 'elsewhere'],
		['http://172.16.0.1/', 'elsewhere'],
		['http://192.168.1.20/', 'elsewhere'],
		['http://100.101.102.103/', 'elsewhere'],
		['http://[fd12:3456::1]/', 'elsewhere'],
		['http://n8n:5678/', 'elsewhere'],
		['http://n8n.lan:5678/', 'elsewhere'],
		['http://printer.local/', 'elsewhere'],
		['http://n8n.internal/', 'elsewhere'],
		['http://n8n.tail1234.ts.net/', 'elsewhere'],
		['http://localhost.example.com/', 'elsewhere'],
		['https://N8N.Example.COM/', 'elsewhere'],
		['http://169.255.0.1/', 'elsewhere'],
		['http://128.0.0.1/', 'elsewhere'],
		['http://[2001:db8::1]/', 'elsewhere'],
		['http://[fec0::1]/', 'elsewhere'],
		['http://[::2]/', 'elsewhere'],
		// an IPv4 address in IPv6 counts only IPv4-mapped: NAT64, 6to4 and IPv4-compatible forms route elsewhere
		['http://[::ffff:7f00:1]/', 'loopback'],
		['http://[64:ff9b::7f00:1]/', 'elsewhere'],
		['http://[2002:7f00:1::]/', 'elsewhere'],
		['http://[::127.0.0.1]/', 'elsewhere'],
	])('%s is %s', (url, expected) => {
		expect(hostClass(hostOf(url))).toBe(expected);
	});
});

describe('checkReachability', () => {
	const PUBLIC_SERVICE = 'https://api.captions.example.com';

	it('is quiet for the sandbox on the loopback, whatever loopback name n8n uses', () => {
		expect(
			checkReachability('http://127.0.0.1:5678/webhook/abc/webhook', 'http://127.0.0.1:5680'),
		).toBeUndefined();
		expect(
			checkReachability('http://localhost:5678/webhook/abc/webhook', 'http://127.0.0.1:5680'),
		).toBeUndefined();
		expect(
			checkReachability('http://[::1]:5678/webhook-test/abc/webhook', 'https://localhost:8443'),
		).toBeUndefined();
		expect(
			checkReachability('http://0.0.0.0:5678/webhook/abc/webhook', 'http://127.0.0.1:5680'),
		).toBeUndefined();
	});

	it('refuses localhost for any service elsewhere, in one sentence naming N8N_WEBHOOK_URL and, for n8n 1.x, WEBHOOK_URL', () => {
		const url = 'http://localhost:5678/webhook/3f0c/webhook';
		const found = checkReachability(url, `${PUBLIC_SERVICE}/v1/`);
		expect(found?.reason).toBe('loopback');
		expect(found?.message).toBe(
			`The captioning service cannot reach ${url} (localhost is n8n's own machine): ` +
				"set N8N_WEBHOOK_URL (in n8n 1.x: WEBHOOK_URL) to n8n's public https address and restart n8n.",
		);
		expect(found?.message.split('. ')).toHaveLength(1);
		expect(found?.description).toContain('so nothing was registered');
		expect(found?.description).toContain('Set N8N_WEBHOOK_URL (in n8n 1.x: WEBHOOK_URL)');
		// a service in a private network or the same LAN is not on n8n's machine either
		expect(checkReachability(url, 'http://10.0.0.5:8080')?.reason).toBe('loopback');
		expect(checkReachability('http://[::1]/webhook/x', 'http://captions.lan')?.reason).toBe(
			'loopback',
		);
	});

	it('refuses the unspecified address and link-local addresses for a service elsewhere', () => {
		expect(checkReachability('http://0.0.0.0:5678/webhook/x', PUBLIC_SERVICE)).toMatchObject({
			reason: 'unspecified',
			message: expect.stringContaining('(0.0.0.0 names no machine another one can send to)'),
		});
		expect(checkReachability('http://[::]:5678/webhook/x', PUBLIC_SERVICE)).toMatchObject({
			reason: 'unspecified',
			message: expect.stringContaining('(:: names no machine'),
		});
		expect(
			checkReachability('http://169.254.3.4:5678/webhook/x', 'http://10.0.0.5:8080'),
		).toMatchObject({
			reason: 'link-local',
			message: expect.stringContaining(
				'(169.254.3.4 is a link-local address, reachable only beside n8n)',
			),
		});
		// a service that is itself link-local is beside n8n
		expect(
			checkReachability('http://169.254.3.4:5678/webhook/x', 'http://169.254.3.9'),
		).toBeUndefined();
	});

	it.each([
		['plain http on a public name', 'http://n8n.example.com/webhook/x'],
		['a private address', 'http://192.168.1.20:5678/webhook/x'],
		['a .lan name', 'http://n8n.lan:5678/webhook/x'],
		['a container name', 'http://n8n:5678/webhook/x'],
		['a name only split DNS knows', 'https://n8n.internal/webhook/x'],
		['a Tailscale address', 'http://100.101.102.103:5678/webhook/x'],
		['a Tailscale name', 'https://n8n.tail1234.ts.net/webhook/x'],
		['a unique local IPv6 address', 'http://[fd00::5]:5678/webhook/x'],
		['a public https address', 'https://n8n.example.com/webhook/x'],
	])('registers %s, whatever the service', (_name, url) => {
		for (const service of [PUBLIC_SERVICE, 'http://10.0.0.5', 'http://127.0.0.1:5680']) {
			expect(checkReachability(url, service)).toBeUndefined();
		}
	});

	it('leaves URLs it cannot read to the registration', () => {
		expect(checkReachability('not a url', PUBLIC_SERVICE)).toBeUndefined();
		expect(checkReachability('http://localhost/webhook/x', '')).toBeUndefined();
	});
});
