// A GET of a URL that came from outside (a delivery's file, an item's or an agent's URL), through n8n's helper but
// with the address policy applied where the socket connects: the name resolved by n8n's own resolver, every address
// judged, and the connection made to the checked address; redirects followed here, each hop judged the same.
// docs/design.md, "Outbound fetches", has the why and what n8n 1.x allows.
import type { BinaryHelperFunctions, IHttpRequestOptions } from 'n8n-workflow';

import {
	type AddressPolicy,
	judgeAddresses,
	judgeUrl,
	type Refused,
	shownUrl,
} from './addressPolicy';

/** A Node stream, as n8n's binary helpers take it (a community node may not import node:stream). */
export type Readable = Exclude<Parameters<BinaryHelperFunctions['prepareBinaryData']>[0], Buffer>;

/** Redirects followed for one file, as browsers bound them. */
export const MAX_FILE_REDIRECTS = 5;

/** The addresses of a name, as n8n's resolver gives them. */
export type Resolve = (name: string) => Promise<string[]>;

export interface OutboundHelpers {
	http: (options: IHttpRequestOptions) => Promise<unknown>;
	/** n8n's resolver; absent where n8n offers none (1.x): then the answer's address is checked instead. */
	resolve?: Resolve;
}

export interface OutboundRequest {
	/** Stops the request, its redirects and its body: a cancelled execution, a deadline, the trigger's budget. */
	signal: AbortSignal;
	/** The longest silence between two packets, in ms. */
	idleTimeoutMs: number;
}

export interface OpenedAnswer {
	/** The URL that answered, after any redirects. */
	url: URL;
	statusCode: number;
	headers: Record<string, string | undefined>;
	body: Readable;
	/** Closes the connection: n8n 2.41's body wrapper leaves the socket open when destroyed. */
	close(): void;
}

export type Outbound = { ok: true; answer: OpenedAnswer } | { ok: false; refused: Refused };

interface RawAnswer {
	statusCode: number;
	headers: Record<string, string | undefined>;
	body: Readable & { socket?: { remoteAddress?: string } };
}

/** n8n's resolver for nodes (n8n 2.x's egress filter: with n8n's SSRF protection on, its ranges apply too). */
export function n8nResolver(helpers: object): Resolve | undefined {
	const filter = (helpers as { getSecureEgressFilter?: unknown }).getSecureEgressFilter;
	if (typeof filter !== 'function') return undefined;
	type Lookup = (
		name: string,
		options: { all: true },
		done: (error: Error | null, addresses: Array<{ address: string }>) => void,
	) => void;
	const lookup = (
		filter.call(helpers, 'safe') as { createSecureLookup(): Lookup }
	).createSecureLookup();
	return async (name) =>
		await new Promise<string[]>((resolve, reject) => {
			lookup(name, { all: true }, (error, addresses) =>
				error ? reject(error) : resolve(addresses.map((a) => a.address)),
			);
		});
}

/** The request for `url`, made to `address` when one is given: the name kept in Host and in TLS's server name. */
export function pinnedRequest(
	url: URL,
	address: string | undefined,
	request: OutboundRequest,
	signal: AbortSignal,
	checkAnswer: boolean,
): IHttpRequestOptions {
	const target = new URL(url.href);
	const headers: Record<string, string> = {};
	let agentOptions: IHttpRequestOptions['agentOptions'];
	if (address !== undefined && !url.hostname.startsWith('[') && url.hostname !== address) {
		target.hostname = address.includes(':') ? `[${address}]` : address;
		headers.host = url.host;
		if (url.protocol === 'https:') agentOptions = { servername: url.hostname.replace(/\.$/, '') };
	}
	// an uncompressed answer is the response itself, whose socket tells the address it came from
	if (checkAnswer) headers['accept-encoding'] = 'identity';
	return {
		method: 'GET',
		url: target.href,
		headers,
		...(agentOptions ? { agentOptions } : {}),
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		timeout: request.idleTimeoutMs,
		// n8n's httpRequest does not take the execution's signal by itself (httpRequestWithAuthentication does)
		abortSignal: signal as IHttpRequestOptions['abortSignal'],
	};
}

