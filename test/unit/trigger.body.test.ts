// The body stage (trigger/body.ts), branch by branch: the bytes as n8n read them, and their JSON.
import {
	isTooLarge,
	parsedByN8n,
	readDeliveryBody,
	readRawBody,
} from '../../nodes/Captioning/trigger/body';
import { sampleEvent } from '../helpers/deliveryEvent';

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

describe("readDeliveryBody with n8n's parse of the bytes", () => {
	// a value n8n's parse would not give: telling which of the two the stage returned
	const n8nParsed = { parsedBy: 'n8n' };

	test("n8n's parse is the body when the text is JSON.parse's alone", () => {
		const read = readDeliveryBody('application/json', Buffer.from('{"a":1}'), n8nParsed);
		expect(read).toEqual({ ok: true, body: n8nParsed, lossy: false });
		if (read.ok) expect(read.body).toBe(n8nParsed);
	});

	test('the stage parses itself where its reading differs: long integers, a byte order mark, lossy bytes', () => {
		const long = Buffer.from('{"id":12345678901234567890}');
		expect(readDeliveryBody('application/json', long, n8nParsed)).toEqual({
			ok: true,
			body: { id: '12345678901234567890' },
			lossy: false,
		});
		// 16 digits in a row anywhere (a string too): parsed by the stage, which keeps strings as they are
		expect(
			readDeliveryBody('application/json', Buffer.from('{"t":"1234567890123456"}'), n8nParsed),
		).toEqual({ ok: true, body: { t: '1234567890123456' }, lossy: false });
		// 15 digits: JSON.parse reads them exactly, n8n's parse is taken
		expect(
			readDeliveryBody('application/json', Buffer.from('{"id":123456789012345}'), n8nParsed),
		).toMatchObject({ body: n8nParsed });
		expect(readDeliveryBody('application/json', Buffer.from('\uFEFF{"a":2}'), n8nParsed)).toEqual({
			ok: true,
			body: { a: 2 },
			lossy: false,
		});
		const lossy = Buffer.concat([Buffer.from('{"t":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
		expect(readDeliveryBody('application/json', lossy, n8nParsed)).toEqual({
			ok: true,
			body: { t: 'caf\uFFFD' },
			lossy: true,
		});
	});

	test('what cannot be read is refused before any parse is taken', () => {
		expect(readDeliveryBody('application/json', Buffer.alloc(0), n8nParsed)).toMatchObject({
			rejection: { status: 400 },
		});
		expect(readDeliveryBody('application/json', 'too-large', n8nParsed)).toMatchObject({
			rejection: { status: 413 },
		});
		expect(readDeliveryBody('application/json', undefined, n8nParsed)).toMatchObject({
			rejection: { status: 415 },
		});
	});
});

describe('parsedByN8n', () => {
	const body = { data: {} };
	const request = (fields: Record<string, unknown>) => ({
		headers: {},
		contentType: 'application/json',
		encoding: 'utf-8',
		body,
		...fields,
	});

	test("n8n's body for application/json in UTF-8", () => {
		expect(parsedByN8n(request({}))).toBe(body);
		expect(parsedByN8n(request({ encoding: 'utf8' }))).toBe(body);
		expect(parsedByN8n(request({ body: [1] }))).toEqual([1]);
	});

	test('none for the types and charsets n8n does not parse as the stage would', () => {
		// n8n leaves the body alone (an empty object) for types it does not parse as JSON
		expect(parsedByN8n(request({ contentType: 'application/vnd.api+json' }))).toBeUndefined();
		expect(parsedByN8n(request({ contentType: 'text/plain' }))).toBeUndefined();
		expect(parsedByN8n(request({ contentType: undefined }))).toBeUndefined();
		expect(parsedByN8n(request({ encoding: 'latin1' }))).toBeUndefined();
		expect(parsedByN8n(request({ encoding: undefined }))).toBeUndefined();
	});

	test('none when the JSON text is not an object or an array (the stage refuses those itself)', () => {
		for (const value of [null, 'text', 3, true, undefined]) {
			expect(parsedByN8n(request({ body: value }))).toBeUndefined();
		}
	});
});

describe('readRawBody', () => {
	const request = (fields: Record<string, unknown>, contentType = 'application/json') => ({
		headers: { 'content-type': contentType },
		...fields,
	});

	test('the bytes n8n has read', async () => {
		const raw = Buffer.from('{}');
		expect(await readRawBody(request({ rawBody: raw }))).toBe(raw);
	});

	test('read now when n8n has not (types it does not parse)', async () => {
		const req = request({}, 'application/vnd.api+json') as Record<string, unknown> & {
			headers: Record<string, string>;
		};
		req.readRawBody = async () => {
			req.rawBody = Buffer.from('{"a":1}');
		};
		expect(await readRawBody(req)).toEqual(Buffer.from('{"a":1}'));
	});

	test("'too-large' when reading stops at n8n's size limit (raw-body's 413)", async () => {
		// what raw-body throws: an http-errors 413 with type entity.too.large
		const tooLarge = async () => {
			throw Object.assign(new Error('request entity too large'), {
				status: 413,
				statusCode: 413,
				type: 'entity.too.large',
			});
		};
		expect(await readRawBody(request({ readRawBody: tooLarge }, 'application/vnd.api+json'))).toBe(
			'too-large',
		);
	});

	test('none when the stream cannot be read, or when n8n has parsed multipart/form-data', async () => {
		const failing = async () => {
			throw new Error('Request body stream was aborted or is not readable');
		};
		expect(await readRawBody(request({ readRawBody: failing }))).toBeUndefined();
		const untouched = jest.fn();
		expect(
			await readRawBody(request({ readRawBody: untouched }, 'multipart/form-data; boundary=x')),
		).toBeUndefined();
		expect(untouched).not.toHaveBeenCalled();
		expect(await readRawBody(request({}))).toBeUndefined();
		expect(await readRawBody(request({ readRawBody: async () => undefined }))).toBeUndefined();
	});
});

describe('isTooLarge', () => {
	test.each([
		['raw-body type', { type: 'entity.too.large' }, true],
		['status 413', { status: 413 }, true],
		['statusCode 413', { statusCode: 413 }, true],
		['another status', { status: 400, type: 'request.aborted' }, false],
		['a plain Error', new Error('Request body stream was aborted'), false],
		['not an object', 'entity.too.large', false],
		['null', null, false],
	])('%s', (_label, error, expected) => {
		expect(isTooLarge(error)).toBe(expected);
	});
});
