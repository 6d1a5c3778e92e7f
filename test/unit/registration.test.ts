// The trigger's registration decisions for services with and without reads, branch by branch.
import { callbackUri } from '../../nodes/Captioning/trigger/callback';
import {
	accountFingerprint,
	changedCallbackWarning,
	checkStored,
	createdAmong,
	deliversTo,
	deliversWithToken,
	droppedTokenError,
	endpointMatches,
	endpointsFor,
	findRegistered,
	firstRoute,
	hasPlainToken,
	isManageable,
	judgeStored,
	keptEndpointWarning,
	keptKey,
	madeWith,
	migrateRegistration,
	orphanedEndpointWarning,
	otherAccountWarning,
	PATH_ROUTE_FOR,
	readRegistration,
	reroutedWarning,
	retryOnPath,
	routeOf,
	strippedEndpointWarning,
	unsupportedReason,
	withoutQuery,
} from '../../nodes/Captioning/trigger/registration';
import { hashToken } from '../../nodes/Captioning/trigger/token';

const URL_ = 'https://n8n.example.com/webhook/abc/webhook';
/** The token route of the same node (getNodeWebhookUrl('setup')). */
const PATH_URL = 'https://n8n.example.com/webhook/abc/abc/:token';
const URLS = { webhookUrl: URL_, pathUrl: PATH_URL };
const EVENTS = ['transcription.created', 'transcription.transcribed'];
const TOKEN = 'tok-secret-value';
const TOKEN_HASH = hashToken(TOKEN);
const withoutId = { webhookUrl: URL_, events: EVENTS, tokenHash: TOKEN_HASH };
const stored = { endpointId: 'ep-1', ...withoutId };
const flat = (overrides: Record<string, unknown> = {}) => ({
	id: 'ep-1',
	callback_uri: callbackUri(URLS, 'query', TOKEN),
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
		attributes: { callback_uri: callbackUri(URLS, 'query', TOKEN), enabled_events: EVENTS },
	};

	test('deliversWithToken: same URL and the token of the stored hash, whatever else the query holds', () => {
		expect(deliversWithToken(flat(), URLS, TOKEN_HASH)).toBe(true);
		expect(deliversWithToken(jsonApi, URLS, TOKEN_HASH)).toBe(true);
		expect(
			deliversWithToken(flat({ callback_uri: `${URL_}?a=1&token=${TOKEN}` }), URLS, TOKEN_HASH),
		).toBe(true);
		expect(deliversWithToken(flat(), URLS, hashToken('other'))).toBe(false);
		// the plain token is not a hash: a URI is never matched by comparing tokens themselves
		expect(deliversWithToken(flat(), URLS, TOKEN)).toBe(false);
		expect(
			deliversWithToken(flat({ callback_uri: `${URL_}?token=${TOKEN_HASH}` }), URLS, TOKEN_HASH),
		).toBe(false);
		expect(deliversWithToken(flat({ callback_uri: URL_ }), URLS, TOKEN_HASH)).toBe(false);
		expect(deliversWithToken(flat({ callback_uri: 'not a url' }), URLS, TOKEN_HASH)).toBe(false);
		expect(
			deliversWithToken(
				flat(),
				{ webhookUrl: 'https://n8n.example.com/webhook/other/webhook' },
				TOKEN_HASH,
			),
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
		expect(endpointsFor([old, mine, other], URLS)).toEqual([old, mine]);
		expect(findRegistered([old, mine, other], stored)).toBe(mine);
		expect(findRegistered([old, other], stored)).toBeUndefined();
	});
});

