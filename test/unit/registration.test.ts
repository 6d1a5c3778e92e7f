// The trigger's registration decisions for services with and without reads, branch by branch.
import {
	accountFingerprint,
	callbackUriWithToken,
	checkStored,
	deliversTo,
	deliversWithToken,
	endpointMatches,
	endpointsFor,
	findRegistered,
	hasPlainToken,
	isManageable,
	keptEndpointWarning,
	keptKey,
	madeWith,
	migrateRegistration,
	orphanedEndpointWarning,
	otherAccountWarning,
	readRegistration,
	unsupportedReason,
	withoutQuery,
} from '../../nodes/Captioning/trigger/registration';
import { hashToken } from '../../nodes/Captioning/trigger/token';

const URL_ = 'https://n8n.example.com/webhook/abc/webhook';
const EVENTS = ['transcription.created', 'transcription.transcribed'];
const TOKEN = 'tok-secret-value';
const TOKEN_HASH = hashToken(TOKEN);
const withoutId = { webhookUrl: URL_, events: EVENTS, tokenHash: TOKEN_HASH };
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

	test('a record without URL, token hash or events, or with an id of another type, is none', () => {
		expect(readRegistration({ registration: { ...stored, webhookUrl: 1 } })).toBeUndefined();
		expect(readRegistration({ registration: { ...stored, tokenHash: '' } })).toBeUndefined();
		expect(readRegistration({ registration: { ...stored, tokenHash: 7 } })).toBeUndefined();
		expect(readRegistration({ registration: { ...stored, events: 'x' } })).toBeUndefined();
		expect(readRegistration({ registration: { ...stored, endpointId: 7 } })).toBeUndefined();
		expect(readRegistration({ registration: 'x' })).toBeUndefined();
		expect(readRegistration({})).toBeUndefined();
	});

	test('version 0.1.0’s plain token is read as its hash; a stored hash wins over it', () => {
		const legacy = { endpointId: 'ep-1', webhookUrl: URL_, events: EVENTS, token: TOKEN };
		expect(readRegistration({ registration: legacy })).toEqual(stored);
		expect(
			readRegistration({ registration: { ...legacy, tokenHash: hashToken('newer') } })?.tokenHash,
		).toBe(hashToken('newer'));
		expect(readRegistration({ registration: { ...legacy, token: '' } })).toBeUndefined();
		expect(readRegistration({ registration: { ...legacy, token: 1 } })).toBeUndefined();
	});
});

describe('migrateRegistration', () => {
	test('a plain token is replaced by its hash in the static data, the rest kept', () => {
		const staticData = {
			registration: {
				endpointId: 'ep-1',
				webhookUrl: URL_,
				events: EVENTS,
				token: TOKEN,
				manageable: false,
			},
			recentEvents: 'kept',
		};
		expect(hasPlainToken(staticData)).toBe(true);
		expect(migrateRegistration(staticData)).toEqual({ ...stored, manageable: false });
		expect(staticData).toEqual({
			registration: { ...stored, manageable: false },
			recentEvents: 'kept',
		});
		expect(hasPlainToken(staticData)).toBe(false);
		expect(JSON.stringify(staticData)).not.toContain(TOKEN);
	});

	test('a registration with a hash is left as it is (same object); none stays none', () => {
		const registration = { ...stored };
		const staticData = { registration };
		expect(migrateRegistration(staticData)).toEqual(stored);
		expect(staticData.registration).toBe(registration);
		const empty = {};
		expect(migrateRegistration(empty)).toBeUndefined();
		expect(empty).toEqual({});
	});
});

