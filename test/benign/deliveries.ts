// The deliveries of the benign suite: real events taken from the sandbox, varied field by field (see
// variations.ts) from a fixed seed, each with a new event id and a selected event type, and sent with the
// registration's token. Each must be answered 2xx and start exactly one successful execution.
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';

import type { RawRequest } from '../faults/http';
import { Rng } from '../faults/random';
import { CONTENT_DISPOSITIONS, type FileBehaviour } from './files';
import {
	dataOf,
	describeWire,
	eventAttributes,
	isObject,
	type Json,
	type JsonObject,
	ONE_MIB_TITLE,
	PLAIN_WIRE,
	randomWire,
	reorderKeys,
	singleWireVariations,
	subjectOf,
	TRICKY_TITLES,
	VARIATIONS,
	type Variation,
	type Wire,
} from './variations';

export const EVENT_TYPES = ['transcription.created', 'transcription.transcribed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const DOWNLOAD_FORMATS = ['vtt', 'google_stt'] as const;

export interface BenignTarget {
	/** `/webhook/<webhookId>/webhook`. */
	path: string;
	/** The registration's secret token. */
	token: string;
	/** The registered callback URI, as the service puts it into `data.attributes.uri`. */
	callbackUri: string;
	/** A real event of each type as the sandbox delivered it to this registration. */
	templates: Record<EventType, JsonObject>;
}

/** What must become of a caption file when the trigger downloads: a binary, an entry in downloadErrors, or either. */
export type FileExpectation = 'binary' | 'error' | 'either';

export interface BenignDelivery extends RawRequest {
	eventId: string;
	eventType: EventType;
	/** Body and wire variations, by name; empty: the event as the service sends it. */
	variations: string[];
	/** One variation alone (the catalogue), or a random combination. */
	kind: 'catalogue' | 'random';
	/** The event before it was serialised for the wire. */
	event: JsonObject;
	/** Downloads phase: per format, what the item must show. */
	files?: Partial<Record<(typeof DOWNLOAD_FORMATS)[number], FileExpectation>>;
	/** Its download never answers: sent first, so that its timeout overlaps the rest. */
	slow?: boolean;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Whether n8n itself refuses the delivery before the trigger runs: n8n 1.x parses an application/json body
 * without stripping a byte order mark (n8n 2.x strips one: body-parser.js's stripBom) and answers 422 "Failed to
 * parse request body" (webhook-helpers' parseRequestBody, for every typeVersion above 1). No node code runs.
 */
export function refusedByN8n(delivery: BenignDelivery, n8nMajor: number): boolean {
	const type = delivery.headers.find(([name]) => name === 'content-type')?.[1] ?? '';
	return (
		n8nMajor < 2 &&
		delivery.variations.includes('wire: UTF-8 BOM') &&
		type.split(';')[0].trim().toLowerCase() === 'application/json'
	);
}

/** n8n 1.x's answer to such a delivery, which the suite expects instead of the trigger's. */
export const N8N_1_BOM_REFUSAL = /^\{"code":422,"message":"Failed to parse request body"/;

function queryFor(target: BenignTarget, wire: Wire): string {
	const token = `token=${encodeURIComponent(target.token)}`;
	switch (wire.query) {
		case 'token':
			return `?${token}`;
		case 'token repeated':
			return `?${token}&${token}`;
		case 'token and another parameter':
			return `?${token}&source=captioning`;
		case 'token not first':
			return `?source=captioning&${token}`;
	}
}

/** The event's bytes and headers as `wire` says. */
export function serialise(
	event: JsonObject,
	wire: Wire,
	rng: Rng,
	target: BenignTarget,
): RawRequest {
	const text = JSON.stringify(reorderKeys(event, wire.keyOrder, rng), null, wire.indent);
	let body = Buffer.from(`${wire.padding[0]}${text}${wire.padding[1]}`, 'utf8');
	if (wire.bom) body = Buffer.concat([BOM, body]);
	const headers: Array<[string, string]> = [['content-type', wire.contentType]];
	if (wire.encoding === 'gzip') body = gzipSync(body);
	if (wire.encoding === 'deflate') body = deflateSync(body);
	if (wire.encoding) headers.push(['content-encoding', wire.encoding]);
	return { method: 'POST', path: `${target.path}${queryFor(target, wire)}`, headers, body };
}

/** The template of `type` with a new event id, a new transcription id and this target's callback URI. */
function freshEvent(target: BenignTarget, type: EventType, rng: Rng): JsonObject {
	const event = structuredClone(target.templates[type]);
	const data = dataOf(event);
	data.id = rng.uuid();
	eventAttributes(event).uri = target.callbackUri;
	const subjectId = rng.uuid();
	const subject = subjectOf(event);
	if (subject) subject.id = subjectId;
	const relationships = data.relationships;
	if (isObject(relationships) && isObject(relationships.subject)) {
		const ref = relationships.subject.data;
		if (isObject(ref)) ref.id = subjectId;
	}
	return event;
}

class Builder {
	readonly deliveries: BenignDelivery[] = [];
	private readonly ids = new Set<string>();

	constructor(
		readonly rng: Rng,
		readonly target: BenignTarget,
	) {}

	build(
		type: EventType,
		variations: readonly Variation[],
		wire: Wire,
		options: {
			kind: BenignDelivery['kind'];
			before?: (event: JsonObject) => void;
			labels?: string[];
			files?: BenignDelivery['files'];
			slow?: boolean;
		},
	): BenignDelivery {
		for (;;) {
			const event = freshEvent(this.target, type, this.rng);
			options.before?.(event);
			for (const variation of variations) variation.apply(event, this.rng);
			const eventId = String(dataOf(event).id);
			// each delivery is a new event: a repeated id (vanishingly rare) is drawn again
			if (this.ids.has(eventId)) continue;
			this.ids.add(eventId);
			const delivery: BenignDelivery = {
				...serialise(event, wire, this.rng, this.target),
				eventId,
				eventType: type,
				variations: [
					...(options.labels ?? []),
					...variations.map((v) => v.name),
					...describeWire(wire),
				],
				kind: options.kind,
				event,
				...(options.files ? { files: options.files } : {}),
				...(options.slow ? { slow: true } : {}),
			};
			this.deliveries.push(delivery);
			return delivery;
		}
	}
}

/** The variations that change this template: on a created event (no files yet) some have nothing to change. */
export function effectiveOn(template: JsonObject, variations: readonly Variation[] = VARIATIONS) {
	return variations.filter((variation) => {
		const event = structuredClone(template);
		const before = JSON.stringify(event);
		variation.apply(event, new Rng(1));
		return JSON.stringify(event) !== before;
	});
}

export interface PlanOptions {
	seed: number;
	/** Deliveries in all: the catalogue first, then random combinations up to this number. */
	total: number;
	/** Leave the catalogue out: random combinations only. */
	randomOnly?: boolean;
}

/**
 * The catalogue (the event as sent, every variation alone, for both event types), then random
 * combinations of 1 to 4 variations on a random wire, up to `total`.
 */
export function planDeliveries(target: BenignTarget, options: PlanOptions): BenignDelivery[] {
	const rng = new Rng(options.seed);
	const builder = new Builder(rng, target);
	const usable = Object.fromEntries(
		EVENT_TYPES.map((type) => [type, effectiveOn(target.templates[type])]),
	) as Record<EventType, Variation[]>;
	for (const type of options.randomOnly ? [] : EVENT_TYPES) {
		builder.build(type, [], PLAIN_WIRE, { kind: 'catalogue' });
		for (const variation of usable[type]) {
			builder.build(type, [variation], PLAIN_WIRE, { kind: 'catalogue' });
		}
		for (const wire of singleWireVariations()) builder.build(type, [], wire, { kind: 'catalogue' });
	}
	if (!options.randomOnly) {
		builder.build('transcription.transcribed', [ONE_MIB_TITLE], PLAIN_WIRE, { kind: 'catalogue' });
	}
	while (builder.deliveries.length < options.total) {
		const type = rng.pick(EVENT_TYPES);
		const chosen = rng.sample(usable[type], rng.int(1, 4));
		builder.build(type, chosen, randomWire(rng), { kind: 'random' });
	}
	return rng.shuffle(builder.deliveries);
}

// ---- downloads -------------------------------------------------------------------------------------------

type Format = (typeof DOWNLOAD_FORMATS)[number];

export interface FileUrls {
	urlFor(behaviour: FileBehaviour, format: string, disposition?: number): string;
}

/** Where a transcription's two caption files come from, and what the item must show for each. */
interface FileSource {
	label: string;
	urls: (files: FileUrls) => Partial<Record<Format, string>>;
	expect: Partial<Record<Format, FileExpectation>>;
	slow?: boolean;
}

const served = (disposition: number): FileSource => ({
	label: `files: Content-Disposition ${JSON.stringify(CONTENT_DISPOSITIONS[disposition] ?? 'none').slice(0, 60)}`,
	urls: (files) => ({
		vtt: files.urlFor('ok', 'vtt', disposition),
		google_stt: files.urlFor('ok', 'google_stt', disposition),
	}),
	expect: { vtt: 'binary', google_stt: 'binary' },
});

const failing = (
	label: string,
	vtt: FileBehaviour,
	googleStt: FileBehaviour,
	slow = false,
): FileSource => {
	const outcome = (b: FileBehaviour): FileExpectation =>
		b === 'ok' ? 'binary' : b === 'empty' ? 'either' : 'error';
	return {
		label: `files: ${label}`,
		urls: (files) => ({
			vtt: files.urlFor(vtt, 'vtt', 0),
			google_stt: files.urlFor(googleStt, 'google_stt', 0),
		}),
		expect: { vtt: outcome(vtt), google_stt: outcome(googleStt) },
		slow,
	};
};

const SANDBOX_FILES: FileSource = {
	label: 'files: the sandbox’s signed URLs',
	urls: () => ({}),
	expect: { vtt: 'binary', google_stt: 'binary' },
};

const FAILURES: FileSource[] = [
	failing('vtt 404', '404', 'ok'),
	failing('both 404', '404', '404'),
	failing('google_stt 500', 'ok', '500'),
	failing('vtt connection reset', 'reset', 'ok'),
	failing('vtt empty', 'empty', 'ok'),
	{
		label: 'files: URLs that are not URLs',
		urls: () => ({ vtt: 'not a url', google_stt: '/files/captions.json' }),
		expect: { vtt: 'either', google_stt: 'either' },
	},
];
const TIMEOUT = failing('vtt never answers', 'hang', 'ok', true);

function setFileUrls(event: JsonObject, urls: Partial<Record<Format, string>>): void {
	const attributes = subjectOf(event)?.attributes;
	const list = isObject(attributes) ? attributes.transcriptions : undefined;
	if (!Array.isArray(list)) return;
	for (const file of list as Json[]) {
		if (isObject(file) && typeof file.format === 'string' && file.format in urls) {
			file.url = urls[file.format as Format] ?? file.url;
		}
	}
}

const titled = (title: string): Variation =>
	VARIATIONS.find((v) => v.name === `title: ${JSON.stringify(title)}`)!;

/**
 * The downloads phase: every Content-Disposition the file server knows, every tricky title with a file
 * named after it, every failure (two downloads that never answer), then random ones up to `total`.
 */
export function planDownloads(
	target: BenignTarget,
	files: FileUrls,
	options: PlanOptions & { timeouts: number },
): BenignDelivery[] {
	const rng = new Rng(options.seed);
	const builder = new Builder(rng, target);
	const transcribed = (
		source: FileSource,
		variations: Variation[],
		wire: Wire,
		kind: BenignDelivery['kind'],
	) => {
		const urls = source.urls(files);
		const keeps = variations.every((v) => v.keepsFiles);
		builder.build('transcription.transcribed', variations, wire, {
			kind,
			before: (event) => setFileUrls(event, urls),
			labels: [source.label],
			// a variation that moves or drops the files leaves the trigger nothing it must download
			files: keeps
				? source.expect
				: Object.fromEntries(DOWNLOAD_FORMATS.map((f) => [f, 'either' as const])),
			slow: source.slow,
		});
	};
	for (let i = 0; i < options.timeouts; i++) transcribed(TIMEOUT, [], PLAIN_WIRE, 'catalogue');
	CONTENT_DISPOSITIONS.forEach((_, index) =>
		transcribed(
			served(index),
			[titled(TRICKY_TITLES[index % TRICKY_TITLES.length])],
			PLAIN_WIRE,
			'catalogue',
		),
	);
	// no Content-Disposition: the file is named after the title
	for (const title of TRICKY_TITLES)
		transcribed(served(0), [titled(title)], PLAIN_WIRE, 'catalogue');
	for (const failure of FAILURES) transcribed(failure, [], PLAIN_WIRE, 'catalogue');
	transcribed(SANDBOX_FILES, [titled('Q3 50% update')], PLAIN_WIRE, 'catalogue');
	builder.build('transcription.created', [], PLAIN_WIRE, { kind: 'catalogue', files: {} });

	const keepsFiles = VARIATIONS.filter((v) => v.keepsFiles && v.group !== 'title');
	const onCreated = effectiveOn(target.templates['transcription.created'], keepsFiles);
	const others = VARIATIONS.filter((v) => !v.keepsFiles);
	const sources = [SANDBOX_FILES, ...CONTENT_DISPOSITIONS.map((_, i) => served(i)), ...FAILURES];
	while (builder.deliveries.length < options.total) {
		if (rng.chance(0.15)) {
			builder.build(
				'transcription.created',
				rng.sample(onCreated, rng.int(0, 2)),
				randomWire(rng),
				{
					kind: 'random',
					files: {},
				},
			);
			continue;
		}
		const variations = [
			titled(rng.pick(TRICKY_TITLES)),
			...rng.sample(keepsFiles, rng.int(0, 2)),
			...(rng.chance(0.1) ? [rng.pick(others)] : []),
		];
		transcribed(rng.pick(sources), variations, randomWire(rng), 'random');
	}
	const [slow, rest] = [
		builder.deliveries.filter((d) => d.slow),
		builder.deliveries.filter((d) => !d.slow),
	];
	return [...slow, ...rng.shuffle(rest)];
}

// ---- checking the generator ------------------------------------------------------------------------------

/** The JSON text a delivery carries, without its content encoding, BOM or surrounding whitespace. */
export function decodeBody(delivery: RawRequest): string {
	const encoding = delivery.headers.find(([name]) => name === 'content-encoding')?.[1];
	const raw = delivery.body ?? Buffer.alloc(0);
	const plain =
		encoding === 'gzip' ? gunzipSync(raw) : encoding === 'deflate' ? inflateSync(raw) : raw;
	return plain
		.toString('utf8')
		.replace(/^\ufeff/, '')
		.trim();
}

/**
 * What is wrong with the plan, if anything: each delivery must carry the registration's token (every
 * `token` parameter equal to it), a new event id, and a selected event type in a body that is JSON.
 */
export function planProblems(
	deliveries: readonly BenignDelivery[],
	target: BenignTarget,
): string[] {
	const problems: string[] = [];
	const seen = new Set<string>();
	for (const d of deliveries) {
		const where = `${d.eventId} (${d.variations.join(', ') || 'as sent'})`;
		const query = new URLSearchParams(d.path.split('?')[1] ?? '');
		const tokens = query.getAll('token');
		if (tokens.length === 0 || tokens.some((t) => t !== target.token)) {
			problems.push(`${where}: token parameters ${tokens.length}, not all the registration's`);
		}
		if (seen.has(d.eventId)) problems.push(`${where}: event id used twice`);
		seen.add(d.eventId);
		let parsed: Json;
		try {
			parsed = JSON.parse(decodeBody(d)) as Json;
		} catch (error) {
			problems.push(`${where}: not JSON (${(error as Error).message})`);
			continue;
		}
		const data = isObject(parsed) ? parsed.data : undefined;
		const attributes = isObject(data) ? data.attributes : undefined;
		if (
			!isObject(data) ||
			String(data.id) !== d.eventId ||
			!['string', 'number'].includes(typeof data.id)
		) {
			problems.push(`${where}: data.id is not the delivery's event id`);
		}
		if (!isObject(attributes) || attributes.event_type !== d.eventType) {
			problems.push(`${where}: data.attributes.event_type is not ${d.eventType}`);
		}
		if (!(EVENT_TYPES as readonly string[]).includes(d.eventType)) {
			problems.push(`${where}: ${d.eventType} is not a selected event type`);
		}
	}
	return problems;
}

// ---- templates -------------------------------------------------------------------------------------------

/** The real event of each type the sandbox sent to one endpoint (the latest of each). */
export function templatesFrom(
	events: Iterable<{ eventType: string; endpointId: string; body: string }>,
	endpointId: string,
): Record<EventType, JsonObject> {
	const found: Partial<Record<EventType, JsonObject>> = {};
	for (const event of events) {
		if (event.endpointId !== endpointId) continue;
		if ((EVENT_TYPES as readonly string[]).includes(event.eventType)) {
			found[event.eventType as EventType] = JSON.parse(event.body) as JsonObject;
		}
	}
	for (const type of EVENT_TYPES) {
		if (!found[type])
			throw new Error(`the sandbox sent no ${type} event to endpoint ${endpointId}`);
	}
	return found as Record<EventType, JsonObject>;
}
