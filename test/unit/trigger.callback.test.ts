// The callback URI (trigger/callback.ts), branch by branch: where the token travels, how a stored URI is read back,
// and the comparison by meaning of what the service stored with what was sent. Expected values written by hand.
import {
	callbackUri,
	compareStored,
	PATH_PLACEHOLDER,
	readCallback,
	tokenRouteUrl,
} from '../../nodes/Captioning/trigger/callback';

const WEBHOOK = 'https://n8n.example.com/webhook/0f6c7c2e-2b1a-4c1e-9b0e-1d2c3b4a5f60/webhook';
const ROUTE =
	'https://n8n.example.com/webhook/0f6c7c2e-2b1a-4c1e-9b0e-1d2c3b4a5f60/0f6c7c2e-2b1a-4c1e-9b0e-1d2c3b4a5f60/:token';
const URLS = { webhookUrl: WEBHOOK, pathUrl: ROUTE };
const TOKEN = 'Zm9vYmFyYmF6cXV4LXRva2VuXzEyMzQ1Njc4';
const ON_PATH = `${ROUTE.slice(0, -':token'.length)}${TOKEN}`;
const ON_QUERY = `${WEBHOOK}?token=${TOKEN}`;

describe('tokenRouteUrl', () => {
	const ID = '0f6c7c2e-2b1a-4c1e-9b0e-1d2c3b4a5f60';
	const RENDERED = `https://n8n.example.com/webhook/${ID}/:token`;

	test('what n8n renders for the static path `:token`, with the webhook ID once more: where n8n routes it', () => {
		expect(PATH_PLACEHOLDER).toBe('/:token');
		expect(tokenRouteUrl(RENDERED, ID)).toBe(ROUTE);
		expect(tokenRouteUrl(`https://n8n.example.com/webhook-test/${ID}/:token`, ID)).toBe(
			`https://n8n.example.com/webhook-test/${ID}/${ID}/:token`,
		);
	});

	test('a URL rendered as n8n routes it (the expression path of earlier versions) is taken as it is', () => {
		expect(tokenRouteUrl(ROUTE, ID)).toBe(ROUTE);
	});

	test('none without a webhook ID, or for a URL that is not this node’s token route', () => {
		expect(tokenRouteUrl(undefined, ID)).toBeUndefined();
		expect(tokenRouteUrl(RENDERED, undefined)).toBeUndefined();
		// n8n 1.x without a webhook ID renders the path under the workflow and node name
		expect(tokenRouteUrl('https://n8n.example.com/webhook/1/captioning%20trigger/:token', ID)).toBe(
			undefined,
		);
		expect(tokenRouteUrl(`https://n8n.example.com/webhook/${ID}/:token/x`, ID)).toBeUndefined();
		expect(tokenRouteUrl(`https://n8n.example.com/webhook/other/:token`, ID)).toBeUndefined();
	});
});

describe('callbackUri', () => {
	test('query: the token as the query parameter, escaped', () => {
		expect(callbackUri(URLS, 'query', TOKEN)).toBe(ON_QUERY);
		expect(callbackUri(URLS, 'query', 'a b&c')).toBe(`${WEBHOOK}?token=a+b%26c`);
	});

	test('path: the token in place of :token, escaped as one segment', () => {
		expect(callbackUri(URLS, 'path', TOKEN)).toBe(ON_PATH);
		expect(callbackUri(URLS, 'path', 'a/b')).toBe(`${ON_PATH.slice(0, -TOKEN.length)}a%2Fb`);
		expect(() => callbackUri({ webhookUrl: WEBHOOK }, 'path', TOKEN)).toThrow(
			'The trigger has no token route to register',
		);
	});
});

