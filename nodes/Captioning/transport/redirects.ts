// Redirects of API calls, decided here rather than by n8n's HTTP client, which may send the token to any origin:
// within the Base URL's origin one is followed, with the token; to another it stops with an error that says where
// the service pointed (docs/design.md, "Redirects").
import type { IHttpRequestMethods } from 'n8n-workflow';

/** Redirects followed within one call, as browsers bound them. */
export const MAX_REDIRECTS = 5;

const REDIRECTS = [301, 302, 303, 307, 308];

export type RedirectStep =
	| { kind: 'follow'; method: IHttpRequestMethods; url: string; keepBody: boolean }
	| { kind: 'cross-origin'; origin: string }
	| { kind: 'no-location' };

export function isRedirect(status: number): boolean {
	return REDIRECTS.includes(status);
}

function originOf(url: string): string | undefined {
	try {
		const parsed = new URL(url);
		return /^https?:$/.test(parsed.protocol) ? parsed.origin : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The next step of a call answered with a redirect. Only within the Base URL's origin is it followed; the method
 * changes as n8n's own client would change it (303, and 301/302 after a POST, become GET without a body).
 */
export function redirectStep(
	from: { method: IHttpRequestMethods; url: string },
	status: number,
	location: string | undefined,
	baseUrl: string,
): RedirectStep {
	let target: string;
	try {
		target = new URL(String(location ?? ''), from.url).href;
	} catch {
		return { kind: 'no-location' };
	}
	if (!location || !originOf(target)) return { kind: 'no-location' };
	const origin = originOf(target) as string;
	if (origin !== originOf(baseUrl)) return { kind: 'cross-origin', origin };
	const toGet =
		(status === 303 && from.method !== 'GET' && from.method !== 'HEAD') ||
		((status === 301 || status === 302) && from.method === 'POST');
	return toGet
		? { kind: 'follow', method: 'GET', url: target, keepBody: false }
		: { kind: 'follow', method: from.method, url: target, keepBody: true };
}
