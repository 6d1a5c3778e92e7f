// Field-level variations of a real webhook event that keep it valid for the service's purposes: the event
// still carries an id and a selected event type, and every change is one a JSON:API server, a proxy or a
// later version of the service could plausibly make. Each variation changes the event in place and never
// throws, whatever earlier variations left, so that any of them can be combined with any other.
import type { Rng } from '../faults/random';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (value: Json | undefined): value is JsonObject =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

export type Group =
	| 'numbers'
	| 'nulls'
	| 'missing'
	| 'extra-members'
	| 'included'
	| 'formats'
	| 'file-urls'
	| 'created-at'
	| 'data-type'
	| 'resource-types'
	| 'title'
	| 'long-title'
	| 'event-id';

export interface Variation {
	/** Unique, e.g. `numbers: duration "12.5"`. */
	name: string;
	group: Group;
	/**
	 * The subject transcription stays the first transcription in `included`, with its vtt and google_stt
	 * URLs as they were: the downloads phase may expect its files to be fetched.
	 */
	keepsFiles: boolean;
	apply(event: JsonObject, rng: Rng): void;
}

// ---- where things are ----------------------------------------------------------------------------------

function child(parent: JsonObject, key: string): JsonObject {
	const value = parent[key];
	if (isObject(value)) return value;
	const created: JsonObject = {};
	parent[key] = created;
	return created;
}

export const dataOf = (event: JsonObject) => child(event, 'data');
export const eventAttributes = (event: JsonObject) => child(dataOf(event), 'attributes');

function subjectRef(event: JsonObject): JsonObject | undefined {
	const relationships = dataOf(event).relationships;
	if (!isObject(relationships) || !isObject(relationships.subject)) return undefined;
	const data = relationships.subject.data;
	return isObject(data) ? data : undefined;
}

const isTranscription = (type: Json | undefined) =>
	typeof type === 'string' && /^transcriptions?$/i.test(type.replace(/[_-]/g, ''));

/**
 * The transcription the event is about: the subject in `included` (its id, a transcription in any spelling of
 * the type), else the first transcription.
 */
export function subjectOf(event: JsonObject): JsonObject | undefined {
	if (!Array.isArray(event.included)) return undefined;
	const resources = event.included.filter(isObject);
	const id = subjectRef(event)?.id;
	return (
		resources.find((r) => isTranscription(r.type) && r.id === id) ??
		resources.find((r) => isTranscription(r.type))
	);
}

/** The subject transcription's attributes, when it is there and has any. */
function transcriptionAttributes(event: JsonObject): JsonObject | undefined {
	const attributes = subjectOf(event)?.attributes;
	return isObject(attributes) ? attributes : undefined;
}

function files(event: JsonObject): JsonObject[] {
	const list = transcriptionAttributes(event)?.transcriptions;
	return Array.isArray(list) ? list.filter(isObject) : [];
}

/** Sets a transcription attribute, only where the transcription and its attributes are. */
function setAttribute(event: JsonObject, key: string, value: Json): void {
	const attributes = transcriptionAttributes(event);
	if (attributes) attributes[key] = value;
}

function removeAttribute(event: JsonObject, key: string): void {
	const attributes = transcriptionAttributes(event);
	if (attributes) delete attributes[key];
}

function included(event: JsonObject): Json[] {
	if (!Array.isArray(event.included)) event.included = [];
	return event.included as Json[];
}

const clone = <T extends Json>(value: T): T => structuredClone(value);

// ---- the catalogue ---------------------------------------------------------------------------------------

const variations: Variation[] = [];
const add = (
	group: Group,
	name: string,
	apply: (event: JsonObject, rng: Rng) => void,
	keepsFiles = true,
) => variations.push({ name: `${group}: ${name}`, group, keepsFiles, apply });

