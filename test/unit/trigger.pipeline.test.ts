// The trigger's receive pipeline (trigger/pipeline.ts): every branch from a delivery to a decision. Hostile
// deliveries are refused with their status, benign oddities start with the item a user would see, unwanted
// types are acknowledged, and each event id starts once per registration.
import type { IDataObject } from 'n8n-workflow';

import {
	type Clock,
	CLAIM_POLL_MS,
	type Decision,
	type Delivery,
	MAX_CLAIM_WAIT_MS,
	receiveDelivery,
	receiveNow,
} from '../../nodes/Captioning/trigger/pipeline';
import { type DedupeAccess, dedupeKey } from '../../nodes/Captioning/trigger/dedupe/staticData';
import { readRegistration } from '../../nodes/Captioning/trigger/registration';
import { hashToken } from '../../nodes/Captioning/trigger/token';

const TOKEN = 'OXjuL-jpuzW4d_3GRoJCUSMXzhQephRp';
const TID = '7d1b3c1e-2f4a-4b7c-9d0e-1a2b3c4d5e6f';
const SELECTED = ['transcription.transcribed'];

let ids = 0;
const newId = () => `event-${++ids}`;

type Json = Record<string, unknown>;

function event(id = newId()) {
	return {
		data: {
			id,
			type: 'webhook_event',
			attributes: {
				created_at: '2026-11-22T10:00:00.123Z',
				event_type: 'transcription.transcribed',
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
					average_confidence: 0.91,
					media: { url: 'https://files.example.com/media.wav?signature=x' },
					transcriptions: [
						{ format: 'vtt', url: 'https://files.example.com/a.vtt?signature=x' },
						{ format: 'google_stt', url: 'https://files.example.com/a.json?signature=x' },
					],
				},
			},
		] as Json[],
	};
}
type Event = ReturnType<typeof event>;

function delivery(body: unknown, overrides: Partial<Delivery> = {}): Delivery {
	return {
		registration: 'api',
		manualToken: '',
		registeredTokenHash: hashToken(TOKEN),
		givenToken: TOKEN,
		contentType: 'application/json',
		rawBody: Buffer.isBuffer(body)
			? body
			: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
		selectedEvents: SELECTED,
		options: {},
		...overrides,
	};
}

let triggers = 0;

/** One trigger's registration, and n8n's answer to each request, given by the test. */
function registration(mode = 'webhook') {
	const key = dedupeKey(`wf-${++triggers}`, 'node-1', mode);
	const requests = () => {
		let status: number | undefined;
		const listeners: Array<(ok: boolean) => void> = [];
		const access: DedupeAccess = {
			key,
			answered: () => (status === undefined ? undefined : status < 300),
			onAnswered: (listener) => listeners.push(listener),
		};
		const answer = (code: number) => {
			status = code;
			for (const listener of listeners) listener(code < 300);
		};
		return { access, answer };
	};
	return { key, request: requests };
}

function fakeClock(): Clock & { slept: number } {
	let now = 1_760_000_000_000;
	const clock = {
		slept: 0,
		nowMs: () => now,
		sleep: async (ms: number) => {
			now += ms;
			clock.slept += ms;
		},
	};
	return clock;
}

/** A delivery through a fresh registration, answered as n8n answers a start (2xx). */
async function decide(d: Delivery, reg = registration()): Promise<Decision> {
	const { access, answer } = reg.request();
	const decision = await receiveDelivery(d, access, fakeClock());
	answer(decision.kind === 'reject' ? decision.status : 200);
	return decision;
}

const mutate = (change: (e: Event) => void, id?: string) => {
	const e = event(id);
	change(e);
	return e;
};
const attrs = (e: Event) => e.included[0].attributes as Json;

