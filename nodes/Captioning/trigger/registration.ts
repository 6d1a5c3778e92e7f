// Pure decisions of the trigger's registration: the callback URI with its secret token, whether what is stored
// still matches what the node wants, and which endpoints at the service are this trigger's.
import type { IDataObject } from 'n8n-workflow';

import type { WebhookEndpointResource } from '../shared/schemas';

export interface Registration {
	endpointId: string;
	/** The webhook URL without the token (what n8n's getNodeWebhookUrl returns). */
	webhookUrl: string;
	events: string[];
	token: string;
}

export const TOKEN_PARAMETER = 'token';

export function readRegistration(staticData: IDataObject): Registration | undefined {
	const r = staticData.registration as Partial<Registration> | undefined;
	if (
		!r ||
		typeof r.endpointId !== 'string' ||
		typeof r.webhookUrl !== 'string' ||
		typeof r.token !== 'string' ||
		!Array.isArray(r.events)
	) {
		return undefined;
	}
	return {
		endpointId: r.endpointId,
		webhookUrl: r.webhookUrl,
		events: r.events.map(String),
		token: r.token,
	};
}

export function callbackUriWithToken(webhookUrl: string, token: string): string {
	const url = new URL(webhookUrl);
	url.searchParams.set(TOKEN_PARAMETER, token);
	return url.toString();
}

/** The callback URI without query or fragment, to compare it with a webhook URL. */
export function withoutQuery(uri: string): string {
	try {
		const url = new URL(uri);
		url.search = '';
		url.hash = '';
		return url.toString().replace(/\/+$/, '');
	} catch {
		return uri;
	}
}

const sameEvents = (a: readonly string[], b: readonly string[]) =>
	a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

export type StoredCheck = 'missing' | 'stale' | 'current';

/** Whether the stored registration is what the node wants now (another URL or other events make it stale). */
export function checkStored(
	stored: Registration | undefined,
	wanted: { webhookUrl: string; events: readonly string[] },
): StoredCheck {
	if (!stored) return 'missing';
	if (withoutQuery(stored.webhookUrl) !== withoutQuery(wanted.webhookUrl)) return 'stale';
	if (!sameEvents(stored.events, wanted.events)) return 'stale';
	return 'current';
}

/** Whether the endpoint the service holds is still the stored registration. */
export function endpointMatches(endpoint: WebhookEndpointResource, stored: Registration): boolean {
	return (
		endpoint.id === stored.endpointId &&
		endpoint.attributes.callback_uri === callbackUriWithToken(stored.webhookUrl, stored.token) &&
		sameEvents(endpoint.attributes.enabled_events, stored.events)
	);
}

/** Endpoints at the service that deliver to this webhook URL, whatever their token: this trigger's own. */
export function endpointsFor(endpoints: WebhookEndpointResource[], webhookUrl: string) {
	const target = withoutQuery(webhookUrl);
	return endpoints.filter((e) => withoutQuery(e.attributes.callback_uri) === target);
}