// numbers as JSON:API servers often serialise decimals: strings
for (const value of ['12.5', '12.50', '7200', '0.5', '3600.123456']) {
	add('numbers', `duration ${JSON.stringify(value)}`, (e) => setAttribute(e, 'duration', value));
}
for (const value of ['0.93', '0.9312345678901234', '1', '0', '1.0']) {
	add('numbers', `average_confidence ${JSON.stringify(value)}`, (e) =>
		setAttribute(e, 'average_confidence', value),
	);
}
add('numbers', 'duration and average_confidence as strings', (e) => {
	setAttribute(e, 'duration', '12.5');
	setAttribute(e, 'average_confidence', '0.93');
});
add('numbers', 'duration 0, average_confidence 1', (e) => {
	setAttribute(e, 'duration', 0);
	setAttribute(e, 'average_confidence', 1);
});
add('numbers', 'duration with exponent 1.2e3', (e) => setAttribute(e, 'duration', 1.2e3));

// nulls for every optional member
for (const key of ['title', 'duration', 'average_confidence']) {
	add('nulls', `${key} null`, (e) => setAttribute(e, key, null));
}
add('nulls', 'media null', (e) => setAttribute(e, 'media', null));
add('nulls', 'media.url null', (e) => {
	const media = transcriptionAttributes(e)?.media;
	if (isObject(media)) media.url = null;
});
add('nulls', 'transcriptions null', (e) => setAttribute(e, 'transcriptions', null), false);
add('nulls', 'data.attributes.uri null', (e) => {
	eventAttributes(e).uri = null;
});
add(
	'nulls',
	'transcription attributes null',
	(e) => {
		const subject = subjectOf(e);
		if (subject) subject.attributes = null;
	},
	false,
);
add(
	'nulls',
	'every optional attribute null',
	(e) => {
		for (const key of ['title', 'duration', 'average_confidence', 'media', 'transcriptions']) {
			setAttribute(e, key, null);
		}
		eventAttributes(e).uri = null;
	},
	false,
);
add(
	'nulls',
	'included null',
	(e) => {
		e.included = null;
	},
	false,
);
add(
	'nulls',
	'relationships.subject.data null',
	(e) => {
		const relationships = dataOf(e).relationships;
		if (isObject(relationships) && isObject(relationships.subject))
			relationships.subject.data = null;
	},
	false,
);

// missing optional members
for (const key of ['title', 'duration', 'average_confidence', 'media']) {
	add('missing', `no ${key}`, (e) => removeAttribute(e, key));
}
add('missing', 'no transcriptions', (e) => removeAttribute(e, 'transcriptions'), false);
add('missing', 'no media.url', (e) => {
	const media = transcriptionAttributes(e)?.media;
	if (isObject(media)) delete media.url;
});
add(
	'missing',
	'transcription without attributes',
	(e) => {
		const subject = subjectOf(e);
		if (subject) delete subject.attributes;
	},
	false,
);
add(
	'missing',
	'no included',
	(e) => {
		delete e.included;
	},
	false,
);
add(
	'missing',
	'included empty',
	(e) => {
		e.included = [];
	},
	false,
);
add(
	'missing',
	'no relationships',
	(e) => {
		delete dataOf(e).relationships;
	},
	false,
);
add('missing', 'no data.attributes.uri', (e) => {
	delete eventAttributes(e).uri;
});
add(
	'missing',
	'every optional member',
	(e) => {
		delete e.included;
		delete dataOf(e).relationships;
		delete eventAttributes(e).uri;
	},
	false,
);

// extra members at every level
const extraValue = (rng: Rng): Json =>
	rng.pick<Json>([
		'extra',
		42,
		0.5,
		true,
		null,
		[],
		[1, 'two', { three: 3 }],
		{ nested: { deeper: { deepest: [null, false] } } },
		{ href: 'https://service.example/x', meta: { count: 1 } },
	]);