describe('matching endpoints in either shape', () => {
	const jsonApi = {
		id: 'ep-1',
		attributes: { callback_uri: callbackUriWithToken(URL_, TOKEN), enabled_events: EVENTS },
	};

	test('deliversWithToken: same URL and the token of the stored hash, whatever else the query holds', () => {
		expect(deliversWithToken(flat(), URL_, TOKEN_HASH)).toBe(true);
		expect(deliversWithToken(jsonApi, URL_, TOKEN_HASH)).toBe(true);
		expect(
			deliversWithToken(flat({ callback_uri: `${URL_}?a=1&token=${TOKEN}` }), URL_, TOKEN_HASH),
		).toBe(true);
		expect(deliversWithToken(flat(), URL_, hashToken('other'))).toBe(false);
		// the plain token is not a hash: a URI is never matched by comparing tokens themselves
		expect(deliversWithToken(flat(), URL_, TOKEN)).toBe(false);
		expect(
			deliversWithToken(flat({ callback_uri: `${URL_}?token=${TOKEN_HASH}` }), URL_, TOKEN_HASH),
		).toBe(false);
		expect(deliversWithToken(flat({ callback_uri: URL_ }), URL_, TOKEN_HASH)).toBe(false);
		expect(deliversWithToken(flat({ callback_uri: 'not a url' }), URL_, TOKEN_HASH)).toBe(false);
		expect(
			deliversWithToken(flat(), 'https://n8n.example.com/webhook/other/webhook', TOKEN_HASH),
		).toBe(false);
	});

	test('endpointMatches a flat endpoint; without a stored id the id is not compared', () => {
		expect(endpointMatches(flat(), stored)).toBe(true);
		expect(endpointMatches(flat({ id: 'ep-2' }), stored)).toBe(false);
		expect(endpointMatches(flat({ id: 'ep-2' }), withoutId)).toBe(true);
		expect(endpointMatches(flat({ enabled_events: ['transcription.created'] }), stored)).toBe(
			false,
		);
		expect(endpointMatches(flat({ callback_uri: `${URL_}?token=other` }), stored)).toBe(false);
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
		expect(keptKey(account, URL_)).toBe(
			keptKey({ baseUrl: '  https://api.example.com//  ', clientId: ' c1 ' }, URL_),
		);
		expect(keptKey(account, URL_)).not.toBe(
			keptKey(account, URL_.replace('/webhook/', '/webhook-test/')),
		);
	});
});

describe('the account a registration was made with', () => {
	const account = { baseUrl: 'https://api.example.com', clientId: 'client-1' };
	const fingerprint = accountFingerprint(account);

	test('a hash of the normalised Base URL and the Client ID, never the values', () => {
		expect(fingerprint).toMatch(/^[\w-]{43}$/);
		expect(fingerprint).not.toContain('client-1');
		expect(fingerprint).not.toContain('api.example.com');
		expect(
			accountFingerprint({ baseUrl: ' https://api.example.com/ ', clientId: 'client-1 ' }),
		).toBe(fingerprint);
		expect(accountFingerprint({ ...account, clientId: 'client-2' })).not.toBe(fingerprint);
		expect(accountFingerprint({ ...account, baseUrl: 'https://eu.example.com' })).not.toBe(
			fingerprint,
		);
	});

	test('is read back with the registration; anything but text is no account', () => {
		expect(readRegistration({ registration: { ...stored, account: fingerprint } })).toEqual({
			...stored,
			account: fingerprint,
		});
		expect(readRegistration({ registration: { ...stored, account: 7 } })).toEqual(stored);
	});

	test('madeWith: the same account, or one saved before accounts were kept; never another', () => {
		expect(madeWith({ account: fingerprint }, fingerprint)).toBe(true);
		expect(madeWith({}, fingerprint)).toBe(true);
		expect(
			madeWith({ account: accountFingerprint({ ...account, clientId: 'x' }) }, fingerprint),
		).toBe(false);
	});

	test('the warning for another account names the endpoint and the URL to delete, not the token', () => {
		const warning = otherAccountWarning({ webhookUrl: `${URL_}?token=${TOKEN}`, endpointId: '42' });
		expect(warning).toBe(
			`The webhook endpoint 42 that delivers to ${URL_} was registered with another account of the captioning service (another Base URL or Client ID than the credential now has), which n8n cannot reach any more: it was left as it is there. Its deliveries are refused (their token is no longer valid); delete it in that account's developers dashboard.`,
		);
		expect(otherAccountWarning({ webhookUrl: URL_ })).toMatch(
			/^The webhook endpoint that delivers to /,
		);
	});
});