describe('hostile deliveries are refused', () => {
	test.each<[string, Delivery, number, RegExp]>([
		['no token', delivery(event(), { givenToken: undefined }), 401, /no token/],
		['an empty token', delivery(event(), { givenToken: '' }), 401, /no token/],
		['a wrong token', delivery(event(), { givenToken: 'guess' }), 401, /does not match/],
		[
			'a wrong token first, the right one second',
			delivery(event(), { givenToken: ['guess', TOKEN] }),
			401,
			/does not match/,
		],
		[
			'no registration to check against',
			delivery(event(), { registeredTokenHash: undefined }),
			401,
			/no registration/,
		],
		[
			'the stored hash itself as the token',
			delivery(event(), { givenToken: hashToken(TOKEN) }),
			401,
			/does not match/,
		],
		[
			'manual registration with a Secret Token, a wrong one given',
			delivery(event(), { registration: 'manual', manualToken: 'mine', givenToken: 'guess' }),
			401,
			/does not match/,
		],
		[
			'manual registration with a Secret Token, none given',
			delivery(event(), { registration: 'manual', manualToken: 'mine', givenToken: undefined }),
			401,
			/no token/,
		],
		[
			'manual registration of typeVersion 3 without a Secret Token, whatever is given',
			delivery(event(), { registration: 'manual', typeVersion: 3, givenToken: 'anything' }),
			401,
			/^This trigger has no Secret Token\. Create a Captioning Webhook Secret API credential/,
		],
		[
			'manual registration of no known typeVersion without a Secret Token: as the newest',
			delivery(event(), { registration: 'manual', givenToken: undefined }),
			401,
			/^This trigger has no Secret Token\./,
		],
		[
			'a wrong token on a body that is not JSON either: the token first',
			delivery('hello', { givenToken: 'guess' }),
			401,
			/does not match/,
		],
		[
			'a wrong token on an unselected event: the token first',
			delivery(
				mutate((e) => (e.data.attributes.event_type = 'transcription.created')),
				{ givenToken: 'guess' },
			),
			401,
			/does not match/,
		],
		[
			'a body n8n has consumed (multipart/form-data)',
			delivery(event(), { contentType: 'multipart/form-data; boundary=x', rawBody: undefined }),
			415,
			/could not be read/,
		],
		['an empty body', delivery(Buffer.alloc(0)), 400, /empty/],
		['text', delivery('hello', { contentType: 'text/plain' }), 400, /not valid JSON/],
		['truncated JSON', delivery('{"data":{"id":"x"'), 400, /not valid JSON/],
		[
			'a form',
			delivery('data[id]=x&data[type]=webhook_event', {
				contentType: 'application/x-www-form-urlencoded',
			}),
			400,
			/not valid JSON/,
		],
		['XML', delivery('<event id="x"/>', { contentType: 'application/xml' }), 400, /not valid JSON/],
		[
			'a selected event without an id',
			delivery(mutate((e) => delete (e.data as Json).id)),
			400,
			/data\.id: Required/,
		],
		[
			'a selected event with a fractional id',
			delivery(mutate((e) => ((e.data as Json).id = 1.5))),
			400,
			/data\.id/,
		],
		[
			'an id with bytes that are not UTF-8 (two such ids would be one)',
			delivery(
				Buffer.from(
					JSON.stringify(event('a@b')).split('@').join(String.fromCharCode(0xff)),
					'latin1',
				),
			),
			400,
			/not valid UTF-8/,
		],
		[
			'an id too long to be the service’s',
			delivery(mutate((e) => (e.data.id = 'i'.repeat(201)))),
			400,
			/longer than 200|data\.id/,
		],
	])('%s', async (_name, d, status, message) => {
		expect(await decide(d)).toEqual({
			kind: 'reject',
			status,
			message: expect.stringMatching(message),
		});
	});

	test('a refused delivery leaves no trace: the same event with the token then starts', async () => {
		const reg = registration();
		const e = event();
		expect(await decide(delivery(e, { givenToken: 'guess' }), reg)).toMatchObject({
			kind: 'reject',
		});
		expect(await decide(delivery(e), reg)).toMatchObject({ kind: 'start' });
	});
});