const EXTRA_AT: Array<[string, (e: JsonObject) => JsonObject | undefined]> = [
	['root', (e) => e],
	['data', (e) => dataOf(e)],
	['data.attributes', (e) => eventAttributes(e)],
	[
		'data.relationships',
		(e) =>
			isObject(dataOf(e).relationships) ? (dataOf(e).relationships as JsonObject) : undefined,
	],
	[
		'subject',
		(e) => {
			const relationships = dataOf(e).relationships;
			return isObject(relationships) && isObject(relationships.subject)
				? relationships.subject
				: undefined;
		},
	],
	['subject.data', (e) => subjectRef(e)],
	['the transcription', (e) => subjectOf(e)],
	['its attributes', (e) => transcriptionAttributes(e)],
	[
		'media',
		(e) => {
			const media = transcriptionAttributes(e)?.media;
			return isObject(media) ? media : undefined;
		},
	],
	['a caption file', (e) => files(e)[0]],
];
for (const [where, at] of EXTRA_AT) {
	add('extra-members', `at ${where}`, (e, rng) => {
		const target = at(e);
		if (target) target[`x_${rng.string(6)}`] = extraValue(rng);
	});
}
add('extra-members', 'JSON:API jsonapi, meta and links', (e) => {
	e.jsonapi = { version: '1.1' };
	e.meta = { request_id: 'req_123', api_version: '2025-01-01' };
	e.links = { self: 'https://service.example/webhook_events/1' };
	dataOf(e).links = { self: 'https://service.example/webhook_events/1' };
	const subject = subjectOf(e);
	if (subject) {
		subject.links = { self: 'https://service.example/transcriptions/1' };
		subject.relationships = { media: { data: { id: 'm1', type: 'media' } } };
	}
});
add('extra-members', 'another relationship', (e) => {
	const relationships = dataOf(e).relationships;
	if (isObject(relationships)) relationships.actor = { data: { id: 'u1', type: 'user' } };
});
add('extra-members', 'attributes the contract does not show', (e) => {
	const attributes = transcriptionAttributes(e);
	if (!attributes) return;
	Object.assign(attributes, {
		language: 'en-US',
		status: 'transcribed',
		word_count: 1234,
		speakers: [{ tag: 1, name: 'Ana' }],
		tags: [],
	});
	const media = attributes.media;
	if (isObject(media)) Object.assign(media, { content_type: 'audio/wav', size: 1024 });
	for (const file of files(e)) Object.assign(file, { size: 512, language: 'en' });
});
add('extra-members', 'everywhere at once', (e, rng) => {
	for (const [, at] of EXTRA_AT) {
		const target = at(e);
		if (target) target[`x_${rng.string(6)}`] = extraValue(rng);
	}
});
add('extra-members', 'unicode and empty member names', (e) => {
	eventAttributes(e)['ключ 🔑'] = 'значение';
	eventAttributes(e)[''] = 'empty name';
});
add('extra-members', 'nested 50 deep', (e) => {
	let value: Json = 'bottom';
	for (let i = 0; i < 50; i++) value = { level: value };
	eventAttributes(e).deep = value;
});

// other resources in `included`
const otherResource = (rng: Rng, type: string, withAttributes = true): JsonObject => ({
	id: rng.uuid(),
	type,
	...(withAttributes
		? { attributes: { name: `a ${type}`, created_at: '2025-01-01T00:00:00.000Z' } }
		: {}),
});
add('included', 'a media resource before the transcription', (e, rng) => {
	included(e).unshift(otherResource(rng, 'media'));
});
add('included', 'user and organization after it', (e, rng) => {
	included(e).push(otherResource(rng, 'user'), otherResource(rng, 'organization'));
});
add('included', 'another resource without attributes', (e, rng) => {
	included(e).push(otherResource(rng, 'webhook_endpoint', false));
});
add('included', 'another resource with attributes null', (e, rng) => {
	included(e).push({ ...otherResource(rng, 'media', false), attributes: null });
});
add('included', '50 other resources', (e, rng) => {
	for (let i = 0; i < 50; i++)
		included(e).push(otherResource(rng, rng.pick(['media', 'user', 'tag'])));
});
add(
	'included',
	'the transcription missing (only other resources)',
	(e, rng) => {
		e.included = [otherResource(rng, 'media'), otherResource(rng, 'user')];
	},
	false,
);
add('included', 'the transcription listed twice', (e) => {
	const subject = subjectOf(e);
	if (subject) included(e).push(clone(subject));
});
add('included', 'the transcription twice, the copy with another title', (e) => {
	const subject = subjectOf(e);
	if (!subject) return;
	const copy = clone(subject);
	if (isObject(copy.attributes)) copy.attributes.title = 'A stale copy';
	included(e).push(copy);
});
add('included', 'another transcription (not the subject) first', (e, rng) => {
	const subject = subjectOf(e);
	const other = subject ? clone(subject) : otherResource(rng, 'transcription');
	other.id = rng.uuid();
	// if a trigger took this one for the subject, its downloads would fail (port 9: nobody listens)
	if (isObject(other.attributes)) {
		other.attributes.title = 'Not the subject';
		const list = other.attributes.transcriptions;
		if (Array.isArray(list)) {
			for (const file of list.filter(isObject))
				file.url = `http://127.0.0.1:9/${String(file.format)}`;
		}
	}
	included(e).unshift(other);
});

