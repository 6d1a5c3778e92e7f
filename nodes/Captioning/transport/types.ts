// What a call of the transport is: the n8n contexts it runs in, what it asks, and the answer as it came.
import type {
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

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
