import {
	checkReachability,
	hostClass,
	parseIpv6,
} from '../../nodes/Captioning/trigger/reachability';

const hostOf = (url: string) => new URL(url).hostname;

describe('hostClass (the host as new URL() gives it)', () => {
	it.each([
		['http://localhost:5678/', 'loopback'],
		['http://n8n.localhost/', 'loopback'],
		['http://127.0.0.1/', 'loopback'],
		['http://127.1/', 'loopback'],
		['http://127.200.3.4/', 'loopback'],
		['http://0.0.0.0:5678/', 'loopback'],
		['http://[::1]:5678/', 'loopback'],
		['http://[::]/', 'loopback'],
		['http://[::ffff:127.0.0.1]/', 'loopback'],
		['http://169.254.10.20/', 'link-local'],
		['http://[fe80::1]/', 'link-local'],
		['http://[febf::1]/', 'link-local'],
		['http://10.1.2.3/', 'private'],
		['http://172.16.0.1/', 'private'],
		['http://172.31.255.255/', 'private'],
		['http://192.168.1.20/', 'private'],
		['http://100.64.0.1/', 'private'],
		['http://100.127.255.255/', 'private'],
		['http://[fd12:3456::1]/', 'private'],
		['http://[fc00::1]/', 'private'],
		['http://[::ffff:10.0.0.1]/', 'private'],
		['http://n8n:5678/', 'private'],
		['http://printer.local/', 'private'],
		['http://n8n.internal/', 'private'],
		['http://nas.home.arpa/', 'private'],
		['https://N8N.Example.COM/', 'public'],
		['https://n8n.example.com./', 'public'],
		['http://172.32.0.1/', 'public'],
		['http://172.15.255.255/', 'public'],
		['http://100.128.0.1/', 'public'],
		['http://169.255.0.1/', 'public'],
		['http://8.8.8.8/', 'public'],
		['http://[2001:db8::1]/', 'public'],
		['http://[fec0::1]/', 'public'],
		['http://[::ffff:8.8.8.8]/', 'public'],
	])('%s is %s', (url, expected) => {
		expect(hostClass(hostOf(url))).toBe(expected);
	});
});

describe('parseIpv6', () => {
	it('expands :: and reads a dotted IPv4 tail', () => {
		expect(parseIpv6('fe80::1')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
		expect(parseIpv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
		expect(parseIpv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
		expect(parseIpv6('::ffff:10.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001]);
	});

	it.each([
		'n8n.example.com',
		'1:2:3:4:5:6:7:8:9',
		'1:2:3',
		'1::2::3',
		'g::1',
		'::ffff:10.0.0.256',
	])('reads %s as no IPv6 address', (host) => {
		expect(parseIpv6(host)).toBeUndefined();
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
	});

	it('names localhost against a public service, with WEBHOOK_URL and the way out', () => {
		const url = 'http://localhost:5678/webhook/3f0c/webhook';
		const found = checkReachability(url, `${PUBLIC_SERVICE}/v1/`);
		expect(found?.reason).toBe('loopback');
		expect(found?.message).toBe(
			`The captioning service at ${PUBLIC_SERVICE} cannot reach this trigger's webhook URL ${url}: ` +
				"localhost is n8n's own machine. Set WEBHOOK_URL to n8n's public https address (e.g. " +
				'https://n8n.example.com/, your reverse proxy or tunnel) and restart n8n. If the service does ' +
				"reach this address, turn on Skip Reachability Check in the trigger's options.",
		);
		expect(found?.description).toContain('so nothing was registered');
		expect(found?.description).toContain('WEBHOOK_URL');
	});

	it('names private addresses and local names against a public service', () => {
		expect(checkReachability('http://192.168.1.20:5678/webhook/x', PUBLIC_SERVICE)).toMatchObject({
			reason: 'private',
			message: expect.stringContaining(
				"192.168.1.20 is a private address, reachable only inside n8n's network",
			),
		});
		expect(checkReachability('https://n8n.internal/webhook/x', PUBLIC_SERVICE)).toMatchObject({
			reason: 'private',
			message: expect.stringContaining("n8n.internal is a name only n8n's local network knows"),
		});
		expect(checkReachability('http://[fd00::5]:5678/webhook/x', PUBLIC_SERVICE)).toMatchObject({
			reason: 'private',
			message: expect.stringContaining('[fd00::5] is a private address'),
		});
	});

	it('names a link-local callback even for a service in a private network', () => {
		expect(
			checkReachability('http://169.254.3.4:5678/webhook/x', 'http://10.0.0.5:8080'),
		).toMatchObject({
			reason: 'link-local',
			message: expect.stringContaining('169.254.3.4 is a link-local address'),
		});
	});

	it('is quiet when the service is as close to n8n as the callback, or closer', () => {
		// a service in the same kind of private network, or on n8n's own machine
		expect(checkReachability('http://192.168.1.20/webhook/x', 'http://10.0.0.5')).toBeUndefined();
		expect(checkReachability('http://n8n:5678/webhook/x', 'http://captions:8080')).toBeUndefined();
		expect(checkReachability('http://10.0.0.9/webhook/x', 'http://127.0.0.1:5680')).toBeUndefined();
		expect(checkReachability('https://n8n.example.com/webhook/x', PUBLIC_SERVICE)).toBeUndefined();
	});

	it('names plain http only against a public https service', () => {
		expect(checkReachability('http://n8n.example.com/webhook/x', PUBLIC_SERVICE)).toMatchObject({
			reason: 'plain-http',
			message: expect.stringContaining(
				'it uses plain http, and a service at https may refuse to send events over http',
			),
		});
		expect(
			checkReachability('http://n8n.example.com/webhook/x', 'http://api.captions.example.com'),
		).toBeUndefined();
		expect(checkReachability('http://10.0.0.9/webhook/x', 'https://10.0.0.5')).toBeUndefined();
	});

	it('is quiet when the user turned the check off', () => {
		expect(
			checkReachability('http://localhost:5678/webhook/x', PUBLIC_SERVICE, { skip: true }),
		).toBeUndefined();
		expect(
			checkReachability('http://localhost:5678/webhook/x', PUBLIC_SERVICE, { skip: false }),
		).toMatchObject({ reason: 'loopback' });
	});

	it('leaves URLs it cannot read to the registration', () => {
		expect(checkReachability('not a url', PUBLIC_SERVICE)).toBeUndefined();
		expect(checkReachability('http://localhost/webhook/x', '')).toBeUndefined();
	});
});
