// Read by need, proved against expected values (issues 22 and 29): for every answer and delivery shape the nodes
// read, every single mutation of every member (exhaustive) and random ones, alone and in twos and threes
// (fast-check), judged by the oracle (oracle.ts) against the shape's decoded value written by hand: the same
// value where the answer means the same, else every change named by an error or a warning; never another value,
// a crash, a hang, n8n's generic words or a secret. The counts per shape are printed at the end.
import fc from 'fast-check';

import {
	apply,
	describeMutation,
	type Mutation,
	mutationArbitrary,
	mutationsOf,
} from './mutations';
import {
	classify,
	judge,
	newTally,
	type Oracle,
	type Outcome,
	type Tally,
	tallyLine,
} from './oracle';
import { type Shape, SHAPES } from './shapes';

/** Random runs per shape; each is one to three mutations at once. */
const RANDOM_RUNS = 1_000;
const HANG_MS = 2_000;

const tallies = new Map<string, Tally>();

const withTimeout = <T>(promise: Promise<T>, what: string) =>
	Promise.race([
		promise,
		new Promise<never>((_, reject) =>
			setTimeout(() => reject(new Error(`hang: ${what} took over ${HANG_MS} ms`)), HANG_MS).unref(),
		),
	]);

/** The shape's own reading of an answer, with the secret scan; a crash or a hang throws. */
async function outcomeOf(shape: Shape, answer: Shape['answer'], what: string): Promise<Outcome> {
	const seen: string[] = [];
	let outcome: Outcome;
	try {
		outcome = await withTimeout(shape.run(answer, seen), what);
	} catch (error) {
		throw new Error(`${what} crashed: ${(error as Error)?.stack ?? String(error)}`);
	}
	const text = JSON.stringify(outcome) + seen.join('\n');
	for (const secret of shape.secrets) {
		if (text.includes(secret) || text.includes(encodeURIComponent(secret))) {
			throw new Error(`${what}: a secret shows in ${text.slice(0, 400)}`);
		}
	}
	return outcome;
}

/** Applies the mutations and judges the outcome; false when none of them applied to this answer. */
async function holds(shape: Shape, mutations: Mutation[], tally: Tally): Promise<boolean> {
	let answer = shape.answer;
	const applied: Mutation[] = [];
	for (const m of mutations) {
		const next = apply(answer, m);
		if (next) {
			answer = next;
			applied.push(m);
		}
	}
	if (!applied.length) return false;
	tally.mutations++;
	const kind = classify(applied, shape.used, shape, shape.answer, answer);
	if (kind === 'value') {
		tally.values++;
		return true;
	}
	const what = `${shape.name}: ${applied.map(describeMutation).join(', ')} (${kind})`;
	const outcome = await outcomeOf(shape, answer, what);
	const single = applied.length === 1 ? { mutation: applied[0], used: shape.used } : undefined;
	try {
		tally[judge(shape, outcome, kind, what, single)]++;
	} catch (error) {
		tally.other++;
		throw error;
	}
	return true;
}

afterAll(() => {
	const rows = [...tallies].map(([name, t]) => tallyLine(name, t));
	const total = [...tallies.values()].reduce((sum, t) => sum + t.mutations, 0);
	process.stdout.write(
		[
			'Mutations per answer shape, judged against the decoded value written by hand (test/property):',
			...rows,
			`  ${'in all'.padEnd(52)} ${String(total).padStart(5)} mutations`,
			'',
		].join('\n'),
	);
});

describe.each(SHAPES.map((shape) => [shape.name, shape] as const))('%s', (name, shape) => {
	const tally = newTally();
	tallies.set(name, tally);

	test(`the answer as the sandbox gives it decodes to the value written by hand`, async () => {
		const outcome = await outcomeOf(shape, shape.answer, `${name}: as given`);
		expect(
			typeof shape.expected === 'string'
				? outcome
				: { ok: true, value: shape.expected, warnings: [] },
		).toEqual(
			typeof shape.expected === 'string' ? { ok: false, message: shape.expected } : outcome,
		);
	});

	test('every single mutation of every member', async () => {
		const failures: string[] = [];
		for (const m of mutationsOf(shape.answer, shape.rootKeys)) {
			try {
				await holds(shape, [m], tally);
			} catch (error) {
				failures.push((error as Error).message);
			}
		}
		expect(failures.slice(0, 5)).toEqual([]);
		expect(tally.mutations).toBeGreaterThan(50);
	});

	test(`${RANDOM_RUNS} random mutations, one to three at once`, async () => {
		const before = tally.mutations;
		await fc.assert(
			fc.asyncProperty(
				fc.array(mutationArbitrary(shape.answer, shape.rootKeys), { minLength: 1, maxLength: 3 }),
				async (ms) => {
					await holds(shape, ms, tally);
				},
			),
			{ numRuns: RANDOM_RUNS, seed: 29 },
		);
		expect(tally.mutations - before).toBeGreaterThan(RANDOM_RUNS / 2);
	});
});

