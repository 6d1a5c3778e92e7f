// Mutations of the service's answers, for the property suite: every member dropped, nulled, retyped (to another
// JSON type: a string made another string is another value, not another shape), renamed in another case, nested,
// numbers as strings, numeric ids as integers, resource types in other spellings, extra members, and the whole
// body wrapped in a root key. An answer is `{ headers, body }`; a path starts at one of the two. `used` patterns
// say which members the code reads ('*' stands for any key or index); oracle.ts judges what each decodes to.
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Path = ReadonlyArray<string | number>;

export interface Answer {
	headers: Record<string, Json>;
	body: Json;
}

type Retype = 'number' | 'string' | 'boolean' | 'array' | 'object';
export type Spelling = 'plural' | 'capitalised' | 'upper' | 'camel' | 'kebab';
export const SPELLINGS: readonly Spelling[] = ['plural', 'capitalised', 'upper', 'camel', 'kebab'];

export type Mutation =
	| { kind: 'drop'; path: Path }
	| { kind: 'null'; path: Path }
	| { kind: 'retype'; path: Path; to: Retype; value: Json }
	| { kind: 'rename-case'; path: Path; name: string }
	| { kind: 'nest'; path: Path; as: 'array' | 'object' }
	| { kind: 'number-as-string'; path: Path }
	| { kind: 'id-as-integer'; path: Path }
	| { kind: 'type-variant'; path: Path; spelling: Spelling }
	| { kind: 'extra'; path: Path; name: string; value: Json }
	| { kind: 'wrap-root'; key: string };

export const KINDS: ReadonlyArray<Mutation['kind']> = [
	'drop',
	'null',
	'retype',
	'rename-case',
	'nest',
	'number-as-string',
	'id-as-integer',
	'type-variant',
	'extra',
	'wrap-root',
];

const isRecord = (value: unknown): value is { [key: string]: Json } =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** A member set as JSON.parse sets it: an own property, "__proto__" included. */
function define(target: { [key: string]: Json }, name: string, value: Json) {
	Object.defineProperty(target, name, {
		value,
		enumerable: true,
		writable: true,
		configurable: true,
	});
}

const clone = <T extends Json | Answer>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Every path in the answer (members and array elements, to `maxDepth`), the two roots included. */
export function pathsOf(answer: Answer, maxDepth = 8): Path[] {
	const paths: Path[] = [];
	const walk = (value: Json, path: Path) => {
		paths.push(path);
		if (path.length > maxDepth) return;
		if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
		else if (isRecord(value))
			for (const key of Object.keys(value)) walk(value[key], [...path, key]);
	};
	for (const key of Object.keys(answer.headers)) walk(answer.headers[key], ['headers', key]);
	walk(answer.body, ['body']);
	return paths;
}

function parentAndKey(root: Answer, path: Path) {
	let parent: unknown = root;
	for (const key of path.slice(0, -1)) {
		parent = (parent as Record<string | number, unknown>)?.[key];
		if (typeof parent !== 'object' || parent === null) return undefined;
	}
	return { parent: parent as Record<string | number, Json>, key: path[path.length - 1] };
}

export function valueAt(root: Answer, path: Path): Json | undefined {
	const at = parentAndKey(root, path);
	if (!at || !Object.hasOwn(at.parent, at.key)) return undefined;
	return at.parent[at.key];
}

/** The answer with `m` applied, or undefined where it does not apply (a path an earlier mutation removed). */
export function apply(answer: Answer, m: Mutation): Answer | undefined {
	const root = clone(answer);
	if (m.kind === 'wrap-root') {
		root.body = { [m.key]: root.body };
		return root;
	}
	if (m.kind === 'extra') {
		const target = m.path.length ? valueAt(root, m.path) : undefined;
		if (!isRecord(target)) return undefined;
		define(target, m.name, clone(m.value));
		return root;
	}
	const at = parentAndKey(root, m.path);
	if (!at || m.path.length < 2 || !Object.hasOwn(at.parent, at.key)) return undefined;
	const { parent, key } = at;
	const value = parent[key];
	switch (m.kind) {
		case 'drop':
			if (Array.isArray(parent)) parent.splice(Number(key), 1);
			else delete parent[key];
			return root;
		case 'null':
			parent[key] = null;
			return root;
		case 'retype':
			// another value of the same type is a change of value, not of shape; a header is text, and text or
			// a number there would spell another value of it
			if (jsonType(value) === m.to) return undefined;
			if (m.path[0] === 'headers' && (m.to === 'number' || m.to === 'string')) return undefined;
			parent[key] = clone(m.value);
			return root;
		case 'nest':
			parent[key] = m.as === 'array' ? [value] : { value };
			return root;
		case 'number-as-string':
			if (typeof value !== 'number') return undefined;
			parent[key] = String(value);
			return root;
		case 'id-as-integer':
			// the same id as a service that numbers its records sends it
			if (key !== 'id' || typeof value !== 'string' || !/^(0|[1-9]\d{0,14})$/.test(value))
				return undefined;
			parent[key] = Number(value);
			return root;
		case 'type-variant':
			if (key !== 'type' || typeof value !== 'string') return undefined;
			parent[key] = spell(value, m.spelling);
			return root;
		case 'rename-case': {
			if (Array.isArray(parent) || typeof key !== 'string' || m.name === key) return undefined;
			if (Object.hasOwn(parent, m.name)) return undefined;
			delete parent[key];
			define(parent as { [key: string]: Json }, m.name, value);
			return root;
		}
	}
}