/** Where a hop goes: the URL to ask next, or the refusal; `checkAnswer` when its address cannot be known first. */
async function judgeHop(
	url: string,
	policy: AddressPolicy,
	resolve: Resolve | undefined,
): Promise<{ url: URL; address?: string; checkAnswer: boolean } | Refused> {
	const judged = judgeUrl(url, policy);
	if (judged.kind === 'refused') return judged;
	if (judged.kind === 'allowed')
		return { url: judged.url, address: judged.address, checkAnswer: false };
	if (!resolve) return { url: judged.url, checkAnswer: true };
	const addresses = judgeAddresses(judged.url, await resolve(judged.name), policy);
	return addresses.kind === 'allowed'
		? { url: addresses.url, address: addresses.address, checkAnswer: false }
		: (addresses as Refused);
}

/** The answer's own address judged, where it could not be before the request (n8n 1.x). */
function judgeAnswer(url: URL, answer: RawAnswer, policy: AddressPolicy): Refused | undefined {
	const remote = answer.body.socket?.remoteAddress;
	if (remote === undefined) {
		const why = `n8n could not tell which address answered for ${url.hostname}, so nothing of the answer is read. n8n 2.x checks the address before connecting; on n8n 1.x, add ${url.hostname} to ${policy.setting} if this file server is trusted.`;
		return {
			kind: 'refused',
			host: url.hostname,
			reason: 'unverified',
			why,
			message: `${shownUrl(url)} was not read: ${why}`,
		};
	}
	const judged = judgeAddresses(url, [remote.replace(/^::ffff:(?=\d+\.)/, '')], policy);
	if (judged.kind !== 'refused') return undefined;
	return { ...judged, message: `${shownUrl(url)} was not read: ${judged.why}` };
}

const isRedirect = (status: number) => [301, 302, 303, 307, 308].includes(status);

function redirected(from: URL, status: number, refused: Refused): Refused {
	return {
		...refused,
		message: `${shownUrl(from)} redirected (HTTP ${status}) to a URL that was not fetched: ${refused.why}`,
	};
}

/**
 * GETs `url` within the policy: every hop judged before it connects (and its answer's address where n8n gives no
 * resolver), at most MAX_FILE_REDIRECTS redirects. Refusals are returned; network failures are thrown as n8n threw
 * them (n8n's own SSRF refusal among them).
 */
export async function openOutbound(
	helpers: OutboundHelpers,
	url: string,
	policy: AddressPolicy,
	request: OutboundRequest,
): Promise<Outbound> {
	let next = url;
	let from: { url: URL; status: number } | undefined;
	for (let hop = 0; ; hop++) {
		const judged = await judgeHop(next, policy, helpers.resolve);
		if ('kind' in judged) {
			return { ok: false, refused: from ? redirected(from.url, from.status, judged) : judged };
		}
		const own = new AbortController();
		const signal = AbortSignal.any([request.signal, own.signal]);
		const answer = (await helpers.http(
			pinnedRequest(judged.url, judged.address, request, signal, judged.checkAnswer),
		)) as RawAnswer;
		// closing the connection makes the body fail; whoever reads it hears of that through its own stream
		answer.body.on('error', () => undefined);
		const close = () => {
			own.abort();
			answer.body.destroy();
		};
		const wrong = judged.checkAnswer ? judgeAnswer(judged.url, answer, policy) : undefined;
		if (wrong) {
			close();
			return { ok: false, refused: from ? redirected(from.url, from.status, wrong) : wrong };
		}
		const location = answer.headers.location;
		if (!isRedirect(answer.statusCode) || typeof location !== 'string' || location === '') {
			return { ok: true, answer: { url: judged.url, ...answer, close } };
		}
		close();
		if (hop >= MAX_FILE_REDIRECTS) {
			const why = `it was redirected more than ${MAX_FILE_REDIRECTS} times.`;
			return {
				ok: false,
				refused: {
					kind: 'refused',
					reason: 'redirects',
					why,
					message: `${shownUrl(new URL(url))} was not fetched: ${why}`,
				},
			};
		}
		from = { url: judged.url, status: answer.statusCode };
		try {
			next = new URL(location, judged.url).href;
		} catch {
			next = location;
		}
	}
}
