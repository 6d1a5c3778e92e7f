// The address policy of outbound fetches, branch by branch: the OWASP SSRF spellings, the service's origin, the
// user's Allowed File Hosts, and the addresses a name resolves to (the resolver is the caller's: here, a list).
import {
	type AddressPolicy,
	judgeAddresses,
	judgeUrl,
	parseAllowedHosts,
	portOf,
	shownUrl,
} from '../../nodes/Captioning/transport/addressPolicy';

const SETTING = 'Allowed File Hosts under the node’s Options';
const none: AddressPolicy = { allowed: [], setting: SETTING };
const withService = (baseUrl: string): AddressPolicy => ({ ...none, baseUrl });
const listing = (text: string): AddressPolicy => {
	const { hosts, problems } = parseAllowedHosts(text);
	expect(problems).toEqual([]);
	return { ...none, allowed: hosts };
};

describe('judgeUrl refuses every internal address, in every spelling', () => {
	test.each([
		['http://127.0.0.1:8080/a.vtt', 'loopback'],
		['http://2130706433:8080/a.vtt', 'loopback'],
		['http://0x7f000001:8080/a.vtt', 'loopback'],
		['http://0177.0.0.1:8080/a.vtt', 'loopback'],
		['http://0x7f.1:8080/a.vtt', 'loopback'],
		['http://127.1:8080/a.vtt', 'loopback'],
		['http://127.0.0.2/a.vtt', 'loopback'],
		['http://[::1]:8080/a.vtt', 'loopback'],
		['http://[::ffff:127.0.0.1]:8080/a.vtt', 'loopback'],
		['http://[::ffff:7f00:1]:8080/a.vtt', 'loopback'],
		['http://[::127.0.0.1]/a.vtt', 'loopback'],
		['http://[64:ff9b::127.0.0.1]/a.vtt', 'loopback'],
		['http://[2002:7f00:1::]/a.vtt', 'loopback'],
		['http://localhost:8080/a.vtt', 'loopback'],
		['http://LocalHost./a.vtt', 'loopback'],
		['http://files.localhost/a.vtt', 'loopback'],
		['http://0.0.0.0:8080/a.vtt', 'unspecified'],
		['http://0/a.vtt', 'unspecified'],
		['http://[::]:8080/a.vtt', 'unspecified'],
		['http://169.254.169.254/latest/meta-data/', 'link-local'],
		['http://[fe80::1]/a.vtt', 'link-local'],
		['http://[::ffff:169.254.169.254]/', 'link-local'],
		['http://10.0.0.5/a.vtt', 'private'],
		['http://172.16.3.4/a.vtt', 'private'],
		['http://192.168.0.10/a.vtt', 'private'],
		['http://[fd00:ec2::254]/a.vtt', 'private'],
		['http://100.64.0.1/a.vtt', 'cgnat'],
		['http://100.100.100.200/latest/meta-data/', 'cgnat'],
		['http://224.0.0.1/a.vtt', 'multicast'],
		['http://[ff02::1]/a.vtt', 'multicast'],
		['http://255.255.255.255/a.vtt', 'broadcast'],
	])('%s (%s)', (url, reason) => {
		expect(judgeUrl(url, none)).toMatchObject({ kind: 'refused', reason });
	});

	test('the refusal names the URL without its query, the address, its kind and the setting', () => {
		expect(judgeUrl('http://169.254.169.254/latest/meta-data/iam?sig=abc', none)).toEqual({
			kind: 'refused',
			host: '169.254.169.254',
			reason: 'link-local',
			why: '169.254.169.254 is a link-local address (where cloud metadata services answer). Only public addresses are fetched unless allowed: if this file server is trusted, add 169.254.169.254 to Allowed File Hosts under the node’s Options.',
			message:
				'http://169.254.169.254/latest/meta-data/iam?[redacted] was not fetched: 169.254.169.254 is a link-local address (where cloud metadata services answer). Only public addresses are fetched unless allowed: if this file server is trusted, add 169.254.169.254 to Allowed File Hosts under the node’s Options.',
		});
		expect(
			judgeUrl('http://[::1]:8080/a.vtt', withService('https://api.example.com')),
		).toMatchObject({
			message:
				'http://[::1]:8080/a.vtt was not fetched: ::1 is a loopback address (n8n’s own machine). Only public addresses and the origin of the credential’s Base URL are fetched unless allowed: if this file server is trusted, add [::1]:8080 to Allowed File Hosts under the node’s Options.',
		});
		// a spelling is shown as the URL parser reads it: the address that would have been connected to
		expect(judgeUrl('http://0x7f.1:9/a', none)).toMatchObject({
			message: expect.stringMatching(
				/^http:\/\/127\.0\.0\.1:9\/a was not fetched: 127\.0\.0\.1 is a loopback/,
			),
		});
	});

	test('user names and passwords in the URL are never shown', () => {
		expect(judgeUrl('http://user:hunter22@10.0.0.5/a.vtt', none)).toMatchObject({
			message: expect.stringMatching(/^http:\/\/10\.0\.0\.5\/a\.vtt was not fetched/),
		});
	});

	test.each([
		['file:///etc/passwd', 'file'],
		['ftp://files.example.com/a.vtt', 'ftp'],
		['gopher://127.0.0.1:6379/_INFO', 'gopher'],
		['data:text/vtt,WEBVTT', 'data'],
		['javascript:alert(1)', 'javascript'],
	])('%s: only http(s) is fetched, and the URL is not quoted', (url, scheme) => {
		expect(judgeUrl(url, none)).toEqual({
			kind: 'refused',
			host: expect.any(String),
			reason: 'scheme',
			why: 'only http:// and https:// URLs are fetched.',
			message: `A ${scheme}: URL was not fetched: only http:// and https:// URLs are fetched.`,
		});
	});

	test('what is not a URL is said so, without quoting it', () => {
		expect(judgeUrl('not a url', none)).toEqual({
			kind: 'refused',
			reason: 'not-a-url',
			why: 'it is not a valid http:// or https:// URL.',
			message: 'The URL was not fetched: it is not a valid http:// or https:// URL.',
		});
	});
});