// caption formats the contract does not name
for (const format of ['srt', 'dfxp', 'ttml', 'VTT', 'google_stt_v2', 'text/vtt', 'x'.repeat(100)]) {
	add('formats', `unknown format ${JSON.stringify(format.slice(0, 16))}`, (e, rng) => {
		const list = transcriptionAttributes(e)?.transcriptions;
		if (Array.isArray(list)) {
			list.push({
				format,
				url: `https://files.service.example/${rng.uuid()}/captions.${format.slice(0, 8)}`,
			});
		}
	});
}
add(
	'formats',
	'only unknown formats',
	(e) => {
		for (const file of files(e)) file.format = `${String(file.format)}_v2`;
	},
	false,
);
add(
	'formats',
	'vtt listed twice with different URLs',
	(e) => {
		const vtt = files(e).find((f) => f.format === 'vtt');
		const list = transcriptionAttributes(e)?.transcriptions;
		if (vtt && Array.isArray(list)) list.push({ ...vtt, url: `${String(vtt.url)}&copy=2` });
	},
	false,
);
add('formats', 'transcriptions empty', (e) => setAttribute(e, 'transcriptions', []), false);

// file URLs that are not URLs (the node only needs them when it downloads)
for (const url of [
	'not a url',
	'',
	'/files/captions.vtt',
	'files.service.example/captions.vtt',
	's3://bucket/captions.vtt',
]) {
	add(
		'file-urls',
		`caption file URL ${JSON.stringify(url)}`,
		(e) => {
			for (const file of files(e)) file.url = url;
		},
		false,
	);
}
add('file-urls', 'media URL "not a url"', (e) => {
	const media = transcriptionAttributes(e)?.media;
	if (isObject(media)) media.url = 'not a url';
});
add(
	'file-urls',
	'caption file URL a number',
	(e) => {
		for (const file of files(e)) file.url = 12345;
	},
	false,
);

// created_at in other ISO 8601 forms, or as an epoch number
for (const value of [
	'2025-06-01T12:00:00Z',
	'2025-06-01T12:00:00.123456Z',
	'2025-06-01T12:00:00.123456789Z',
	'2025-06-01T14:00:00.123+02:00',
	'2025-06-01T12:00:00+00:00',
	'2025-06-01T12:00:00.123+0000',
	'2025-06-01T12:00:00.123z',
	'2025-06-01t12:00:00.123Z',
	'2025-06-01T12:00Z',
	'20250601T120000Z',
	'2025-06-01',
	'2025-06-01 12:00:00.123Z',
	1748779200,
	1748779200123,
	1748779200.5,
]) {
	add('created-at', JSON.stringify(value), (e) => {
		eventAttributes(e).created_at = value;
	});
}
add('created-at', 'missing', (e) => {
	delete eventAttributes(e).created_at;
});