describe('the oracle can fail', () => {
	const oracle: Oracle = {
		expected: { id: '42', title: 'Quarterly update' },
		fields: { title: /title/ },
		optional: ['id'],
		words: /data\.id/,
	};
	const read = (value: Record<string, unknown>, warnings: string[] = []): Outcome => ({
		ok: true,
		value,
		warnings,
	});

	test('another value fails, a warning about it or not; null, named by a warning about it, passes', () => {
		const other = read({ id: '42', title: 'Another title' });
		expect(() => judge(oracle, other, 'breaking', 'x')).toThrow(
			'x: title is "Another title", not "Quarterly update": another value',
		);
		// a warning excuses only the field it names, and only with what the contract allows there
		const warned = read({ id: '42', title: 'Another title' }, ['The title is odd.']);
		expect(() => judge(oracle, warned, 'breaking', 'x')).toThrow(/another value/);
		expect(() => judge(oracle, read({ id: '42', title: null }), 'breaking', 'x')).toThrow(
			'x: title is null, not "Quarterly update", and no warning says why',
		);
		const aboutId = read({ id: '42', title: null }, ['The id is odd.']);
		expect(() => judge(oracle, aboutId, 'breaking', 'x')).toThrow(/title is null/);
		expect(
			judge(oracle, read({ id: '42', title: null }, ['The title is null.']), 'breaking', 'x'),
		).toBe('named');
	});

	test('another spelling must decode to exactly the value, without a warning', () => {
		expect(judge(oracle, read({ id: '42', title: 'Quarterly update' }), 'spelling', 'x')).toBe(
			'expected',
		);
		expect(() =>
			judge(oracle, read({ id: '42', title: 'Quarterly update' }, ['The title.']), 'spelling', 'x'),
		).toThrow(/a warning where the answer means the same/);
		expect(() =>
			judge(oracle, read({ id: null, title: 'Quarterly update' }), 'unused', 'x'),
		).toThrow(/id is not "42"/);
	});

	test('a list or record with members left out or null is absent there; one with another member is not', () => {
		const lists: Oracle = {
			expected: { ids: ['1', '2', '3'], files: { vtt: 'a', srt: 'b' } },
			fields: { ids: /left out/, files: /file/ },
			words: /x/,
		};
		const named = ['2 items are left out', 'A file is missing'];
		expect(
			judge(lists, read({ ids: ['1', '3'], files: { vtt: null } }, named), 'breaking', 'x'),
		).toBe('named');
		expect(() =>
			judge(
				lists,
				read({ ids: ['3', '1'], files: { vtt: 'a', srt: 'b' } }, named),
				'breaking',
				'x',
			),
		).toThrow(/ids is \["3","1"\].*another value/);
		expect(() =>
			judge(lists, read({ ids: ['1', '2', '3'], files: { vtt: 'b' } }, named), 'breaking', 'x'),
		).toThrow(/files is .*another value/);
	});

	test('an absent optional field is named; an error must say the shape’s words', () => {
		expect(judge(oracle, read({ id: undefined, title: 'Quarterly update' }), 'breaking', 'x')).toBe(
			'named',
		);
		expect(judge(oracle, { ok: false, message: 'no data.id' }, 'breaking', 'x')).toBe('named');
		expect(() => judge(oracle, { ok: false, message: 'Unknown error' }, 'breaking', 'x')).toThrow(
			/generic words/,
		);
		expect(() => judge(oracle, { ok: false, message: 'no id' }, 'unused', 'x')).toThrow(
			/an error where the answer means the same/,
		);
	});
});

describe('what a mutation is, for the oracle', () => {
	const original = {
		headers: {},
		body: { data: { id: '7', title: 'a', n: 1, files: ['x', 'y'] } },
	};
	const oracle: Oracle = { expected: {}, lists: ['body.data.files'], words: /./ };
	const used = ['body.data.id', 'body.data.title', 'body.data.files'];
	const kindOf = (...ms: Mutation[]) => {
		let answer = original as Shape['answer'];
		for (const m of ms) answer = apply(answer, m) ?? answer;
		return classify(ms, used, oracle, original, answer);
	};

	test('spellings, unused members, breaking changes and changes of a value itself', () => {
		expect(kindOf({ kind: 'id-as-integer', path: ['body', 'data', 'id'] })).toBe('spelling');
		expect(kindOf({ kind: 'drop', path: ['body', 'data', 'n'] })).toBe('unused');
		expect(kindOf({ kind: 'drop', path: ['body', 'data', 'title'] })).toBe('breaking');
		expect(kindOf({ kind: 'drop', path: ['body', 'data', 'files', 0] })).toBe('value');
		expect(kindOf({ kind: 'retype', path: ['body', 'data', 'id'], to: 'number', value: 9 })).toBe(
			'value',
		);
		// a retype and then a number as string: the title is another text, another value
		expect(
			kindOf(
				{ kind: 'retype', path: ['body', 'data', 'title'], to: 'number', value: 9 },
				{ kind: 'number-as-string', path: ['body', 'data', 'title'] },
			),
		).toBe('value');
	});
});
