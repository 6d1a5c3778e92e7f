// The one way this package talks to the service: every call goes through captioningApiCall, on n8n's
// httpRequestWithAuthentication, with renewals decided before and after a refusal (tokens/renewal.ts), pacing and retries
// that always end (shared/pacing.ts) and redirects that never take the token to another origin (redirects.ts).
import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/constants';
import { normaliseBaseUrl } from '../tokens/values';
import { knownNetworkProblem } from '../shared/network';
import { callbackTokensIn, redact, redactJson } from '../shared/redact';
import { headerValue, readErrorWords } from '../shared/schemas';
import { settle } from '../shared/settle';
import { withServiceWords } from '../shared/words';
import {
	type CancelSignal,
	type HttpFailure,
	pacerFor,
	rateLimitMessage,
	RetryStop,
	sendPaced,
	WAIT_BUDGET_MS,
	WaitCancelledError,
	waitUnlessCancelled,
} from '../shared/pacing';
import { type CallTerms, handedBack } from '../tokens/callTerms';
import { isRedirect, MAX_REDIRECTS, type RedirectStep, redirectStep } from './redirects';
import {
	handOver,
	nextRenewalStep,
	type RenewalState,
	saysTokenRefused,
	STORED_READS_MS,
	storedIsNewer,
} from '../tokens/renewal';

export type CaptioningContext =
	| IExecuteFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ILoadOptionsFunctions;

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Path below the credential's Base URL, e.g. `/webhook_endpoints`. */
	path: string;
	/** Form-encoded fields; a name may repeat (`enabled_events[]`). */
	form?: Array<[string, string]>;
	itemIndex?: number;
}

/** The service's whole answer: status, headers (e.g. `Location`) and the body as it came (empty answers too). */
export interface ApiResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** One call, answered as it came: every answer is read by need where it is used. */
export async function captioningApiCall(
	this: CaptioningContext,
	request: ApiRequest,
): Promise<ApiResponse> {
	const began = Date.now();
	const stored = await this.getCredentials(CREDENTIAL_TYPE, request.itemIndex);
	const baseUrl = normaliseBaseUrl(stored.baseUrl);
	const signal = cancelSignalOf(this);
	const terms: Call['terms'] = { deadline: began + WAIT_BUDGET_MS, handBackRefusedRefresh: true };
	const call: Call = {
		request,
		baseUrl,
		signal,
		terms,
		held: stored,
		data: handOver(stored, terms, began),
		spent: { tokenRefused: false, refreshRefused: false },
	};
	const outcome = await settle(
		sendPaced(async () => await sendRenewing(this, call), {
			method: request.method,
			pacer: pacerFor(`${baseUrl}|${String(stored.clientId ?? '').trim()}`),
			readFailure,
			signal,
		}),
	);
	if (outcome.ok) return outcome.value;
	const { error } = outcome;
	if (error instanceof WaitCancelledError) {
		const after = `after ${Math.round(error.elapsedMs / 1000)} s`;
		throw new NodeOperationError(
			this.getNode(),
			error.during === 'request'
				? `The execution was cancelled during ${request.method} ${request.path} (${after}): the request was aborted.`
				: `The execution was cancelled while ${request.method} ${request.path} was waiting for the service's rate limit (${after}).`,
			{ itemIndex: request.itemIndex },
		);
	}
	// sendPaced ends in one of these two; anything else would be a defect, and is passed on as it is
	if (error instanceof RetryStop) throw toApiError(this, error, request);
	throw error;
}

/** Where the context has one (executions do; hooks and webhooks do not), the signal of a cancelled execution. */
function cancelSignalOf(ctx: CaptioningContext): CancelSignal | undefined {
	const get = (ctx as Partial<Pick<IExecuteFunctions, 'getExecutionCancelSignal'>>)
		.getExecutionCancelSignal;
	return typeof get === 'function' ? get.call(ctx) : undefined;
}

