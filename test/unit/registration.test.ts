// The trigger's registration decisions for services with and without reads, branch by branch.
import {
	callbackUriWithToken,
	deliversWithToken,
	endpointMatches,
	endpointsFor,
	findRegistered,
	isManageable,
	keptEndpointWarning,
	keptKey,
	orphanedEndpointWarning,
	readRegistration,
	unsupportedReason,
} from '../../nodes/Captioning/trigger/registration';

const URL_ = 'https://n8n.example.com/webhook/abc/webhook';
const EVENTS = ['transcription.created', 'transcription.transcribed'];
const TOKEN = 'tok-secret-value';
const withoutId = { webhookUrl: URL_, events: EVENTS, token: TOKEN };
const stored = { endpointId: 'ep-1', ...withoutId };
const flat = (overrides: Record<string, unknown> = {}) => ({
	id: 'ep-1',
	callback_uri: callbackUriWithToken(URL_, TOKEN),
	enabled_events: [...EVENTS].reverse(),
	...overrides,
});

describe('readRegistration', () => {
	test('a registration without an endpoint id (the service did not say it) is complete', () => {
		expect(readRegistration({ registration: withoutId })).toEqual(withoutId);
		expect(readRegistration({ registration: { ...withoutId, endpointId: null } })).toEqual(
			withoutId,
		);
		expect(readRegistration({ registration: { ...withoutId, endpointId: '' } })).toEqual(withoutId);
	});

	test('manageable: false is kept; anything else means the service has reads', () => {
		expect(readRegistration({ registration: { ...stored, manageable: false } })).toEqual({
			...stored,
			manageable: false,
		});
		expect(readRegistration({ registration: { ...stored, manageable: 'no' } })).toEqual(stored);
		expect(isManageable(stored)).toBe(true);
		expect(isManageable({ ...stored, manageable: false })).toBe(false);
	});

	test('a record without URL, token or events, or with an id of another type, is none', () => {
		expect(readRegistration({ registration: { ...stored, webhookUrl: 1 } })).toBeUndefined();
		expect(readRegistration({ registration: { ...stored, events: 'x' } })).toBeUndefined();
		expect(readRegistration({ registration: { ...stored, endpointId: 7 } })).toBeUndefined();
		expect(readRegistration({ registration: 'x' })).toBeUndefined();
	});
});

describe('matching endpoints in either shape', () => {
	const jsonApi = {
		id: 'ep-1',
		attributes: { callback_uri: callbackUriWithToken(URL_, TOKEN), enabled_events: EVENTS },
	};

	test('deliversWithToken: same URL and token, whatever else the query holds', () => {
		expect(deliversWithToken(flat(), URL_, TOKEN)).toBe(true);
		expect(deliversWithToken(jsonApi, URL_, TOKEN)).toBe(true);
		expect(
			deliversWithToken(flat({ callback_uri: `${URL_}?a=1&token=${TOKEN}` }), URL_, TOKEN),
		).toBe(true);
		expect(deliversWithToken(flat(), URL_, 'other')).toBe(false);
		expect(deliversWithToken(flat({ callback_uri: URL_ }), URL_, TOKEN)).toBe(false);
		expect(deliversWithToken(flat({ callback_uri: 'not a url' }), URL_, TOKEN)).toBe(false);
		expect(deliversWithToken(flat(), 'https://n8n.example.com/webhook/other/webhook', TOKEN)).toBe(
			false,
		);
	});

	test('endpointMatches a flat endpoint; without a stored id the id is not compared', () => {
		expect(endpointMatches(flat(), stored)).toBe(true);
		expect(endpointMatches(flat({ id: 'ep-2' }), stored)).toBe(false);
		expect(endpointMatches(flat({ id: 'ep-2' }), withoutId)).toBe(true);
		expect(endpointMatches(flat({ enabled_events: ['transcription.created'] }), stored)).toBe(
			false,
		);
	});

	test('endpointsFor and findRegistered: this URL’s endpoints, and the one with this token', () => {
		const old = flat({ id: 'old', callback_uri: `${URL_}?token=old` });
		const mine = flat({ id: 'mine' });
		const other = flat({ id: 'other', callback_uri: 'https://n8n.example.com/webhook/x/webhook' });
		expect(endpointsFor([old, mine, other], URL_)).toEqual([old, mine]);
		expect(findRegistered([old, mine, other], stored)).toBe(mine);
		expect(findRegistered([old, other], stored)).toBeUndefined();
	});
});

describe('what the log says', () => {
	test('a kept endpoint: what stays, that the next activation reuses it, the dashboard; never the token', () => {
		const text = keptEndpointWarning(
			{ webhookUrl: `${URL_}?token=${TOKEN}` },
			unsupportedReason('DELETE', 405),
		);
		expect(text).toBe(
			`The captioning service does not let n8n delete webhook endpoints (HTTP 405), so the webhook endpoint that delivers to ${URL_} stays registered; the next activation of this trigger reuses it instead of registering another. If this workflow will not be activated again, delete the endpoint for ${URL_} in the service's developers dashboard.`,
		);
		expect(text).not.toContain(TOKEN);
	});

	test('an orphaned endpoint after other settings: refused deliveries, and the dashboard', () => {
		const text = orphanedEndpointWarning(stored, unsupportedReason('DELETE', undefined));
		expect(text).toMatch(
			/^The captioning service does not let n8n delete webhook endpoints, so the previous webhook endpoint for https:\/\/n8n\.example\.com\/webhook\/abc\/webhook .* delete it in the service's developers dashboard/,
		);
		expect(text).not.toContain(TOKEN);
		expect(unsupportedReason('GET', 404)).toBe(
			'does not let n8n read webhook endpoints (HTTP 404)',
		);
	});
});

describe('keptKey', () => {
	test('one per service account and webhook URL; a trailing slash or a query makes no difference', () => {
		const account = { baseUrl: 'https://api.example.com/', clientId: 'c1' };
		expect(keptKey(account, `${URL_}?token=x`)).toBe(
			keptKey({ ...account, baseUrl: 'https://api.example.com' }, URL_),
		);
		expect(keptKey(account, URL_)).not.toBe(keptKey({ ...account, clientId: 'c2' }, URL_));
		expect(keptKey(account, URL_)).not.toBe(
			keptKey(account, URL_.replace('/webhook/', '/webhook-test/')),
		);
	});
});