// data.type other than webhook_event
for (const value of ['webhook_events', 'event', 'webhook-event', 'WebhookEvent', 'events']) {
	add('data-type', JSON.stringify(value), (e) => {
		dataOf(e).type = value;
	});
}
add('data-type', 'missing', (e) => {
	delete dataOf(e).type;
});

// resource types as other JSON:API servers spell them: the subject is found by its id all the same
for (const [event, transcription] of [
	['webhook_events', 'transcriptions'],
	['WebhookEvent', 'Transcription'],
	['WEBHOOK_EVENTS', 'TRANSCRIPTIONS'],
	['webhook-events', 'Transcriptions'],
]) {
	add('resource-types', `${event} and ${transcription}`, (e) => {
		const subject = subjectOf(e);
		dataOf(e).type = event;
		const ref = subjectRef(e);
		if (ref) ref.type = transcription;
		if (subject) subject.type = transcription;
	});
}
add('resource-types', 'the subject after a media resource with the same id', (e) => {
	const subject = subjectOf(e);
	if (subject) included(e).unshift({ id: subject.id, type: 'media', attributes: { url: 'x' } });
});

// titles that break naive text and file-name code
export const TRICKY_TITLES = [
	'Q3 50% update',
	'100%',
	'%E0%A4%A',
	'%41%42%43',
	'a/b\\c',
	'../../etc/passwd',
	'🎬 Launch 🚀 day',
	'👩🏽‍💻👨‍👩‍👧',
	'مرحبا بالعالم',
	'שלום עולם',
	'\u202Egnp.exe',
	'日本語のタイトル',
	'Crème brûlée à la café',
	'e\u0301\u0301\u0301 zalgo\u0336',
	'zero\u200bwidth',
	'tab\there, line\nbreak',
	'"quoted" \'single\' `back`',
	'<script>alert(1)</script>',
	'{{ $json.eventId }}',
	'null',
	'   ',
	'CON',
	'file.vtt',
	'semi;colon=equals',
];
for (const title of TRICKY_TITLES) {
	add('title', JSON.stringify(title), (e) => setAttribute(e, 'title', title));
}
for (const length of [1_000, 10_000, 100_000]) {
	add('long-title', `${length.toLocaleString('en')} characters`, (e, rng) =>
		setAttribute(
			e,
			'title',
			`${rng.string(8)} ${'Long title '.repeat(length / 11 + 1)}`.slice(0, length),
		),
	);
}