describe('unwanted event types are acknowledged without validating the rest', () => {
	test.each<[string, unknown]>([
		['an unselected type', mutate((e) => (e.data.attributes.event_type = 'transcription.created'))],
		['an unknown type', mutate((e) => (e.data.attributes.event_type = 'transcription.deleted'))],
		[
			'a type in other case',
			mutate((e) => (e.data.attributes.event_type = 'TRANSCRIPTION.TRANSCRIBED')),
		],
		['no type', mutate((e) => delete (e.data.attributes as Json).event_type)],
		['a type that is no string', mutate((e) => ((e.data.attributes as Json).event_type = 7))],
		['no attributes', mutate((e) => delete (e.data as Json).attributes)],
		[
			'an unselected type with everything else wrong',
			{
				data: {
					id: 'x',
					type: 7,
					attributes: { event_type: 'transcription.created', created_at: [] },
				},
				included: 'nope',
			},
		],
		// refused, these would be delivered five times more and then dropped, only to be ignored
		[
			'an unselected type without an id',
			mutate((e) => {
				e.data.attributes.event_type = 'transcription.created';
				delete (e.data as Json).id;
			}),
		],
		[
			'an unselected type with an id that is no exact integer',
			mutate((e) => {
				e.data.attributes.event_type = 'transcription.created';
				(e.data as Json).id = 1.5;
			}),
		],
		[
			'an unselected type with an id too long',
			mutate((e) => {
				e.data.attributes.event_type = 'transcription.created';
				e.data.id = 'i'.repeat(201);
			}),
		],
		['JSON that is no object', [1, 2]],
		['JSON null', null],
		['an empty object', {}],
	])('%s → 200 ignored', async (_name, body) => {
		expect(await decide(delivery(body))).toEqual({
			kind: 'ignore',
			message: expect.stringMatching(/is not selected/),
		});
	});

	test('nothing is remembered: the same id with a selected type starts afterwards', async () => {
		const reg = registration();
		const e = event();
		const unselected = structuredClone(e);
		unselected.data.attributes.event_type = 'transcription.created';
		expect(await decide(delivery(unselected), reg)).toMatchObject({ kind: 'ignore' });
		expect(await decide(delivery(e), reg)).toMatchObject({ kind: 'start' });
	});
});

