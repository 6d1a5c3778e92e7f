// What the Webhook Endpoint operations output, by the node's typeVersion: from 2 the endpoint flat; at 1 the
// JSON:API resource, as 0.1.0 output it, so that workflows saved by 0.1.0 read what they read then
// (docs/design.md, "Node versions").
import type { IDataObject } from 'n8n-workflow';

import {
	ENDPOINT_TYPE,
	type ReadOptions,
	RESOURCE_MEMBERS,
	type WebhookEndpoint,
} from '../../transport/webhookEndpoints';

/** The first typeVersion whose endpoints are output flat (`{ id, callback_uri, enabled_events, … }`). */
export const FLAT_ENDPOINTS_FROM_VERSION = 2;

/** How the operations read the service's answers at `typeVersion`: version 1 needs the resource's own members. */
export function readOptionsFor(typeVersion: number): ReadOptions {
	return { resourceMembers: typeVersion < FLAT_ENDPOINTS_FROM_VERSION };
}

/**
 * An endpoint (read as readOptionsFor says, its token redacted) as the node outputs it at `typeVersion`. Version
 * 1: `{ id, type, attributes: { callback_uri, enabled_events, … }, links, … }` with the type, links, relationships
 * and meta the service sent (`type` is `webhook_endpoint` where its answer was no JSON:API resource, which 0.1.0
 * refused), and `note` beside them when there is one.
 */
export function endpointOutput(endpoint: WebhookEndpoint, typeVersion: number): IDataObject {
	if (typeVersion >= FLAT_ENDPOINTS_FROM_VERSION) return endpoint;
	const { id, note, [RESOURCE_MEMBERS]: members = {}, ...attributes } = endpoint;
	const { type = ENDPOINT_TYPE, ...others } = members;
	return { id, type, attributes, ...others, ...(note === undefined ? {} : { note }) };
}