describe('deliversTo: the one test before a delete', () => {
	test('the callback URI without its query is this webhook URL, whatever the token', () => {
		expect(deliversTo(flat(), URL_)).toBe(true);
		expect(deliversTo(flat({ callback_uri: `${URL_}?token=other&x=1` }), URL_)).toBe(true);
		expect(deliversTo(flat({ callback_uri: URL_ }), URL_)).toBe(true);
	});

	test('another URL, another path or host, or no callback URI: not this trigger’s', () => {
		expect(deliversTo(flat({ callback_uri: 'https://crm.example.com/hooks?token=x' }), URL_)).toBe(
			false,
		);
		expect(
			deliversTo(flat({ callback_uri: URL_.replace('/webhook/', '/webhook-test/') }), URL_),
		).toBe(false);
		expect(deliversTo(flat({ callback_uri: undefined }), URL_)).toBe(false);
	});
});

describe('registration decisions', () => {
	const stored = {
		endpointId: 'ep-1',
		webhookUrl: 'https://n8n.example.com/webhook/abc/webhook',
		events: ['transcription.created', 'transcription.transcribed'],
		tokenHash: hashToken('tok'),
	};

	test('the callback URI carries the token as a query parameter', () => {
		expect(callbackUriWithToken(stored.webhookUrl, 'a/b+c')).toBe(
			'https://n8n.example.com/webhook/abc/webhook?token=a%2Fb%2Bc',
		);
		expect(withoutQuery('https://n8n.example.com/webhook/abc/webhook/?token=x#y')).toBe(
			'https://n8n.example.com/webhook/abc/webhook',
		);
		expect(withoutQuery('not a url')).toBe('not a url');
	});

	test('readRegistration accepts only a complete record', () => {
		expect(readRegistration({ registration: stored })).toEqual(stored);
		expect(readRegistration({})).toBeUndefined();
		expect(readRegistration({ registration: { ...stored, tokenHash: 1 } })).toBeUndefined();
	});

	test('checkStored: missing, stale on another URL or other events, current otherwise', () => {
		expect(checkStored(undefined, { webhookUrl: stored.webhookUrl, events: stored.events })).toBe(
			'missing',
		);
		expect(
			checkStored(stored, {
				webhookUrl: 'https://new.example.com/webhook/abc/webhook',
				events: stored.events,
			}),
		).toBe('stale');
		expect(
			checkStored(stored, { webhookUrl: stored.webhookUrl, events: ['transcription.created'] }),
		).toBe('stale');
		expect(
			checkStored(stored, { webhookUrl: stored.webhookUrl, events: [...stored.events].reverse() }),
		).toBe('current');
	});

	test('endpointMatches compares id, callback URI with the token of the stored hash, and events', () => {
		const endpoint = {
			id: 'ep-1',
			attributes: {
				callback_uri: callbackUriWithToken(stored.webhookUrl, 'tok'),
				enabled_events: stored.events,
			},
		};
		expect(endpointMatches(endpoint, stored)).toBe(true);
		expect(endpointMatches({ ...endpoint, id: 'ep-2' }, stored)).toBe(false);
		expect(
			endpointMatches(
				{
					...endpoint,
					attributes: {
						...endpoint.attributes,
						callback_uri: callbackUriWithToken(stored.webhookUrl, 'tok2'),
					},
				},
				stored,
			),
		).toBe(false);
		expect(
			endpointMatches(
				{ ...endpoint, attributes: { ...endpoint.attributes, callback_uri: stored.webhookUrl } },
				stored,
			),
		).toBe(false);
		expect(
			endpointMatches(
				{
					...endpoint,
					attributes: { ...endpoint.attributes, enabled_events: ['transcription.created'] },
				},
				stored,
			),
		).toBe(false);
	});

	test('endpointsFor finds this URL’s endpoints whatever their token, and nobody else’s', () => {
		const mine = {
			id: '1',
			attributes: { callback_uri: `${stored.webhookUrl}?token=old`, enabled_events: [] },
		};
		const other = {
			id: '2',
			attributes: {
				callback_uri: 'https://n8n.example.com/webhook/other/webhook?token=x',
				enabled_events: [],
			},
		};
		expect(endpointsFor([mine, other], stored.webhookUrl)).toEqual([mine]);
	});
});