describe('benign oddities start, with everything passed through', () => {
	const started = async (d: Delivery) => {
		const decision = await decide(d);
		if (decision.kind !== 'start')
			throw new Error(`expected start, got ${JSON.stringify(decision)}`);
		return decision;
	};

	test.each<[string, unknown, IDataObject]>([
		['as the service sends it', event(), { title: 'Board meeting', duration: 61.5 }],
		[
			'an id sent as an exact integer',
			mutate((e) => ((e.data as Json).id = 1234645341613)),
			{ eventId: '1234645341613' },
		],
		[
			'numbers as decimal strings',
			mutate((e) => Object.assign(attrs(e), { duration: '12.5', average_confidence: '0.91' })),
			{ duration: 12.5, averageConfidence: 0.91 },
		],
		[
			'nulls',
			mutate((e) => Object.assign(attrs(e), { title: null, duration: null, media: null })),
			{ title: null, duration: null, mediaUrl: null },
		],
		[
			'extra members everywhere',
			mutate((e) => {
				(e as Json).meta = { page: 1 };
				(e.data as Json).links = { self: 'x' };
				(e.data.attributes as Json).future = true;
				attrs(e).language = 'en';
			}),
			{ title: 'Board meeting' },
		],
		[
			'other resources in included',
			mutate((e) => e.included.unshift({ id: 'm1', type: 'media', attributes: { title: 'no' } })),
			{ title: 'Board meeting' },
		],
		[
			'plural, capitalised types',
			mutate((e) => {
				e.data.relationships.subject.data.type = 'Transcriptions';
				e.included[0].type = 'TRANSCRIPTIONS';
			}),
			{ title: 'Board meeting', duration: 61.5, formats: ['vtt', 'google_stt'] },
		],
		[
			'no included',
			mutate((e) => delete (e as Json).included),
			{ title: null, formats: [], warnings: [expect.stringMatching(/no included resources/)] },
		],
		[
			'the transcription not in included',
			mutate((e) => (e.included[0].id = 'someone-else')),
			{
				transcriptionId: TID,
				title: null,
				warnings: [expect.stringMatching(/is not among its included resources/)],
			},
		],
		[
			'no relationships',
			mutate((e) => delete (e.data as Json).relationships),
			{
				transcriptionId: TID,
				title: 'Board meeting',
				warnings: [expect.stringMatching(/names no subject/)],
			},
		],
		[
			'created_at in another format',
			mutate((e) => (e.data.attributes.created_at = '1735689600')),
			{ createdAt: '1735689600' },
		],
		['another data.type', mutate((e) => (e.data.type = 'event')), { title: 'Board meeting' }],
		[
			'a confidence outside 0..1',
			mutate((e) => (attrs(e).average_confidence = 7)),
			{ averageConfidence: 7 },
		],
		[
			'a file URL that is no URL',
			mutate((e) => ((attrs(e).transcriptions as Json[])[0].url = 'captions/a.vtt')),
			{ files: { vtt: 'captions/a.vtt', google_stt: expect.any(String) } },
		],
		[
			'a title of another type',
			mutate((e) => (attrs(e).title = { en: 'Board' })),
			{ title: { en: 'Board' } },
		],
	])('%s', async (_name, body, expected) => {
		const decision = await started(delivery(body));
		expect(decision.item.json).toMatchObject(expected);
		expect(decision.downloads).toEqual([]);
	});

	test.each<[string, Partial<Delivery>]>([
		['JSON:API media type', { contentType: 'application/vnd.api+json' }],
		['text/plain', { contentType: 'text/plain' }],
		['no content type', { contentType: undefined }],
		[
			'manual registration saved by 0.1.0 (typeVersion 1) without a Secret Token',
			{ registration: 'manual', typeVersion: 1, givenToken: undefined },
		],
		[
			'manual registration of typeVersion 2 without a Secret Token, any token given',
			{ registration: 'manual', typeVersion: 2, givenToken: 'whatever' },
		],
		[
			'manual registration with its Secret Token',
			{ registration: 'manual', manualToken: 'mine', givenToken: 'mine' },
		],
	])('%s', async (_name, overrides) => {
		await started(delivery(event(), overrides));
	});

	test('a byte-order mark, and bytes that are not UTF-8 in a title', async () => {
		await started(
			delivery(Buffer.concat([Buffer.from('\uFEFF'), Buffer.from(JSON.stringify(event()))])),
		);
		const text = JSON.stringify(mutate((e) => (attrs(e).title = 'caf@')));
		const [before, after] = text.split('@');
		const decision = await started(
			delivery(Buffer.concat([Buffer.from(before), Buffer.from([0xe9]), Buffer.from(after)])),
		);
		expect(decision.item.json.title).toBe('caf\uFFFD');
	});

	test('any field-level variation that keeps the id and the selected type starts (seeded)', async () => {
		const values = [null, true, 0, -1.5, '', 'x', '12.5', [], [null], {}, { a: [1] }, 'not a url'];
		const paths: Array<Array<string | number>> = [
			['data', 'type'],
			['data', 'attributes', 'created_at'],
			['data', 'attributes', 'uri'],
			['data', 'relationships'],
			['data', 'relationships', 'subject'],
			['data', 'relationships', 'subject', 'data'],
			['data', 'relationships', 'subject', 'data', 'id'],
			['included'],
			['included', 0],
			['included', 0, 'id'],
			['included', 0, 'type'],
			['included', 0, 'attributes'],
			['included', 0, 'attributes', 'title'],
			['included', 0, 'attributes', 'duration'],
			['included', 0, 'attributes', 'average_confidence'],
			['included', 0, 'attributes', 'media'],
			['included', 0, 'attributes', 'media', 'url'],
			['included', 0, 'attributes', 'transcriptions'],
			['included', 0, 'attributes', 'transcriptions', 0],
			['included', 0, 'attributes', 'transcriptions', 0, 'format'],
			['included', 0, 'attributes', 'transcriptions', 0, 'url'],
			['extra'],
		];
		let seed = 42;
		const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
		const reg = registration();
		for (let i = 0; i < 500; i++) {
			const e = event() as unknown as Json;
			for (let m = 0; m <= random(3); m++) {
				const path = paths[random(paths.length)];
				let parent: unknown = e;
				for (const key of path.slice(0, -1)) {
					parent =
						parent !== null && typeof parent === 'object' ? (parent as Json)[key] : undefined;
				}
				if (parent === null || typeof parent !== 'object') continue;
				const last = path[path.length - 1] as string;
				if (random(4) === 0) delete (parent as Json)[last];
				else (parent as Json)[last] = structuredClone(values[random(values.length)]);
			}
			const decision = await decide(delivery(e, { options: { downloadFormats: ['vtt'] } }), reg);
			expect([i, decision.kind]).toEqual([i, 'start']);
		}
	});
});

