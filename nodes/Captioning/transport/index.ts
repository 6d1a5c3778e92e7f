// The one way this package talks to the service: every call of the action node, the trigger's lifecycle and any
// future list search goes through captioningApiRequest, on n8n's httpRequestWithAuthentication (which runs the
// credential's token handling and retries once after a 401).
import type {
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';
import type { z, ZodTypeAny } from 'zod';

import { CREDENTIAL_TYPE } from '../shared/constants';
import { describeIssues, jsonApiErrorSchema } from '../shared/schemas';
import { stripQueryStrings } from '../shared/redact';
import { type Pacer, pacerFor, retryDelayMs } from './pacing';

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

/** Total time a call may spend waiting out rate limits before it gives up with an error. */
export const MAX_RATE_LIMIT_WAIT_MS = 60_000;

/** The service's whole answer: status, headers (e.g. `Location`) and the body as it came (empty answers too). */
export interface ApiResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** One call, parsed with `schema`: for answers whose shape the package relies on. */
export async function captioningApiRequest<S extends ZodTypeAny>(
	this: CaptioningContext,
	request: ApiRequest,
	schema: S,
): Promise<z.infer<S>> {
	const response = await captioningApiCall.call(this, request);
	return parseBody(this, response, schema, request);
}

/** One call, answered as it came: for answers whose shape the contract leaves open ("not shown"). */
export async function captioningApiCall(
	this: CaptioningContext,
	request: ApiRequest,
): Promise<ApiResponse> {
	const credentials = await this.getCredentials<{ baseUrl: string; clientId: string }>(
		CREDENTIAL_TYPE,
		request.itemIndex,
	);
	const baseUrl = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
	const pacer = pacerFor(`${baseUrl}|${credentials.clientId}`);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		json: true,
		returnFullResponse: true,
		timeout: 30_000,
	};
	if (request.form) {
		options.headers = { 'content-type': 'application/x-www-form-urlencoded' };
		// a string body keeps repeated names (`enabled_events[]`) exactly as the contract wants them
		options.body = new URLSearchParams(request.form).toString();
	}

	let waitedMs = 0;
	for (let attempt = 1; ; attempt++) {
		await pacer.beforeRequest();
		try {
			const response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				{ ...options },
			)) as ApiResponse;
			pacer.afterResponse(response.headers);
			return response;
		} catch (error) {
			const failure = readFailure(error);
			if (failure) pacer.afterResponse(failure.headers);
			const delay = failure ? retryDelayMs(request.method, failure, attempt) : undefined;
			if (failure && delay !== undefined && waitedMs + delay <= MAX_RATE_LIMIT_WAIT_MS) {
				waitedMs += delay;
				await sleep(delay);
				continue;
			}
			throw toApiError(this, error, failure, request, { waitedMs, refusedWaitMs: delay });
		}
	}
}

export interface HttpFailure {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	data: unknown;
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

/** The HTTP status behind an error from captioningApiRequest or from n8n's request helpers. */
export function statusOf(error: unknown): number | undefined {
	const failure = readFailure(error);
	if (failure) return failure.status;
	const code = Number((error as { httpCode?: unknown })?.httpCode);
	return Number.isInteger(code) && code > 0 ? code : undefined;
}

/** A human description of the service's JSON:API error document, if that is what it sent. */
export function describeServiceError(data: unknown): string | undefined {
	const parsed = jsonApiErrorSchema.safeParse(data);
	if (!parsed.success) return undefined;
	return parsed.data.errors
		.map((e) => e.detail ?? e.title ?? e.code)
		.filter(Boolean)
		.join('; ');
}

const ACTION: Record<string, string> = {
	GET: 'read',
	POST: 'create',
	DELETE: 'delete',
	PATCH: 'update',
	PUT: 'update',
};

function toApiError(
	ctx: CaptioningContext,
	error: unknown,
	failure: HttpFailure | undefined,
	request: ApiRequest,
	waits: { waitedMs: number; refusedWaitMs?: number },
): NodeApiError {
	const node = ctx.getNode();
	const what = `${request.method} ${request.path}`;
	if (!failure) {
		const code = (error as { code?: string; cause?: { code?: string } })?.cause?.code;
		const message = stripQueryStrings((error as Error)?.message ?? 'Unknown error');
		// credential failures (token endpoint refused, unreachable) already carry a clear message
		return new NodeApiError(
			node,
			{ message, ...(code ? { code } : {}) },
			{ message, itemIndex: request.itemIndex },
		);
	}
	const detail = describeServiceError(failure.data);
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
			message =
				waits.refusedWaitMs !== undefined &&
				waits.waitedMs + waits.refusedWaitMs > MAX_RATE_LIMIT_WAIT_MS
					? `The service's rate limit is used up for ${what}: it asks to wait ${Math.ceil(waits.refusedWaitMs / 1000)} s, longer than the ${MAX_RATE_LIMIT_WAIT_MS / 1000} s this node waits in all. Process fewer items per execution, or add a Wait node between batches.`
					: `The service's rate limit was still exceeded after waiting ${Math.round(waits.waitedMs / 1000)} s for ${what}. Process fewer items per execution, or add a Wait node between batches.`;
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
			? failure.data
			: { body: String(failure.data ?? '') }) as JsonObject,
		{
			message,
			description: detail,
			httpCode: String(status),
			itemIndex: request.itemIndex,
		},
	);
}

function parseBody<S extends ZodTypeAny>(
	ctx: CaptioningContext,
	response: ApiResponse,
	schema: S,
	request: ApiRequest,
): z.infer<S> {
	const parsed = schema.safeParse(response.body ?? {});
	if (parsed.success) return parsed.data;
	throw new NodeApiError(
		ctx.getNode(),
		{ body: JSON.stringify(response.body ?? null).slice(0, 500) },
		{
			message: `The service answered ${request.method} ${request.path} with an unexpected body`,
			description: describeIssues(parsed.error),
			httpCode: String(response.statusCode),
			itemIndex: request.itemIndex,
		},
	);
}

export type { Pacer };
