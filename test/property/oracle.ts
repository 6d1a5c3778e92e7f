// The oracle of the property suite: every shape has its decoded value written by hand, and each mutated answer is
// judged against it. A mutation of an unused member, or another spelling of a used one (a number as a numeric
// string, a numeric id as an integer, a resource type in another case or number, the record under a root key
// named after the resource), decodes to exactly that value, with no warning. Any other change of a used member
// decodes to it too, or every field it changes is named: by an error, or by a warning that names that very field
// while the field holds what the contract allows in its place (null, or absent), or by the reader leaving out a
// member the caller may do without. Never another value: a warning excuses no value but null or absent.
import { isDeepStrictEqual } from 'node:util';

import { type Answer, type Mutation, touched, touchesUsed, valueAt } from './mutations';

/** What the package made of an answer: a decoded value and its warnings, or the error (or refusal) it named. */
export type Outcome =
	| { ok: true; value: Record<string, unknown>; warnings: string[] }
	| { ok: false; message: string };

export interface Oracle {
	/** The decoded value of the answer as given, written by hand; a refusal's message for a refusal. */
	expected: Record<string, unknown> | string;
	/** Per field, the words of a warning that explains why it is null or absent (never another value). */
	fields?: Record<string, RegExp>;
	/** Fields the reader may leave absent (undefined or null, element by element) for the caller's default. */
	optional?: readonly string[];
	/** Patterns of lists whose elements are values (files, endpoints): dropping one is another value. */
	lists?: readonly string[];
	/** Members whose retyping to these types gives another value of them (a null confidence made a number). */
	values?: ReadonlyArray<[pattern: string, types: readonly string[]]>;
	/**
	 * Members the item passes as they came (A14): one retyped or nested is another value, which the value
	 * oracle (values.test.ts) judges against its model.
	 */
	asItCame?: readonly string[];
	/** Root keys the body may come under and still be the same record. */
	rootKeys?: readonly string[];
	/** What an error must name. */
	words: RegExp;
}

export type Kind = 'unused' | 'spelling' | 'breaking' | 'value';

const matches = (path: ReadonlyArray<string | number>, pattern: string) => {
	const segments = pattern.split('.');
	return (
		segments.length === path.length &&
		segments.every((segment, i) => segment === '*' || segment === String(path[i]))
	);
};

const primitive = (value: unknown) => typeof value === 'string' || typeof value === 'number';

/** Whether mutations in a row left a member a text or number of its own type, but another one (7, then "7"). */
function madeAnotherValue(m: Mutation, original: Answer, final: Answer): boolean {
	if (m.kind === 'extra' || m.kind === 'wrap-root' || m.kind === 'type-variant') return false;
	const [before, after] = [valueAt(original, m.path), valueAt(final, m.path)];
	return primitive(before) && typeof before === typeof after && before !== after;
}

/**
 * What a set of mutations applied to `original` (giving `final`) is, for the oracle: the strongest of its
 * mutations decides.
 */
export function classify(
	applied: readonly Mutation[],
	used: readonly string[],
	oracle: Oracle,
	original: Answer,
	final: Answer,
): Kind {
	const kinds = applied.map((m): Kind => {
		if (!touchesUsed(m, used)) return 'unused';
		if (madeAnotherValue(m, original, final)) return 'value';
		if (
			m.kind === 'drop' &&
			(oracle.lists ?? []).some((list) => matches(m.path.slice(0, -1), list))
		)
			return 'value';
		if (
			(m.kind === 'retype' || m.kind === 'nest') &&
			(oracle.asItCame ?? []).some((pattern) => matches(m.path, pattern))
		)
			return 'value';
		if (m.kind === 'retype') {
			// an id made a number or another string is another id
			const id = m.path[m.path.length - 1] === 'id' && (m.to === 'number' || m.to === 'string');
			const declared = (oracle.values ?? []).some(
				([pattern, types]) => matches(m.path, pattern) && types.includes(m.to),
			);
			if (id || declared) return 'value';
		}
		if (m.kind === 'wrap-root') return oracle.rootKeys?.includes(m.key) ? 'spelling' : 'breaking';
		const spelling =
			m.kind === 'number-as-string' || m.kind === 'id-as-integer' || m.kind === 'type-variant';
		return spelling ? 'spelling' : 'breaking';
	});
	for (const kind of ['value', 'breaking', 'spelling'] as const)
		if (kinds.includes(kind)) return kind;
	return 'unused';
}