describe('readCallback', () => {
	test('the webhook URL with any query: the query route, with its token or none', () => {
		expect(readCallback(ON_QUERY, URLS)).toEqual({ route: 'query', token: TOKEN });
		expect(readCallback(`${WEBHOOK}?a=1&token=${TOKEN}&token=second`, URLS)).toEqual({
			route: 'query',
			token: TOKEN,
		});
		expect(readCallback(WEBHOOK, URLS)).toEqual({ route: 'query', token: undefined });
		expect(readCallback(`${WEBHOOK}/?token=`, URLS)).toEqual({ route: 'query', token: undefined });
	});

	test('the token route with one more segment: the path route, its token decoded', () => {
		expect(readCallback(ON_PATH, URLS)).toEqual({ route: 'path', token: TOKEN });
		expect(readCallback(`${ON_PATH}?x=1#f`, URLS)).toEqual({ route: 'path', token: TOKEN });
		expect(readCallback(callbackUri(URLS, 'path', 'a/b c'), URLS)).toEqual({
			route: 'path',
			token: 'a/b c',
		});
		// a malformed escape is read as written
		expect(readCallback(`${ON_PATH.slice(0, -TOKEN.length)}%E0%A4%A`, URLS)).toEqual({
			route: 'path',
			token: '%E0%A4%A',
		});
	});

	test('by meaning: host case, default port and escapes of unreserved characters do not matter', () => {
		const loud = ON_PATH.replace('https://n8n.example.com', 'HTTPS://N8N.EXAMPLE.COM:443').replace(
			'webhook',
			'%77ebhook',
		);
		expect(readCallback(loud, URLS)).toEqual({ route: 'path', token: TOKEN });
		expect(readCallback(ON_QUERY.replace('/webhook?', '/webhook/?'), URLS)).toEqual({
			route: 'query',
			token: TOKEN,
		});
	});

	test('anything else is not this trigger’s', () => {
		expect(readCallback(`${ON_PATH}/more`, URLS)).toBeUndefined();
		expect(readCallback(ON_PATH.slice(0, -TOKEN.length - 1), URLS)).toBeUndefined();
		expect(readCallback(ON_PATH, { webhookUrl: WEBHOOK })).toBeUndefined();
		expect(readCallback(ON_QUERY.replace('https:', 'http:'), URLS)).toBeUndefined();
		expect(readCallback(ON_QUERY.replace('n8n.example.com', 'n8n.example.com:8443'), URLS)).toBe(
			undefined,
		);
		expect(readCallback('not a url', URLS)).toBeUndefined();
		expect(readCallback(ON_QUERY, { webhookUrl: 'not a url' })).toBeUndefined();
	});
});

describe('compareStored', () => {
	test('kept: the same URI by meaning', () => {
		expect(compareStored(ON_QUERY, ON_QUERY)).toBe('kept');
		expect(compareStored(ON_PATH, ON_PATH)).toBe('kept');
		// scheme and host case, the default port, a trailing slash and a fragment carry no meaning
		expect(
			compareStored(
				ON_QUERY,
				`HTTPS://N8N.Example.com:443/webhook/0f6c7c2e-2b1a-4c1e-9b0e-1d2c3b4a5f60/webhook/?token=${TOKEN}#x`,
			),
		).toBe('kept');
		// an escaped unreserved character is the character; escapes of others compare without case
		expect(
			compareStored(`${WEBHOOK}/a~b%2fc?token=${TOKEN}`, `${WEBHOOK}/a%7Eb%2Fc?token=${TOKEN}`),
		).toBe('kept');
		// parameter order, and escapes within the query
		expect(compareStored(`${WEBHOOK}?a=1&token=t%2Bu`, `${WEBHOOK}?token=t%2bu&a=1`)).toBe('kept');
		expect(compareStored(`${WEBHOOK}?a=x+y`, `${WEBHOOK}?a=x%20y`)).toBe('kept');
	});

	test('token-dropped: the parameter gone or empty, or the whole query', () => {
		expect(compareStored(ON_QUERY, WEBHOOK)).toBe('token-dropped');
		expect(compareStored(ON_QUERY, `${WEBHOOK}?`)).toBe('token-dropped');
		expect(compareStored(ON_QUERY, `${WEBHOOK}?token=`)).toBe('token-dropped');
		expect(compareStored(`${WEBHOOK}?a=1&token=${TOKEN}`, `${WEBHOOK}?a=1`)).toBe('token-dropped');
		expect(compareStored(`${WEBHOOK}?a=1&token=${TOKEN}`, WEBHOOK)).toBe('token-dropped');
	});

	test('changed: another value of the token, other parameters, another place, or no URI at all', () => {
		expect(compareStored(ON_QUERY, `${WEBHOOK}?token=${TOKEN.toLowerCase()}`)).toBe('changed');
		expect(compareStored(ON_QUERY, `${WEBHOOK}?token=${TOKEN}&extra=1`)).toBe('changed');
		expect(compareStored(`${WEBHOOK}?a=1&token=${TOKEN}`, `${WEBHOOK}?b=1`)).toBe('changed');
		// a URI sent without a token cannot lose it
		expect(compareStored(`${WEBHOOK}?a=1`, WEBHOOK)).toBe('changed');
		expect(compareStored(ON_QUERY, ON_QUERY.replace('https:', 'http:'))).toBe('changed');
		expect(compareStored(ON_QUERY, ON_QUERY.replace('/webhook?', '/Webhook?'))).toBe('changed');
		expect(compareStored(ON_PATH, ON_PATH.slice(0, -TOKEN.length - 1))).toBe('changed');
		expect(compareStored(ON_QUERY, 'not a url')).toBe('changed');
		expect(compareStored('not a url', ON_QUERY)).toBe('changed');
	});
});
