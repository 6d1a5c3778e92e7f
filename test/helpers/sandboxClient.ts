// Plain HTTP calls to the sandbox, written from the contract, independent of the package's own client.
import { json } from './http';
import { sandboxCredentialData } from '../../harness/credentials';
import { DEFAULT_CLIENT, type Sandbox, type Variants } from '../../sandbox/server';

export const SCOPE = 'write_transcriptions write_media';

export function tokenUrl(sandbox: Sandbox, params: Record<string, string>): string {
	return `${sandbox.url}/oauth/token?${new URLSearchParams(params).toString()}`;
}

export function assertionParams(overrides: Record<string, string> = {}): Record<string, string> {
	return {
		grant_type: 'assertion',
		provider: 'dashboard',
		assertion: DEFAULT_CLIENT.assertions[0],
		client_id: DEFAULT_CLIENT.clientId,
		client_secret: DEFAULT_CLIENT.clientSecret,
		scope: SCOPE,
		...overrides,
	};
}

export async function obtainToken(sandbox: Sandbox) {
	const res = await fetch(tokenUrl(sandbox, assertionParams()), { method: 'POST' });
	return (await json(res)) as { access_token: string; refresh_token: string; expires_in: number };
}

export function apiHeaders(sandbox: Sandbox, accessToken: string): Record<string, string> {
	return { accept: sandbox.mediaType, authorization: `Bearer ${accessToken}` };
}

export function endpointForm(callbackUri: string, events: string[]): string {
	const form = new URLSearchParams({ callback_uri: callbackUri });
	for (const event of events) form.append('enabled_events[]', event);
	return form.toString();
}

export async function createEndpoint(
	sandbox: Sandbox,
	accessToken: string,
	callbackUri: string,
	events: string[],
) {
	return fetch(`${sandbox.url}/webhook_endpoints`, {
		method: 'POST',
		headers: {
			...apiHeaders(sandbox, accessToken),
			'content-type': 'application/x-www-form-urlencoded',
		},
		body: endpointForm(callbackUri, events),
	});
}

/** The Captioning credential's fields for a sandbox, as a user would fill them in. */
export function credentialsFor(sandbox: Sandbox, overrides: Record<string, string> = {}) {
	return { ...sandboxCredentialData(sandbox), ...overrides };
}

/**
 * Plays other readings of the contract through the control API (`POST /_sandbox/variants`), as a suite driving
 * a sandbox in another process would; `reset` first restores every default. Answers the variants now played.
 */
export async function setVariants(
	sandbox: Sandbox,
	variants: Partial<Variants>,
	{ reset = false } = {},
): Promise<Variants> {
	const res = await fetch(`${sandbox.url}/_sandbox/variants`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(reset ? { reset: true, ...variants } : variants),
	});
	const body = await json(res);
	if (res.status !== 200) {
		throw new Error(`POST /_sandbox/variants answered ${res.status}: ${body.errors?.[0]?.detail}`);
	}
	return body.variants;
}