const jsonType = (value: Json): Retype | 'null' =>
	value === null
		? 'null'
		: Array.isArray(value)
			? 'array'
			: (typeof value as 'number' | 'string' | 'boolean' | 'object');

/** A resource type in another spelling a JSON:API server might use (`transcription` → `Transcriptions`). */
export function spell(type: string, spelling: Spelling): string {
	const words = type.split(/[_-]/);
	const title = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
	switch (spelling) {
		case 'plural':
			return `${type}s`;
		case 'capitalised':
			return words.map(title).join('');
		case 'upper':
			return `${type}S`.toUpperCase();
		case 'camel':
			return `${words[0]}${words.slice(1).map(title).join('')}s`;
		case 'kebab':
			return `${words.join('-')}s`;
	}
}

export function describeMutation(m: Mutation): string {
	const at = 'path' in m ? m.path.join('.') : 'body';
	switch (m.kind) {
		case 'retype':
			return `retype ${at} to ${m.to}`;
		case 'rename-case':
			return `rename ${at} to ${m.name}`;
		case 'extra':
			return `extra ${at}.${m.name}`;
		case 'wrap-root':
			return `wrap body in ${m.key}`;
		case 'nest':
			return `nest ${at} in an ${m.as}`;
		case 'type-variant':
			return `type ${at} spelt ${m.spelling}`;
		default:
			return `${m.kind} ${at}`;
	}
}

/** The paths a mutation changes: where it applies, and the member it creates under another name. */
export function touched(m: Mutation): Path[] {
	switch (m.kind) {
		case 'wrap-root':
			return [['body']];
		case 'extra':
			return [[...m.path, m.name]];
		case 'rename-case':
			return [m.path, [...m.path.slice(0, -1), m.name]];
		default:
			return [m.path];
	}
}

const segmentMatches = (pattern: string, key: string | number, caseInsensitive: boolean) =>
	pattern === '*' ||
	(caseInsensitive ? pattern.toLowerCase() === String(key).toLowerCase() : pattern === String(key));

/** Whether `prefix` (a path or a pattern) matches the start of `full`. */
function startsWith(
	full: ReadonlyArray<string | number>,
	prefix: ReadonlyArray<string | number>,
	caseInsensitive: boolean,
): boolean {
	if (prefix.length > full.length) return false;
	return prefix.every((seg, i) => {
		const [pattern, key] = typeof seg === 'string' && seg === '*' ? [seg, full[i]] : [full[i], seg];
		return segmentMatches(String(pattern), key, caseInsensitive);
	});
}

/**
 * Whether the mutation touches a member the code uses: the member itself, a container of one (a path every used
 * member below is reached through), or anything inside a used member's value (an element of enabled_events). A
 * member beside the used ones inside a container (a JSON:API error's `status`) is not used. A header in another
 * case is the same header.
 */
export function touchesUsed(m: Mutation, used: readonly string[]): boolean {
	const sameHeader =
		m.kind === 'rename-case' &&
		m.path[0] === 'headers' &&
		m.name.toLowerCase() === String(m.path[m.path.length - 1]).toLowerCase();
	if (sameHeader) return false;
	const patterns = used.map((p) => p.split('.'));
	// a leaf is read as a whole; a container only for the members the patterns name below it
	const leaves = patterns.filter(
		(p) => !patterns.some((q) => q.length > p.length && startsWith(q, p, false)),
	);
	return touched(m).some((path) => {
		const caseInsensitive = path[0] === 'headers';
		const reaches = patterns.some((pattern) => startsWith(pattern, path, caseInsensitive));
		const inside = leaves.some((leaf) => startsWith(path, leaf, caseInsensitive));
		return reaches || inside;
	});
}

// ---- what mutations there are ----------------------------------------------------------------------------------

const RETYPES: Array<[Retype, Json]> = [
	['number', 7],
	['string', 'x'],
	['boolean', true],
	['array', []],
	['object', {}],
];

/** Names an extra member may have: noise, JSON:API's own members, ones the code reads elsewhere, prototype names. */
export const EXTRA_NAMES = [
	'x_extra',
	'meta',
	'links',
	'included',
	'jsonapi',
	'type',
	'ID',
	'Data',
	'error',
	'__proto__',
	'constructor',
	'toString',
];

export const ROOT_KEYS = ['data', 'result', 'token', 'response'];

function caseVariants(name: string): string[] {
	const camel = name.replace(/[_-]([a-z])/g, (_m, c: string) => c.toUpperCase());
	const title = name.charAt(0).toUpperCase() + name.slice(1);
	return [...new Set([name.toUpperCase(), title, camel])].filter((v) => v !== name);
}

