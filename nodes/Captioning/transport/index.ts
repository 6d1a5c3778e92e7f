// The one way this package talks to the service: every call goes through captioningApiCall, on n8n's
// httpRequestWithAuthentication (the credential's token handling, one retry after a 401), with pacing and retries
// that always end (pacing.ts) and redirects that never take the token to another origin (redirects.ts).
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
import { normaliseBaseUrl, tokensOfOtherValues } from '../shared/credentialValues';
import { knownNetworkProblem } from '../shared/network';
import { callbackTokensIn, redact, redactJson } from '../shared/redact';
import { headerValue, readErrorWords } from '../shared/schemas';
import { settle } from '../shared/settle';
import {
	type CancelSignal,
	type HttpFailure,
	pacerFor,
	RetryStop,
	sendPaced,
	WAIT_BUDGET_MS,
	WaitCancelledError,
} from './pacing';
import { isRedirect, MAX_REDIRECTS, type RedirectStep, redirectStep } from './redirects';

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
	const credentials = await this.getCredentials(CREDENTIAL_TYPE, request.itemIndex);
	const baseUrl = normaliseBaseUrl(credentials.baseUrl);
	const signal = cancelSignalOf(this);
	const call: Call = { request, baseUrl, signal, credentials: credentialsFor(this, credentials) };
	const outcome = await settle(
		sendPaced(async () => await sendFollowingRedirects(this, call), {
			method: request.method,
			pacer: pacerFor(`${baseUrl}|${String(credentials.clientId ?? '').trim()}`),
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
	/** The credential to authenticate with, when it is not n8n's own read of it (see credentialsFor). */
	credentials: IAdditionalCredentialOptions | undefined;
}

/**
 * Saved tokens of other values are renewed before the call: n8n runs preAuthentication when the access token is
 * empty, so the call hands n8n the credential with it emptied (docs/design.md, "Tokens of other values").
 */
function credentialsFor(
	ctx: CaptioningContext,
	data: ICredentialDataDecryptedObject,
): Call['credentials'] {
	if (!tokensOfOtherValues(data)) return undefined;
	const ref = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	return {
		credentialsDecrypted: {
			id: ref?.id ?? '',
			name: ref?.name ?? '',
			type: CREDENTIAL_TYPE,
			data: { ...data, accessToken: '' },
		},
	};
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
				call.credentials,
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
	if (!response || typeof response.status !== 'number') return undefined;
	return {
		status: response.status,
		headers: (response.headers ?? {}) as HttpFailure['headers'],
		data: response.data,
	};
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

/** What a user reads when the service refused a rate-limited call for good, by why the transport stopped. */
export function rateLimitMessage(
	what: string,
	stop: Pick<RetryStop, 'reason' | 'attempts' | 'elapsedMs' | 'refusedWaitMs'>,
): string {
	const advice = 'Process fewer items per execution, or add a Wait node between batches.';
	const budget = `${WAIT_BUDGET_MS / 1000} s`;
	const asked = Math.ceil((stop.refusedWaitMs ?? 0) / 1000);
	const spent = Math.round(stop.elapsedMs / 1000);
	if (stop.reason === 'budget') {
		return stop.attempts <= 1
			? `The service's rate limit is used up for ${what}: it asks to wait ${asked} s, longer than the ${budget} this node gives a call in all. ${advice}`
			: `The service's rate limit is used up for ${what}: after ${spent} s it asks for ${asked} s more, beyond the ${budget} this node gives a call in all. ${advice}`;
	}
	return `The service's rate limit was still exceeded for ${what} after ${stop.attempts} attempts in ${spent} s. ${advice}`;
}

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
			message = `The service refused the access token for ${what} even after renewing it. Open the Captioning credential and test it.`;
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
			message = `The service rejected ${what} (HTTP ${status})${detail ? `: ${detail}` : ''}`;
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
