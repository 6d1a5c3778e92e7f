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

	const AT = 'included[0].attributes';

	test.each([
		['text', 'about 5 minutes', 'text'],
		['an empty string', '', 'empty'],
		['a decimal comma', '12,5', 'text'],
		['a boolean', true, 'a boolean'],
		['an object', { value: 12.5, unit: 's' }, 'an object'],
	])('a duration that is %s passes as it came, and the item says so', (_name, sent, what) => {
		const item = flatten(withAttributes({ duration: sent, average_confidence: sent }));
		expect(item).toMatchObject({ duration: sent, averageConfidence: sent });
		expect(item.warnings).toEqual([
			`The transcription's duration (${AT}.duration) is ${what}: it is passed as it came.`,
			`The transcription's average_confidence (${AT}.average_confidence) is ${what}: it is passed as it came.`,
		]);
	});

	test('a confidence above 1 is a number: passed without a word', () => {
		const item = flatten(withAttributes({ average_confidence: 7 }));
		expect(item.averageConfidence).toBe(7);
		expect(item.warnings).toBeUndefined();
	});

	test('a missing or null title or duration is null, and said; a null or missing confidence is not yet known', () => {
		const body = sampleEvent();
		const attributes = body.included[0].attributes as Record<string, unknown>;
		attributes.title = null;
		attributes.media = null;
		delete attributes.duration;
		attributes.average_confidence = null;
		(body.data.attributes as Record<string, unknown>).created_at = 'Wed, 01 Jan 2025 00:00:00 GMT';
		expect(flatten(body)).toMatchObject({
			createdAt: 'Wed, 01 Jan 2025 00:00:00 GMT',
			title: null,
			duration: null,
			averageConfidence: null,
			mediaUrl: null,
			warnings: [
				`The transcription's title (${AT}.title) is null: it is null.`,
				`The transcription's duration (${AT}.duration) is missing: it is null.`,
			],
		});
		delete attributes.average_confidence;
		expect(flatten(body).warnings).toHaveLength(2);
	});

	test('a title that is not text passes as it came, and is said', () => {
		const title = { en: 'Board', fr: 'Conseil' };
		const item = flatten(withAttributes({ title }));
		expect(item.title).toEqual(title);
		expect(item.warnings).toEqual([
			`The transcription's title (${AT}.title) is an object: it is passed as it came.`,
		]);
		expect(flatten(withAttributes({ title: '' }))).not.toHaveProperty('warnings');
	});

	test('a value nested deeper than an item should hold is null (Raw Body keeps it)', () => {
		let deep: unknown = 'bottom';
		for (let i = 0; i < 40; i++) deep = [deep];
		expect(flatten(withAttributes({ title: deep })).title).toBeNull();
	});

	test('file entries: URLs as they came, entries without a text format left out, each said', () => {
		const item = flatten(
			withAttributes({
				transcriptions: [
					{ format: 'vtt', url: 'not a url' },
					{ format: 'dfxp', url: null },
					{ format: 'srt' },
					{ format: '', url: 'https://x/empty' },
					{ format: 7, url: 'https://x/seven' },
					'junk',
					null,
					{ format: 'ttml', url: 7 },
				],
			}),
		);
		expect(item.files).toEqual({ vtt: 'not a url', dfxp: null, srt: null, ttml: 7 });
		const files = `${AT}.transcriptions`;
		expect(item.warnings).toEqual([
			`The dfxp file's url (${files}[1].url) is null: files.dfxp is null.`,
			`The srt file's url (${files}[2].url) is missing: files.srt is null.`,
			`File 4 of the transcription (${files}[3]) has no format: it is left out of files.`,
			`File 5 of the transcription (${files}[4]) has no format: it is left out of files.`,
			`File 6 of the transcription (${files}[5]) has no format: it is left out of files.`,
			`File 7 of the transcription (${files}[6]) has no format: it is left out of files.`,
			`The ttml file's url (${files}[7].url) is a number: files.ttml is passed as it came.`,
		]);
	});

	test('two files of one format: the first is in files, and another one is said; the same one twice is not', () => {
		const item = flatten(
			withAttributes({
				transcriptions: [
					{ format: 'vtt', url: 'https://x/a.vtt' },
					{ format: 'vtt', url: 'https://x/a.vtt' },
					{ format: 'vtt', url: 'https://x/b.vtt' },
				],
			}),
		);
		expect(item.files).toEqual({ vtt: 'https://x/a.vtt' });
		expect(item.formats).toEqual(['vtt']);
		expect(item.warnings).toEqual([
			`File 3 of the transcription (${AT}.transcriptions[2]) is another vtt file: files.vtt is the first one's URL.`,
		]);
	});

	test('a format named __proto__ is an ordinary key', () => {
		const item = flatten(
			withAttributes({ transcriptions: [{ format: '__proto__', url: 'https://x/p' }] }),
		);
		expect(Object.keys(item.files as object)).toEqual(['__proto__']);
		expect(Object.getPrototypeOf(item.files)).toBe(Object.prototype);
	});

	test('transcriptions that are not a list give no files, and say so; an empty list is no files yet', () => {
		expect(flatten(withAttributes({ transcriptions: 'vtt' }))).toMatchObject({
			files: {},
			formats: [],
			warnings: [`The transcription's files (${AT}.transcriptions) are text: files is empty.`],
		});
		expect(flatten(withAttributes({ transcriptions: [] }))).not.toHaveProperty('warnings');
	});

	test('a transcription without attributes: its fields are null, in one warning', () => {
		const body = sampleEvent();
		(body.included[0] as Record<string, unknown>).attributes = null;
		expect(flatten(body)).toMatchObject({
			transcriptionId: TID,
			title: null,
			files: {},
			warnings: [
				'The transcription (included[0]) has no attributes (null): title, duration and files are empty.',
			],
		});
	});

	test('a transcription that is not in included: its fields are empty, and the item says why', () => {
		const body = sampleEvent({ eventType: 'transcription.created' });
		body.included = [{ ...body.included[0], id: 'another' }];
		expect(flatten(body)).toMatchObject({
			transcriptionId: TID,
			title: null,
			duration: null,
			files: {},
			formats: [],
			warnings: [
				`The event's transcription (id "${TID}") is not among its included resources: title, duration and files are empty. Raw Body shows the event as it came.`,
			],
		});
	});

	test('the resource with the subject id, whatever its type is called', () => {
		for (const type of ['transcriptions', 'Transcription', 'TRANSCRIPTIONS', 'transcription']) {
			const body = sampleEvent();
			body.included[0].type = type;
			body.included.unshift({ ...body.included[0], id: 'another', attributes: {} } as never);
			const item = flatten(body);
			expect(item).toMatchObject({ transcriptionId: TID, title: 'Board meeting', duration: 61.5 });
			expect(item.warnings).toBeUndefined();
		}
	});

	test('the type tells apart resources that share the subject id', () => {
		const body = sampleEvent();
		body.included.unshift({ id: TID, type: 'media', attributes: { title: 'not this' } } as never);
		expect(flatten(body).title).toBe('Board meeting');
		expect(flatten(body).warnings).toBeUndefined();
		// without a type, the resource with the subject id is still the one
		delete (body.included[1] as Record<string, unknown>).type;
		expect(flatten(body).title).toBe('Board meeting');
		expect(flatten(body).warnings).toBeUndefined();
		// the subject's own type decides: a subject of type media is the media resource
		body.data.relationships.subject.data.type = 'Media';
		expect(flatten(body).title).toBe('not this');
	});

	test('a resource with the subject id but of another type is not the transcription, and that is said', () => {
		const body = sampleEvent();
		body.included[0].type = 'media';
		expect(flatten(body)).toMatchObject({
			transcriptionId: TID,
			title: null,
			files: {},
			warnings: [
				`The event's transcription (id "${TID}") is not among its included resources (included[0] is of type "media"): title, duration and files are empty. Raw Body shows the event as it came.`,
			],
		});
	});

	test('several resources with the subject id and no type: the first is read, and said', () => {
		const body = sampleEvent();
		delete (body.included[0] as Record<string, unknown>).type;
		body.included.push({ ...body.included[0], attributes: {} } as never);
		expect(flatten(body)).toMatchObject({
			title: 'Board meeting',
			warnings: [
				`included holds 2 resources with the transcription's id "${TID}" and no type: the first (included[0]) was read.`,
			],
		});
	});

	test('several resources with the subject id, none a transcription: none is read, each is said', () => {
		const body = sampleEvent();
		body.included[0].type = 'media';
		body.included.push({ ...body.included[0], type: 'user' });
		expect(flatten(body)).toMatchObject({
			transcriptionId: TID,
			title: null,
			warnings: [
				`The event's transcription (id "${TID}") is not among its included resources (included[0] is of type "media", included[1] is of type "user"): title, duration and files are empty. Raw Body shows the event as it came.`,
			],
		});
	});

	test('two transcriptions with the subject id: the first is read, and said', () => {
		const body = sampleEvent();
		body.included.push({
			...body.included[0],
			attributes: { ...body.included[0].attributes, title: 'A stale copy' },
		});
		expect(flatten(body)).toMatchObject({
			title: 'Board meeting',
			warnings: [
				`included holds 2 transcriptions with the id "${TID}": the first (included[0]) was read.`,
			],
		});
	});

	test('without a subject id, the only transcription in included is the one, and that is said', () => {
		const body = sampleEvent() as Record<string, unknown> & ReturnType<typeof sampleEvent>;
		delete (body.data as Record<string, unknown>).relationships;
		expect(flatten(body)).toMatchObject({
			transcriptionId: TID,
			title: 'Board meeting',
			warnings: [
				'The event names no subject (data.relationships.subject.data.id is missing): the only transcription in included (included[0]) was read.',
			],
		});
		body.included.push({ ...body.included[0], id: 'second' });
		expect(flatten(body)).toMatchObject({
			transcriptionId: null,
			title: null,
			warnings: [
				'The event names no subject (data.relationships.subject.data.id is missing) and included holds 2 resources of type "transcription": title, duration and files are empty.',
			],
		});
	});

	test('a numeric subject id finds its transcription, and is given as its string, as eventId is', () => {
		const body = sampleEvent();
		(body.data.relationships.subject.data as Record<string, unknown>).id = 7;
		body.included[0].id = '7';
		expect(flatten(body)).toMatchObject({ transcriptionId: '7', title: 'Board meeting' });
		(body.included[0] as Record<string, unknown>).id = 7;
		(body.data.relationships.subject.data as Record<string, unknown>).id = '7';
		expect(flatten(body)).toMatchObject({ transcriptionId: '7', title: 'Board meeting' });
		expect(flatten(body).warnings).toBeUndefined();
	});

	test('an event with nothing but its id and type: every field empty, and why', () => {
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
			warnings: [
				'The event has no included resources (included is missing): title, duration and files are empty.',
			],
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
