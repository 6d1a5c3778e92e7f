// Whether the captioning service can call the trigger's webhook URL back at all, judged from the two URLs alone (no
// DNS, no network). Only what cannot work is refused: an address that means "this machine" (loopback, `localhost`
// names, the unspecified 0.0.0.0 and ::) or "this network segment" (link-local), unless the service is itself that
// close (the sandbox on 127.0.0.1). Everything else registers: plain http, private addresses, `.lan` and container
// names, split DNS, Tailscale. docs/design.md, "Reachability", has the why.
import { WebhookPathTakenError, type INode } from 'n8n-workflow';

import { normaliseName, parseIp } from '../shared/addresses';

/** How close to n8n a host is, as another machine sees it: nearest first. */
export type HostClass = 'loopback' | 'unspecified' | 'link-local' | 'elsewhere';

/** A service reaches hosts whose reach is at least its own: one on 127.0.0.1 reaches everything. */
const REACH: Record<HostClass, number> = {
	loopback: 0,
	unspecified: 0,
	'link-local': 1,
	elsewhere: 2,
};

function ipv4Class([a, b]: readonly number[]): HostClass {
	if (a === 127) return 'loopback';
	// 0.0.0.0/8 is "this host on this network": a sender reaches itself, never n8n
	if (a === 0) return 'unspecified';
	if (a === 169 && b === 254) return 'link-local';
	return 'elsewhere';
}

// Narrower than the outbound policy's classes (shared/addresses.ts): only what no service can call back counts,
// so an IPv6 form carrying an IPv4 address is that address only when IPv4-mapped (::ffff:0:0/96), the form a
// dual-stack socket gives; NAT64 and the rest may route somewhere a service reaches.
function ipv6Class(bytes: readonly number[]): HostClass {
	const zeroUpTo = (n: number) => bytes.slice(0, n).every((b) => b === 0);
	if (zeroUpTo(15) && bytes[15] === 1) return 'loopback';
	if (zeroUpTo(16)) return 'unspecified';
	if (zeroUpTo(10) && bytes[10] === 0xff && bytes[11] === 0xff) return ipv4Class(bytes.slice(12));
	if (bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0x80) return 'link-local';
	return 'elsewhere';
}

/**
 * The class of a URL's host as `new URL()` gives it (`hostname`: lower case, IPv6 in brackets). `localhost` and
 * its subdomains are loopback without a lookup (RFC 6761: resolvers must answer them so); every other name is
 * "elsewhere": what it resolves to is the service's business, and a lookup here would only add a delay.
 */
export function hostClass(hostname: string): HostClass {
	const ip = parseIp(hostname);
	if (ip) return ip.family === 4 ? ipv4Class(ip.bytes) : ipv6Class(ip.bytes);
	const name = normaliseName(hostname);
	return name === 'localhost' || name.endsWith('.localhost') ? 'loopback' : 'elsewhere';
}

export type UnreachableReason = Exclude<HostClass, 'elsewhere'>;

export interface Unreachable {
	reason: UnreachableReason;
	/** One sentence with the cause and the fix: n8n shows an activation error's message alone. */
	message: string;
	/** The longer why, where n8n shows a description. */
	description: string;
}

/** Why each kind of address is out of the service's reach, in words a user can check. */
const WHY: Record<UnreachableReason, (host: string) => string> = {
	loopback: (host) => `${host} is n8n's own machine`,
	unspecified: (host) => `${host} names no machine another one can send to`,
	'link-local': (host) => `${host} is a link-local address, reachable only beside n8n`,
};

/**
 * Whether the service at `baseUrl` (the credential's Base URL) cannot call `webhookUrl` (the URL n8n built from
 * N8N_WEBHOOK_URL, or WEBHOOK_URL in n8n 1.x) at all; undefined when it may, or when either URL cannot be read (the registration then says what
 * is wrong).
 */
export function checkReachability(webhookUrl: string, baseUrl: string): Unreachable | undefined {
	let callback: URL;
	let service: URL;
	try {
		callback = new URL(webhookUrl);
		service = new URL(baseUrl);
	} catch {
		return undefined;
	}
	const to = hostClass(callback.hostname);
	if (to === 'elsewhere' || REACH[to] >= REACH[hostClass(service.hostname)]) return undefined;
	const host = callback.hostname.replace(/^\[|\]$/g, '');
	return {
		reason: to,
		message: `The captioning service cannot reach ${webhookUrl} (${WHY[to](host)}): set N8N_WEBHOOK_URL (in n8n 1.x: WEBHOOK_URL) to n8n's public https address and restart n8n.`,
		description:
			"n8n builds webhook URLs from its N8N_WEBHOOK_URL setting (WEBHOOK_URL in n8n 1.x, which n8n 2.x still reads for production URLs but has deprecated); without it they start with http://localhost:5678/, n8n's own machine. The service sends each event to the URL registered here, so nothing was registered. Set N8N_WEBHOOK_URL (in n8n 1.x: WEBHOOK_URL) on n8n's process to the address the service reaches n8n at (e.g. https://n8n.example.com/, your reverse proxy or tunnel), restart n8n and publish again.",
	};
}

/**
 * The refusal as n8n 2.x gets it. n8n 2.41 retries a failed activation 5 times, 1 + 2 + 4 + 8 s apart, unless the
 * error is a WebhookPathTakenError (its only permanent one): a URL does not become reachable by waiting, so the
 * refusal is one, and appears at once instead of after 15 s. n8n 1.x does not retry a manual activation.
 */
export class UnreachableCallbackError extends WebhookPathTakenError {
	constructor(node: INode, unreachable: Unreachable) {
		super(node.name);
		this.message = unreachable.message;
		this.description = unreachable.description;
		this.node = node;
	}
}
