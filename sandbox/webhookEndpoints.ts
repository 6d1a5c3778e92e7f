// The webhook-endpoint routes: creation as section 4.3 (validation A8), and the list, read and delete the
// contract does not show (A9), each answered in the shape the variants choose.
import type { IncomingMessage, ServerResponse } from 'node:http';

import { type Answer, HttpError, readBody, send, sendAnswer } from './http';
import {
	absentRouteAnswer,
	creationAnswer,
	DEFAULT_PAGE_SIZE,
	type FlatEndpoint,
	listAnswer,
	parsePage,
	readAnswer,
	storedCallbackUri,
	type Variants,
	withEndpointIds,
	withMembers,
} from './variants';

export const EVENT_TYPES = ['transcription.created', 'transcription.transcribed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const COLLECTION_PATH = '/webhook_endpoints';

export interface WebhookEndpoint {
	id: string;
	clientId: string;
	callbackUri: string;
	enabledEvents: EventType[];
	createdAt: string;
}

/** What the routes need of the sandbox. */
export interface EndpointStore {
	readonly endpoints: Map<string, WebhookEndpoint>;
	readonly url: string;
	readonly variants: Readonly<Variants>;
	now(): number;
	/** The id of an endpoint being created (members=loose numbers them). */
	newEndpointId(): string;
}

export function isEndpointPath(pathname: string): boolean {
	return pathname === COLLECTION_PATH || pathname.startsWith(`${COLLECTION_PATH}/`);
}

/** Throws the router's answer for a route the service does not offer under `manage`; runs before auth. */
export function assertRouteOffered(variant: Variants['manage'], method: string, pathname: string) {
	const absent = absentRouteAnswer(variant, method, pathname === COLLECTION_PATH);
	if (!absent) return;
	if (absent.status === 404) {
		throw new HttpError(404, 'not_found', `No route matches ${method} ${pathname}.`);
	}
	throw new HttpError(
		405,
		'method_not_allowed',
		`${method} is not allowed on ${pathname}: this service offers only POST ${COLLECTION_PATH}.`,
		undefined,
		absent.headers,
	);
}

export function flatEndpoint(endpoint: WebhookEndpoint): FlatEndpoint {
	return {
		id: endpoint.id,
		callback_uri: endpoint.callbackUri,
		enabled_events: endpoint.enabledEvents,
		created_at: endpoint.createdAt,
	};
}

/** Validates the form of 4.3 (A8); throws the 415 or 422 a client would get. */
export function parseEndpointForm(
	contentTypeHeader: string | undefined,
	body: Buffer,
): { callbackUri: string; events: EventType[] } {
	const contentType = (contentTypeHeader ?? '').split(';')[0].trim().toLowerCase();
	if (contentType !== 'application/x-www-form-urlencoded') {
		throw new HttpError(
			415,
			'unsupported_media_type',
			`Send the fields form-encoded (Content-Type: application/x-www-form-urlencoded), not "${contentType || 'none'}".`,
		);
	}
	const form = new URLSearchParams(body.toString('utf8'));
	const callbackUri = form.get('callback_uri');
	if (!callbackUri) {
		throw new HttpError(
			422,
			'missing_field',
			'callback_uri is required.',
			'/data/attributes/callback_uri',
		);
	}
	let parsed: URL | undefined;
	try {
		parsed = new URL(callbackUri);
	} catch {
		parsed = undefined;
	}
	if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
		throw new HttpError(
			422,
			'invalid_callback_uri',
			`callback_uri must be an absolute http or https URI (got "${callbackUri}").`,
			'/data/attributes/callback_uri',
		);
	}
	if (form.has('enabled_events') && !form.has('enabled_events[]')) {
		throw new HttpError(
			422,
			'invalid_enabled_events',
			'enabled_events must be sent as repeated enabled_events[] fields, one per event name.',
			'/data/attributes/enabled_events',
		);
	}
	const events = form.getAll('enabled_events[]');
	if (events.length === 0) {
		throw new HttpError(
			422,
			'missing_field',
			'enabled_events[] needs at least one event name.',
			'/data/attributes/enabled_events',
		);
	}
	const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
	if (unknown.length > 0) {
		throw new HttpError(
			422,
			'invalid_enabled_events',
			`Unknown event name(s): ${unknown.join(', ')}. Allowed: ${EVENT_TYPES.join(', ')}.`,
			'/data/attributes/enabled_events',
		);
	}
	return { callbackUri, events: [...new Set(events)] as EventType[] };
}

/** An endpoint answer as the `members` and `endpoint-ids` readings write it. */
const asStored = (variants: Variants, answer: Answer) =>
	withEndpointIds(variants['endpoint-ids'], withMembers(variants.members, answer));

/** Serves an authenticated request on /webhook_endpoints[/{id}] for `clientId`. */
export async function serveEndpoints(
	store: EndpointStore,
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
	clientId: string,
): Promise<void> {
	const collectionUrl = `${store.url}${COLLECTION_PATH}`;
	const selfUrlOf = (id: string) => `${collectionUrl}/${id}`;
	const id = url.pathname.split('/')[2];
	const method = req.method ?? 'GET';
	if (id === undefined) {
		if (method === 'POST') {
			const form = parseEndpointForm(req.headers['content-type'], await readBody(req));
			const callback = storedCallbackUri(store.variants['callback-query'], form.callbackUri);
			if ('refused' in callback) {
				throw new HttpError(
					422,
					'invalid_callback_uri',
					callback.refused,
					'/data/attributes/callback_uri',
				);
			}
			const endpoint: WebhookEndpoint = {
				id: store.newEndpointId(),
				clientId,
				callbackUri: callback.stored,
				enabledEvents: form.events,
				createdAt: new Date(store.now()).toISOString(),
			};
			store.endpoints.set(endpoint.id, endpoint);
			const flat = flatEndpoint(endpoint);
			const created = creationAnswer(store.variants.create, flat, selfUrlOf(endpoint.id));
			return sendAnswer(res, asStored(store.variants, created));
		}
		if (method === 'GET') {
			// a list in one answer ignores page parameters, as it always did
			const page =
				store.variants.list === 'paged'
					? parsePage(url.searchParams)
					: { number: 1, size: DEFAULT_PAGE_SIZE };
			if ('error' in page) throw new HttpError(400, 'invalid_parameter', page.error);
			const mine = [...store.endpoints.values()]
				.filter((e) => e.clientId === clientId)
				.map(flatEndpoint);
			const list = listAnswer(store.variants, mine, page, collectionUrl, selfUrlOf);
			return sendAnswer(res, asStored(store.variants, list));
		}
		throw new HttpError(
			405,
			'method_not_allowed',
			`${method} is not allowed on ${COLLECTION_PATH}.`,
			undefined,
			{ allow: 'GET, POST' },
		);
	}
	const endpoint = store.endpoints.get(id);
	if (!endpoint || endpoint.clientId !== clientId) {
		throw new HttpError(404, 'not_found', `Webhook endpoint ${id} does not exist.`);
	}
	if (method === 'GET') {
		const read = readAnswer(store.variants.resource, flatEndpoint(endpoint), selfUrlOf(id));
		return sendAnswer(res, asStored(store.variants, read));
	}
	if (method === 'DELETE') {
		store.endpoints.delete(id);
		return send(res, 204, undefined);
	}
	throw new HttpError(
		405,
		'method_not_allowed',
		`${method} is not allowed on a webhook endpoint.`,
		undefined,
		{ allow: 'GET, DELETE' },
	);
}
