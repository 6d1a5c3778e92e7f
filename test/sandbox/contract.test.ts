// The sandbox against the published contract (docs/captioning-api.md), one test per numbered rule of
// sections 4, 5 and 6.2, over real HTTP.
import { json } from '../helpers/http';
import { startReceiver, type Receiver } from '../helpers/receiver';
import {
	apiHeaders,
	assertionParams,
	createEndpoint,
	endpointForm,
	obtainToken,
	SCOPE,
	tokenUrl,
} from '../helpers/sandboxClient';
import { DEFAULT_CLIENT, type Sandbox, startSandbox } from '../../sandbox/server';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let sandbox: Sandbox;
let receiver: Receiver;

beforeEach(async () => {
	sandbox = await startSandbox({ retryDelaysMs: [20, 20, 20, 20, 20], transcribeAfterMs: 0 });
	receiver = await startReceiver();
});

afterEach(async () => {
	await sandbox.stop();
	await receiver.close();
});

const post = (url: string, init: RequestInit = {}) => fetch(url, { method: 'POST', ...init });

describe('4.1 POST /oauth/token, assertion grant', () => {
	test('parameters in the query string yield the token response of 2.1 with the requested scope', async () => {
		const res = await post(tokenUrl(sandbox, assertionParams()));
		expect(res.status).toBe(200);
		const body = await json(res);
		expect(body).toEqual({
			access_token: expect.any(String),
			token_type: 'Bearer',
			expires_in: 7200,
			refresh_token: expect.any(String),
			scope: SCOPE,
			created_at: expect.any(Number),
		});
		expect(Math.abs(body.created_at - Date.now() / 1000)).toBeLessThan(5);
	});

	test('parameters sent in a body instead of the query string are refused', async () => {
		const res = await post(`${sandbox.url}/oauth/token`, {
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams(assertionParams()).toString(),
		});
		expect(res.status).toBe(400);
		expect((await json(res)).error_description).toMatch(/query string/);
	});

	test.each([
		['grant_type', 400, 'invalid_request'],
		['provider', 400, 'invalid_request'],
		['assertion', 400, 'invalid_request'],
		['client_id', 401, 'invalid_client'],
		['client_secret', 401, 'invalid_client'],
		['scope', 400, 'invalid_scope'],
	])('each parameter is required: without %s the answer is %i %s', async (name, status, error) => {
		const params = assertionParams();
		delete params[name];
		const res = await post(tokenUrl(sandbox, params));
		expect(res.status).toBe(status);
		expect((await json(res)).error).toBe(error);
	});

	test('provider must be dashboard', async () => {
		const res = await post(tokenUrl(sandbox, assertionParams({ provider: 'google' })));
		expect(res.status).toBe(400);
		expect((await json(res)).error_description).toMatch(/provider=dashboard/);
	});

	test('scope must be exactly "write_transcriptions write_media"', async () => {
		for (const scope of [
			'write_transcriptions',
			'write_media write_transcriptions',
			`${SCOPE} admin`,
		]) {
			const res = await post(tokenUrl(sandbox, assertionParams({ scope })));
			expect(res.status).toBe(400);
			expect((await json(res)).error).toBe('invalid_scope');
		}
	});

	test('an unknown assertion or a wrong client secret is refused, and no secret is echoed', async () => {
		const badAssertion = await post(
			tokenUrl(sandbox, assertionParams({ assertion: 'nope-assertion' })),
		);
		expect(badAssertion.status).toBe(400);
		expect((await json(badAssertion)).error).toBe('invalid_grant');
		const badSecret = await post(
			tokenUrl(sandbox, assertionParams({ client_secret: 'nope-secret' })),
		);
		expect(badSecret.status).toBe(401);
		const text = await badSecret.text();
		expect(text).toContain('invalid_client');
		expect(text).not.toContain('nope-secret');
		expect(text).not.toContain(DEFAULT_CLIENT.clientSecret);
	});
});

