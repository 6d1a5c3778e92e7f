// The event stage (trigger/event.ts), branch by branch: selection, the id, the item and the files to fetch.
import {
	checkIdBytes,
	EVENT_KINDS,
	flattenEvent,
	ignoredBecause,
	isSelectedEvent,
	planDownloads,
	readEvent,
	validateEvent,
} from '../../nodes/Captioning/trigger/event';
import { EVENT_TYPES } from '../../nodes/Captioning/shared/constants';
import { sampleEvent, TID } from '../helpers/deliveryEvent';

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

describe('checkIdBytes: the id exactly as sent', () => {
	test('an id is refused only when bytes that were not UTF-8 became part of it', () => {
		expect(checkIdBytes('a\uFFFDb', true)).toEqual({
			status: 400,
			message: expect.stringMatching(/data\.id\) is not valid UTF-8/),
		});
		expect(checkIdBytes('a\uFFFDb', false)).toBeUndefined();
		expect(checkIdBytes('ab', true)).toBeUndefined();
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

describe('readEvent: selection first, then the id, whole', () => {
	const both = ['transcription.created', 'transcription.transcribed'];
	test('a selected event with its id is wanted', () =>
		expect(readEvent(sampleEvent(), false, both)).toEqual({
			kind: 'wanted',
			event: { id: 'e3a1c2d4-5b6f-4a7b-8c9d-0e1f2a3b4c5d', eventType: 'transcription.transcribed' },
		}));
	test('an unselected type is acknowledged before the id is looked at', () => {
		const noId = { data: { attributes: { event_type: 'transcription.created' } } };
		expect(readEvent(noId, true, ['transcription.transcribed'])).toEqual({
			kind: 'ignore',
			message: 'event type "transcription.created" is not selected',
		});
		expect(readEvent({ data: {} }, false, both)).toEqual({
			kind: 'ignore',
			message: ignoredBecause(undefined),
		});
	});
	test('a selected event without its id is refused with 400, naming data.id', () => {
		const result = readEvent(
			{ data: { attributes: { event_type: 'transcription.created' } } },
			false,
			both,
		);
		expect(result).toMatchObject({ kind: 'reject', rejection: { status: 400 } });
		expect(result.kind === 'reject' && result.rejection.message).toContain('data.id');
	});
	test('an id garbled by the UTF-8 repair is refused; the same id from valid bytes is wanted', () => {
		const garbled = sampleEvent({ id: 'caf\uFFFD' });
		expect(readEvent(garbled, true, both)).toEqual({
			kind: 'reject',
			rejection: checkIdBytes('caf\uFFFD', true),
		});
		expect(readEvent(garbled, false, both)).toMatchObject({
			kind: 'wanted',
			event: { id: 'caf\uFFFD' },
		});
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

describe('EVENT_KINDS: one entry per event type the node offers', () => {
	const itemOf = (eventType: string) => {
		const body = sampleEvent({ eventType });
		const head = validateEvent(body);
		if (!head.ok) throw new Error(head.rejection.message);
		return flattenEvent(body, head.event);
	};

	test('every offered type has its entry, and its item names the transcription', () => {
		expect(Object.keys(EVENT_KINDS).sort()).toEqual([...EVENT_TYPES].sort());
		for (const type of EVENT_TYPES) {
			expect(itemOf(type)).toMatchObject({ eventType: type, transcriptionId: TID });
		}
	});

	test('a type the node does not offer, or a prototype name, reads as a transcription event', () => {
		for (const type of ['transcription.deleted', '__proto__', 'constructor']) {
			expect(itemOf(type)).toMatchObject({ eventType: type, title: 'Board meeting' });
		}
	});
});
