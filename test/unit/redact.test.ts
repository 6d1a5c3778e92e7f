// The last line of defence: query strings and secrets out of every message.
import {
	callbackTokensIn,
	namesASecret,
	redact,
	redactJson,
	redactPathToken,
	stripQueryStrings,
} from '../../nodes/Captioning/shared/redact';

const SECRET = 'cs-very-secret-123';

describe('redact and stripQueryStrings', () => {
	test('query strings are stripped from URLs', () => {
		expect(
			stripQueryStrings(`POST https://x.test/oauth/token?client_secret=${SECRET}&a=b failed`),
		).toBe('POST https://x.test/oauth/token?[redacted] failed');
	});

	test('each secret is replaced, raw and URL-encoded; short or empty values are ignored', () => {
		const weird = 'p@ss/word+=';
		expect(
			redact(`a ${weird} b ${encodeURIComponent(weird)} c`, [weird, '', undefined, 'ab']),
		).toBe('a [redacted] b [redacted] c');
	});
});

describe('one redaction: every form a secret may be echoed in', () => {
	const TOKEN = 'at-0123456789abcdef';
	test('Bearer and Basic headers, hex and JSON, in text and in JSON members', () => {
		const basic = Buffer.from(`client-id:${SECRET}`).toString('base64');
		const echo = `Authorization: Bearer ${TOKEN}; Basic ${basic}; hex ${Buffer.from(TOKEN).toString('hex')}`;
		const redacted = redact(echo, [SECRET, TOKEN]);
		expect(redacted).not.toContain(TOKEN);
		expect(redacted).not.toContain(Buffer.from(TOKEN).toString('hex'));
		expect(
			Buffer.from(
				redacted.split('Basic ')[1].split(';')[0].replace('[redacted]', ''),
				'base64',
			).toString('latin1'),
		).not.toContain(SECRET.slice(0, 8));
		expect(
			redactJson({ [`key ${TOKEN}`]: [`b64 ${Buffer.from(TOKEN).toString('base64')}`] }, [TOKEN]),
		).toEqual({
			'key [redacted]': ['b64 [redacted]'],
		});
	});
});

describe('the service’s words: redactJson and callbackTokensIn', () => {
	const TOKEN = 'Abcdefghijklmnopqrstuvwxyz012345';

	test('the callback tokens a request carries are the `token` parameters of its URL values', () => {
		expect(
			callbackTokensIn([
				['callback_uri', `https://n8n.example.com/webhook/x/webhook?token=${TOKEN}`],
				['enabled_events[]', 'transcription.created'],
				['callback_uri', 'https://other.example.com/hook'],
				['note', 'not a url ?token=nope'],
			]),
		).toEqual([TOKEN]);
		expect(callbackTokensIn(undefined)).toEqual([]);
	});

	test('and the token route’s last segment: the webhook ID twice, then the token (decoded)', () => {
		const id = '0f6c7c2e-2b1a-4c1e-9b0e-1d2c3b4a5f60';
		expect(
			callbackTokensIn([
				['callback_uri', `https://n8n.example.com/webhook/${id}/${id}/${TOKEN}`],
				['callback_uri', `https://n8n.example.com/webhook-test/${id}/${id}/a%2Fb?x=1`],
				// one ID, or two different ones: no token route
				['callback_uri', `https://n8n.example.com/webhook/${id}/webhook`],
				['callback_uri', `https://n8n.example.com/webhook/${id}/other/${TOKEN}`],
			]),
		).toEqual([TOKEN, 'a/b']);
		expect(redactPathToken(`/webhook/${id}/${id}/${TOKEN}`)).toBe(
			`/webhook/${id}/${id}/[redacted]`,
		);
		expect(redactPathToken(`/webhook/${id}/webhook`)).toBe(`/webhook/${id}/webhook`);
	});

	test('every string of a JSON value, member names included, is redacted; its shape is kept', () => {
		const body = {
			errors: [
				{
					status: 422,
					detail: `callback_uri https://n8n.example.com/w?token=${TOKEN} is taken`,
					source: { [`/hooks/${TOKEN}`]: TOKEN, ok: true, n: null },
				},
			],
		};
		expect(redactJson(body, [TOKEN])).toEqual({
			errors: [
				{
					status: 422,
					detail: 'callback_uri https://n8n.example.com/w?[redacted] is taken',
					source: { '/hooks/[redacted]': '[redacted]', ok: true, n: null },
				},
			],
		});
		// the value given is not changed
		expect(body.errors[0].source).toHaveProperty(`/hooks/${TOKEN}`);
	});

	test('a value JSON cannot hold is replaced as a whole', () => {
		const circular: Record<string, unknown> = {};
		circular.self = circular;
		expect(redactJson(circular, [TOKEN])).toEqual({ redacted: true });
	});
});

describe('namesASecret', () => {
	test.each([
		'secret',
		'signing_secret',
		'webhookSecret',
		'client-secret',
		'password',
		'access_token',
		'Token',
		'api_key',
		'privateKey',
		'credentials',
	])('%s names a secret', (name) => expect(namesASecret(name)).toBe(true));
	test.each([
		'id',
		'callback_uri',
		'enabled_events',
		'tokenRoute_kind',
		'key',
		'event_key',
		'created_at',
		'secretary',
	])('%s does not', (name) => expect(namesASecret(name)).toBe(false));
});