describe('4.2 POST /oauth/token, refresh-token grant', () => {
	test('query parameters yield a new token response of the shape of 2.1', async () => {
		const first = await obtainToken(sandbox);
		const res = await post(
			tokenUrl(sandbox, {
				grant_type: 'refresh_token',
				refresh_token: first.refresh_token,
				client_id: DEFAULT_CLIENT.clientId,
				client_secret: DEFAULT_CLIENT.clientSecret,
			}),
		);
		expect(res.status).toBe(200);
		const body = await json(res);
		expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: SCOPE });
		expect(body.access_token).not.toBe(first.access_token);
		expect(body.refresh_token).not.toBe(first.refresh_token);
	});

	test('refresh tokens rotate: a used refresh token is rejected afterwards', async () => {
		const first = await obtainToken(sandbox);
		const params = {
			grant_type: 'refresh_token',
			refresh_token: first.refresh_token,
			client_id: DEFAULT_CLIENT.clientId,
			client_secret: DEFAULT_CLIENT.clientSecret,
		};
		expect((await post(tokenUrl(sandbox, params))).status).toBe(200);
		const again = await post(tokenUrl(sandbox, params));
		expect(again.status).toBe(400);
		expect((await json(again)).error).toBe('invalid_grant');
	});

	test('a revoked refresh token is rejected, and so is the wrong client secret', async () => {
		const first = await obtainToken(sandbox);
		const params = {
			grant_type: 'refresh_token',
			refresh_token: first.refresh_token,
			client_id: DEFAULT_CLIENT.clientId,
			client_secret: 'wrong',
		};
		expect((await post(tokenUrl(sandbox, params))).status).toBe(401);
		sandbox.tokens.revoke('refresh');
		params.client_secret = DEFAULT_CLIENT.clientSecret;
		expect((await post(tokenUrl(sandbox, params))).status).toBe(400);
	});
});