// n8n's own words when a node gives none: a failure must say more than these
const GENERIC =
	/^(Unknown error|Request failed with status code \d+|The service was not able to process your request|Something went wrong)/;

const missing = (value: unknown) => value === undefined || value === null;

/**
 * What the contract allows in a field's place when members are missing: nothing, or null; in a list, elements
 * left out or null and the rest as expected, in order; in an object, members left out or null, the rest as
 * expected. Never another value.
 */
function absent(value: unknown, expected: unknown): boolean {
	if (missing(value)) return true;
	if (typeof value !== 'object') return false;
	const record = typeof expected === 'object' && expected !== null ? expected : {};
	if (Array.isArray(value)) {
		const list = Array.isArray(expected) ? expected : [];
		let at = 0;
		// each element is the next expected one, or left out, null, or absent within itself
		const fits = (element: unknown, wanted: unknown) =>
			missing(element) || isDeepStrictEqual(element, wanted) || absent(element, wanted);
		for (const element of value) {
			while (at < list.length && !fits(element, list[at])) at++;
			if (at++ >= list.length) return false;
		}
		return true;
	}
	return Object.entries(value as Record<string, unknown>).every(
		([key, member]) =>
			Object.hasOwn(record, key) &&
			(missing(member) || isDeepStrictEqual(member, (record as Record<string, unknown>)[key])),
	);
}

const show = (value: unknown) => JSON.stringify(value)?.slice(0, 300) ?? 'undefined';

/** The used member a single mutation hits by name (its last segment), when it hits one exactly. */
function memberHit(m: Mutation, used: readonly string[]): string | undefined {
	if (m.kind === 'extra' || m.kind === 'wrap-root') return undefined;
	const path = touched(m)[0];
	const hit = used.find((pattern) => matches(path, pattern));
	const last = hit?.split('.').pop();
	return last && last !== '*' ? last : undefined;
}

export type Verdict = 'expected' | 'named';

/**
 * The judgement of one outcome; throws, with `what` and the first field that went wrong, when the outcome is
 * another value than the oracle's and nothing names it.
 */
export function judge(
	oracle: Oracle,
	outcome: Outcome,
	kind: Exclude<Kind, 'value'>,
	what: string,
	single?: { mutation: Mutation; used: readonly string[] },
): Verdict {
	const fail = (why: string): never => {
		throw new Error(`${what}: ${why}; got ${show(outcome)}`);
	};
	if (typeof oracle.expected === 'string') {
		if (outcome.ok) return fail('a refusal read as an answer');
		if (outcome.message === oracle.expected) return 'expected';
		if (kind !== 'breaking') return fail(`another refusal than ${show(oracle.expected)}`);
		return named(oracle, outcome.message, fail);
	}
	if (!outcome.ok) {
		if (kind !== 'breaking') return fail('an error where the answer means the same');
		named(oracle, outcome.message, fail);
		const hit = single && memberHit(single.mutation, single.used);
		if (hit && !outcome.message.includes(hit)) fail(`an error that does not name ${hit}`);
		return 'named';
	}
	const expected = oracle.expected;
	const keys = new Set([...Object.keys(expected), ...Object.keys(outcome.value)]);
	const differing = [...keys].filter(
		(key) => !isDeepStrictEqual(outcome.value[key], expected[key]),
	);
	if (kind !== 'breaking') {
		if (differing.length) fail(`${differing[0]} is not ${show(expected[differing[0]])}`);
		if (outcome.warnings.length) fail(`a warning where the answer means the same`);
		return 'expected';
	}
	for (const key of differing) {
		const value = outcome.value[key];
		if (!absent(value, expected[key])) {
			fail(`${key} is ${show(value)}, not ${show(expected[key])}: another value`);
		}
		if (oracle.optional?.includes(key)) continue;
		const words = oracle.fields?.[key];
		if (!words || !outcome.warnings.some((warning) => words.test(warning))) {
			fail(`${key} is ${show(value)}, not ${show(expected[key])}, and no warning says why`);
		}
	}
	return differing.length || outcome.warnings.length ? 'named' : 'expected';
}