describe('downloads', () => {
	test('the selected formats the event has files for, to fetch after answering', async () => {
		const decision = await decide(
			delivery(event(), { options: { downloadFormats: ['vtt', 'srt'] } }),
		);
		expect(decision).toMatchObject({
			kind: 'start',
			downloads: [{ format: 'vtt', url: 'https://files.example.com/a.vtt?signature=x' }],
		});
	});

	test('a file that cannot be fetched says so on the item; n8n answers as for no download', async () => {
		const body = mutate((e) => ((attrs(e).transcriptions as Json[])[0].url = 'captions/a.vtt'));
		const decision = await decide(delivery(body, { options: { downloadFormats: ['vtt'] } }));
		expect(decision).toMatchObject({
			kind: 'start',
			downloads: [],
			item: {
				json: {
					downloadErrors: [
						{ format: 'vtt', message: expect.stringMatching(/not an http\(s\) URL/) },
					],
				},
			},
		});
	});

	test('an open manual trigger (no Secret Token, typeVersion 1 or 2) fetches nothing, and says why', async () => {
		const body = mutate((e) => ((attrs(e).transcriptions as Json[])[1].url = 'captions/a.json'));
		for (const typeVersion of [1, 2]) {
			const decision = await decide(
				delivery(body, {
					registration: 'manual',
					typeVersion,
					givenToken: undefined,
					options: { downloadFormats: ['vtt', 'google_stt', 'srt'] },
				}),
			);
			expect(decision).toMatchObject({
				kind: 'start',
				downloads: [],
				item: {
					json: {
						downloadErrors: [
							{ format: 'google_stt', message: expect.stringMatching(/not an http\(s\) URL/) },
							{
								format: 'vtt',
								message:
									'The vtt file was not downloaded: this trigger has no Secret Token, so anyone could have sent this event and named any address to fetch. Set a Secret Token in the trigger and add ?token= followed by it to the URL in the service’s developers dashboard.',
							},
						],
					},
				},
			});
		}
		// with its Secret Token, the same trigger fetches
		const withSecret = await decide(
			delivery(body, {
				registration: 'manual',
				typeVersion: 2,
				manualToken: 'mine',
				givenToken: 'mine',
				options: { downloadFormats: ['vtt'] },
			}),
		);
		expect(withSecret).toMatchObject({
			kind: 'start',
			downloads: [{ format: 'vtt', url: 'https://files.example.com/a.vtt?signature=x' }],
		});
	});
});