describe('what the log says', () => {
	test('a kept endpoint: what stays, that the next publication reuses it, the dashboard; never the token', () => {
		const text = keptEndpointWarning(
			{ webhookUrl: `${URL_}?token=${TOKEN}` },
			unsupportedReason('DELETE', 405),
		);
		expect(text).toBe(
			`The captioning service does not let n8n delete webhook endpoints (HTTP 405), so the webhook endpoint that delivers to ${URL_} stays registered; the next publication of this workflow reuses it instead of registering another. If this workflow will not be published again, delete the endpoint for ${URL_} in the service's developers dashboard.`,
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
		expect(deliversTo(flat(), URLS)).toBe(true);
		expect(deliversTo(flat({ callback_uri: `${URL_}?token=other&x=1` }), URLS)).toBe(true);
		expect(deliversTo(flat({ callback_uri: URL_ }), URLS)).toBe(true);
	});

	test('another URL, another path or host, or no callback URI: not this trigger’s', () => {
		expect(deliversTo(flat({ callback_uri: 'https://crm.example.com/hooks?token=x' }), URLS)).toBe(
			false,
		);
		expect(
			deliversTo(flat({ callback_uri: URL_.replace('/webhook/', '/webhook-test/') }), URLS),
		).toBe(false);
		expect(deliversTo(flat({ callback_uri: undefined }), URLS)).toBe(false);
	});
});

describe('registration decisions', () => {
	const stored = {
		endpointId: 'ep-1',
		webhookUrl: 'https://n8n.example.com/webhook/abc/webhook',
		events: ['transcription.created', 'transcription.transcribed'],
		tokenHash: hashToken('tok'),
	};

	test('the callback URI carries the token as a query parameter, or as the token route’s last segment', () => {
		expect(callbackUri(stored, 'query', 'a/b+c')).toBe(
			'https://n8n.example.com/webhook/abc/webhook?token=a%2Fb%2Bc',
		);
		expect(callbackUri(URLS, 'path', 'a/b+c')).toBe(
			'https://n8n.example.com/webhook/abc/abc/a%2Fb%2Bc',
		);
		expect(() => callbackUri(stored, 'path', 'x')).toThrow(/no token route/);
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
				callback_uri: callbackUri(stored, 'query', 'tok'),
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
						callback_uri: callbackUri(stored, 'query', 'tok2'),
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
		expect(endpointsFor([mine, other], stored)).toEqual([mine]);
	});
});

describe('the token route', () => {
	const TOKEN_PATH = `https://n8n.example.com/webhook/abc/abc/${TOKEN}`;
	const onPath = { ...stored, tokenRoute: 'path' as const, pathUrl: PATH_URL };

	test('readRegistration keeps the route with its URL; a path route without one is none', () => {
		expect(readRegistration({ registration: onPath })).toEqual(onPath);
		expect(routeOf(onPath)).toBe('path');
		expect(routeOf({})).toBe('query');
		expect(readRegistration({ registration: { ...onPath, pathUrl: undefined } })).toBeUndefined();
		expect(readRegistration({ registration: { ...onPath, pathUrl: 7 } })).toBeUndefined();
		// any other value is the query, as every registration before the route was
		expect(readRegistration({ registration: { ...stored, tokenRoute: 'other' } })).toEqual(stored);
	});

	test('an endpoint on the token route is this trigger’s, and carries the token there', () => {
		expect(deliversTo(flat({ callback_uri: TOKEN_PATH }), URLS)).toBe(true);
		expect(deliversWithToken(flat({ callback_uri: TOKEN_PATH }), URLS, TOKEN_HASH)).toBe(true);
		expect(endpointMatches(flat({ callback_uri: TOKEN_PATH }), onPath)).toBe(true);
		// the route of another node, or no route known: not this trigger's
		expect(deliversTo(flat({ callback_uri: TOKEN_PATH.replace(/abc/g, 'xyz') }), URLS)).toBe(false);
		expect(deliversTo(flat({ callback_uri: TOKEN_PATH }), { webhookUrl: URL_ })).toBe(false);
	});

	test('createdAmong: the endpoint with the token, else this trigger’s only one, else none', () => {
		const stripped = flat({ id: 'stripped', callback_uri: URL_ });
		const withToken = flat({ id: 'mine' });
		const other = flat({ id: 'other', callback_uri: 'https://crm.example.com/hooks' });
		expect(createdAmong([stripped, withToken, other], stored)).toBe(withToken);
		expect(createdAmong([other, stripped], stored)).toBe(stripped);
		expect(createdAmong([stripped, flat({ id: 'two', callback_uri: URL_ })], stored)).toBe(
			undefined,
		);
		expect(createdAmong([other], stored)).toBeUndefined();
	});

	test('retryOnPath: a 400 or 422 refusal of a query, where the token route exists', () => {
		expect(retryOnPath('query', 422, true)).toBe(true);
		expect(retryOnPath('query', 400, true)).toBe(true);
		expect(retryOnPath('query', 422, false)).toBe(false);
		expect(retryOnPath('path', 422, true)).toBe(false);
		for (const status of [401, 403, 404, 409, 415, 429, 500, undefined]) {
			expect(retryOnPath('query', status, true)).toBe(false);
		}
	});

	test('firstRoute: the token route once this account’s service refused or dropped a query', () => {
		expect(firstRoute({}, 'acct', true)).toBe('query');
		expect(firstRoute({ [PATH_ROUTE_FOR]: 'acct' }, 'acct', true)).toBe('path');
		expect(firstRoute({ [PATH_ROUTE_FOR]: 'other' }, 'acct', true)).toBe('query');
		expect(firstRoute({ [PATH_ROUTE_FOR]: 'acct' }, 'acct', false)).toBe('query');
	});
});

describe('judgeStored: what create does with what the service stored', () => {
	const sent = callbackUri(URLS, 'query', TOKEN);

	test('nothing shows it: unverified; the same by meaning: kept', () => {
		expect(judgeStored(sent, undefined, 'query', true)).toBe('unverified');
		expect(
			judgeStored(
				sent,
				sent.replace('https://n8n.example.com', 'HTTPS://N8N.Example.COM:443'),
				'query',
				true,
			),
		).toBe('kept');
	});

	test('the token dropped: reroute on the query route with a token route, else fail', () => {
		expect(judgeStored(sent, URL_, 'query', true)).toBe('reroute');
		expect(judgeStored(sent, `${URL_}?token=`, 'query', true)).toBe('reroute');
		expect(judgeStored(sent, URL_, 'query', false)).toBe('fail');
	});

	test('another URI, or a token of another value: changed', () => {
		expect(judgeStored(sent, 'https://n8n.example.com/webhook/abc/other', 'query', true)).toBe(
			'changed',
		);
		expect(judgeStored(sent, `${URL_}?token=masked`, 'query', true)).toBe('changed');
		const onPath = callbackUri(URLS, 'path', TOKEN);
		expect(judgeStored(onPath, onPath, 'path', true)).toBe('kept');
		expect(judgeStored(onPath, 'https://n8n.example.com/webhook/abc/abc', 'path', true)).toBe(
			'changed',
		);
	});
});

describe('what the log says about the token’s way', () => {
	test('rerouted: what the service did, where the token is now, and what n8n logs of paths', () => {
		expect(reroutedWarning('dropped')).toBe(
			'The captioning service stored the callback URI without its query string, which carries the trigger’s token, so the token now travels as the callback URI’s last path segment. n8n writes request paths, and so this token, to its log at the debug level and for requests to a workflow that is not published.',
		);
		expect(
			reroutedWarning('refused', 'HTTP 422: callback_uri must not contain a query string'),
		).toMatch(
			/^The captioning service refused a callback URI with a query string \(HTTP 422: callback_uri must not contain a query string\), so the token now travels/,
		);
	});

	test('the activation error and the warnings name what to do, never the token', () => {
		const dropped = droppedTokenError(`${URL_}?token=${TOKEN}`);
		expect(dropped.message).toBe('The captioning service dropped the token from the callback URI');
		expect(dropped.description).toMatch(/add a new Captioning Trigger in the editor/);
		const changed = changedCallbackWarning(
			callbackUri(URLS, 'path', TOKEN),
			`https://other.example.com/x?token=${TOKEN}`,
		);
		expect(changed).toMatch(/^The captioning service stored the callback URI https:\/\/other/);
		expect(strippedEndpointWarning(URL_, unsupportedReason('DELETE', 405))).toBe(
			`The captioning service does not let n8n delete webhook endpoints (HTTP 405), so the endpoint that delivers to ${URL_} without the token stays registered: its deliveries are refused (401). Delete it in the service's developers dashboard.`,
		);
		for (const text of [dropped.description, changed]) expect(text).not.toContain(TOKEN);
	});
});
