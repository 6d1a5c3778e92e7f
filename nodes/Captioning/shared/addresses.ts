// What kind of address a host is: IPv4 and IPv6 literals in every spelling a URL parser or a resolver gives, and
// the names RFC 6761 makes loopback. Pure (a community node may not import node:net): docs/design.md, "Outbound
// fetches", says what is refused and why.

/** The kinds of address, as the refusals name them; only `public` is fetched without being allowed. */
export type AddressClass =
	| 'loopback'
	| 'unspecified'
	| 'private'
	| 'link-local'
	| 'cgnat'
	| 'multicast'
	| 'broadcast'
	| 'reserved'
	| 'public';

/** An IP address: 4 bytes, or 16. */
export type IpAddress = { family: 4; bytes: number[] } | { family: 6; bytes: number[] };

/**
 * One IPv4 part as the WHATWG URL standard (and inet_aton) reads it: decimal, `0x` hex or `0` octal. Undefined
 * when the part is none of them.
 */
function ipv4Part(part: string): number | undefined {
	if (part === '') return undefined;
	if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
	if (/^0[0-7]+$/.test(part)) return parseInt(part.slice(1), 8);
	if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
	return undefined;
}

/**
 * An IPv4 address in any spelling the URL standard accepts: `127.0.0.1`, `2130706433`, `0x7f.1`, `0177.0.0.1`,
 * `127.1`, a trailing dot. Undefined for anything else (a name, a number out of range).
 */
export function parseIpv4(text: string): IpAddress | undefined {
	const parts = text.split('.');
	if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
	if (parts.length === 0 || parts.length > 4) return undefined;
	const numbers = parts.map(ipv4Part);
	if (numbers.some((n) => n === undefined)) return undefined;
	const values = numbers as number[];
	const last = values[values.length - 1];
	if (values.slice(0, -1).some((n) => n > 255) || last >= 256 ** (5 - values.length)) {
		return undefined;
	}
	const bytes = values.slice(0, -1);
	for (let shift = 4 - values.length; shift >= 0; shift--) {
		bytes.push(Math.floor(last / 256 ** shift) % 256);
	}
	return { family: 4, bytes };
}

/** An IPv6 address in RFC 4291 text (`::1`, `::ffff:127.0.0.1`, brackets allowed); undefined otherwise. */
export function parseIpv6(text: string): IpAddress | undefined {
	const bare = /^\[(.*)\]$/.exec(text)?.[1] ?? text;
	if (!bare.includes(':') || bare.includes('%')) return undefined;
	const halves = bare.split('::');
	if (halves.length > 2) return undefined;
	const groupsOf = (half: string): number[] | undefined => {
		if (half === '') return [];
		const pieces = half.split(':');
		const groups: number[] = [];
		for (const [index, piece] of pieces.entries()) {
			if (index === pieces.length - 1 && piece.includes('.')) {
				const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(piece) ? parseIpv4(piece) : undefined;
				if (!v4) return undefined;
				groups.push(v4.bytes[0] * 256 + v4.bytes[1], v4.bytes[2] * 256 + v4.bytes[3]);
			} else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
				groups.push(parseInt(piece, 16));
			} else {
				return undefined;
			}
		}
		return groups;
	};
	const head = groupsOf(halves[0]);
	const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
	if (!head || !tail) return undefined;
	const missing = 8 - head.length - tail.length;
	if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
	const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
	return { family: 6, bytes: groups.flatMap((g) => [g >> 8, g & 255]) };
}

/** An IP literal of either family (IPv6 with or without brackets); undefined for a name. */
export function parseIp(text: string): IpAddress | undefined {
	return parseIpv6(text) ?? parseIpv4(text);
}

/** Whether the first `prefix` bits of `bytes` are those of `network`. */
export function inRange(
	bytes: readonly number[],
	network: readonly number[],
	prefix: number,
): boolean {
	for (let bit = 0; bit < prefix; bit += 8) {
		const take = Math.min(8, prefix - bit);
		const mask = (0xff << (8 - take)) & 0xff;
		if ((bytes[bit / 8] & mask) !== (network[bit / 8] & mask)) return false;
	}
	return true;
}

const V4_RANGES: ReadonlyArray<[number[], number, AddressClass]> = [
	[[255, 255, 255, 255], 32, 'broadcast'],
	[[0, 0, 0, 0], 8, 'unspecified'], // "this network": Linux connects 0.0.0.0 to the machine itself
	[[127, 0, 0, 0], 8, 'loopback'],
	[[10, 0, 0, 0], 8, 'private'],
	[[172, 16, 0, 0], 12, 'private'],
	[[192, 168, 0, 0], 16, 'private'],
	[[169, 254, 0, 0], 16, 'link-local'],
	[[100, 64, 0, 0], 10, 'cgnat'],
	[[224, 0, 0, 0], 4, 'multicast'],
	[[240, 0, 0, 0], 4, 'reserved'],
	[[192, 0, 0, 0], 24, 'reserved'], // IETF protocol assignments
	[[192, 0, 2, 0], 24, 'reserved'], // documentation
	[[198, 51, 100, 0], 24, 'reserved'],
	[[203, 0, 113, 0], 24, 'reserved'],
	[[198, 18, 0, 0], 15, 'reserved'], // benchmarking
];

