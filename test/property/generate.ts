// The values a service may send, for the value oracle (values.test.ts): Unicode text, ids in every form a service
// numbers its records (UUIDs, numeric strings with leading zeros, integers past 2^32 and up to 2^53, integers
// beyond, which JSON.parse rounds), timestamps in the formats services write, header values in all their forms
// (Retry-After in seconds or as each of HTTP's three dates, X-RateLimit-Reset in its three units, Link with several
// relations and parameters), and lists of 0 to 5 elements, reordered and with duplicates. Each generated value
// carries its meaning beside its spelling, so that model.ts computes the expected output from the meaning alone.
import fc from 'fast-check';

import { Digits, type Wire } from './jsonText';

// ---- text ------------------------------------------------------------------------------------------------------

/** Text with something in it: any Unicode (whole graphemes, so that UTF-8 carries it unchanged). */
export const text = (maxLength = 12) =>
	fc.string({ unit: 'grapheme', minLength: 1, maxLength }).filter((value) => value.trim() !== '');

/** A word of plain letters (event names, formats, member names that must not collide with the contract's). */
export const word = fc.stringMatching(/^[a-z][a-z0-9]{1,8}$/);

// ---- ids -------------------------------------------------------------------------------------------------------

/**
 * An id as a service writes it. Strings are ids as they are, whatever they hold (JSON:API); an integer is the id
 * its digits spell. `big` is an integer beyond 2^53: its digits are on the wire, JSON.parse rounds them.
 */
export type IdValue =
	| { kind: 'uuid' | 'text' | 'padded' | 'long'; text: string }
	| { kind: 'integer'; digits: string }
	| { kind: 'big'; digits: string };

const TWO_53 = 2n ** 53n;

export const idValue: fc.Arbitrary<IdValue> = fc.oneof(
	fc.uuid().map((text) => ({ kind: 'uuid' as const, text })),
	text(10).map((t) => ({ kind: 'text' as const, text: t })),
	// "007": a numeric string whose zeros belong to it
	fc.stringMatching(/^0[0-9]{1,20}$/).map((t) => ({ kind: 'padded' as const, text: t })),
	// 20 to 30 digits: more than any number holds
	fc.stringMatching(/^[1-9][0-9]{19,29}$/).map((t) => ({ kind: 'long' as const, text: t })),
	fc
		.oneof(
			fc.integer({ min: 0, max: 2 ** 31 }),
			fc.integer({ min: 2 ** 31, max: 2 ** 33 }),
			fc.maxSafeNat(),
			fc.constantFrom(2 ** 31, 2 ** 32, 2 ** 53 - 1),
		)
		.map((n) => ({ kind: 'integer' as const, digits: String(n) })),
	fc
		.bigInt({ min: TWO_53, max: 2n ** 80n })
		.map((n) => ({ kind: 'big' as const, digits: n.toString() })),
);

/** The id on the wire: a string, or an integer literal. */
export function idWire(id: IdValue): Wire {
	if (!('digits' in id)) return id.text;
	return id.kind === 'integer' ? Number(id.digits) : new Digits(id.digits);
}

/** The id as text, exactly as the service wrote it: what every output shows. */
export const idText = (id: IdValue) => ('digits' in id ? id.digits : id.text);

/** An id whose integer form can be written as a string too (the same id: "4711" and 4711). */
export const asStringSpelling = (id: IdValue): Wire => idText(id);

// ---- lists -----------------------------------------------------------------------------------------------------

/** 0 to 5 elements, reordered, with duplicates. */
export const listOf = <T>(element: fc.Arbitrary<T>, maxLength = 5) =>
	fc.array(element, { maxLength: 4 }).chain((items) =>
		items.length === 0
			? fc.constant(items)
			: fc
					.array(fc.nat(items.length - 1), { maxLength: maxLength - items.length })
					.chain((copies) =>
						fc.shuffledSubarray([...items, ...copies.map((i) => items[i])], {
							minLength: items.length + copies.length,
						}),
					),
	);

// ---- timestamps ------------------------------------------------------------------------------------------------

