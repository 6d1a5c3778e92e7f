// Whether the captioning service can call the trigger's webhook URL back, judged from the two URLs alone (no DNS,
// no network): a service on the public internet cannot call n8n's own machine (localhost, 127.0.0.1, ::1), a
// link-local address, a private network (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) or a name only a
// local network resolves (.local, .internal, .home.arpa, a name without a dot). The verdict is relative: a
// service that is itself on such an address (the sandbox on 127.0.0.1) is as close as n8n, and stays quiet.

/** How far from the public internet a host is, nearest first. A service reaches hosts of its own class or farther out. */
export type HostClass = 'loopback' | 'link-local' | 'private' | 'public';

const REACH: Record<HostClass, number> = { loopback: 0, 'link-local': 1, private: 2, public: 3 };

/** Names only a local network resolves: mDNS, the private-use TLDs, and single-label names (Docker, LAN hosts). */
const LOCAL_SUFFIXES = ['.local', '.internal', '.home.arpa'];

function ipv4Class(octets: number[]): HostClass {
	const [a, b] = octets;
	if (a === 127 || a === 0) return 'loopback';
	if (a === 169 && b === 254) return 'link-local';
	if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
	// carrier-grade NAT, and the addresses Tailscale hands out: not reachable from outside
	if (a === 100 && b >= 64 && b <= 127) return 'private';
	return 'public';
}

function parseIpv4(host: string): number[] | undefined {
	const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
	if (!match) return undefined;
	const octets = match.slice(1).map(Number);
	return octets.every((o) => o <= 255) ? octets : undefined;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail read), or undefined. */
export function parseIpv6(host: string): number[] | undefined {
	if (!host.includes(':')) return undefined;
	let text = host;
	const v4 = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(text);
	if (v4) {
		const octets = parseIpv4(v4[1]);
		if (!octets) return undefined;
		const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
		text = `${text.slice(0, v4.index)}${hex(octets[0], octets[1])}:${hex(octets[2], octets[3])}`;
	}
	const halves = text.split('::');
	if (halves.length > 2) return undefined;
	const groups = (part: string) => (part === '' ? [] : part.split(':'));
	const head = groups(halves[0]);
	const tail = halves.length === 2 ? groups(halves[1]) : [];
	const missing = 8 - head.length - tail.length;
	if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
	const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
	if (!all.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined;
	return all.map((g) => parseInt(g, 16));
}

function ipv6Class(groups: number[]): HostClass {
	const zeroUpTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
	if (zeroUpTo(7) && (groups[7] === 0 || groups[7] === 1)) return 'loopback';
	// an IPv4 address written as IPv6 (::ffff:10.0.0.1) is that IPv4 address
	if (zeroUpTo(5) && groups[5] === 0xffff) {
		return ipv4Class([groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff]);
	}
	if ((groups[0] & 0xffc0) === 0xfe80) return 'link-local';
	if ((groups[0] & 0xfe00) === 0xfc00) return 'private';
	return 'public';
}

/** The class of a URL's host as `new URL()` gives it (`hostname`: lower case, IPv6 in brackets). */
export function hostClass(hostname: string): HostClass {
	const host = hostname
		.replace(/^\[|\]$/g, '')
		.replace(/\.$/, '')
		.toLowerCase();
	const v4 = parseIpv4(host);
	if (v4) return ipv4Class(v4);
	const v6 = parseIpv6(host);
	if (v6) return ipv6Class(v6);
	if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
	if (!host.includes('.') || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
		return 'private';
	}
	return 'public';
}

export type UnreachableReason = 'loopback' | 'link-local' | 'private' | 'plain-http';

export interface Unreachable {
	reason: UnreachableReason;
	/** One paragraph with the cause and the fix: n8n shows an activation error's message alone. */
	message: string;
	/** The longer why, where n8n shows a description (the node panel). */
	description: string;
}

/** Why each kind of address is out of the service's reach, in words a user can check. */
function why(reason: UnreachableReason, host: string): string {
	switch (reason) {
		case 'loopback':
			return `${host} is n8n's own machine`;
		case 'link-local':
			return `${host} is a link-local address, reachable only on n8n's own network segment`;
		case 'private':
			return /^[\d.]+$|:/.test(host)
				? `${host} is a private address, reachable only inside n8n's network`
				: `${host} is a name only n8n's local network knows`;
		case 'plain-http':
			return 'it uses plain http, and a service at https may refuse to send events over http';
	}
}

/**
 * Whether the service at `baseUrl` (the credential's Base URL) can call `webhookUrl` (the URL n8n built from
 * WEBHOOK_URL); undefined when it can, when the user turned the check off, or when either URL cannot be read
 * (the registration then says what is wrong).
 */
export function checkReachability(
	webhookUrl: string,
	baseUrl: string,
	options: { skip?: boolean } = {},
): Unreachable | undefined {
	if (options.skip) return undefined;
	let callback: URL;
	let service: URL;
	try {
		callback = new URL(webhookUrl);
		service = new URL(baseUrl);
	} catch {
		return undefined;
	}
	const from = hostClass(service.hostname);
	const to = hostClass(callback.hostname);
	let reason: UnreachableReason | undefined;
	if (REACH[to] < REACH[from]) reason = to as Exclude<HostClass, 'public'>;
	else if (from === 'public' && service.protocol === 'https:' && callback.protocol === 'http:') {
		reason = 'plain-http';
	}
	if (!reason) return undefined;
	const cause = why(reason, callback.hostname);
	return {
		reason,
		message: `The captioning service at ${service.origin} cannot reach this trigger's webhook URL ${webhookUrl}: ${cause}. Set WEBHOOK_URL to n8n's public https address (e.g. https://n8n.example.com/, your reverse proxy or tunnel) and restart n8n. If the service does reach this address, turn on Skip Reachability Check in the trigger's options.`,
		description:
			"n8n builds webhook URLs from its WEBHOOK_URL setting; without it they start with http://localhost:5678/, n8n's own machine. The service sends each event to the URL registered here, so nothing was registered. Once WEBHOOK_URL is set and n8n restarted, the next activation registers the new URL.",
	};
}