describe('judgeUrl allows', () => {
	test('a public address, to be connected to as it is', () => {
		expect(judgeUrl('https://93.184.216.34/a.vtt', none)).toMatchObject({
			kind: 'allowed',
			address: '93.184.216.34',
		});
		expect(judgeUrl('http://[2606:4700::1111]/a.vtt', none)).toMatchObject({
			kind: 'allowed',
			address: '2606:4700::1111',
		});
	});

	test('a name is resolved first: its addresses decide', () => {
		const judged = judgeUrl('https://Files.Example.com./a.vtt?sig=1', none);
		expect(judged).toMatchObject({ kind: 'resolve', name: 'files.example.com' });
	});

	test('the origin of the Base URL (scheme, host and port), and no other port or scheme of its host', () => {
		const policy = withService('http://127.0.0.1:5680/');
		expect(judgeUrl('http://127.0.0.1:5680/files/1/a.vtt?sig=1', policy)).toMatchObject({
			kind: 'allowed',
			address: '127.0.0.1',
		});
		expect(judgeUrl('http://127.0.0.1:5681/files/1/a.vtt', policy)).toMatchObject({
			kind: 'refused',
			reason: 'loopback',
			message: expect.stringContaining('add 127.0.0.1:5681 to Allowed File Hosts'),
		});
		expect(judgeUrl('https://127.0.0.1:5680/a.vtt', policy)).toMatchObject({ kind: 'refused' });
		// another spelling of the host is another origin
		expect(judgeUrl('http://localhost:5680/a.vtt', policy)).toMatchObject({ kind: 'refused' });
		// a Base URL with a path has the same origin; default ports are the scheme's
		expect(
			judgeUrl('https://api.example.com:443/f', withService('https://api.example.com/v1')),
		).toEqual({
			kind: 'allowed',
			url: new URL('https://api.example.com/f'),
		});
		expect(
			judgeUrl('http://api.example.com/f', withService('https://api.example.com')),
		).toMatchObject({
			kind: 'resolve',
		});
		expect(judgeUrl('http://10.0.0.1/f', withService('not a url'))).toMatchObject({
			kind: 'refused',
		});
	});

	test('listed names (any port, or the one given), suffixes, addresses and ranges', () => {
		const policy = listing(
			'files.internal, *.corp.example:9000\n127.0.0.1:5680 10.0.0.0/8 [fd00::1]:8443 fe80::/10 https://minio.lan',
		);
		const cases: Array<[string, string, string?]> = [
			['http://files.internal:1234/a.vtt', 'allowed'],
			['http://FILES.internal./a.vtt', 'allowed'],
			['http://a.b.corp.example:9000/a.vtt', 'allowed'],
			['http://a.corp.example:9001/a.vtt', 'resolve'],
			['http://corp.example:9000/a.vtt', 'resolve'],
			['http://127.0.0.1:5680/a.vtt', 'allowed', '127.0.0.1'],
			['http://127.0.0.1:5681/a.vtt', 'refused'],
			['http://10.20.30.40/a.vtt', 'allowed', '10.20.30.40'],
			['http://11.0.0.1/a.vtt', 'allowed', '11.0.0.1'],
			['http://[fd00::1]:8443/a.vtt', 'allowed', 'fd00::1'],
			['http://[fd00::1]:8444/a.vtt', 'refused'],
			['http://[fe80::2]/a.vtt', 'allowed', 'fe80::2'],
			['https://minio.lan/a.vtt', 'allowed'],
			['http://minio.lan/a.vtt', 'resolve'],
			['http://192.168.1.1/a.vtt', 'refused'],
		];
		for (const [url, kind, address] of cases) {
			const judged = judgeUrl(url, policy);
			expect({ url, kind: judged.kind }).toEqual({ url, kind });
			if (address) expect(judged).toMatchObject({ address });
		}
	});
});

