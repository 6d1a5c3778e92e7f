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
import { classify, judge, newTally, type Outcome, type Tally, tallyLine } from './oracle';
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