describe('4.3 POST /webhook_endpoints', () => {
	test('form-encoded callback_uri and repeated enabled_events[] create an endpoint (201, JSON:API)', async () => {
		const { access_token } = await obtainToken(sandbox);
		const res = await createEndpoint(sandbox, access_token, `${receiver.url}/hook`, [
			'transcription.created',
			'transcription.transcribed',
		]);
		expect(res.status).toBe(201);
		const body = await json(res);
		expect(body.data).toMatchObject({
			id: expect.stringMatching(UUID),
			type: 'webhook_endpoint',
			attributes: {
				callback_uri: `${receiver.url}/hook`,
				enabled_events: ['transcription.created', 'transcription.transcribed'],
			},
		});
		expect(res.headers.get('location')).toBe(`${sandbox.url}/webhook_endpoints/${body.data.id}`);
	});

	test('the headers of 5.3 are required', async () => {
		const { access_token } = await obtainToken(sandbox);
		const res = await post(`${sandbox.url}/webhook_endpoints`, {
			headers: {
				'content-type': 'application/x-www-form-urlencoded',
				authorization: `Bearer ${access_token}`,
			},
			body: endpointForm(`${receiver.url}/hook`, ['transcription.created']),
		});
		expect(res.status).toBe(406);
	});

	test('a JSON payload is refused with 415: the contract says form-encoded', async () => {
		const { access_token } = await obtainToken(sandbox);
		const res = await post(`${sandbox.url}/webhook_endpoints`, {
			headers: { ...apiHeaders(sandbox, access_token), 'content-type': 'application/json' },
			body: JSON.stringify({
				callback_uri: `${receiver.url}/hook`,
				enabled_events: ['transcription.created'],
			}),
		});
		expect(res.status).toBe(415);
		expect((await json(res)).errors[0].detail).toMatch(/form-encoded/);
	});

	test.each([
		['a missing callback_uri', '', ['transcription.created'], /callback_uri is required/],
		['a non-http(s) callback_uri', 'ftp://127.0.0.1/x', ['transcription.created'], /http or https/],
		['a relative callback_uri', '/hook', ['transcription.created'], /absolute/],
		['no enabled_events[]', 'http://127.0.0.1/x', [], /at least one/],
		[
			'an unknown event name',
			'http://127.0.0.1/x',
			['transcription.deleted'],
			/Unknown event name/,
		],
	])('%s is rejected with 422 and a JSON:API error', async (_case, uri, events, message) => {
		const { access_token } = await obtainToken(sandbox);
		const form = new URLSearchParams();
		if (uri) form.set('callback_uri', uri);
		for (const event of events) form.append('enabled_events[]', event);
		const res = await post(`${sandbox.url}/webhook_endpoints`, {
			headers: {
				...apiHeaders(sandbox, access_token),
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: form.toString(),
		});
		expect(res.status).toBe(422);
		const body = await json(res);
		expect(body.errors[0]).toMatchObject({ status: '422', detail: expect.stringMatching(message) });
	});

	test('assumption: endpoints can be listed, read and deleted', async () => {
		const { access_token } = await obtainToken(sandbox);
		const created = await json(
			await createEndpoint(sandbox, access_token, `${receiver.url}/hook`, [
				'transcription.created',
			]),
		);
		const id = created.data.id;
		const headers = apiHeaders(sandbox, access_token);
		const list = await json(await fetch(`${sandbox.url}/webhook_endpoints`, { headers }));
		expect(list.data.map((e: { id: string }) => e.id)).toEqual([id]);
		expect((await fetch(`${sandbox.url}/webhook_endpoints/${id}`, { headers })).status).toBe(200);
		expect(
			(await fetch(`${sandbox.url}/webhook_endpoints/${id}`, { method: 'DELETE', headers })).status,
		).toBe(204);
		expect((await fetch(`${sandbox.url}/webhook_endpoints/${id}`, { headers })).status).toBe(404);
	});
});

describe('5 Authentication', () => {
	test('5.1 only the assertion and refresh-token grants are supported', async () => {
		const res = await post(
			tokenUrl(sandbox, assertionParams({ grant_type: 'client_credentials' })),
		);
		expect(res.status).toBe(400);
		expect((await json(res)).error).toBe('unsupported_grant_type');
	});

	test('5.2.1 the assertion grant yields both an access token and a refresh token', async () => {
		const token = await obtainToken(sandbox);
		expect(token.access_token).toMatch(/^[\w-]{20,}$/);
		expect(token.refresh_token).toMatch(/^[\w-]{20,}$/);
	});

	test('5.2.2 an expired access token is refused, and the refresh grant gives a working one', async () => {
		const token = await obtainToken(sandbox);
		sandbox.advanceClock(7201);
		const expired = await fetch(`${sandbox.url}/webhook_endpoints`, {
			headers: apiHeaders(sandbox, token.access_token),
		});
		expect(expired.status).toBe(401);
		expect(expired.headers.get('www-authenticate')).toMatch(/error="invalid_token".*expired/);
		const refreshed = await json(
			await post(
				tokenUrl(sandbox, {
					grant_type: 'refresh_token',
					refresh_token: token.refresh_token,
					client_id: DEFAULT_CLIENT.clientId,
					client_secret: DEFAULT_CLIENT.clientSecret,
				}),
			),
		);
		const ok = await fetch(`${sandbox.url}/webhook_endpoints`, {
			headers: apiHeaders(sandbox, refreshed.access_token),
		});
		expect(ok.status).toBe(200);
	});

	test('5.2.3 the access token is a bearer token whose default lifetime is 7200 s', async () => {
		const token = await obtainToken(sandbox);
		expect(token.expires_in).toBe(7200);
		sandbox.advanceClock(7199);
		expect(
			(
				await fetch(`${sandbox.url}/webhook_endpoints`, {
					headers: apiHeaders(sandbox, token.access_token),
				})
			).status,
		).toBe(200);
		sandbox.advanceClock(2);
		expect(
			(
				await fetch(`${sandbox.url}/webhook_endpoints`, {
					headers: apiHeaders(sandbox, token.access_token),
				})
			).status,
		).toBe(401);
	});

	test('5.3 every API call needs Authorization: Bearer (401) and the version Accept header (406)', async () => {
		const { access_token } = await obtainToken(sandbox);
		const url = `${sandbox.url}/webhook_endpoints`;
		expect((await fetch(url, { headers: { accept: sandbox.mediaType } })).status).toBe(401);
		expect(
			(await fetch(url, { headers: { accept: sandbox.mediaType, authorization: 'Bearer forged' } }))
				.status,
		).toBe(401);
		const wrongAccept = await fetch(url, {
			headers: { accept: 'application/json', authorization: `Bearer ${access_token}` },
		});
		expect(wrongAccept.status).toBe(406);
		expect((await json(wrongAccept)).errors[0].detail).toContain('application/vnd.service.v1');
		expect(
			(
				await fetch(url, {
					headers: {
						accept: `application/json, ${sandbox.mediaType}`,
						authorization: `Bearer ${access_token}`,
					},
				})
			).status,
		).toBe(200);
	});

	test('5.3 the vendor name in the Accept header is configurable', async () => {
		const named = await startSandbox({ serviceName: 'acme' });
		try {
			const { access_token } = await obtainToken(named);
			const url = `${named.url}/webhook_endpoints`;
			const headers = { authorization: `Bearer ${access_token}` };
			expect(
				(await fetch(url, { headers: { ...headers, accept: 'application/vnd.service.v1' } }))
					.status,
			).toBe(406);
			expect(
				(await fetch(url, { headers: { ...headers, accept: 'application/vnd.acme.v1' } })).status,
			).toBe(200);
		} finally {
			await named.stop();
		}
	});
});

describe('6.2 Delivery rules', () => {
	async function subscribe(events: string[], path = '/hook') {
		const { access_token } = await obtainToken(sandbox);
		const res = await createEndpoint(sandbox, access_token, `${receiver.url}${path}`, events);
		return (await json(res)).data.id as string;
	}

	test('6.2.1 each event is sent as an HTTP POST to the callback URI of the subscribed endpoint', async () => {
		await subscribe(['transcription.created', 'transcription.transcribed'], '/hook?token=abc');
		await sandbox.transcribe();
		await sandbox.idle();
		expect(receiver.received.map((r) => [r.method, r.path])).toEqual([
			['POST', '/hook?token=abc'],
			['POST', '/hook?token=abc'],
		]);
		expect(receiver.received[0].headers['content-type']).toMatch(/^application\/json/);
	});

	test('6.2.2 the body has the shape of 2.3, and transcription.transcribed includes the transcription of 2.4', async () => {
		await subscribe(['transcription.created', 'transcription.transcribed']);
		const { transcription } = await sandbox.transcribe({ title: 'Board meeting' });
		await sandbox.idle();
		const [created, transcribed] = receiver.received.map((r) => JSON.parse(r.body));
		for (const [event, type] of [
			[created, 'transcription.created'],
			[transcribed, 'transcription.transcribed'],
		]) {
			expect(event.data).toEqual({
				id: expect.stringMatching(UUID),
				type: 'webhook_event',
				attributes: {
					created_at: expect.stringMatching(ISO_MS_UTC),
					event_type: type,
					uri: `${receiver.url}/hook`,
				},
				relationships: { subject: { data: { id: transcription.id, type: 'transcription' } } },
			});
		}
		expect(transcribed.included).toHaveLength(1);
		const included = transcribed.included[0];
		expect(included).toMatchObject({ id: transcription.id, type: 'transcription' });
		expect(included.attributes).toEqual({
			title: 'Board meeting',
			duration: expect.any(Number),
			average_confidence: expect.any(Number),
			media: { url: expect.stringContaining('signature=') },
			transcriptions: [
				{ format: 'vtt', url: expect.stringContaining('signature=') },
				{ format: 'google_stt', url: expect.stringContaining('signature=') },
			],
		});
		expect(included.attributes.average_confidence).toBeGreaterThan(0);
		expect(included.attributes.average_confidence).toBeLessThan(1);
		// the signed files are real: a WebVTT file and Google STT JSON with "1.300s"-style times
		const [vtt, stt] = await Promise.all(
			included.attributes.transcriptions.map((t: { url: string }) =>
				fetch(t.url).then((r) => r.text()),
			),
		);
		expect(vtt).toMatch(/^WEBVTT\n\n1\n00:00:00\.\d{3} --> 00:00:0\d\.\d{3}\n/);
		const words = JSON.parse(stt).results[0].alternatives[0].words;
		expect(words[0]).toEqual({
			startTime: expect.stringMatching(/^\d+(\.\d{3})?s$/),
			endTime: expect.any(String),
			word: expect.any(String),
		});
	});

	test('6.2.3 a 2xx answer ends delivery: the event is sent once', async () => {
		await subscribe(['transcription.transcribed']);
		receiver.respondWith([204]);
		await sandbox.transcribe();
		await sandbox.idle();
		expect(receiver.received).toHaveLength(1);
		expect(sandbox.deliveries.map((d) => d.status)).toEqual([204]);
	});

	test('6.2.4 after a non-2xx answer delivery is attempted again, at most 5 times, with the same event id', async () => {
		await subscribe(['transcription.transcribed']);
		receiver.respondWith([500, 500, 500, 500, 500, 500, 500]);
		await sandbox.transcribe();
		await sandbox.idle();
		expect(receiver.received).toHaveLength(6);
		expect(new Set(receiver.received.map((r) => JSON.parse(r.body).data.id)).size).toBe(1);
		expect(sandbox.deliveries.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
	});

	test('6.2.4 a redelivery that succeeds stops the retries', async () => {
		await subscribe(['transcription.transcribed']);
		receiver.respondWith([503, 404]);
		await sandbox.transcribe();
		await sandbox.idle();
		expect(sandbox.deliveries.map((d) => d.status)).toEqual([503, 404, 200]);
	});

	test('6.2.4 an unreachable receiver counts as a failed attempt and is retried', async () => {
		const { access_token } = await obtainToken(sandbox);
		await createEndpoint(sandbox, access_token, 'http://127.0.0.1:9/closed', [
			'transcription.transcribed',
		]);
		await sandbox.transcribe();
		await sandbox.idle();
		expect(sandbox.deliveries).toHaveLength(6);
		expect(sandbox.deliveries.every((d) => d.error && d.status === undefined)).toBe(true);
	});

	test('6.2.5 only events named in enabled_events are sent to an endpoint', async () => {
		await subscribe(['transcription.transcribed'], '/only-transcribed');
		await subscribe(['transcription.created'], '/only-created');
		await sandbox.transcribe();
		await sandbox.idle();
		const byPath = receiver.received.map((r) => [
			r.path,
			JSON.parse(r.body).data.attributes.event_type,
		]);
		expect(byPath).toEqual(
			expect.arrayContaining([
				['/only-created', 'transcription.created'],
				['/only-transcribed', 'transcription.transcribed'],
			]),
		);
		expect(byPath).toHaveLength(2);
	});
});

describe('Signed file URLs (2.4 <SIGNED_MEDIA_URL>)', () => {
	async function fileUrls() {
		const { access_token } = await obtainToken(sandbox);
		await createEndpoint(sandbox, access_token, `${receiver.url}/hook`, [
			'transcription.transcribed',
		]);
		await sandbox.transcribe();
		await sandbox.idle();
		const attributes = JSON.parse(receiver.received[0].body).included[0].attributes;
		return {
			vtt: attributes.transcriptions[0].url as string,
			media: attributes.media.url as string,
		};
	}

	test('serve the file with its media type', async () => {
		const { vtt, media } = await fileUrls();
		const res = await fetch(vtt);
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
		expect(res.headers.get('content-disposition')).toMatch(/filename=".+\.vtt"/);
		const wav = await fetch(media);
		expect(wav.headers.get('content-type')).toBe('audio/wav');
		expect(
			Buffer.from(await wav.arrayBuffer())
				.subarray(0, 4)
				.toString(),
		).toBe('RIFF');
	});

	test('a forged signature gets 403 that says so', async () => {
		const { vtt } = await fileUrls();
		const res = await fetch(vtt.replace(/signature=[0-9a-f]{4}/, 'signature=0000'));
		expect(res.status).toBe(403);
		expect((await json(res)).errors[0].detail).toMatch(/altered or forged/);
	});

	test('an expired URL gets 403 that says when it expired and what to do', async () => {
		const { vtt } = await fileUrls();
		sandbox.advanceClock(3601);
		const res = await fetch(vtt);
		expect(res.status).toBe(403);
		expect((await json(res)).errors[0].detail).toMatch(
			/expired at .*download files when the event arrives/,
		);
	});

	test('a signed URL fetched with an Authorization header is refused, as object stores do', async () => {
		const { vtt } = await fileUrls();
		const res = await fetch(vtt, { headers: { authorization: 'Bearer something' } });
		expect(res.status).toBe(400);
	});
});

describe('8 Rate limiting', () => {
	test('over the per-client limit the API answers 429 with Retry-After', async () => {
		const limited = await startSandbox({ rateLimit: { limit: 3, windowMs: 60_000 } });
		try {
			const { access_token } = await obtainToken(limited);
			const statuses: number[] = [];
			let retryAfter: string | null = null;
			for (let i = 0; i < 5; i++) {
				const res = await fetch(`${limited.url}/webhook_endpoints`, {
					headers: apiHeaders(limited, access_token),
				});
				statuses.push(res.status);
				if (res.status === 429) retryAfter = res.headers.get('retry-after');
			}
			expect(statuses).toEqual([200, 200, 200, 429, 429]);
			expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
			expect(Number(retryAfter)).toBeLessThanOrEqual(60);
		} finally {
			await limited.stop();
		}
	});
});

describe('Bad input', () => {
	test('unknown routes, wrong methods and bad control bodies get JSON errors, never a crash', async () => {
		const unknown = await fetch(`${sandbox.url}/nope`);
		expect(unknown.status).toBe(404);
		expect((await json(unknown)).errors[0].detail).toMatch(/No route/);
		const wrongMethod = await fetch(`${sandbox.url}/oauth/token`);
		expect(wrongMethod.status).toBe(405);
		const badJson = await post(`${sandbox.url}/_sandbox/transcriptions`, { body: '{nope' });
		expect(badJson.status).toBe(400);
		const huge = await post(`${sandbox.url}/_sandbox/transcriptions`, {
			body: 'x'.repeat(2 * 1024 * 1024),
		}).catch(() => undefined);
		if (huge) expect(huge.status).toBe(413);
		expect((await fetch(`${sandbox.url}/_sandbox/stats`)).status).toBe(200);
	});
});

describe('GET /_sandbox/redirect (control API)', () => {
	test('answers a redirect from the service’s origin to the URL given, 302 unless another status is asked', async () => {
		const to = 'http://127.0.0.1:9/canary?x=1';
		const plain = await fetch(`${sandbox.url}/_sandbox/redirect?to=${encodeURIComponent(to)}`, {
			redirect: 'manual',
		});
		expect([plain.status, plain.headers.get('location')]).toEqual([302, to]);
		const moved = await fetch(
			`${sandbox.url}/_sandbox/redirect?status=307&to=${encodeURIComponent(to)}`,
			{
				redirect: 'manual',
			},
		);
		expect(moved.status).toBe(307);
		expect((await fetch(`${sandbox.url}/_sandbox/redirect`)).status).toBe(400);
	});
});
