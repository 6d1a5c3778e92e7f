// The one way this package talks to the service: captioningApiCall, on n8n's httpRequestWithAuthentication, with
// its renewals (renewing.ts), pacing that always ends, redirects kept to the Base URL's origin, errors in errors.ts.
import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/constants';
import {
	type CancelSignal,
	pacerFor,
	RetryStop,
	sendPaced,
	WAIT_BUDGET_MS,
	WaitCancelledError,
	waitUnlessCancelled,
} from '../shared/pacing';
import { headerValue } from '../shared/schemas';
import { settle } from '../shared/settle';
import { normaliseBaseUrl, secretsOf } from '../tokens/values';
import { cancelledError, readFailure, RedirectRefused, toApiError } from './errors';
import { isRedirect, MAX_REDIRECTS, redirectStep } from './redirects';
import { type Attempt, firstAttempt, type RenewingIo, sendRenewing } from './renewing';
import type { ApiRequest, ApiResponse, CaptioningContext } from './types';

export type { ApiRequest, ApiResponse, CaptioningContext } from './types';

/** One call, answered as it came: every answer is read by need where it is used. */
export async function captioningApiCall(
	this: CaptioningContext,
	request: ApiRequest,
): Promise<ApiResponse> {
	const began = Date.now();
	const stored = await this.getCredentials(CREDENTIAL_TYPE, request.itemIndex);
	const baseUrl = normaliseBaseUrl(stored.baseUrl);
	const signal = cancelSignalOf(this);
	const io: RenewingIo = {
		send: async (data) => await sendFollowingRedirects(this, { request, baseUrl, signal }, data),
		readStored: async () => await this.getCredentials(CREDENTIAL_TYPE, request.itemIndex),
		wait: async (ms) => await waitUnlessCancelled(ms, signal),
	};
	const terms = { deadline: began + WAIT_BUDGET_MS, handBackRefusedRefresh: true };
	// a paced retry goes on from the last attempt: a call renews once, however often it is paced
	let attempt: Attempt = firstAttempt(stored, terms, began);
	const outcome = await settle(
		sendPaced(
			async () => {
				const sent = await sendRenewing(io, attempt);
				attempt = sent.attempt;
				if (sent.ok) return sent.response;
				throw sent.error;
			},
			{
				method: request.method,
				pacer: pacerFor(`${baseUrl}|${String(stored.clientId ?? '').trim()}`),
				readFailure,
				signal,
			},
		),
	);
	if (outcome.ok) return outcome.value;
	const { error } = outcome;
	if (error instanceof WaitCancelledError) throw cancelledError(this.getNode(), error, request);
	// sendPaced ends in one of these two; anything else would be a defect, and is passed on as it is
	if (error instanceof RetryStop) {
		// every value the call held or obtained: as stored when it began, as sent last, and as stored now
		const now = await settle(io.readStored());
		const secrets = [stored, attempt.data, attempt.held, now.ok ? now.value : undefined].flatMap(
			secretsOf,
		);
		throw toApiError(this.getNode(), error, request, secrets);
	}
	throw error;
}

/** Where the context has one (executions do; hooks and webhooks do not), the signal of a cancelled execution. */
function cancelSignalOf(ctx: CaptioningContext): CancelSignal | undefined {
	const get = (ctx as Partial<Pick<IExecuteFunctions, 'getExecutionCancelSignal'>>)
		.getExecutionCancelSignal;
	return typeof get === 'function' ? get.call(ctx) : undefined;
}

/** What every attempt of one call shares. */
interface Target {
	request: ApiRequest;
	baseUrl: string;
	signal: CancelSignal | undefined;
}

/** n8n authenticates with the call's own read of the credential, with the call's terms beside it (handOver). */
function credentialsFor(
	ctx: CaptioningContext,
	data: Record<string, unknown>,
): IAdditionalCredentialOptions {
	const ref = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	return {
		credentialsDecrypted: {
			id: ref?.id ?? '',
			name: ref?.name ?? '',
			type: CREDENTIAL_TYPE,
			data: data as ICredentialDataDecryptedObject,
		},
	};
}

/** The options of one request of a call: to `hop`, never followed by n8n, with the call's form while kept. */
function requestOptions(
	{ request, signal }: Target,
	hop: { method: IHttpRequestMethods; url: string; keepBody: boolean },
): IHttpRequestOptions {
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
	return options;
}

/** One attempt: the request, and the redirects within the Base URL's origin that answer it. */
async function sendFollowingRedirects(
	ctx: CaptioningContext,
	target: Target,
	data: Record<string, unknown>,
): Promise<ApiResponse> {
	const { request, baseUrl } = target;
	let hop = { method: request.method, url: `${baseUrl}${request.path}`, keepBody: true };
	for (let redirects = 0; ; redirects++) {
		const outcome = await settle(
			ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				requestOptions(target, hop),
				credentialsFor(ctx, data),
			),
		);
		if (outcome.ok) return outcome.value as ApiResponse;
		const failure = readFailure(outcome.error);
		if (!failure || !isRedirect(failure.status)) throw outcome.error;
		const location = headerValue(failure.headers, 'location');
		const step = redirectStep(hop, failure.status, location, baseUrl);
		if (step.kind !== 'follow') throw new RedirectRefused(failure, step);
		if (redirects >= MAX_REDIRECTS) throw new RedirectRefused(failure, 'too-many');
		hop = step;
	}
}
