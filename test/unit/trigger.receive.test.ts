// The trigger's receive-path readers (trigger/receive.ts) and registration decisions, branch by branch.
import {
	checkIdBytes,
	checkToken,
	flattenEvent,
	ignoredBecause,
	isSelectedEvent,
	planDownloads,
	readDeliveryBody,
	removeSecret,
	requiredToken,
	validateEvent,
	withoutSecret,
} from '../../nodes/Captioning/trigger/receive';
import {
	callbackUriWithToken,
	checkStored,
	endpointMatches,
	endpointsFor,
	hashToken,
	readRegistration,
	withoutQuery,
} from '../../nodes/Captioning/trigger/registration';

const TID = '7d1b3c1e-2f4a-4b7c-9d0e-1a2b3c4d5e6f';
const TOKEN = 'OXjuL-jpuzW4d_3GRoJCUSMXzhQephRp';

export function sampleEvent(overrides: { eventType?: string; id?: string } = {}) {
	return {
		data: {
			id: overrides.id ?? 'e3a1c2d4-5b6f-4a7b-8c9d-0e1f2a3b4c5d',
			type: 'webhook_event',
			attributes: {
				created_at: '2026-11-22T10:00:00.123Z',
				event_type: overrides.eventType ?? 'transcription.transcribed',
				uri: `https://n8n.example.com/webhook/abc/webhook?token=${TOKEN}`,
			},
			relationships: { subject: { data: { id: TID, type: 'transcription' } } },
		},
		included: [
			{
				id: TID,
				type: 'transcription',
				attributes: {
					title: 'Board meeting',
					duration: 61.5,
					average_confidence: 0.912345678,
					media: { url: 'https://files.example.com/media.wav?signature=x' },
					transcriptions: [
						{ format: 'google_stt', url: 'https://files.example.com/a.json?signature=x' },
						{ format: 'vtt', url: 'https://files.example.com/a.vtt?signature=x' },
						{ format: 'srt', url: 'https://files.example.com/a.srt?signature=x' },
					],
				},
			},
		],
	};
}

describe('requiredToken', () => {
	test('automatic registration: the registration’s token hash, even when there is none', () => {
		expect(requiredToken('api', '', 'hash')).toEqual({ expectedHash: 'hash' });
		expect(requiredToken('api', 'ignored', undefined)).toEqual({ expectedHash: undefined });
		expect(requiredToken(undefined, '', 'hash')).toEqual({ expectedHash: 'hash' });
	});

	test('manual registration: the hash of the Secret Token when set, else none', () => {
		expect(requiredToken('manual', 'mine', 'hash')).toEqual({ expectedHash: hashToken('mine') });
		expect(requiredToken('manual', '', 'hash')).toBeUndefined();
		expect(requiredToken('manual', undefined, undefined)).toBeUndefined();
	});
});

describe('checkToken', () => {
	const HASH = hashToken('secret-token');

	test('the hash matches: the verified token, for removing it from the output', () => {
		expect(checkToken(HASH, 'secret-token')).toEqual({ ok: true, token: 'secret-token' });
		expect(checkToken(HASH, ['secret-token', 'x'])).toEqual({ ok: true, token: 'secret-token' });
	});

	test('the hash does not match: 401, whatever the length', () => {
		for (const given of ['secret-tokem', 'short', HASH, `secret-token${'x'.repeat(100)}`]) {
			expect(checkToken(HASH, given)).toEqual({
				ok: false,
				rejection: { status: 401, message: expect.stringMatching(/does not match/) },
			});
		}
		// a stored value that is not a hash of this shape matches nothing (and does not throw)
		expect(checkToken('secret-token', 'secret-token')).toMatchObject({
			ok: false,
			rejection: { status: 401, message: expect.stringMatching(/does not match/) },
		});
	});

	test('a request without a token, or a trigger without a registration, is refused', () => {
		for (const given of [undefined, '', [], { x: 'secret-token' }, 7]) {
			expect(checkToken(HASH, given)).toEqual({
				ok: false,
				rejection: { status: 401, message: expect.stringMatching(/no token/) },
			});
		}
		for (const expected of [undefined, '']) {
			expect(checkToken(expected, 'anything')).toEqual({
				ok: false,
				rejection: { status: 401, message: expect.stringMatching(/no registration.*activate/) },
			});
		}
	});
});