function classifyV4(bytes: readonly number[]): AddressClass {
	return V4_RANGES.find(([network, prefix]) => inRange(bytes, network, prefix))?.[2] ?? 'public';
}

/**
 * IPv6 forms that carry an IPv4 address, and where: IPv4-mapped (::ffff:0:0/96), IPv4-translated
 * (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16). A connection to one of
 * them may reach the IPv4 address it carries.
 */
const EMBEDDING: ReadonlyArray<[number[], number, number]> = [
	[[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, 12],
	[[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96, 12],
	[[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96, 12],
	[[0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96, 12],
	[[0x20, 0x02], 16, 2],
];

/** The IPv4 address an IPv6 address carries (mapped, translated, compatible, NAT64, 6to4); else undefined. */
export function embeddedIpv4(bytes: readonly number[]): number[] | undefined {
	const found = EMBEDDING.find(([network, prefix]) => inRange(bytes, network, prefix));
	return found ? bytes.slice(found[2], found[2] + 4) : undefined;
}

const V6_RANGES: ReadonlyArray<[number[], number, AddressClass]> = [
	[[0xfe, 0x80], 10, 'link-local'],
	[[0xfe, 0xc0], 10, 'private'], // site-local, deprecated but routed so in places
	[[0xfc], 7, 'private'], // unique local
	[[0xff], 8, 'multicast'],
	[[0, 0x64, 0xff, 0x9b, 0, 1], 48, 'private'], // NAT64 for local use (RFC 8215)
	[[0x01, 0, 0, 0, 0, 0, 0, 0], 64, 'reserved'], // discard-only
	[[0x20, 0x01, 0x0d, 0xb8], 32, 'reserved'], // documentation
];

function classifyV6(bytes: readonly number[]): AddressClass {
	const zeros = bytes.slice(0, 15).every((b) => b === 0);
	if (zeros && bytes[15] === 0) return 'unspecified';
	if (zeros && bytes[15] === 1) return 'loopback';
	const v4 = embeddedIpv4(bytes);
	if (v4) return classifyV4(v4);
	return V6_RANGES.find(([network, prefix]) => inRange(bytes, network, prefix))?.[2] ?? 'public';
}

/** The class of an IP address. */
export function classifyIp(address: IpAddress): AddressClass {
	return address.family === 4 ? classifyV4(address.bytes) : classifyV6(address.bytes);
}

/** A host name without its trailing dot, in lower case: `LocalHost.` is `localhost`. */
export function normaliseName(host: string): string {
	return host.toLowerCase().replace(/\.$/, '');
}

/**
 * The class of a host as a URL gives it: an IP literal's class, `loopback` for the names RFC 6761 makes loopback
 * without a lookup (`localhost`, `*.localhost`), and undefined for any other name (its addresses decide).
 */
export function classifyHost(host: string): AddressClass | undefined {
	const ip = parseIp(host);
	if (ip) return classifyIp(ip);
	const name = normaliseName(host);
	return name === 'localhost' || name.endsWith('.localhost') ? 'loopback' : undefined;
}

/** An address in its usual text: `127.0.0.1`, `::1`, `::ffff:7f00:1` (RFC 5952: lower case, longest zeros cut). */
export function formatIp(address: IpAddress): string {
	if (address.family === 4) return address.bytes.join('.');
	const groups = Array.from(
		{ length: 8 },
		(_, i) => address.bytes[2 * i] * 256 + address.bytes[2 * i + 1],
	);
	let best = { start: -1, length: 1 };
	for (let i = 0; i < 8; i++) {
		let j = i;
		while (j < 8 && groups[j] === 0) j++;
		if (j - i > best.length) best = { start: i, length: j - i };
		i = j;
	}
	const hex = groups.map((g) => g.toString(16));
	if (best.start < 0) return hex.join(':');
	const head = hex.slice(0, best.start).join(':');
	const tail = hex.slice(best.start + best.length).join(':');
	return `${head}::${tail}`;
}

/** The words a refusal uses for each class: what the address is, for someone who did not choose it. */
export const ADDRESS_CLASS_WORDS: Record<AddressClass, string> = {
	loopback: 'a loopback address (n8n’s own machine)',
	unspecified: 'the unspecified address, which reaches n8n’s own machine',
	private: 'a private network address',
	'link-local': 'a link-local address (where cloud metadata services answer)',
	cgnat: 'a carrier-grade NAT address (100.64.0.0/10)',
	multicast: 'a multicast address',
	broadcast: 'the broadcast address',
	reserved: 'a reserved address',
	public: 'a public address',
};