describe('no callback token in any output', () => {
	const started = async (body: unknown, overrides: Partial<Delivery> = {}) => {
		const decision = await decide(delivery(body, overrides));
		if (decision.kind !== 'start') throw new Error('expected start');
		return decision.item.json;
	};

	test('Raw Body: the event as it came, without the token in data.attributes.uri', async () => {
		const e = event();
		const json = await started(e, { options: { rawBody: true } });
		const expected = structuredClone(e);
		expected.data.attributes.uri = 'https://n8n.example.com/webhook/abc/webhook';
		expect(json).toEqual(expected);
	});

	test('Raw Body: nor anywhere else, e.g. an included webhook endpoint', async () => {
		const e = mutate((x) =>
			x.included.push({
				id: 'ep',
				type: 'webhook_endpoint',
				attributes: { callback_uri: `https://n8n.example.com/webhook/abc/webhook?token=${TOKEN}` },
			}),
		);
		expect(JSON.stringify(await started(e, { options: { rawBody: true } }))).not.toContain(TOKEN);
	});

	test('the flattened item, whichever field carries it', async () => {
		const e = mutate((x) => (attrs(x).title = `leaked ${TOKEN}`));
		const json = await started(e);
		expect(json.title).toBe('leaked [redacted]');
		expect(JSON.stringify(json)).not.toContain(TOKEN);
	});

	test('a registration saved with the plain token (0.1.0) verifies, and its token leaves the output', async () => {
		const legacy = readRegistration({
			registration: {
				endpointId: 'ep-1',
				webhookUrl: 'https://n8n.example.com/webhook/abc/webhook',
				events: SELECTED,
				token: TOKEN,
			},
		});
		const e = event();
		const json = await started(e, {
			registeredTokenHash: legacy?.tokenHash,
			options: { rawBody: true },
		});
		expect((json.data as Json & { attributes: Json }).attributes.uri).toBe(
			'https://n8n.example.com/webhook/abc/webhook',
		);
		expect(JSON.stringify(json)).not.toContain(TOKEN);
		expect(
			await decide(
				delivery(event(), { registeredTokenHash: legacy?.tokenHash, givenToken: 'guess' }),
			),
		).toMatchObject({ kind: 'reject', status: 401 });
	});

	test('the manual Secret Token too', async () => {
		const e = mutate((x) => (x.data.attributes.uri = 'https://h/webhook/abc/webhook?token=mine'));
		const json = await started(e, {
			registration: 'manual',
			manualToken: 'mine',
			givenToken: 'mine',
			options: { rawBody: true },
		});
		expect((json.data as Json & { attributes: Json }).attributes.uri).toBe(
			'https://h/webhook/abc/webhook',
		);
	});
});

describe('a typeVersion 1 or 2 Secret Token shorter than version 3 allows (24 characters)', () => {
	// ordinary words and URLs contain a token of a few characters: only where it stands as itself is it taken out
	test.each(['s', 'ee', 'files', 'https', 'example', 'a.vtt'])(
		'"%s": taken out of the URL it travels in and where it is a whole value, no other word or file URL touched',
		async (secret) => {
			const e = mutate((x) => {
				x.data.attributes.uri = `https://n8n.example.com/webhook/abc/webhook?token=${secret}`;
				x.included.push({ id: 'other', type: 'note', attributes: { text: secret } });
			});
			const decision = await decide(
				delivery(e, {
					registration: 'manual',
					typeVersion: 2,
					manualToken: secret,
					givenToken: secret,
					options: { downloadFormats: ['vtt'], rawBody: false },
				}),
			);
			expect(decision).toMatchObject({
				kind: 'start',
				item: {
					json: {
						title: 'Board meeting',
						files: {
							vtt: 'https://files.example.com/a.vtt?signature=x',
							google_stt: 'https://files.example.com/a.json?signature=x',
						},
						formats: ['vtt', 'google_stt'],
					},
				},
				downloads: [{ format: 'vtt', url: 'https://files.example.com/a.vtt?signature=x' }],
			});
			const raw = await decide(
				delivery(e, {
					registration: 'manual',
					typeVersion: 2,
					manualToken: secret,
					givenToken: secret,
					options: { rawBody: true },
				}),
				registration(),
			);
			if (raw.kind !== 'start') throw new Error(`not started: ${raw.kind}`);
			const json = raw.item.json as unknown as Event;
			expect(json.data.attributes.uri).toBe('https://n8n.example.com/webhook/abc/webhook');
			expect(json.included[1]).toEqual({
				id: 'other',
				type: 'note',
				attributes: { text: '[redacted]' },
			});
			expect(json.data.attributes.event_type).toBe('transcription.transcribed');
			expect(attrs(json).transcriptions).toEqual(attrs(event()).transcriptions);
		},
	);
});

