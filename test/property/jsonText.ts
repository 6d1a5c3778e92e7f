// JSON as a service writes it, for the value oracle: an integer literal may have more digits than a JavaScript
// number holds (a Rails bigint, a snowflake id), which JSON.parse rounds. `Digits` is such a literal: it is
// written as its digits, so that a reader of the raw text can keep them and a reader of JSON.parse cannot.

/** An integer literal, written as these digits (no quotes). */
export class Digits {
	constructor(readonly digits: string) {}
}

/** A member left out of the object it would be in (`{ a: ABSENT }` is `{}`). */
export const ABSENT: unique symbol = Symbol('absent');

export type Wire =
	| null
	| boolean
	| number
	| string
	| Digits
	// ABSENT (a symbol widens to `symbol` wherever TypeScript infers a union of values)
	| symbol
	| Wire[]
	| { [key: string]: Wire };

/** The JSON text of a value: `Digits` as their digits, `ABSENT` members left out (in arrays: null). */
export function jsonText(value: Wire): string {
	if (value instanceof Digits) return value.digits;
	if (typeof value === 'symbol') return 'null';
	if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const members = Object.entries(value)
			.filter(([, member]) => typeof member !== 'symbol')
			.map(([name, member]) => `${JSON.stringify(name)}:${jsonText(member)}`);
		return `{${members.join(',')}}`;
	}
	return JSON.stringify(value);
}

/** What a client that parses the text (n8n's request helper, JSON.parse) holds. */
export const parsed = (value: Wire): unknown => JSON.parse(jsonText(value));