/** What every attempt of one call shares. */
interface Call {
	request: ApiRequest;
	baseUrl: string;
	signal: CancelSignal | undefined;
	terms: Omit<CallTerms, 'held'>;
	/** The tokens the call holds as the store gave them: a store that holds others was renewed meanwhile. */
	held: Record<string, unknown>;
	/** The credential data handed to n8n (tokens/renewal.ts handOver); n8n writes a renewal's tokens into it. */
	data: Record<string, unknown>;
	spent: RenewalState;
}

/**
 * One attempt, and the renewals it may take (docs/design.md, "A token's way"): after the service refused the
 * token (a 401, or a 400/403 that says so), the credential as stored, or a renewal; after it refused the refresh
 * token, what the process that spent it saved, or the assertion grant.
 */
async function sendRenewing(ctx: CaptioningContext, call: Call): Promise<ApiResponse> {
	for (;;) {
		const outcome = await settle(sendFollowingRedirects(ctx, call));
		if (outcome.ok) return outcome.value;
		const failure = readFailure(outcome.error);
		const reason =
			handedBack(call.data) ?? (failure && saysTokenRefused(failure) ? 'token-refused' : undefined);
		const step = nextRenewalStep(reason, call.spent);
		if (step === 'give-up' && reason === 'token-refused') {
			throw new TokenRefusedAgain(failure?.status ?? 401);
		}
		if (step === 'give-up') throw outcome.error;
		if (step === 'read-stored') {
			call.spent.tokenRefused = true;
			const stored = await readStored(ctx, call);
			// a token another process saved meanwhile is used as it is; the one the call sent is renewed
			const renew = !storedIsNewer(stored, tokensOf(call.data));
			call.held = stored;
			call.data = handOver(stored, call.terms, Date.now(), { renew });
		} else {
			call.spent.refreshRefused = true;
			call.terms = { ...call.terms, handBackRefusedRefresh: false };
			const { stored, newer } = await awaitStored(ctx, call);
			call.held = stored;
			// nothing newer: the credential as stored goes on to the assertion grant (this process dropped the
			// refused refresh token)
			call.data = handOver(stored, call.terms, Date.now(), { renew: !newer });
		}
	}
}

const tokensOf = (data: Record<string, unknown>) => ({
	accessToken: data.accessToken,
	refreshToken: data.refreshToken,
});

/** The credential as stored now: n8n reads it from its database for every call (no cache in 2.41.1 or 1.123). */
async function readStored(ctx: CaptioningContext, call: Call): Promise<Record<string, unknown>> {
	return await ctx.getCredentials(CREDENTIAL_TYPE, call.request.itemIndex);
}

/**
 * After the service refused the refresh token: the process that spent it (rotation makes it single-use) saves
 * what it got a moment later. The store is read a few times over STORED_READS_MS; when nothing newer comes, the
 * credential as stored goes on to the assertion grant (this process never sends the refused token again).
 */
async function awaitStored(
	ctx: CaptioningContext,
	call: Call,
): Promise<{ stored: Record<string, unknown>; newer: boolean }> {
	let stored = call.held;
	for (const ms of STORED_READS_MS) {
		if (ms > 0) await waitUnlessCancelled(ms, call.signal);
		stored = await readStored(ctx, call);
		if (storedIsNewer(stored, tokensOf(call.held))) return { stored, newer: true };
	}
	return { stored, newer: false };
}

/** n8n authenticates with the call's own read of the credential, with the call's terms in it (handOver). */
function credentialsFor(ctx: CaptioningContext, call: Call): IAdditionalCredentialOptions {
	const ref = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	return {
		credentialsDecrypted: {
			id: ref?.id ?? '',
			name: ref?.name ?? '',
			type: CREDENTIAL_TYPE,
			data: call.data as ICredentialDataDecryptedObject,
		},
	};
}