describe('duplicates: each event id starts once per registration', () => {
	test('a redelivery after n8n answered 2xx is a duplicate, even with another body', async () => {
		const reg = registration();
		const e = event();
		expect(await decide(delivery(e), reg)).toMatchObject({ kind: 'start' });
		expect(await decide(delivery(e), reg)).toEqual({ kind: 'duplicate' });
		const changed = structuredClone(e);
		attrs(changed).title = 'Changed';
		expect(await decide(delivery(changed), reg)).toEqual({ kind: 'duplicate' });
	});

	test('integer ids beyond 2^53 are read as the service wrote them: two that one number would hold stay two', async () => {
		const reg = registration();
		// 9007199254740993 and 9007199254740992 are one JavaScript number: the text tells them apart
		const written = (id: string, subject: string) =>
			delivery(
				Buffer.from(
					JSON.stringify(event('@id')).replace('"@id"', id).split(`"${TID}"`).join(subject),
				),
			);
		const first = await decide(written('9007199254740993', '12345678901234567890'), reg);
		expect(first).toMatchObject({
			kind: 'start',
			item: { json: { eventId: '9007199254740993', transcriptionId: '12345678901234567890' } },
		});
		// the subject's id, read the same way in data and in included, finds the transcription
		expect(first).toMatchObject({ item: { json: { title: 'Board meeting' } } });
		expect(await decide(written('9007199254740992', '1'), reg)).toMatchObject({
			kind: 'start',
			item: { json: { eventId: '9007199254740992' } },
		});
		expect(await decide(written('9007199254740993', '1'), reg)).toEqual({ kind: 'duplicate' });
	});

	test('a start n8n answered with an error is forgotten: the redelivery starts', async () => {
		const reg = registration();
		const e = event();
		const first = reg.request();
		expect(receiveNow(delivery(e), first.access, fakeClock())).toMatchObject({ kind: 'start' });
		first.answer(500);
		expect(await decide(delivery(e), reg)).toMatchObject({ kind: 'start' });
	});

	test('a copy arriving while the first is starting waits, then is a duplicate', async () => {
		const reg = registration();
		const e = event();
		const first = reg.request();
		const clock = fakeClock();
		expect(receiveNow(delivery(e), first.access, clock)).toMatchObject({ kind: 'start' });
		const copy = reg.request();
		const waiting = receiveDelivery(delivery(e), copy.access, clock);
		first.answer(200);
		expect(await waiting).toEqual({ kind: 'duplicate' });
	});

	test('a copy waiting for a start that fails takes the event over', async () => {
		const reg = registration();
		const e = event();
		const first = reg.request();
		const clock = fakeClock();
		receiveNow(delivery(e), first.access, clock);
		const waiting = receiveDelivery(delivery(e), reg.request().access, clock);
		first.answer(503);
		expect(await waiting).toMatchObject({ kind: 'start' });
	});

	test('a copy waits at most 5 s, then asks for a later delivery (409)', async () => {
		const reg = registration();
		const e = event();
		const clock = fakeClock();
		receiveNow(delivery(e), reg.request().access, clock);
		const decision = await receiveDelivery(delivery(e), reg.request().access, clock);
		expect(decision).toEqual({
			kind: 'reject',
			status: 409,
			message: expect.stringMatching(/later/),
		});
		expect(clock.slept).toBe(MAX_CLAIM_WAIT_MS);
		expect(MAX_CLAIM_WAIT_MS % CLAIM_POLL_MS).toBe(0);
	});

	test('the test URL and the production URL are two registrations', async () => {
		const e = event();
		const production = registration('webhook');
		const test = {
			...registration('manual'),
			key: dedupeKey('wf-shared', 'node-1', 'manual'),
		};
		expect(await decide(delivery(e), production)).toMatchObject({ kind: 'start' });
		expect(await decide(delivery(e), test)).toMatchObject({ kind: 'start' });
		expect(await decide(delivery(e), test)).toEqual({ kind: 'duplicate' });
	});
});
