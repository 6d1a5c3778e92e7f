// The trigger's receive-path and registration decisions, branch by branch.
import {
	checkToken,
	DEDUPE_LIMIT,
	DEDUPE_TTL_SECONDS,
	flattenEvent,
	isJsonContentType,
	isSelectedEvent,
	readDeliveryBody,
	rememberEvent,
	validateEvent,
} from '../../nodes/Captioning/trigger/receive';
import {
	callbackUriWithToken,
	checkStored,
	endpointMatches,
	endpointsFor,
	readRegistration,
	withoutQuery,
} from '../../nodes/Captioning/trigger/registration';
import { rememberInProcess } from '../../nodes/Captioning/trigger/recent';

const TID = '7d1b3c1e-2f4a-4b7c-9d0e-1a2b3c4d5e6f';

export function sampleEvent(overrides: { eventType?: string; id?: string } = {}) {
	return {
		data: {
			id: overrides.id ?? 'e3a1c2d4-5b6f-4a7b-8c9d-0e1f2a3b4c5d',
			type: 'webhook_event',
			attributes: {
				created_at: '2026-11-22T10:00:00.123Z',
				event_type: overrides.eventType ?? 'transcription.transcribed',
				uri: 'https://n8n.example.com/webhook/abc/webhook?token=t',
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

describe('checkToken', () => {
	test('matches the registered token only', () => {
		expect(checkToken('secret-token', 'secret-token')).toBeUndefined();
		expect(checkToken('secret-token', ['secret-token', 'x'])).toBeUndefined();
		expect(checkToken('secret-token', 'secret-tokem')).toEqual({
			status: 401,
			message: expect.stringMatching(/does not match/),
		});
		expect(checkToken('secret-token', 'short')).toEqual({
			status: 401,
			message: expect.stringMatching(/does not match/),
		});
	});

	test('a request without a token, or a trigger without a registration, is refused', () => {
		expect(checkToken('secret-token', undefined)).toEqual({
			status: 401,
			message: expect.stringMatching(/no token/),
		});
		expect(checkToken('secret-token', '')).toEqual({
			status: 401,
			message: expect.stringMatching(/no token/),
		});
		expect(checkToken(undefined, 'anything')).toEqual({
			status: 401,
			message: expect.stringMatching(/no registration.*activate/),
		});
	});
});

describe('readDeliveryBody', () => {
	const raw = Buffer.from(JSON.stringify({ a: 1 }));

	test('application/json and JSON:API bodies are read from the raw bytes', () => {
		for (const type of [
			'application/json',
			'application/json; charset=utf-8',
			'application/vnd.api+json',
			'APPLICATION/VND.API+JSON',
		]) {
			expect(isJsonContentType(type)).toBe(true);
			expect(readDeliveryBody(type, raw)).toEqual({ ok: true, body: { a: 1 } });
		}
	});

	test('a byte-order mark is tolerated', () => {
		expect(readDeliveryBody('application/json', Buffer.from('\uFEFF{"a":2}'))).toEqual({
			ok: true,
			body: { a: 2 },
		});
	});

	test('other content types get 415', () => {
		for (const type of [
			'text/plain',
			'application/x-www-form-urlencoded',
			undefined,
			'application/jsonx',
		]) {
			const result = readDeliveryBody(type, raw);
			expect(result).toEqual({
				ok: false,
				rejection: { status: 415, message: expect.stringMatching(/Expected a JSON body/) },
			});
		}
	});

	test('empty bodies, invalid UTF-8 and invalid JSON get 400 with the reason', () => {
		expect(readDeliveryBody('application/json', Buffer.alloc(0))).toMatchObject({
			rejection: { status: 400, message: expect.stringMatching(/empty/) },
		});
		expect(readDeliveryBody('application/json', undefined)).toMatchObject({
			rejection: { status: 400 },
		});
		expect(readDeliveryBody('application/json', Buffer.from([0x7b, 0xff, 0x7d]))).toMatchObject({
			rejection: { status: 400, message: expect.stringMatching(/UTF-8/) },
		});
		expect(readDeliveryBody('application/json', Buffer.from('{"a":'))).toMatchObject({
			rejection: { status: 400, message: expect.stringMatching(/not valid JSON/) },
		});
	});
});

describe('validateEvent', () => {
	test('a contract 2.3/2.4 event passes, with unknown extra fields and formats kept', () => {
		const body = sampleEvent();
		(body.data.attributes as Record<string, unknown>).future_field = 'kept';
		const result = validateEvent(body);
		expect(result.ok).toBe(true);
		if (!result.ok) return;
		expect(result.event.data.attributes).toMatchObject({ future_field: 'kept' });
	});

	test('a transcription.created event with only the transcription id and type passes', () => {
		const body = sampleEvent({ eventType: 'transcription.created' });
		body.included = [{ id: TID, type: 'transcription' } as never];
		expect(validateEvent(body).ok).toBe(true);
	});

	test.each([
		['not an object', 'hello', /\(root\)/],
		['no data', { included: [] }, /data: Required/],
		[
			'wrong data.type',
			{ ...sampleEvent(), data: { ...sampleEvent().data, type: 'event' } },
			/data\.type/,
		],
		[
			'a created_at that is not a timestamp',
			{
				...sampleEvent(),
				data: {
					...sampleEvent().data,
					attributes: { ...sampleEvent().data.attributes, created_at: 'yesterday' },
				},
			},
			/data\.attributes\.created_at/,
		],
		[
			'no subject',
			{ ...sampleEvent(), data: { ...sampleEvent().data, relationships: {} } },
			/data\.relationships\.subject/,
		],
		['included is not an array', { ...sampleEvent(), included: {} }, /included/],
	])('%s is rejected with 400 naming the field', (_name, body, path) => {
		const result = validateEvent(body);
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.rejection.status).toBe(400);
		expect(result.rejection.message).toMatch(path);
	});

	test('an included transcription with a malformed file list is rejected', () => {
		const body = sampleEvent();
		(body.included[0].attributes.transcriptions as unknown[]).push({ format: 'vtt', url: 42 });
		const result = validateEvent(body);
		expect(result).toMatchObject({
			ok: false,
			rejection: {
				status: 400,
				message: expect.stringMatching(/included\.0\.attributes\.transcriptions\.3\.url/),
			},
		});
	});

	test('an average_confidence outside 0..1 is rejected', () => {
		const body = sampleEvent();
		body.included[0].attributes.average_confidence = 7;
		expect(validateEvent(body).ok).toBe(false);
	});
});

describe('isSelectedEvent', () => {
	test('only selected types pass', () => {
		expect(isSelectedEvent('transcription.created', ['transcription.created'])).toBe(true);
		expect(isSelectedEvent('transcription.transcribed', ['transcription.created'])).toBe(false);
		expect(
			isSelectedEvent('transcription.deleted', [
				'transcription.created',
				'transcription.transcribed',
			]),
		).toBe(false);
	});
});

describe('rememberEvent', () => {
	test('first sight is not a duplicate, the second is', () => {
		const first = rememberEvent(undefined, 'a', 100);
		expect(first).toEqual({ duplicate: false, seen: [['a', 100]] });
		expect(rememberEvent(first.seen, 'a', 101).duplicate).toBe(true);
		expect(rememberEvent(first.seen, 'b', 101)).toEqual({
			duplicate: false,
			seen: [
				['a', 100],
				['b', 101],
			],
		});
	});

	test('the memory is bounded: the oldest ids go first', () => {
		let seen: unknown = [];
		for (let i = 0; i < DEDUPE_LIMIT + 5; i++) seen = rememberEvent(seen, `id-${i}`, 1000).seen;
		const list = seen as Array<[string, number]>;
		expect(list).toHaveLength(DEDUPE_LIMIT);
		expect(list[0][0]).toBe('id-5');
		expect(rememberEvent(list, 'id-4', 1000).duplicate).toBe(false);
		expect(rememberEvent(list, 'id-5', 1000).duplicate).toBe(true);
	});

	test('ids older than the TTL are forgotten, and garbage in static data is ignored', () => {
		const seen = [['old', 0], 'garbage', ['x'], [1, 2], ['fresh', DEDUPE_TTL_SECONDS]];
		const result = rememberEvent(seen, 'old', DEDUPE_TTL_SECONDS + 1);
		expect(result).toEqual({
			duplicate: false,
			seen: [
				['fresh', DEDUPE_TTL_SECONDS],
				['old', DEDUPE_TTL_SECONDS + 1],
			],
		});
	});

	test('rememberInProcess is per trigger and bounded by TTL', () => {
		expect(rememberInProcess('wf:1', 'x', 10)).toBe(false);
		expect(rememberInProcess('wf:1', 'x', 11)).toBe(true);
		expect(rememberInProcess('wf:2', 'x', 11)).toBe(false);
		expect(rememberInProcess('wf:1', 'x', 10 + DEDUPE_TTL_SECONDS)).toBe(false);
	});
});

describe('flattenEvent', () => {
	test('one human-readable item with a map of file URLs by format, unknown formats included', () => {
		const result = validateEvent(sampleEvent());
		if (!result.ok) throw new Error('invalid sample');
		expect(flattenEvent(result.event)).toEqual({
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

	test('without the transcription in included, the fields are null', () => {
		const body = sampleEvent({ eventType: 'transcription.created' });
		body.included = [];
		const result = validateEvent(body);
		if (!result.ok) throw new Error('invalid sample');
		expect(flattenEvent(result.event)).toMatchObject({
			transcriptionId: TID,
			title: null,
			files: {},
			formats: [],
		});
	});
});

describe('registration decisions', () => {
	const stored = {
		endpointId: 'ep-1',
		webhookUrl: 'https://n8n.example.com/webhook/abc/webhook',
		events: ['transcription.created', 'transcription.transcribed'],
		token: 'tok',
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
		expect(readRegistration({ registration: { ...stored, token: 1 } })).toBeUndefined();
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

	test('endpointMatches compares id, callback URI with token, and events', () => {
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