describe('judgeAddresses: every address of a name must pass', () => {
	const url = new URL('https://files.example.com/a.vtt?sig=1');

	test('public addresses: the first is connected to', () => {
		expect(judgeAddresses(url, ['93.184.216.34', '2606:2800:220:1::248'], none)).toEqual({
			kind: 'allowed',
			url,
			address: '93.184.216.34',
		});
	});

	test('one internal address among public ones refuses the name, naming what it resolved to', () => {
		expect(judgeAddresses(url, ['93.184.216.34', '127.0.0.1'], none)).toEqual({
			kind: 'refused',
			host: 'files.example.com',
			address: '127.0.0.1',
			reason: 'loopback',
			why: expect.stringMatching(/^files\.example\.com resolves to 127\.0\.0\.1, a loopback/),
			message:
				'https://files.example.com/a.vtt?[redacted] was not fetched: files.example.com resolves to 127.0.0.1, a loopback address (n8n’s own machine). Only public addresses are fetched unless allowed: if this file server is trusted, add files.example.com to Allowed File Hosts under the node’s Options.',
		});
	});

	test.each([
		['::ffff:127.0.0.1', 'loopback'],
		['::', 'unspecified'],
		['10.1.2.3', 'private'],
		['100.64.1.1', 'cgnat'],
		['169.254.169.254', 'link-local'],
		['fd12::1', 'private'],
	])('%s is refused (%s)', (address, reason) => {
		expect(judgeAddresses(url, [address], none)).toMatchObject({
			kind: 'refused',
			reason,
			address,
		});
	});

	test('the machine’s own name resolves to loopback: refused like any other', () => {
		expect(judgeAddresses(new URL('http://vm:5678/a.vtt'), ['127.0.0.1'], none)).toMatchObject({
			kind: 'refused',
			reason: 'loopback',
			message: expect.stringContaining('add vm:5678 to Allowed File Hosts'),
		});
	});

	test('listed ranges let their addresses through', () => {
		expect(judgeAddresses(url, ['10.1.2.3', '93.184.216.34'], listing('10.0.0.0/8'))).toMatchObject(
			{
				kind: 'allowed',
				address: '10.1.2.3',
			},
		);
		expect(judgeAddresses(url, ['10.1.2.3'], listing('10.0.0.0/8:8443'))).toMatchObject({
			kind: 'refused',
		});
		expect(judgeAddresses(url, ['10.1.2.3'], listing('10.0.0.0/8:443'))).toMatchObject({
			kind: 'allowed',
		});
	});

	test('no address, or one that is no address, is refused', () => {
		for (const addresses of [[], ['not-an-address'], ['93.184.216.34', '']]) {
			expect(judgeAddresses(url, addresses, none)).toEqual({
				kind: 'refused',
				host: 'files.example.com',
				reason: 'no-address',
				why: 'the lookup of files.example.com gave no usable address.',
				message:
					'https://files.example.com/a.vtt?[redacted] was not fetched: the lookup of files.example.com gave no usable address.',
			});
		}
	});
});

