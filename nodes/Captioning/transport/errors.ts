// A failed call in words: the HTTP answer behind an error, the transport's own refusals, and the error the user
// reads, chosen from a table of named cases. The service's words are redacted of every secret the call held (the
// credential's values and the callback token) first, and bounded; its body is never handed to n8n.
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { knownNetworkProblem } from '../shared/network';
import {
	type HttpFailure,
	rateLimitMessage,
	type RetryStop,
	type WaitCancelledError,
} from '../shared/pacing';
import { callbackTokensIn, redact } from '../shared/redact';
import { readServiceWords } from '../shared/serviceWords';
import { withServiceWords } from '../shared/words';
import { MAX_REDIRECTS, type RedirectStep } from './redirects';
import type { ApiRequest } from './types';

/** The service refused the token again after the call's one renewal (a 401 n8n handed back, or a 400/403 saying so). */
export class TokenRefusedAgain extends Error {
	constructor(readonly status: number) {
		super('access token refused after renewing it');
		this.name = 'TokenRefusedAgain';
	}
}

/** A redirect the transport does not follow; the message says where the service pointed and what to do. */
export class RedirectRefused extends Error {
	constructor(
		readonly failure: HttpFailure,
		readonly step: RedirectStep | 'too-many',
	) {
		super('redirect not followed');
		this.name = 'RedirectRefused';
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

/** A call ended by the execution's cancellation, during its request or its wait for the rate limit. */
export function cancelledError(
	node: INode,
	error: WaitCancelledError,
	request: ApiRequest,
): NodeOperationError {
	const after = `after ${Math.round(error.elapsedMs / 1000)} s`;
	return new NodeOperationError(
		node,
		error.during === 'request'
			? `The execution was cancelled during ${request.method} ${request.path} (${after}): the request was aborted.`
			: `The execution was cancelled while ${request.method} ${request.path} was waiting for the service's rate limit (${after}).`,
		{ itemIndex: request.itemIndex },
	);
}

/** A call that failed, as each case reads it. */
interface FailedCall {
	node: INode;
	stop: RetryStop;
	request: ApiRequest;
	/** `METHOD /path`, as every message names the call. */
	what: string;
	/** What no message may show: the credential's values the call held, and the callback tokens it sent. */
	secrets: string[];
}

/** A failure the service answered, with its words redacted of every secret and bounded. */
interface Answered extends FailedCall {
	status: number;
	detail: string | undefined;
}

const ACTION: Record<string, string> = {
	GET: 'read',
	POST: 'create',
	DELETE: 'delete',
	PATCH: 'update',
	PUT: 'update',
};

const refusedAgain = (what: string, status: number) =>
	`The service refused the access token for ${what} even after renewing it${status === 401 ? '' : ` (HTTP ${status})`}. Open the Captioning credential and test it.`;

/** The words for a status the service answered: the first entry that matches, else the service's own words. */
const STATUS_WORDS: ReadonlyArray<{
	matches: (status: number) => boolean;
	words: (answered: Answered) => string;
}> = [
	{ matches: (s) => s === 401, words: ({ what, status }) => refusedAgain(what, status) },
	{
		matches: (s) => s === 403,
		words: ({ request }) =>
			`The credential is not allowed to ${ACTION[request.method] ?? 'call'} ${request.path} (HTTP 403). Check that the application has the write_transcriptions and write_media scopes.`,
	},
	{
		matches: (s) => s === 406,
		words: () =>
			`The service does not accept the API Media Type set in the credential (HTTP 406). Set it to application/vnd.<service>.v1 with the service's own name.`,
	},
	{ matches: (s) => s === 429, words: ({ what, stop }) => rateLimitMessage(what, stop) },
	{
		matches: (s) => s === 404,
		words: ({ request }) => `The service has no ${request.path} (HTTP 404).`,
	},
	{
		matches: (s) => s >= 500,
		words: ({ what, status }) =>
			`The captioning service failed with HTTP ${status} on ${what}. Try again later.`,
	},
];

const serviceWords = (answered: Answered) =>
	STATUS_WORDS.find((entry) => entry.matches(answered.status))?.words(answered) ??
	withServiceWords(
		`The service rejected ${answered.what} (HTTP ${answered.status})`,
		answered.detail,
	);

/** One of the transport's own refusals, with the status of the answer it refused. */
const refusal = ({ node, request }: FailedCall, cause: string, message: string, status: number) =>
	new NodeApiError(
		node,
		{ message: cause },
		{ message, httpCode: String(status), itemIndex: request.itemIndex },
	);

/** A redirect the transport did not follow. */
function redirectNotFollowed(failed: FailedCall) {
	const { error } = failed.stop;
	if (!(error instanceof RedirectRefused)) return undefined;
	const { status } = error.failure;
	const message = redirectMessage(failed.what, status, error.step);
	return refusal(failed, 'redirect not followed', message, status);
}

/** The token refused once more after the call's renewal. */
function tokenRefusedAgain(failed: FailedCall) {
	const { error } = failed.stop;
	if (!(error instanceof TokenRefusedAgain)) return undefined;
	const message = refusedAgain(failed.what, error.status);
	return refusal(failed, 'access token refused', message, error.status);
}

/** No answer: the service could not be reached. */
function unreachable({ node, stop, request, what }: FailedCall) {
	const problem = stop.failure ? undefined : knownNetworkProblem(stop.error);
	if (!problem) return undefined;
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

/** No answer of the service's: a credential failure, which carries its own clear message, passed on. */
function passedOn({ node, stop, request, secrets }: FailedCall): NodeApiError {
	const { error } = stop;
	const code = (error as { code?: string; cause?: { code?: string } })?.cause?.code;
	const message = redact((error as Error)?.message ?? 'Unknown error', secrets);
	// n8n 1.123 drops the HTTP error behind its own NodeApiError (an Error `cause` is not kept) but keeps its
	// status: so do we
	const status = statusOf(error);
	return new NodeApiError(
		node,
		{ message, ...(code ? { code } : {}) },
		{ message, itemIndex: request.itemIndex, ...(status ? { httpCode: String(status) } : {}) },
	);
}

/** The service's answer to the call, worded by its status. */
function serviceAnswer(failed: FailedCall, failure: HttpFailure): NodeApiError {
	// the service's words may echo what was sent (the token, the callback token): out before any wording
	const detail = readServiceWords(failure.data, (text) => redact(text, failed.secrets));
	const { status } = failure;
	const message = serviceWords({ ...failed, status, detail });
	// never the body: n8n takes a description from its members (message, error, detail) unredacted
	return new NodeApiError(failed.node, { message, status } as JsonObject, {
		message,
		description: detail,
		httpCode: String(status),
		itemIndex: failed.request.itemIndex,
	});
}

/** The transport's own refusals and an unreachable service, asked in this order before any answer. */
const BEFORE_THE_ANSWER = [redirectNotFollowed, tokenRefusedAgain, unreachable];

/** The error the user reads for a call that sendPaced gave up on; `secrets`: the credential's values it held. */
export function toApiError(
	node: INode,
	stop: RetryStop,
	request: ApiRequest,
	secrets: string[] = [],
): NodeApiError {
	const failed: FailedCall = {
		node,
		stop,
		request,
		what: `${request.method} ${request.path}`,
		secrets: [...secrets, ...callbackTokensIn(request.form)],
	};
	for (const wording of BEFORE_THE_ANSWER) {
		const error = wording(failed);
		if (error) return error;
	}
	return stop.failure ? serviceAnswer(failed, stop.failure) : passedOn(failed);
}