/** The service refused the token again after the call's one renewal (a 401 n8n handed back, or a 400/403 saying so). */
class TokenRefusedAgain extends Error {
	constructor(readonly status: number) {
		super('access token refused after renewing it');
		this.name = 'TokenRefusedAgain';
	}
}

/** A redirect the transport does not follow; the message says where the service pointed and what to do. */
class RedirectRefused extends Error {
	constructor(
		readonly failure: HttpFailure,
		readonly step: RedirectStep | 'too-many',
	) {
		super('redirect not followed');
		this.name = 'RedirectRefused';
	}
}

/** One attempt: the request, and the redirects within the Base URL's origin that answer it. */
async function sendFollowingRedirects(ctx: CaptioningContext, call: Call): Promise<ApiResponse> {
	const { request, baseUrl, signal } = call;
	let hop = { method: request.method, url: `${baseUrl}${request.path}`, keepBody: true };
	for (let redirects = 0; ; redirects++) {
		const options: IHttpRequestOptions = {
			method: hop.method,
			url: hop.url,
			json: true,
			returnFullResponse: true,
			timeout: 30_000,
			// n8n would follow and, by default, send the token to wherever the service points
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		};
		// n8n-core sets this itself for executions (2.41.1 and 1.123); said here so that no caller depends on it
		if (signal) options.abortSignal = signal as IHttpRequestOptions['abortSignal'];
		if (request.form && hop.keepBody) {
			options.headers = { 'content-type': 'application/x-www-form-urlencoded' };
			// a string body keeps repeated names (`enabled_events[]`) exactly as the contract wants them
			options.body = new URLSearchParams(request.form).toString();
		}
		const outcome = await settle(
			ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				options,
				credentialsFor(ctx, call),
			),
		);
		if (outcome.ok) return outcome.value as ApiResponse;
		const failure = readFailure(outcome.error);
		if (!failure || !isRedirect(failure.status)) throw outcome.error;
		const step = redirectStep(
			hop,
			failure.status,
			headerValue(failure.headers, 'location'),
			baseUrl,
		);
		if (step.kind !== 'follow') throw new RedirectRefused(failure, step);
		if (redirects >= MAX_REDIRECTS) throw new RedirectRefused(failure, 'too-many');
		hop = step;
	}
}

/** The HTTP answer behind an error thrown by n8n's request helpers, when there was one. */
export function readFailure(error: unknown): HttpFailure | undefined {
	const cause = (error as { cause?: unknown })?.cause ?? error;
	const response = (cause as { response?: { status?: number; headers?: unknown; data?: unknown } })
		?.response;
	if (response && typeof response.status === 'number') {
		return {
			status: response.status,
			headers: (response.headers ?? {}) as HttpFailure['headers'],
			data: response.data,
		};
	}
	// n8n 1.123's NodeApiError drops the error it wraps (a `cause` field of its base class resets it): it keeps
	// the status and a JSON body, not the headers
	const kept = error as { httpCode?: unknown; context?: { data?: unknown } } | undefined;
	const status = Number(kept?.httpCode);
	return Number.isInteger(status) && status >= 300 && status < 600
		? { status, headers: {}, data: kept?.context?.data }
		: undefined;
}

/** The HTTP status behind an error from captioningApiCall or from n8n's request helpers. */
export function statusOf(error: unknown): number | undefined {
	const failure = readFailure(error);
	if (failure) return failure.status;
	const code = Number((error as { httpCode?: unknown })?.httpCode);
	return Number.isInteger(code) && code > 0 ? code : undefined;
}

const ACTION: Record<string, string> = {
	GET: 'read',
	POST: 'create',
	DELETE: 'delete',
	PATCH: 'update',
	PUT: 'update',
};