describe('readDeliveryBody', () => {
	const raw = Buffer.from(JSON.stringify({ a: 1 }));

	test('the body is read as JSON whatever the content type says', () => {
		for (const type of [
			'application/json',
			'application/vnd.api+json',
			'text/plain',
			'application/x-www-form-urlencoded',
			'application/octet-stream',
			'',
			undefined,
		]) {
			expect(readDeliveryBody(type, raw)).toEqual({ ok: true, body: { a: 1 }, lossy: false });
		}
	});

	test('one byte-order mark is tolerated, two are not JSON', () => {
		expect(readDeliveryBody('application/json', Buffer.from('\uFEFF{"a":2}'))).toEqual({
			ok: true,
			body: { a: 2 },
			lossy: false,
		});
		expect(readDeliveryBody('application/json', Buffer.from('\uFEFF\uFEFF{"a":2}'))).toMatchObject({
			ok: false,
			rejection: { status: 400 },
		});
	});

	test('bytes that are not UTF-8 become U+FFFD instead of refusing the event', () => {
		const body = Buffer.concat([
			Buffer.from('{"title":"caf'),
			Buffer.from([0xe9]),
			Buffer.from('"}'),
		]);
		expect(readDeliveryBody('application/json', body)).toEqual({
			ok: true,
			body: { title: 'caf\uFFFD' },
			lossy: true,
		});
		// a U+FFFD the sender wrote is not a loss
		expect(readDeliveryBody('application/json', Buffer.from('{"title":"\uFFFD"}'))).toMatchObject({
			lossy: false,
		});
	});

	test('an id is refused only when bytes that were not UTF-8 became part of it', () => {
		expect(checkIdBytes('a\uFFFDb', true)).toEqual({
			status: 400,
			message: expect.stringMatching(/data\.id\) is not valid UTF-8/),
		});
		expect(checkIdBytes('a\uFFFDb', false)).toBeUndefined();
		expect(checkIdBytes('ab', true)).toBeUndefined();
	});

	test('a body that could not be read gets 415 naming the content type', () => {
		expect(readDeliveryBody('multipart/form-data; boundary=x', undefined)).toEqual({
			ok: false,
			rejection: {
				status: 415,
				message: expect.stringMatching(/could not be read \(Content-Type "multipart\/form-data/),
			},
		});
		expect(readDeliveryBody(undefined, undefined)).toMatchObject({
			rejection: { status: 415, message: expect.stringMatching(/"none"/) },
		});
	});

	test("a body beyond n8n's size limit gets 413 naming the setting that raises it", () => {
		expect(readDeliveryBody('application/vnd.api+json', 'too-large')).toEqual({
			ok: false,
			rejection: { status: 413, message: expect.stringMatching(/raise N8N_PAYLOAD_SIZE_MAX/) },
		});
	});

	test('an empty body and a body that is not JSON get 400 with the reason', () => {
		expect(readDeliveryBody('application/json', Buffer.alloc(0))).toMatchObject({
			rejection: { status: 400, message: expect.stringMatching(/empty/) },
		});
		expect(readDeliveryBody('application/json', Buffer.from('{"a":'))).toMatchObject({
			rejection: { status: 400, message: expect.stringMatching(/not valid JSON/) },
		});
		expect(readDeliveryBody('text/plain', Buffer.from('hello'))).toMatchObject({
			rejection: { status: 400, message: expect.stringMatching(/not valid JSON/) },
		});
		const utf16 = Buffer.from(JSON.stringify(sampleEvent()), 'utf16le');
		expect(readDeliveryBody('application/json; charset=utf-16le', utf16)).toMatchObject({
			rejection: { status: 400 },
		});
	});
});

describe('validateEvent: only the event id is required', () => {
	test('the id and the type are read, nothing else is looked at', () => {
		expect(validateEvent(sampleEvent())).toEqual({
			ok: true,
			event: { id: 'e3a1c2d4-5b6f-4a7b-8c9d-0e1f2a3b4c5d', eventType: 'transcription.transcribed' },
		});
		expect(
			validateEvent({
				data: { id: 'x', type: 'something else', attributes: { event_type: 'a', created_at: 7 } },
				included: 'not an array',
			}),
		).toEqual({ ok: true, event: { id: 'x', eventType: 'a' } });
	});

	test.each([
		['no attributes', { data: { id: 'x' } }],
		['attributes not an object', { data: { id: 'x', attributes: [1] } }],
		['attributes null', { data: { id: 'x', attributes: null } }],
		['no event_type', { data: { id: 'x', attributes: {} } }],
		['an event_type that is not a string', { data: { id: 'x', attributes: { event_type: 7 } } }],
		['a deeply nested event_type', { data: { id: 'x', attributes: { event_type: [[[[]]]] } } }],
	])('%s: the type is missing, the event is not refused', (_name, body) => {
		expect(validateEvent(body)).toEqual({ ok: true, event: { id: 'x', eventType: undefined } });
	});

	test.each([
		['not an object', 'hello', /\(root\)/],
		['an array', [sampleEvent()], /\(root\)/],
		['null', null, /\(root\)/],
		['no data', { included: [] }, /data: Required/],
		['data null', { data: null }, /data: Expected object/],
		[
			'no id',
			{ data: { attributes: { event_type: 'transcription.created' } } },
			/data\.id: Required/,
		],
		['an empty id', { data: { id: '' } }, /data\.id/],
		['a fractional id', { data: { id: 4.2 } }, /data\.id: Expected string/],
		['a negative id', { data: { id: -1 } }, /data\.id: Expected string/],
		['an id of 201 characters', { data: { id: 'i'.repeat(201) } }, /data\.id/],
	])('%s is refused with 400 naming data.id', (_name, body, path) => {
		const result = validateEvent(body);
		expect(result).toEqual({
			ok: false,
			rejection: { status: 400, message: expect.stringMatching(path) },
		});
		if (!result.ok) expect(result.rejection.message).toMatch(/needs its id, data\.id/);
	});

	test('an id of 200 characters is an id', () => {
		expect(validateEvent({ data: { id: 'i'.repeat(200) } }).ok).toBe(true);
	});
});

describe('isSelectedEvent and ignoredBecause', () => {
	test('only selected types pass; a missing type never does', () => {
		expect(isSelectedEvent('transcription.created', ['transcription.created'])).toBe(true);
		expect(isSelectedEvent('transcription.transcribed', ['transcription.created'])).toBe(false);
		expect(isSelectedEvent(undefined, ['transcription.created'])).toBe(false);
	});

	test('the reason names the type, or says it is missing', () => {
		expect(ignoredBecause('transcription.deleted')).toBe(
			'event type "transcription.deleted" is not selected',
		);
		expect(ignoredBecause(undefined)).toMatch(/missing.*is not selected/);
		expect(ignoredBecause('x'.repeat(500)).length).toBeLessThan(150);
	});
});

describe('flattenEvent', () => {
	const flatten = (body: unknown) => {
		const head = validateEvent(body);
		if (!head.ok) throw new Error(head.rejection.message);
		return flattenEvent(body, head.event);
	};
	const withAttributes = (attributes: Record<string, unknown>) => {
		const body = sampleEvent();
		Object.assign(body.included[0].attributes, attributes);
		return body;
	};

	test('one human-readable item with a map of file URLs by format, unknown formats included', () => {
		expect(flatten(sampleEvent())).toEqual({
			eventId: 'e3a1c2d4-5b6f-4a7b-8c9d-0e1f2a3b4c5d',
			eventType: 'transcription.transcribed',
			createdAt: '2026-11-22T10:00:00.123Z',
			transcriptionId: TID,
			title: 'Board meeting',
			duration: 61.5,
			averageConfidence: 0.912345678,
			mediaUrl: 'https://files.example.com/media.wav?signature=x',
			files: {
				google_stt: 'https://files.example.com/a.json?signature=x',
				vtt: 'https://files.example.com/a.vtt?signature=x',
				srt: 'https://files.example.com/a.srt?signature=x',
			},
			formats: ['google_stt', 'vtt', 'srt'],
		});
	});

	test.each([
		['"12.5"', '12.5', 12.5],
		['" 7 "', ' 7 ', 7],
		['"1e3"', '1e3', 1000],
		['"-0.5"', '-0.5', -0.5],
		['".5"', '.5', 0.5],
	])('a duration sent as the decimal string %s is a number', (_name, sent, expected) => {
		expect(flatten(withAttributes({ duration: sent, average_confidence: sent }))).toMatchObject({
			duration: expected,
			averageConfidence: expected,
		});
	});

	test.each([
		['text', 'about 5 minutes'],
		['an empty string', ''],
		['a decimal comma', '12,5'],
		['a boolean', true],
		['an object', { value: 12.5, unit: 's' }],
		['a confidence above 1', 7],
	])('a duration that is %s passes as it came', (_name, sent) => {
		expect(flatten(withAttributes({ duration: sent, average_confidence: sent }))).toMatchObject({
			duration: sent,
			averageConfidence: sent,
		});
	});

	test('nulls, missing parts and values of other types pass as they came (missing ones as null)', () => {
		const body = sampleEvent();
		const attributes = body.included[0].attributes as Record<string, unknown>;
		attributes.title = 42;
		attributes.media = null;
		delete attributes.duration;
		attributes.average_confidence = null;
		(body.data.attributes as Record<string, unknown>).created_at = 'Wed, 01 Jan 2025 00:00:00 GMT';
		expect(flatten(body)).toMatchObject({
			createdAt: 'Wed, 01 Jan 2025 00:00:00 GMT',
			title: 42,
			duration: null,
			averageConfidence: null,
			mediaUrl: null,
		});
	});

	test('a value nested deeper than an item should hold is null (Raw Body keeps it)', () => {
		let deep: unknown = 'bottom';
		for (let i = 0; i < 40; i++) deep = [deep];
		expect(flatten(withAttributes({ title: deep })).title).toBeNull();
		const shallow = { en: 'Board', fr: 'Conseil' };
		expect(flatten(withAttributes({ title: shallow })).title).toEqual(shallow);
	});

	test('file entries: URLs as they came, entries without a text format left out', () => {
		const files = flatten(
			withAttributes({
				transcriptions: [
					{ format: 'vtt', url: 'not a url' },
					{ format: 'dfxp', url: null },
					{ format: 'srt' },
					{ format: '', url: 'https://x/empty' },
					{ format: 7, url: 'https://x/seven' },
					'junk',
					null,
				],
			}),
		).files;
		expect(files).toEqual({ vtt: 'not a url', dfxp: null, srt: null });
	});

	test('a format named __proto__ is an ordinary key', () => {
		const item = flatten(
			withAttributes({ transcriptions: [{ format: '__proto__', url: 'https://x/p' }] }),
		);
		expect(Object.keys(item.files as object)).toEqual(['__proto__']);
		expect(Object.getPrototypeOf(item.files)).toBe(Object.prototype);
	});

	test('transcriptions that are not a list give no files', () => {
		expect(flatten(withAttributes({ transcriptions: 'vtt' }))).toMatchObject({
			files: {},
			formats: [],
		});
	});

	test('a transcription that is not in included leaves its fields null', () => {
		const body = sampleEvent({ eventType: 'transcription.created' });
		body.included = [{ ...body.included[0], id: 'another' }];
		expect(flatten(body)).toMatchObject({
			transcriptionId: TID,
			title: null,
			files: {},
			formats: [],
		});
	});

	test('other resources in included are passed over', () => {
		const body = sampleEvent();
		body.included.unshift({ id: TID, type: 'media', attributes: { title: 'not this' } } as never);
		expect(flatten(body).title).toBe('Board meeting');
	});

	test('without a subject, the only transcription in included is the one', () => {
		const body = sampleEvent() as Record<string, unknown> & ReturnType<typeof sampleEvent>;
		delete (body.data as Record<string, unknown>).relationships;
		expect(flatten(body)).toMatchObject({ transcriptionId: null, title: 'Board meeting' });
		body.included.push({ ...body.included[0], id: 'second' });
		expect(flatten(body)).toMatchObject({ title: null });
	});

	test('a numeric subject id finds its transcription', () => {
		const body = sampleEvent();
		(body.data.relationships.subject.data as Record<string, unknown>).id = 7;
		body.included[0].id = '7';
		expect(flatten(body)).toMatchObject({ transcriptionId: 7, title: 'Board meeting' });
	});

	test('an event with nothing but its id and type', () => {
		expect(
			flatten({ data: { id: 'x', attributes: { event_type: 'transcription.created' } } }),
		).toEqual({
			eventId: 'x',
			eventType: 'transcription.created',
			createdAt: null,
			transcriptionId: null,
			title: null,
			duration: null,
			averageConfidence: null,
			mediaUrl: null,
			files: {},
			formats: [],
		});
	});
});

describe('planDownloads', () => {
	test('selected formats the event has a URL for are fetched; absent ones are skipped', () => {
		expect(
			planDownloads({ vtt: 'https://x/a.vtt', google_stt: 'http://x/a.json' }, [
				'vtt',
				'google_stt',
				'srt',
			]),
		).toEqual({
			downloads: [
				{ format: 'vtt', url: 'https://x/a.vtt' },
				{ format: 'google_stt', url: 'http://x/a.json' },
			],
			errors: [],
		});
	});

	test.each([
		['not a URL', 'not a url'],
		['a relative path', '/files/a.vtt'],
		['another scheme', 'ftp://x/a.vtt'],
		['null', null],
		['a number', 42],
	])('a file whose address is %s is not fetched, and the item says why', (_name, url) => {
		expect(planDownloads({ vtt: url }, ['vtt'])).toEqual({
			downloads: [],
			errors: [{ format: 'vtt', message: expect.stringMatching(/vtt file was not downloaded/) }],
		});
	});
});

describe('withoutSecret and removeSecret', () => {
	test.each([
		[
			'the only parameter',
			`https://h/webhook/x/webhook?token=${TOKEN}`,
			'https://h/webhook/x/webhook',
		],
		['the first parameter', `https://h/w?token=${TOKEN}&a=1`, 'https://h/w?a=1'],
		['a middle parameter', `https://h/w?a=1&token=${TOKEN}&b=2`, 'https://h/w?a=1&b=2'],
		['the last parameter', `https://h/w?a=1&token=${TOKEN}`, 'https://h/w?a=1'],
		['before a fragment', `https://h/w?token=${TOKEN}#f`, 'https://h/w#f'],
		['under another name', `https://h/w?t=${TOKEN}`, 'https://h/w'],
		['in text', `the token is ${TOKEN}.`, 'the token is [redacted].'],
		['twice', `${TOKEN}/${TOKEN}`, '[redacted]/[redacted]'],
		['absent', 'https://h/w?a=1', 'https://h/w?a=1'],
		['a question mark elsewhere', `Really? https://h/w?token=${TOKEN}`, 'Really? https://h/w'],
	])('the token as %s', (_name, text, expected) => {
		expect(withoutSecret(text, TOKEN)).toBe(expected);
	});

	test('a token with characters a URI encodes is removed in both forms', () => {
		const secret = 'a b/c';
		expect(withoutSecret(`https://h/w?token=${encodeURIComponent(secret)}`, secret)).toBe(
			'https://h/w',
		);
		expect(withoutSecret(`said "${secret}"`, secret)).toBe('said "[redacted]"');
	});

	test('every string of a value, at any depth, in arrays too; other values untouched', () => {
		const body = sampleEvent();
		body.included.push({
			id: 'ep',
			type: 'webhook_endpoint',
			attributes: { callback_uri: `https://h/w?token=${TOKEN}`, list: [TOKEN, 1, null] },
		} as never);
		const cleaned = removeSecret(body, TOKEN);
		expect(cleaned).toBe(body);
		expect(JSON.stringify(cleaned)).not.toContain(TOKEN);
		expect(cleaned.data.attributes.uri).toBe('https://n8n.example.com/webhook/abc/webhook');
		expect(
			(cleaned.included[1] as never as { attributes: { list: unknown[] } }).attributes.list,
		).toEqual(['[redacted]', 1, null]);
		expect(cleaned.included[0].attributes.duration).toBe(61.5);
	});

	test('member names too (files keyed by a format that carries the token), never overwriting a member', () => {
		const value = {
			files: { [TOKEN]: 'https://f/a', [`vtt?token=${TOKEN}`]: 'https://f/b', vtt: 'https://f/c' },
			formats: [TOKEN, `vtt?token=${TOKEN}`],
		};
		removeSecret(value, TOKEN);
		expect(JSON.stringify(value)).not.toContain(TOKEN);
		expect(value.files).toEqual({
			'[redacted]': 'https://f/a',
			vtt: 'https://f/c',
			vtt_: 'https://f/b',
		});
		expect(value.formats).toEqual(['[redacted]', 'vtt']);
	});

	test('deeper than the stack allows', () => {
		let deep: unknown = TOKEN;
		for (let i = 0; i < 100_000; i++) deep = [deep];
		const value = { deep };
		expect(() => removeSecret(value, TOKEN)).not.toThrow();
		let inner: unknown = value.deep;
		while (Array.isArray(inner)) inner = inner[0];
		expect(inner).toBe('[redacted]');
	});

	test('without a secret nothing changes; a string is returned cleaned', () => {
		const body = { uri: `https://h/w?token=${TOKEN}` };
		expect(removeSecret(body, undefined)).toEqual({ uri: `https://h/w?token=${TOKEN}` });
		expect(removeSecret(`x ${TOKEN}`, TOKEN)).toBe('x [redacted]');
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
