// Address literals and their classes, branch by branch; the spellings are checked against the WHATWG URL parser
// (Node's own, which is what the HTTP clients use), so that what is classified is what would be connected to.
import {
	classifyHost,
	classifyIp,
	embeddedIpv4,
	formatIp,
	parseIp,
	parseIpv4,
	parseIpv6,
} from '../../nodes/Captioning/shared/addresses';

const loopback = [127, 0, 0, 1];

describe('parseIpv4: every spelling the URL standard accepts', () => {
	test.each([
		['127.0.0.1', loopback],
		['2130706433', loopback],
		['0x7f000001', loopback],
		['0x7F.1', loopback],
		['0177.0.0.1', loopback],
		['0177.0.0.01', loopback],
		['127.1', loopback],
		['127.0.1', loopback],
		['127.0.0.1.', loopback],
		['0', [0, 0, 0, 0]],
		['0x', [0, 0, 0, 0]],
		['0xa9.0xfe.0xa9.0xfe', [169, 254, 169, 254]],
		['2852039166', [169, 254, 169, 254]],
		['10.0xffffff', [10, 255, 255, 255]],
		['255.255.255.255', [255, 255, 255, 255]],
	])('%s', (text, bytes) => {
		expect(parseIpv4(text)).toEqual({ family: 4, bytes });
		// the same address Node's URL parser makes of the host
		expect(new URL(`http://${text}/`).hostname).toBe(bytes.join('.'));
	});

	test.each([
		'256.0.0.1',
		'4294967296',
		'1.2.3.4.5',
		'1.2.3.256',
		'1..2',
		'08',
		'0x1g',
		'example.com',
		'127.0.0.1x',
		'',
		'.',
	])('%s is no IPv4 address', (text) => {
		expect(parseIpv4(text)).toBeUndefined();
	});
});

describe('parseIpv6', () => {
	const zeros = new Array<number>(16).fill(0);
	test.each([
		['::1', [...zeros.slice(0, 15), 1]],
		['[::]', zeros],
		['::', zeros],
		['::ffff:127.0.0.1', [...zeros.slice(0, 10), 0xff, 0xff, ...loopback]],
		['[::FFFF:7F00:1]', [...zeros.slice(0, 10), 0xff, 0xff, ...loopback]],
		['1:2:3:4:5:6:7:8', [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]],
		['fe80::1', [0xfe, 0x80, ...zeros.slice(2, 15), 1]],
		['1::', [0, 1, ...zeros.slice(2)]],
	])('%s', (text, bytes) => {
		expect(parseIpv6(text)).toEqual({ family: 6, bytes });
	});

	test.each([
		'1::2::3',
		'1:2:3:4:5:6:7:8:9',
		'1:2:3:4:5:6:7::8:9',
		'fe80::1%eth0',
		':::',
		':1::',
		'::ffff:1.2.3',
		'::ffff:1.2.3.256',
		'12345::1',
		'1:2:3',
		'g::1',
		'127.0.0.1',
		'example.com',
	])('%s is no IPv6 address', (text) => {
		expect(parseIpv6(text)).toBeUndefined();
	});
});

describe('classifyIp', () => {
	test.each([
		['127.0.0.1', 'loopback'],
		['127.255.255.254', 'loopback'],
		['0.0.0.0', 'unspecified'],
		['0.1.2.3', 'unspecified'],
		['10.0.0.1', 'private'],
		['172.16.0.1', 'private'],
		['172.31.255.255', 'private'],
		['172.32.0.1', 'public'],
		['192.168.1.1', 'private'],
		['169.254.169.254', 'link-local'],
		['100.64.0.1', 'cgnat'],
		['100.100.100.200', 'cgnat'],
		['100.127.255.255', 'cgnat'],
		['100.128.0.1', 'public'],
		['224.0.0.1', 'multicast'],
		['239.255.255.250', 'multicast'],
		['255.255.255.255', 'broadcast'],
		['240.0.0.1', 'reserved'],
		['192.0.2.1', 'reserved'],
		['198.18.0.1', 'reserved'],
		['8.8.8.8', 'public'],
		['93.184.216.34', 'public'],
		['::1', 'loopback'],
		['::', 'unspecified'],
		['::ffff:127.0.0.1', 'loopback'],
		['::ffff:7f00:1', 'loopback'],
		['::ffff:a9fe:a9fe', 'link-local'],
		['::127.0.0.1', 'loopback'],
		['::ffff:0:127.0.0.1', 'loopback'],
		['64:ff9b::127.0.0.1', 'loopback'],
		['64:ff9b::a00:1', 'private'],
		['2002:7f00:1::', 'loopback'],
		['2002:a9fe:a9fe::1', 'link-local'],
		['::ffff:8.8.8.8', 'public'],
		['fc00::1', 'private'],
		['fd00:ec2::254', 'private'],
		['fe80::1', 'link-local'],
		['febf::1', 'link-local'],
		['fec0::1', 'private'],
		['ff02::1', 'multicast'],
		['64:ff9b:1::1', 'private'],
		['100::1', 'reserved'],
		['2001:db8::1', 'reserved'],
		['2606:4700::1111', 'public'],
	])('%s is %s', (text, expected) => {
		expect(classifyIp(parseIp(text)!)).toBe(expected);
	});

	test('the IPv4 address an IPv6 form carries', () => {
		expect(embeddedIpv4(parseIp('::ffff:10.1.2.3')!.bytes)).toEqual([10, 1, 2, 3]);
		expect(embeddedIpv4(parseIp('2002:a01:203::')!.bytes)).toEqual([10, 1, 2, 3]);
		expect(embeddedIpv4(parseIp('2606:4700::1111')!.bytes)).toBeUndefined();
	});
});

describe('classifyHost', () => {
	test.each([
		['localhost', 'loopback'],
		['LOCALHOST.', 'loopback'],
		['files.localhost', 'loopback'],
		['[::1]', 'loopback'],
		['[::]', 'unspecified'],
		['0x7f.1', 'loopback'],
		['10.0.0.1', 'private'],
		['93.184.216.34', 'public'],
	])('%s is %s', (host, expected) => {
		expect(classifyHost(host)).toBe(expected);
	});

	test.each(['localhost.example.com', 'example.com', 'mylocalhost', 'vm'])(
		'%s is a name its addresses decide',
		(host) => {
			expect(classifyHost(host)).toBeUndefined();
		},
	);
});

describe('formatIp', () => {
	test('an IPv4 address is written dotted', () => {
		expect(formatIp(parseIp('0x7f.1')!)).toBe('127.0.0.1');
	});

	test.each([
		['::ffff:127.0.0.1', '::ffff:7f00:1'],
		['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
		['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
		['1:0:1:0:1:0:1:0', '1:0:1:0:1:0:1:0'],
		['0:0:0:0:0:0:0:0', '::'],
		['0:0:0:0:0:0:0:1', '::1'],
		['1:0:0:0:0:0:0:0', '1::'],
	])('%s is written %s, as the URL parser writes it', (text, written) => {
		expect(formatIp(parseIp(text)!)).toBe(written);
		expect(new URL(`http://[${text}]/`).hostname).toBe(`[${written}]`);
	});
});
