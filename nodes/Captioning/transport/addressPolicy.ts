// Which addresses the package fetches files from: public ones, the origin of the credential's Base URL (the
// service's own, wherever it runs), and the hosts the user lists in Allowed File Hosts. Everything else is refused
// with the host, the kind of address and the setting that allows it. Pure: transport/outbound.ts asks it before
// each connection and each redirect hop (docs/design.md, "Outbound fetches").
import type { INodeProperties } from 'n8n-workflow';

import {
	ADDRESS_CLASS_WORDS,
	type AddressClass,
	classifyHost,
	classifyIp,
	formatIp,
	inRange,
	type IpAddress,
	normaliseName,
	parseIp,
} from '../shared/addresses';

/** The option's name, as refusals cite it. */
export const ALLOWED_HOSTS_NAME = 'Allowed File Hosts';

/** The policy's one setting, as the editor shows it (the action's Download, Convert, Check and Fix, the trigger). */
export const allowedHostsProperty: INodeProperties = {
	displayName: ALLOWED_HOSTS_NAME,
	name: 'allowedHosts',
	type: 'string',
	default: '',
	noDataExpression: true,
	placeholder: 'e.g. files.example.internal, 10.0.0.0/8, 127.0.0.1:9000',
	description:
		'Files are fetched from public addresses only. List trusted file servers on this machine or a private network: host names (any port, or host:port), *.suffixes, addresses or ranges, separated by commas.',
};

/** One entry of Allowed File Hosts: a name, a `*.` suffix, or an address or range; with a port, only that port. */
export type AllowedHost = { entry: string; port?: number } & (
	| { kind: 'name'; name: string }
	| { kind: 'suffix'; suffix: string }
	| { kind: 'range'; network: IpAddress; prefix: number }
);

export interface AddressPolicy {
	/** The credential's Base URL, when the node holds one: its origin is the service's own. */
	baseUrl?: string;
	allowed: readonly AllowedHost[];
	/** Where the user allows a host, as a refusal names it: "Allowed File Hosts under the node's Options". */
	setting: string;
}

export type Refused = {
	kind: 'refused';
	/** The host as the URL has it; absent when the URL is none. */
	host?: string;
	/** The address found, for a name that resolved. */
	address?: string;
	reason: AddressClass | 'scheme' | 'not-a-url' | 'no-address' | 'unverified' | 'redirects';
	/** Why, as a clause: "10.0.0.5 is a private network address. Only public addresses … add 10.0.0.5 to …". */
	why: string;
	message: string;
};

export type Judgement =
	/** Fetch it; `address` is the checked address to connect to (absent: the name is trusted as it is). */
	| { kind: 'allowed'; url: URL; address?: string }
	/** A name whose addresses decide: resolve it and ask `judgeAddresses`. */
	| { kind: 'resolve'; url: URL; name: string }
	| Refused;

const ALLOWED_SCHEMES = ['http:', 'https:'];

/** The port a URL connects to: its own, else the scheme's. */
export function portOf(url: URL): number {
	return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** A URL as messages show it: no user name or password, no query (signed URLs carry their signature there). */
export function shownUrl(url: URL): string {
	return `${url.protocol}//${url.host}${url.pathname}${url.search ? '?[redacted]' : ''}`;
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '');

/** A DNS name as the URL parser leaves it (IDNs in punycode): labels of letters, digits, "-" and "_". */
const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/;

function parseEntry(raw: string): AllowedHost | string {
	const entry = raw.trim();
	const range = /^([^/]+)\/(\d{1,3})(?::(\d{1,5}))?$/.exec(entry);
	if (range) {
		const network = parseIp(range[1]);
		const prefix = Number(range[2]);
		if (!network || prefix > (network.family === 4 ? 32 : 128)) {
			return `"${entry}" is not an address range such as 10.0.0.0/8 or fd00::/8`;
		}
		return {
			entry,
			kind: 'range',
			network,
			prefix,
			...(range[3] ? { port: Number(range[3]) } : {}),
		};
	}
	// a bare IPv6 address has colons of its own: it takes no port
	const v6 = parseIp(entry);
	if (v6?.family === 6 && !entry.startsWith('[')) {
		return { entry, kind: 'range', network: v6, prefix: 128 };
	}
	const wildcard = entry.startsWith('*.');
	let url: URL;
	try {
		const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry)
			? entry
			: `http://${wildcard ? entry.slice(2) : entry}`;
		url = new URL(text);
	} catch {
		return `"${entry}" is not a host name, address or range`;
	}
	if (url.pathname !== '/' || url.search || url.hash || url.username || !url.hostname) {
		return `"${entry}" is not a host name, address or range (write the host alone, e.g. files.example.internal:9000)`;
	}
	const port = url.port ? Number(url.port) : /^https?:\/\//i.test(entry) ? portOf(url) : undefined;
	const withPort = port === undefined ? {} : { port };
	const ip = parseIp(url.hostname);
	if (ip && !wildcard) {
		return { entry, kind: 'range', network: ip, prefix: ip.family === 4 ? 32 : 128, ...withPort };
	}
	const name = normaliseName(url.hostname);
	// the URL parser takes characters no host name has ("{", "$"): what it is not, it is not
	if (!HOST_NAME.test(name)) return `"${entry}" is not a host name, address or range`;
	return wildcard
		? { entry, kind: 'suffix', suffix: name, ...withPort }
		: { entry, kind: 'name', name, ...withPort };
}

/** Why a list that is an expression is not read: what comes from an item or an agent must not widen the policy. */
export const EXPRESSION_REFUSED = `${ALLOWED_HOSTS_NAME} takes a fixed list, not an expression: a value from an item or an AI agent must not widen where files are fetched from`;