// event ids other than a UUID string (each still new)
add('event-id', 'a number', (e, rng) => {
	dataOf(e).id = rng.int(1_000_000_000, 9_000_000_000_000);
});
add('event-id', 'upper-case UUID', (e) => {
	dataOf(e).id = String(dataOf(e).id).toUpperCase();
});
add('event-id', 'evt_-prefixed', (e, rng) => {
	dataOf(e).id = `evt_${rng.string(24)}`;
});
add('event-id', 'a ULID', (e, rng) => {
	dataOf(e).id = rng.string(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ');
});

export const VARIATIONS: readonly Variation[] = variations;

/** Catalogue-only: one delivery each, never combined at random (too large to send hundreds of). */
export const ONE_MIB_TITLE: Variation = {
	name: 'long-title: 1,048,576 characters',
	group: 'long-title',
	keepsFiles: true,
	apply: (e) => setAttribute(e, 'title', 'M'.repeat(1024 * 1024)),
};

// ---- the wire ----------------------------------------------------------------------------------------------

export const CONTENT_TYPES = [
	'application/json',
	'application/json; charset=utf-8',
	'application/json;charset=UTF-8',
	'application/vnd.api+json',
] as const;

export interface Wire {
	contentType: string;
	bom: boolean;
	/** Text before and after the JSON. */
	padding: [string, string];
	/** JSON.stringify's indentation; undefined: compact. */
	indent?: string;
	keyOrder: 'as-is' | 'shuffled' | 'reversed';
	encoding?: 'gzip' | 'deflate';
	query: 'token' | 'token repeated' | 'token and another parameter' | 'token not first';
}

export const PLAIN_WIRE: Wire = {
	contentType: 'application/json; charset=utf-8',
	bom: false,
	padding: ['', ''],
	keyOrder: 'as-is',
	query: 'token',
};

const PADDINGS: Array<[string, string]> = [
	[' ', ' '],
	['\n', '\n'],
	['\r\n\t ', '\r\n'],
	['', '\n\n\n'],
];

/** The wire variations as labels (the defaults of PLAIN_WIRE are left out). */
export function describeWire(wire: Wire): string[] {
	const labels: string[] = [];
	if (wire.contentType !== PLAIN_WIRE.contentType) labels.push(`content-type: ${wire.contentType}`);
	if (wire.bom) labels.push('wire: UTF-8 BOM');
	if (wire.padding[0] || wire.padding[1]) labels.push('wire: whitespace around the JSON');
	if (wire.indent !== undefined) labels.push('wire: pretty-printed');
	if (wire.keyOrder !== 'as-is') labels.push(`wire: keys ${wire.keyOrder}`);
	if (wire.encoding) labels.push(`wire: Content-Encoding ${wire.encoding}`);
	if (wire.query !== 'token') labels.push(`query: ${wire.query}`);
	return labels;
}

/** Every wire variation on its own, for the catalogue. */
export function singleWireVariations(): Wire[] {
	return [
		...CONTENT_TYPES.filter((c) => c !== PLAIN_WIRE.contentType).map((contentType) => ({
			...PLAIN_WIRE,
			contentType,
		})),
		{ ...PLAIN_WIRE, bom: true },
		{ ...PLAIN_WIRE, bom: true, contentType: 'application/vnd.api+json' },
		...PADDINGS.map((padding) => ({ ...PLAIN_WIRE, padding })),
		{ ...PLAIN_WIRE, indent: '  ' },
		{ ...PLAIN_WIRE, indent: '\t' },
		{ ...PLAIN_WIRE, keyOrder: 'shuffled' },
		{ ...PLAIN_WIRE, keyOrder: 'reversed' },
		{ ...PLAIN_WIRE, encoding: 'gzip' },
		{ ...PLAIN_WIRE, encoding: 'deflate' },
		{ ...PLAIN_WIRE, encoding: 'gzip', contentType: 'application/vnd.api+json' },
		{ ...PLAIN_WIRE, query: 'token repeated' },
		{ ...PLAIN_WIRE, query: 'token and another parameter' },
		{ ...PLAIN_WIRE, query: 'token not first' },
	];
}

/** A wire with each dimension varied about half the time. */
export function randomWire(rng: Rng): Wire {
	return {
		contentType: rng.chance(0.5) ? PLAIN_WIRE.contentType : rng.pick(CONTENT_TYPES),
		bom: rng.chance(0.15),
		padding: rng.chance(0.2) ? rng.pick(PADDINGS) : ['', ''],
		indent: rng.chance(0.15) ? rng.pick(['  ', '\t', '    ']) : undefined,
		keyOrder: rng.chance(0.5) ? 'as-is' : rng.pick(['shuffled', 'reversed'] as const),
		encoding: rng.chance(0.15) ? rng.pick(['gzip', 'deflate'] as const) : undefined,
		query: rng.chance(0.6)
			? 'token'
			: rng.pick(['token repeated', 'token and another parameter', 'token not first'] as const),
	};
}

/** The same JSON value with the members of every object in another order. */
export function reorderKeys(value: Json, order: Wire['keyOrder'], rng: Rng): Json {
	if (order === 'as-is' || value === null || typeof value !== 'object') return value;
	if (Array.isArray(value)) return value.map((v) => reorderKeys(v, order, rng));
	const keys = Object.keys(value);
	const ordered = order === 'reversed' ? keys.reverse() : rng.shuffle(keys);
	const out: JsonObject = {};
	for (const key of ordered) out[key] = reorderKeys(value[key], order, rng);
	return out;
}