/**
 * Every single mutation of the answer, with representative values: the exhaustive part of the suite. `rootKeys`
 * adds keys to wrap the body in (the names of the resource a shape's record may come under).
 */
export function mutationsOf(answer: Answer, rootKeys: readonly string[] = []): Mutation[] {
	const out: Mutation[] = [];
	for (const path of pathsOf(answer)) {
		const value = valueAt(answer, path);
		const key = path[path.length - 1];
		if (path.length >= 2) {
			out.push({ kind: 'drop', path }, { kind: 'null', path });
			for (const [to, v] of RETYPES) out.push({ kind: 'retype', path, to, value: v });
			out.push({ kind: 'nest', path, as: 'array' }, { kind: 'nest', path, as: 'object' });
			if (typeof key === 'string') {
				for (const name of caseVariants(key)) out.push({ kind: 'rename-case', path, name });
			}
			if (typeof value === 'number') out.push({ kind: 'number-as-string', path });
			if (key === 'id' && typeof value === 'string') out.push({ kind: 'id-as-integer', path });
			if (key === 'type' && typeof value === 'string') {
				for (const spelling of SPELLINGS) out.push({ kind: 'type-variant', path, spelling });
			}
		}
		if (isRecord(value) && path.length >= 1) {
			for (const name of EXTRA_NAMES) out.push({ kind: 'extra', path, name, value: 'x' });
			out.push({ kind: 'extra', path, name: 'x_null', value: null });
			out.push({ kind: 'extra', path, name: 'x_deep', value: { a: [{ b: null }] } });
		}
	}
	if (answer.body !== null && answer.body !== '') {
		for (const key of new Set([...ROOT_KEYS, ...rootKeys])) out.push({ kind: 'wrap-root', key });
	}
	return out;
}

/** Random mutations of the answer, with random values and names: the generated part of the suite. */
export function mutationArbitrary(
	answer: Answer,
	rootKeys: readonly string[] = [],
): fc.Arbitrary<Mutation> {
	const paths = pathsOf(answer);
	const inner = paths.filter((p) => p.length >= 2);
	const objects = paths.filter((p) => p.length >= 1 && isRecord(valueAt(answer, p)));
	const path = fc.constantFrom(...inner);
	const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
	const retype = fc.oneof(
		fc.tuple(
			fc.constant<Retype>('number'),
			fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
		),
		fc.tuple(fc.constant<Retype>('string'), fc.string({ maxLength: 12 })),
		fc.tuple(fc.constant<Retype>('boolean'), fc.boolean()),
		fc.tuple(fc.constant<Retype>('array'), fc.array(json, { maxLength: 3 })),
		fc.tuple(
			fc.constant<Retype>('object'),
			fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 3 }),
		),
	);
	const options: Array<fc.Arbitrary<Mutation>> = [
		path.map((p) => ({ kind: 'drop', path: p })),
		path.map((p) => ({ kind: 'null', path: p })),
		fc
			.tuple(path, retype)
			.map(([p, [to, value]]) => ({ kind: 'retype', path: p, to, value: value as Json })),
		fc
			.tuple(path, fc.constantFrom<'upper' | 'title' | 'camel'>('upper', 'title', 'camel'))
			.map(([p, how]): Mutation => {
				const key = String(p[p.length - 1]);
				const [upper, title, camel] = [
					key.toUpperCase(),
					key.charAt(0).toUpperCase() + key.slice(1),
					key.replace(/[_-]([a-z])/g, (_m, c: string) => c.toUpperCase()),
				];
				return { kind: 'rename-case', path: p, name: { upper, title, camel }[how] };
			}),
		fc
			.tuple(path, fc.constantFrom<'array' | 'object'>('array', 'object'))
			.map(([p, as]) => ({ kind: 'nest', path: p, as })),
		path.map((p) => ({ kind: 'number-as-string', path: p })),
		path.map((p) => ({ kind: 'id-as-integer', path: p })),
		fc
			.tuple(path, fc.constantFrom(...SPELLINGS))
			.map(([p, spelling]) => ({ kind: 'type-variant', path: p, spelling })),
		fc.constantFrom(...ROOT_KEYS, ...rootKeys).map((key) => ({ kind: 'wrap-root', key })),
	];
	if (objects.length) {
		options.push(
			fc
				.tuple(
					fc.constantFrom(...objects),
					fc.oneof(fc.constantFrom(...EXTRA_NAMES), fc.string({ minLength: 1, maxLength: 10 })),
					json,
				)
				.map(([p, name, value]) => ({ kind: 'extra', path: p, name, value })),
		);
	}
	return fc.oneof(...options);
}

/** An answer's headers as an HTTP client would see them: text, or a list of texts; null is no header. */
export function asHeaders(headers: Record<string, Json>): Record<string, string | string[]> {
	const text = (v: Json) => (typeof v === 'string' ? v : JSON.stringify(v));
	// fromEntries defines own members, "__proto__" included, as an HTTP client's header object would hold them
	return Object.fromEntries(
		Object.entries(headers)
			.filter(([, value]) => value !== null)
			.map(([name, value]) => [name, Array.isArray(value) ? value.map(text) : text(value)]),
	);
}
