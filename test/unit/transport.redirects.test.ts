// Redirect decisions and the transport's messages, branch by branch.
import { redirectMessage } from '../../nodes/Captioning/transport/errors';
import { isRedirect, redirectStep } from '../../nodes/Captioning/transport/redirects';

const BASE = 'https://api.example.com';
const GET = { method: 'GET' as const, url: `${BASE}/webhook_endpoints` };
const POST = { method: 'POST' as const, url: `${BASE}/webhook_endpoints` };

describe('isRedirect', () => {
	test('the five redirect statuses, nothing else', () => {
		expect([301, 302, 303, 307, 308].every(isRedirect)).toBe(true);
		expect([200, 300, 304, 305, 400, 404].some(isRedirect)).toBe(false);
	});
});

describe('redirectStep', () => {
	test('a relative Location within the Base URL: followed with the same method and body', () => {
		expect(redirectStep(GET, 301, '/v1/webhook_endpoints', BASE)).toEqual({
			kind: 'follow',
			method: 'GET',
			url: `${BASE}/v1/webhook_endpoints`,
			keepBody: true,
		});
		expect(redirectStep(POST, 307, `${BASE}/v1/webhook_endpoints`, BASE)).toEqual({
			kind: 'follow',
			method: 'POST',
			url: `${BASE}/v1/webhook_endpoints`,
			keepBody: true,
		});
		expect(redirectStep(POST, 308, 'webhook_endpoints/', BASE)).toMatchObject({
			kind: 'follow',
			method: 'POST',
		});
	});

	test('a Base URL with a path: the origin is what counts', () => {
		expect(
			redirectStep(
				{ method: 'GET', url: `${BASE}/api/webhook_endpoints` },
				302,
				'/other/place',
				`${BASE}/api`,
			),
		).toMatchObject({ kind: 'follow', url: `${BASE}/other/place` });
	});

	test('303, and 301/302 after a POST, become a GET without a body (as n8n would do)', () => {
		for (const status of [301, 302, 303]) {
			expect(redirectStep(POST, status, '/endpoints/1', BASE)).toEqual({
				kind: 'follow',
				method: 'GET',
				url: `${BASE}/endpoints/1`,
				keepBody: false,
			});
		}
		expect(redirectStep({ ...GET, method: 'DELETE' }, 303, '/gone', BASE)).toMatchObject({
			method: 'GET',
			keepBody: false,
		});
		expect(redirectStep({ ...GET, method: 'DELETE' }, 302, '/gone', BASE)).toMatchObject({
			method: 'DELETE',
			keepBody: true,
		});
	});

	test.each([
		['another host', 'https://evil.example.net/collect', 'https://evil.example.net'],
		['another port', 'https://api.example.com:8443/x', 'https://api.example.com:8443'],
		['another scheme (http to https)', 'http://api.example.com/x', 'http://api.example.com'],
		['a subdomain', 'https://eu.api.example.com/x', 'https://eu.api.example.com'],
	])('%s: not followed, the origin named without path or query', (_name, location, origin) => {
		expect(redirectStep(GET, 302, `${location}?token=secret`, BASE)).toEqual({
			kind: 'cross-origin',
			origin,
		});
	});

	test('no Location, or one that is not an http(s) URL: nothing to follow', () => {
		expect(redirectStep(GET, 302, undefined, BASE)).toEqual({ kind: 'no-location' });
		expect(redirectStep(GET, 302, '', BASE)).toEqual({ kind: 'no-location' });
		expect(redirectStep(GET, 302, 'ftp://files.example.com/x', BASE)).toEqual({
			kind: 'no-location',
		});
		expect(redirectStep(GET, 302, 'http://[::1', BASE)).toEqual({ kind: 'no-location' });
	});
});

describe('redirectMessage', () => {
	test('another origin: where the service pointed and how to fix the Base URL', () => {
		expect(
			redirectMessage('GET /webhook_endpoints', 301, {
				kind: 'cross-origin',
				origin: 'https://api.example.com',
			}),
		).toBe(
			"The service redirected GET /webhook_endpoints to another address (https://api.example.com, HTTP 301). The credential's token is only sent to its Base URL, so the redirect was not followed. If the service has moved there, set the Base URL to https://api.example.com.",
		);
	});

	test('no usable Location, and too many redirects', () => {
		expect(redirectMessage('GET /x', 302, { kind: 'no-location' })).toMatch(
			/redirect \(HTTP 302\) without a usable Location\. Check the Base URL/,
		);
		expect(redirectMessage('GET /x', 302, 'too-many')).toMatch(/more than 5 times/);
	});
});