describe('parseAllowedHosts', () => {
	test('each kind of entry', () => {
		expect(
			parseAllowedHosts(' files.internal,*.corp.example:9000\n10.0.0.0/8 [fd00::1]:8443 fd00::/8 ')
				.hosts,
		).toEqual([
			{ entry: 'files.internal', kind: 'name', name: 'files.internal' },
			{ entry: '*.corp.example:9000', kind: 'suffix', suffix: 'corp.example', port: 9000 },
			{
				entry: '10.0.0.0/8',
				kind: 'range',
				network: { family: 4, bytes: [10, 0, 0, 0] },
				prefix: 8,
			},
			{
				entry: '[fd00::1]:8443',
				kind: 'range',
				network: { family: 6, bytes: [0xfd, 0, ...new Array<number>(13).fill(0), 1] },
				prefix: 128,
				port: 8443,
			},
			{
				entry: 'fd00::/8',
				kind: 'range',
				network: { family: 6, bytes: [0xfd, ...new Array<number>(15).fill(0)] },
				prefix: 8,
			},
		]);
	});

	test('a URL gives its host and port (the scheme’s when none is written); a spelling of an address is read as one', () => {
		expect(parseAllowedHosts('https://minio.lan http://minio.lan:9000/ 0x7f.1:5680').hosts).toEqual(
			[
				{ entry: 'https://minio.lan', kind: 'name', name: 'minio.lan', port: 443 },
				{ entry: 'http://minio.lan:9000/', kind: 'name', name: 'minio.lan', port: 9000 },
				{
					entry: '0x7f.1:5680',
					kind: 'range',
					network: { family: 4, bytes: [127, 0, 0, 1] },
					prefix: 32,
					port: 5680,
				},
			],
		);
	});

	test('each entry that is none of them is named', () => {
		expect(
			parseAllowedHosts(
				'ok.example 10.0.0.0/33 ::1/200 http://x.example/path a:b:c user@host.example [::1',
			),
		).toEqual({
			hosts: [{ entry: 'ok.example', kind: 'name', name: 'ok.example' }],
			problems: [
				'"10.0.0.0/33" is not an address range such as 10.0.0.0/8 or fd00::/8',
				'"::1/200" is not an address range such as 10.0.0.0/8 or fd00::/8',
				'"http://x.example/path" is not a host name, address or range (write the host alone, e.g. files.example.internal:9000)',
				'"a:b:c" is not a host name, address or range',
				'"user@host.example" is not a host name, address or range (write the host alone, e.g. files.example.internal:9000)',
				'"[::1" is not a host name, address or range',
			],
		});
	});

	test('nothing, or not text, is an empty list', () => {
		expect(parseAllowedHosts('')).toEqual({ hosts: [], problems: [] });
		expect(parseAllowedHosts(undefined)).toEqual({ hosts: [], problems: [] });
		expect(parseAllowedHosts(['x'])).toEqual({ hosts: [], problems: [] });
	});

	test('what n8n leaves of an expression in a field that takes none is no host', () => {
		// n8n drops the "=" of an expression in a parameter marked noDataExpression (NodeHelpers.getNodeParameters)
		expect(parseAllowedHosts('{{ $json.host }}').problems).toEqual([
			'"{{" is not a host name, address or range',
			'"$json.host" is not a host name, address or range',
			'"}}" is not a host name, address or range',
		]);
		expect(parseAllowedHosts('Bücher.example').hosts).toEqual([
			{ entry: 'Bücher.example', kind: 'name', name: 'xn--bcher-kva.example' },
		]);
	});

	test('an expression is refused whole, never evaluated', () => {
		expect(parseAllowedHosts('={{ $json.host }}')).toEqual({
			hosts: [],
			problems: [
				'Allowed File Hosts takes a fixed list, not an expression: a value from an item or an AI agent must not widen where files are fetched from',
			],
		});
	});
});

describe('portOf and shownUrl', () => {
	test('the port connected to', () => {
		expect(portOf(new URL('https://a.example/'))).toBe(443);
		expect(portOf(new URL('http://a.example/'))).toBe(80);
		expect(portOf(new URL('http://a.example:8080/'))).toBe(8080);
	});

	test('shown without credentials and query', () => {
		expect(shownUrl(new URL('https://u:p@a.example:8443/x/y.vtt?sig=1#f'))).toBe(
			'https://a.example:8443/x/y.vtt?[redacted]',
		);
		expect(shownUrl(new URL('https://a.example/x'))).toBe('https://a.example/x');
	});
});