/**
 * Allowed File Hosts as the user wrote them (the parameter's raw value, expressions unevaluated): entries split at
 * commas, spaces and new lines; each problem named. An expression is refused whole.
 */
export function parseAllowedHosts(text: unknown): { hosts: AllowedHost[]; problems: string[] } {
	const hosts: AllowedHost[] = [];
	const problems: string[] = [];
	if (typeof text === 'string' && text.startsWith('='))
		return { hosts, problems: [EXPRESSION_REFUSED] };
	const entries = typeof text === 'string' ? text.split(/[\s,]+/).filter(Boolean) : [];
	for (const entry of entries) {
		const parsed = parseEntry(entry);
		if (typeof parsed === 'string') problems.push(parsed);
		else hosts.push(parsed);
	}
	return { hosts, problems };
}

const portMatches = (host: AllowedHost, port: number) =>
	host.port === undefined || host.port === port;

function listedByName(allowed: readonly AllowedHost[], name: string, port: number): boolean {
	return allowed.some(
		(host) =>
			portMatches(host, port) &&
			((host.kind === 'name' && host.name === name) ||
				(host.kind === 'suffix' && name.endsWith(`.${host.suffix}`))),
	);
}

function listedAddress(allowed: readonly AllowedHost[], address: IpAddress, port: number): boolean {
	return allowed.some(
		(host) =>
			host.kind === 'range' &&
			portMatches(host, port) &&
			host.network.family === address.family &&
			inRange(address.bytes, host.network.bytes, host.prefix),
	);
}

function sameOrigin(url: URL, baseUrl: string | undefined): boolean {
	if (!baseUrl) return false;
	try {
		const base = new URL(baseUrl);
		return (
			base.protocol === url.protocol &&
			base.hostname === url.hostname &&
			portOf(base) === portOf(url)
		);
	} catch {
		return false;
	}
}

/** The entry a refusal suggests: the host and the port it was asked on, so that no other port opens with it. */
function suggestion(url: URL): string {
	return url.port ? url.host : url.hostname;
}

function refusal(url: URL, policy: AddressPolicy, reason: AddressClass, address?: string): Refused {
	const host = url.hostname;
	const what =
		address === undefined
			? `${bare(host)} is ${ADDRESS_CLASS_WORDS[reason]}`
			: `${host} resolves to ${address}, ${ADDRESS_CLASS_WORDS[reason]}`;
	const service = policy.baseUrl ? ' and the origin of the credential’s Base URL' : '';
	const why = `${what}. Only public addresses${service} are fetched unless allowed: if this file server is trusted, add ${suggestion(url)} to ${policy.setting}.`;
	return {
		kind: 'refused',
		host,
		...(address === undefined ? {} : { address }),
		reason,
		why,
		message: `${shownUrl(url)} was not fetched: ${why}`,
	};
}

/**
 * The first question of a fetch, before any connection: refused (scheme, a listed class of literal or RFC 6761
 * name), allowed (public literal, the service's origin, a listed host), or a name to resolve.
 */
export function judgeUrl(text: string, policy: AddressPolicy): Judgement {
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		const why = 'it is not a valid http:// or https:// URL.';
		return {
			kind: 'refused',
			reason: 'not-a-url',
			why,
			message: `The URL was not fetched: ${why}`,
		};
	}
	if (!ALLOWED_SCHEMES.includes(url.protocol)) {
		const why = 'only http:// and https:// URLs are fetched.';
		return {
			kind: 'refused',
			host: url.hostname,
			reason: 'scheme',
			why,
			message: `A ${url.protocol.replace(/:$/, '')}: URL was not fetched: ${why}`,
		};
	}
	const port = portOf(url);
	const ip = parseIp(url.hostname);
	if (ip) {
		const address = formatIp(ip);
		if (sameOrigin(url, policy.baseUrl) || listedAddress(policy.allowed, ip, port)) {
			return { kind: 'allowed', url, address };
		}
		const kind = classifyIp(ip);
		return kind === 'public' ? { kind: 'allowed', url, address } : refusal(url, policy, kind);
	}
	const name = normaliseName(url.hostname);
	if (sameOrigin(url, policy.baseUrl) || listedByName(policy.allowed, name, port)) {
		return { kind: 'allowed', url };
	}
	const special = classifyHost(name);
	if (special) return refusal(url, policy, special);
	return { kind: 'resolve', url, name };
}

/**
 * The second question, for a name: its addresses as the resolver gave them. Every one must be public or listed
 * (a name that answers a public and a loopback address is how rebinding starts); the first is connected to.
 */
export function judgeAddresses(
	url: URL,
	addresses: readonly string[],
	policy: AddressPolicy,
): Judgement {
	const port = portOf(url);
	const parsed = addresses.map((text) => ({ text, ip: parseIp(text) }));
	const first = parsed[0]?.ip;
	if (!first || parsed.some(({ ip }) => !ip)) {
		const why = `the lookup of ${url.hostname} gave no usable address.`;
		return {
			kind: 'refused',
			host: url.hostname,
			reason: 'no-address',
			why,
			message: `${shownUrl(url)} was not fetched: ${why}`,
		};
	}
	for (const { text, ip } of parsed as Array<{ text: string; ip: IpAddress }>) {
		if (listedAddress(policy.allowed, ip, port)) continue;
		const kind = classifyIp(ip);
		if (kind !== 'public') return refusal(url, policy, kind, text.trim());
	}
	return { kind: 'allowed', url, address: formatIp(first) };
}