/** Where the service pointed a redirect the transport did not follow, and what to do about it. */
export function redirectMessage(
	what: string,
	status: number,
	step: RedirectStep | 'too-many',
): string {
	if (step === 'too-many') {
		return `The service redirected ${what} more than ${MAX_REDIRECTS} times (HTTP ${status}). Check the Base URL.`;
	}
	if (step.kind === 'cross-origin') {
		return `The service redirected ${what} to another address (${step.origin}, HTTP ${status}). The credential's token is only sent to its Base URL, so the redirect was not followed. If the service has moved there, set the Base URL to ${step.origin}.`;
	}
	return `The service answered ${what} with a redirect (HTTP ${status}) without a usable Location. Check the Base URL.`;
}

function toApiError(ctx: CaptioningContext, stop: RetryStop, request: ApiRequest): NodeApiError {
	const node = ctx.getNode();
	const { error, failure } = stop;
	const what = `${request.method} ${request.path}`;
	if (error instanceof RedirectRefused) {
		return new NodeApiError(
			node,
			{ message: 'redirect not followed' },
			{
				message: redirectMessage(what, error.failure.status, error.step),
				httpCode: String(error.failure.status),
				itemIndex: request.itemIndex,
			},
		);
	}
	const refusedAgain = (status: number) =>
		`The service refused the access token for ${what} even after renewing it${status === 401 ? '' : ` (HTTP ${status})`}. Open the Captioning credential and test it.`;
	if (error instanceof TokenRefusedAgain) {
		return new NodeApiError(
			node,
			{ message: 'access token refused' },
			{
				message: refusedAgain(error.status),
				httpCode: String(error.status),
				itemIndex: request.itemIndex,
			},
		);
	}
	if (!failure) {
		const problem = knownNetworkProblem(error);
		if (problem) {
			// in words, not the raw code: n8n would replace a message holding ECONNREFUSED with its generic one
			return new NodeApiError(
				node,
				{ message: problem },
				{
					message: `Could not reach the captioning service for ${what} (${problem}). Check the credential's Base URL and that n8n can reach that address, then try again.`,
					itemIndex: request.itemIndex,
				},
			);
		}
		const code = (error as { code?: string; cause?: { code?: string } })?.cause?.code;
		const message = redact(
			(error as Error)?.message ?? 'Unknown error',
			callbackTokensIn(request.form),
		);
		// credential failures (token endpoint refused, unreachable) already carry a clear message. n8n 1.123 drops
		// the HTTP error behind its own NodeApiError (an Error `cause` is not kept) but keeps its status: so do we
		const status = statusOf(error);
		return new NodeApiError(
			node,
			{ message, ...(code ? { code } : {}) },
			{ message, itemIndex: request.itemIndex, ...(status ? { httpCode: String(status) } : {}) },
		);
	}
	// the service's words may echo what was sent, the trigger's callback token with it: out before any wording
	const tokens = callbackTokensIn(request.form);
	const said = readErrorWords(failure.data);
	const detail = said === undefined ? undefined : redact(said, tokens);
	const status = failure.status;
	let message: string;
	switch (true) {
		case status === 401:
			message = refusedAgain(status);
			break;
		case status === 403:
			message = `The credential is not allowed to ${ACTION[request.method] ?? 'call'} ${request.path} (HTTP 403). Check that the application has the write_transcriptions and write_media scopes.`;
			break;
		case status === 406:
			message = `The service does not accept the API Media Type set in the credential (HTTP 406). Set it to application/vnd.<service>.v1 with the service's own name.`;
			break;
		case status === 429:
			message = rateLimitMessage(what, stop);
			break;
		case status === 404:
			message = `The service has no ${request.path} (HTTP 404).`;
			break;
		case status >= 500:
			message = `The captioning service failed with HTTP ${status} on ${what}. Try again later.`;
			break;
		default:
			message = withServiceWords(`The service rejected ${what} (HTTP ${status})`, detail);
	}
	return new NodeApiError(
		node,
		(typeof failure.data === 'object' && failure.data !== null
			? redactJson(failure.data, tokens)
			: { body: redact(String(failure.data ?? ''), tokens) }) as JsonObject,
		{
			message,
			description: detail,
			httpCode: String(status),
			itemIndex: request.itemIndex,
		},
	);
}
