// The grant flow behind the credential's preAuthentication: refresh when possible, fall back to the assertion.
import type { IHttpRequestOptions } from 'n8n-workflow';

import {
	type CaptioningCredentials,
	chooseGrant,
	CredentialError,
	describeTokenFailure,
	type Grant,
	grantParameters,
	readCredentials,
	readTokenAnswer,
	type SavedTokens,
	shouldFallBackToAssertion,
	type TokenOutcome,
	toSavedTokens,
} from './auth';

type Http = (options: IHttpRequestOptions) => Promise<unknown>;

const NETWORK_CODE = /^E[A-Z_]+$/;

/** The network error's code (ECONNREFUSED, ENOTFOUND, …): its message may quote the URL with the secrets. */
export function networkCode(error: unknown): string {
	for (let e = error as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; i++) {
		if (typeof e.code === 'string' && NETWORK_CODE.test(e.code)) return e.code;
		e = e.cause as typeof e;
	}
	return 'network error';
}

async function callTokenEndpoint(
	http: Http,
	grant: Grant,
	credentials: CaptioningCredentials,
): Promise<TokenOutcome> {
	let response: { statusCode: number; headers: Record<string, unknown>; body: unknown };
	try {
		response = (await http({
			method: 'POST',
			url: `${credentials.baseUrl}/oauth/token`,
			qs: grantParameters(grant, credentials),
			headers: { Accept: 'application/json' },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: 30_000,
		})) as typeof response;
	} catch (error) {
		return { ok: false, failure: { kind: 'unreachable', code: networkCode(error) } };
	}
	return readTokenAnswer(
		response.statusCode,
		String(response.headers?.['content-type'] ?? ''),
		response.body,
	);
}

export async function obtainTokens(
	http: Http,
	data: Record<string, unknown>,
	now: () => number = Date.now,
): Promise<SavedTokens> {
	const credentials = readCredentials(data);
	let grant = chooseGrant(credentials);
	let outcome = await callTokenEndpoint(http, grant, credentials);
	if (!outcome.ok && grant === 'refresh_token' && shouldFallBackToAssertion(outcome.failure)) {
		grant = 'assertion';
		outcome = await callTokenEndpoint(http, grant, credentials);
	}
	if (!outcome.ok)
		throw new CredentialError(describeTokenFailure(outcome.failure, grant, credentials));
	return toSavedTokens(outcome.token, credentials, now());
}