/** A moment near the suites' now (2026-01-01), in whole seconds or with milliseconds. */
export const moment = fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2032-01-01') });

/** A timestamp as services write it: ISO 8601 with or without milliseconds or an offset, RFC 2822, epoch seconds. */
export const timestamp: fc.Arbitrary<Wire> = fc
	.tuple(moment, fc.constantFrom('iso-ms', 'iso', 'offset', 'rfc2822', 'epoch'))
	.map(([ms, form]) => {
		const iso = new Date(ms).toISOString();
		switch (form) {
			case 'iso-ms':
				return iso;
			case 'iso':
				return iso.replace(/\.\d{3}Z$/, 'Z');
			case 'offset':
				return iso.replace(/Z$/, '+00:00');
			case 'rfc2822':
				return new Date(ms).toUTCString();
			default:
				return Math.floor(ms / 1000);
		}
	});

// ---- HTTP dates (RFC 9110 5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms ---------------------

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

export type HttpDateForm = 'imf' | 'rfc850' | 'asctime';

/** An HTTP date of a whole second, written by hand in one of the three forms a recipient must accept. */
export function httpDate(ms: number, form: HttpDateForm): string {
	const d = new Date(ms);
	const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
	const [day, month, year] = [d.getUTCDate(), MONTHS[d.getUTCMonth()], d.getUTCFullYear()];
	switch (form) {
		case 'imf':
			return `${DAYS[d.getUTCDay()]}, ${two(day)} ${month} ${year} ${time} GMT`;
		case 'rfc850':
			return `${LONG_DAYS[d.getUTCDay()]}, ${two(day)}-${month}-${two(year % 100)} ${time} GMT`;
		case 'asctime':
			return `${DAYS[d.getUTCDay()]} ${month} ${String(day).padStart(2, ' ')} ${time} ${year}`;
	}
}

/** Time zones the n8n process may run in: an HTTP date means the same in each. */
export const timeZone = fc.constantFrom('UTC', 'America/New_York', 'Asia/Tokyo', 'Pacific/Chatham');

// ---- headers ---------------------------------------------------------------------------------------------------

/** A header name in the case a server or proxy writes it. */
export const headerCase = (name: string) =>
	fc.constantFrom(
		name.toLowerCase(),
		name,
		name.toUpperCase(),
		name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase()),
	);

/** One link of an RFC 8288 Link header: a target, its relation types and other parameters. */
export interface LinkValue {
	target: string;
	rels: string[];
	/** Parameters other than rel, written before or after it. */
	params: Array<[name: string, value: string]>;
	/** How rel is written: quoted or a bare token (only for a single type), and its name's case. */
	relQuoted: boolean;
	relName: 'rel' | 'REL' | 'Rel';
	relFirst: boolean;
}

const RELATIONS = ['next', 'prev', 'previous', 'first', 'last', 'self', 'alternate'];

export const linkValue = (target: fc.Arbitrary<string>): fc.Arbitrary<LinkValue> =>
	fc.record({
		target,
		rels: fc.uniqueArray(fc.constantFrom(...RELATIONS), { minLength: 1, maxLength: 3 }),
		params: fc.array(
			fc.tuple(
				fc.constantFrom('title', 'type', 'hreflang', 'media'),
				// quoted strings may hold commas, semicolons, equals signs and angle brackets
				fc.stringMatching(/^[a-z ,;=<>]{0,10}$/),
			),
			{ maxLength: 2 },
		),
		relQuoted: fc.boolean(),
		relName: fc.constantFrom<LinkValue['relName']>('rel', 'REL', 'Rel'),
		relFirst: fc.boolean(),
	});

/** The link as a server writes it. */
export function linkText(link: LinkValue): string {
	const quoted = link.relQuoted || link.rels.length > 1;
	const rel = `${link.relName}=${quoted ? `"${link.rels.join(' ')}"` : link.rels[0]}`;
	const params = link.params.map(([name, value]) => `${name}="${value}"`);
	const all = link.relFirst ? [rel, ...params] : [...params, rel];
	return `<${link.target}>; ${all.join('; ')}`;
}
