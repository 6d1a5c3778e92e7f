// The readers every answer parser is built from (shared/schemas.ts), branch by branch. The property suite
// (test/property/) mutates whole answers; these say what each reader takes and what it leaves.
import fc from 'fast-check';

import {
	eventIdSchema,
	headerValue,
	headerValues,
	isInexactInteger,
	mayHoldLongInteger,
	memberOf,
	parseBody,
	parseJsonText,
	readAnnouncement,
	readCount,
	readErrorWords,
	readEventType,
	readId,
	readResetAt,
	readText,
	recordIn,
	sameResourceType,
} from '../../nodes/Captioning/shared/schemas';
import {
	readExpiresIn,
	readOAuthError,
	tokenAnswerSchema,
} from '../../nodes/Captioning/tokens/answer';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('the readers', () => {
	test('memberOf: own members only, never one of the prototype', () => {
		expect(memberOf({ a: 1 }, 'a')).toBe(1);
		expect(memberOf({}, 'constructor')).toBeUndefined();
		expect(memberOf({}, '__proto__')).toBeUndefined();
		expect(memberOf([1], '0')).toBeUndefined();
		expect(memberOf(null, 'a')).toBeUndefined();
		expect(memberOf('text', 'length')).toBeUndefined();
	});

	test('readText: a string with more than white space', () => {
		expect(readText('a')).toBe('a');
		expect(readText(' a ')).toBe(' a ');
		for (const none of ['', '  ', null, undefined, 5, true, [], {}]) {
			expect(readText(none)).toBeUndefined();
		}
	});

	test('readCount: a number from 0, or a string spelling one', () => {
		expect([7200, '7200', ' 12.5 ', '1e3', 0, '.5'].map(readCount)).toEqual([
			7200, 7200, 12.5, 1000, 0, 0.5,
		]);
		for (const none of [-1, '-1', 'soon', '', ' ', null, undefined, true, [7200], Infinity, NaN]) {
			expect(readCount(none)).toBeUndefined();
		}
	});

	test('readId: a string as it is, or an exact non-negative integer as its digits', () => {
		expect([['ep-1'], [42], [0], ['0']].map(([v]) => readId(v))).toEqual(['ep-1', '42', '0', '0']);
		// never re-parsed: zeros, digits beyond any number, white space belong to the id
		expect(['007', '12345678901234567890123', ' 7'].map(readId)).toEqual([
			'007',
			'12345678901234567890123',
			' 7',
		]);
		expect(readId(2 ** 32 + 1)).toBe('4294967297');
		expect(readId(2 ** 53 - 1)).toBe('9007199254740991');
		for (const none of ['', 1.5, -1, 2 ** 53, null, undefined, true, {}, []]) {
			expect(readId(none)).toBeUndefined();
		}
	});

	test('isInexactInteger: an integer JSON.parse has rounded (beyond 2^53)', () => {
		expect(isInexactInteger(2 ** 53)).toBe(true);
		expect(isInexactInteger(JSON.parse('12345678901234567891'))).toBe(true);
		expect(isInexactInteger(-(2 ** 60))).toBe(true);
		for (const exact of [2 ** 53 - 1, 0, 1.5, '12345678901234567891', null, Infinity]) {
			expect(isInexactInteger(exact)).toBe(false);
		}
	});

	test('parseJsonText: integers beyond 2^53 kept as their digits, everything else as JSON.parse reads it', () => {
		expect(
			parseJsonText(
				'{"id":12345678901234567891,"n":[9007199254740993,9007199254740991,-12345678901234567891],"x":1.12345678901234567891,"e":1e300,"s":"12345678901234567891"}',
			),
		).toEqual({
			id: '12345678901234567891',
			// a negative one is no id, and stays the number JSON.parse makes of it
			n: ['9007199254740993', 9007199254740991, JSON.parse('-12345678901234567891')],
			x: 1.1234567890123457,
			e: 1e300,
			s: '12345678901234567891',
		});
		// digits inside strings, escaped quotes included, are text
		expect(parseJsonText('{"a":"x\\"12345678901234567891","b":12345678901234567891}')).toEqual({
			a: 'x"12345678901234567891',
			b: '12345678901234567891',
		});
		expect(() => parseJsonText('{12345678901234567891: 1}')).toThrow(SyntaxError);
		expect(() => parseJsonText('not json')).toThrow(SyntaxError);
	});

	test.each([
		['{"id":1234567890123456}', true],
		['[1,9007199254740993]', true],
		['{"n": -12345678901234567}', true],
		['{"s":"1234567890123456"}', true],
		['{"confidence":0.9016920214690353}', false],
		['{"id":123456789012345}', false],
		['{"x":1.12345678901234567891}', false],
		['{"s":"a.1234567890123456"}', false],
	])(
		'mayHoldLongInteger(%s): 16 digits in a row that do not follow a digit or a point',
		(text, expected) => {
			expect(mayHoldLongInteger(text)).toBe(expected);
		},
	);

	test('parseJsonText reads as JSON.parse with the source of each number at hand; where mayHoldLongInteger says no, as JSON.parse alone', () => {
		// an oracle of its own: JSON.parse's reviver sees each number's source text (Node 21 and later)
		const oracle = (text: string): unknown =>
			JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
				typeof value === 'number' &&
				/^\d{16,}$/.test(context?.source ?? '') &&
				BigInt(context!.source!) > BigInt(Number.MAX_SAFE_INTEGER)
					? context!.source
					: value,
			);
		expect(oracle('{"id":12345678901234567891}')).toEqual({ id: '12345678901234567891' });
		// numbers of every size, fractions and exponents included, in strings and out
		const number = fc.oneof(
			fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
			fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
			fc.tuple(fc.nat(), fc.stringMatching(/^\d{1,30}$/)).map(([i, f]) => `${i}.${f}`),
			fc.tuple(fc.nat(99), fc.nat(400)).map(([m, e]) => `${m}e${e}`),
		);
		const value: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
			v: fc.oneof(
				{ depthSize: 'small' },
				number,
				number.map((n) => JSON.stringify(`x${n}`)),
				fc.array(tie('v'), { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
				fc
					.array(fc.tuple(fc.string({ maxLength: 4 }), tie('v')), { maxLength: 4 })
					.map((m) => `{${m.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
			),
		})).v;
		fc.assert(
			fc.property(value, (text) => {
				const expected = oracle(text);
				expect(parseJsonText(text)).toEqual(expected);
				if (!mayHoldLongInteger(text)) expect(JSON.parse(text)).toEqual(expected);
			}),
			{ numRuns: 2000 },
		);
	});
});

describe('sameResourceType: one rule for JSON:API types and the members named after them', () => {
	test('case, snake, kebab and camel spellings, singular and plural, are one type', () => {
		for (const type of [
			'transcription',
			'transcriptions',
			'Transcription',
			'TRANSCRIPTIONS',
			' transcription ',
		]) {
			expect([type, sameResourceType(type, 'transcription')]).toEqual([type, true]);
		}
		for (const type of [
			'webhook_event',
			'webhook_events',
			'webhook-events',
			'webhookEvents',
			'WebhookEvent',
			'WEBHOOK_EVENTS',
			'webhook.event',
		]) {
			expect([type, sameResourceType(type, 'webhook_event')]).toEqual([type, true]);
			expect([type, sameResourceType(type, 'webhook-endpoints')]).toEqual([type, false]);
		}
		expect(sameResourceType('webhookEndpoints', 'webhook_endpoint')).toBe(true);
		// plural endings: -ies, -es after s/x/z/ch/sh, and words that end in s of their own
		expect(sameResourceType('categories', 'category')).toBe(true);
		expect(sameResourceType('statuses', 'status')).toBe(true);
		expect(sameResourceType('batches', 'batch')).toBe(true);
		expect(sameResourceType('media', 'media')).toBe(true);
	});

	test('another word, an empty or absent type, or no string, is not the type', () => {
		for (const other of [
			'transcript',
			'webhook',
			'transcription_file',
			'',
			'  ',
			'_',
			null,
			undefined,
			7,
			['transcription'],
		]) {
			expect([other, sameResourceType(other, 'transcription')]).toEqual([other, false]);
		}
		expect(sameResourceType('event', 'webhook_event')).toBe(false);
	});
});

describe('recordIn: the record an answer holds', () => {
	const record = { id: '1', callback_uri: 'https://x' };

	test('data, a member named after the resource, or the answer itself', () => {
		expect(recordIn({ data: record }, 'webhook_endpoint')).toBe(record);
		expect(recordIn({ webhook_endpoint: record }, 'webhook_endpoint')).toBe(record);
		expect(recordIn({ WebhookEndpoint: record, meta: {} }, 'webhook_endpoint')).toBe(record);
		expect(recordIn(record, 'webhook_endpoint')).toBe(record);
		expect(recordIn({ webhook_endpoint: { data: record } }, 'webhook_endpoint')).toBe(record);
	});

	test('a member of another name, or one that holds no object, is not unwrapped; at most three levels', () => {
		const other = { endpoint: record };
		expect(recordIn(other, 'webhook_endpoint')).toBe(other);
		const list = { webhook_endpoint: [record] };
		expect(recordIn(list, 'webhook_endpoint')).toBe(list);
		expect(recordIn('text', 'webhook_endpoint')).toBe('text');
		const deep = { data: { data: { data: { data: record } } } };
		expect(recordIn(deep, 'webhook_endpoint')).toEqual({ data: record });
	});
});

describe('the token answer', () => {
	test('readExpiresIn: seconds from a positive number or a string that spells one', () => {
		expect([3600, '3600', ' 7200.5 ', 1].map(readExpiresIn)).toEqual([3600, 3600, 7200.5, 1]);
		for (const none of [0, '0', -5, 'soon', null, undefined, true, [3600], { seconds: 3600 }]) {
			expect(readExpiresIn(none)).toBeUndefined();
		}
	});

	test('only access_token can fail it; the rest is read by need and nothing else is kept', () => {
		expect(
			tokenAnswerSchema.parse({
				access_token: 'a',
				expires_in: '60',
				refresh_token: 'r',
				token_type: 7,
				scope: null,
				created_at: 'x',
			}),
		).toEqual({ access_token: 'a', expires_in: 60, refresh_token: 'r' });
		expect(tokenAnswerSchema.parse({ access_token: 'a' })).toEqual({ access_token: 'a' });
		expect(tokenAnswerSchema.safeParse({ expires_in: 60 }).success).toBe(false);
	});

	test('readOAuthError: error and error_description as far as they are text', () => {
		expect(readOAuthError({ error: 'invalid_grant', error_description: 'gone' })).toEqual({
			error: 'invalid_grant',
			description: 'gone',
		});
		expect(readOAuthError({ error: ['invalid_grant'], error_description: 5 })).toEqual({});
		expect(readOAuthError('nope')).toEqual({});
	});
});

describe('API errors: readErrorWords', () => {
	test('detail, else title, of every error; nothing else (a code, a message or meta may echo the request)', () => {
		expect(
			readErrorWords({
				errors: [{ detail: 'd1', title: 't1' }, { title: 't2', code: 'c2' }, { code: 'c3' }, {}],
				message: 'Bearer echoed',
			}),
		).toBe('d1; t2');
	});

	test('an RFC 9457 problem, and a body as text', () => {
		expect(readErrorWords({ title: 'Not allowed', detail: 'no scope', status: 403 })).toBe(
			'no scope',
		);
		expect(readErrorWords('{"errors":[{"title":"from text"}]}')).toBe('from text');
	});

	test('members of another type are passed over, not a reason to lose the rest', () => {
		expect(
			readErrorWords({ errors: [{ status: 422, detail: 5, title: 'Unprocessable', code: null }] }),
		).toBe('Unprocessable');
		expect(readErrorWords({ errors: { detail: 'one error, not a list' } })).toBe(
			'one error, not a list',
		);
		for (const none of [
			{},
			{ errors: [] },
			{ errors: [null, 3] },
			null,
			'text',
			[{ detail: 'x' }],
		]) {
			expect(readErrorWords(none)).toBeUndefined();
		}
	});
});

describe('rate-limit headers', () => {
	test('headerValues: every value of every spelling of the name, lines of a list kept apart', () => {
		expect(headerValues({ Link: ['<a>; rel=prev', '<b>; rel=next'], link: '<c>' }, 'link')).toEqual(
			['<a>; rel=prev', '<b>; rel=next', '<c>'],
		);
		expect(headerValues({ other: 'x' }, 'link')).toEqual([]);
		expect(headerValues(undefined, 'link')).toEqual([]);
	});

	test('headerValue: any case of the name, the first of several, numbers as text', () => {
		expect(headerValue({ 'Retry-After': '3' }, 'retry-after')).toBe('3');
		expect(headerValue({ 'x-ratelimit-remaining': ['0', '5'] }, 'X-RateLimit-Remaining')).toBe('0');
		expect(headerValue({ 'x-ratelimit-reset': 9 as unknown as string }, 'x-ratelimit-reset')).toBe(
			'9',
		);
		expect(headerValue(undefined, 'x')).toBeUndefined();
	});

	test('readResetAt: epoch seconds, epoch milliseconds, or seconds from now', () => {
		expect(readResetAt(String(NOW / 1000 + 5), NOW)).toBe(NOW + 5000);
		expect(readResetAt(String(NOW + 5000), NOW)).toBe(NOW + 5000);
		expect(readResetAt('5', NOW)).toBe(NOW + 5000);
		expect(readResetAt('soon', NOW)).toBeUndefined();
		expect(readResetAt(undefined, NOW)).toBeUndefined();
	});

	test('readAnnouncement needs both headers', () => {
		expect(readAnnouncement({ 'x-ratelimit-remaining': '0' }, NOW)).toBeUndefined();
		expect(readAnnouncement({ 'x-ratelimit-reset': '5' }, NOW)).toBeUndefined();
	});
});

describe('deliveries', () => {
	test('readEventType: data.attributes.event_type when it is a string', () => {
		expect(readEventType({ data: { attributes: { event_type: 'transcription.created' } } })).toBe(
			'transcription.created',
		);
		for (const none of [{}, null, [], { data: [] }, { data: { attributes: { event_type: 3 } } }]) {
			expect(readEventType(none)).toBeUndefined();
		}
	});

	test('eventIdSchema: a string id, or an exact integer as its string', () => {
		expect(eventIdSchema.parse({ data: { id: 'e-1', other: 1 } })).toEqual({ data: { id: 'e-1' } });
		expect(eventIdSchema.parse({ data: { id: 7 } })).toEqual({ data: { id: '7' } });
		for (const bad of [
			{},
			{ data: { id: '' } },
			{ data: { id: 1.5 } },
			{ data: { id: 'x'.repeat(201) } },
		]) {
			expect(eventIdSchema.safeParse(bad).success).toBe(false);
		}
	});
});

describe('parseBody', () => {
	test('objects pass; JSON text is parsed; empty text and nothing are no body; other text stays', () => {
		expect(parseBody({ a: 1 })).toEqual({ a: 1 });
		expect(parseBody('{"id":"x"}')).toEqual({ id: 'x' });
		expect(parseBody('')).toBeUndefined();
		expect(parseBody('  ')).toBeUndefined();
		expect(parseBody(undefined)).toBeUndefined();
		expect(parseBody(null)).toBeUndefined();
		expect(parseBody('<html>')).toBe('<html>');
	});
});

describe('headerValue for Location (the transport follows redirects with it)', () => {
	test('reads the header however it is spelt or repeated', () => {
		expect(headerValue({ location: '/a' }, 'location')).toBe('/a');
		expect(headerValue({ Location: '/b' }, 'location')).toBe('/b');
		expect(headerValue({ location: ['/c', '/d'] }, 'location')).toBe('/c');
		expect(headerValue({}, 'location')).toBeUndefined();
	});
});