function named(oracle: Oracle, message: string, fail: (why: string) => never): Verdict {
	if (GENERIC.test(message)) fail("n8n's generic words");
	if (!oracle.words.test(message)) fail(`an error that does not say ${oracle.words}`);
	return 'named';
}

export interface Tally {
	mutations: number;
	expected: number;
	named: number;
	/** Decoded to another value, unnamed: each one fails the suite. */
	other: number;
	/** Changes of a value (a list element dropped, an id made another): another answer, not another shape of it. */
	values: number;
}

export const newTally = (): Tally => ({ mutations: 0, expected: 0, named: 0, other: 0, values: 0 });

/** One line per shape: how many mutations decoded to the expected value, how many were named, and 0 otherwise. */
export function tallyLine(name: string, t: Tally): string {
	return (
		`  ${name.padEnd(52)} ${String(t.mutations).padStart(5)} mutations: ${t.expected} decoded to the expected value, ` +
		`${t.named} named an error or warning, ${t.other} another value (${t.values} changes of a value itself not judged)`
	);
}

// ---- the value oracle (values.test.ts): generated values, and what model.ts says they must decode to ----------

export type ValueVerdict = 'exact' | 'named';

/** What the model predicted for an answer's values (valueShapes.ts). */
export type Predicted =
	| { ok: true; value: Record<string, unknown>; said: string[] }
	| { ok: false; names: RegExp };

/**
 * Every output field equal to the model's; a warning, note or error where, and only where, the model says the
 * item must explain a field, each naming that field (`names`). A warning excuses nothing: the value is the model's
 * either way. Throws, naming the first field that differs, otherwise.
 */
export function judgeValues(
	predicted: Predicted,
	outcome: Outcome,
	names: Record<string, RegExp>,
	what: string,
): ValueVerdict {
	const fail = (why: string): never => {
		throw new Error(`${what}: ${why}; got ${show(outcome)}`);
	};
	if (!predicted.ok) {
		if (outcome.ok) return fail(`an answer where the model says it names ${predicted.names}`);
		if (GENERIC.test(outcome.message)) fail("n8n's generic words");
		if (!predicted.names.test(outcome.message))
			fail(`an error that does not say ${predicted.names}`);
		return 'named';
	}
	if (!outcome.ok) return fail('an error where the model reads the answer');
	const keys = new Set([...Object.keys(predicted.value), ...Object.keys(outcome.value)]);
	for (const key of keys) {
		if (!isDeepStrictEqual(outcome.value[key], predicted.value[key])) {
			fail(`${key} is ${show(outcome.value[key])}, not ${show(predicted.value[key])}`);
		}
	}
	for (const field of predicted.said) {
		if (!outcome.warnings.some((warning) => names[field]?.test(warning))) {
			fail(`nothing says why ${field} is ${show(predicted.value[field])}`);
		}
	}
	for (const warning of outcome.warnings) {
		if (!predicted.said.some((field) => names[field]?.test(warning))) {
			fail(`a warning about nothing the model explains: ${show(warning)}`);
		}
	}
	return predicted.said.length ? 'named' : 'exact';
}

export interface ValueTally {
	answers: number;
	exact: number;
	named: number;
	/** Decoded to another value than the model's: each one fails the suite. */
	other: number;
}

export const newValueTally = (): ValueTally => ({ answers: 0, exact: 0, named: 0, other: 0 });

export function valueTallyLine(name: string, t: ValueTally): string {
	return (
		`  ${name.padEnd(76)} ${String(t.answers).padStart(5)} answers: ${t.exact} decoded exactly, ` +
		`${t.named} gave a named warning or error, ${t.other} another value`
	);
}
