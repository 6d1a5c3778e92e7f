// Read by need, proved by mutation (issue 22): for every answer shape the nodes read, every single mutation of
// every member (exhaustive) and thousands of random ones, alone and in twos and threes (fast-check). A mutation of
// a member the code does not use changes nothing; one of a member it uses ends in working behaviour or in an
// error that names the member (or, where the answer already was a refusal, in that refusal); never a crash, a
// hang, a generic message or a secret. The counts per shape are printed at the end.
import fc from 'fast-check';

import {
	apply,
	describeMutation,
	type Mutation,
	mutationArbitrary,
	mutationsOf,
	touched,
	touchesUsed,
} from './mutations';
import { type Outcome, type Shape, SHAPES } from './shapes';

/** Random runs per shape; each is one to three mutations at once. */
const RANDOM_RUNS = 1_500;
const HANG_MS = 2_000;
// n8n's own words when a node gives none: a failure must say more than these
const GENERIC =
	/^(Unknown error|Request failed with status code \d+|The service was not able to process your request|Something went wrong)/;

interface Tally {
	exhaustive: number;
	random: number;
	unused: number;
	used: number;
	usedWorking: number;
	usedNamedError: number;
}
const tallies = new Map<string, Tally>();

const withTimeout = <T>(promise: Promise<T>, what: string) =>
	Promise.race([
		promise,
		new Promise<never>((_, reject) =>
			setTimeout(() => reject(new Error(`hang: ${what} took over ${HANG_MS} ms`)), HANG_MS).unref(),
		),
	]);

/** The used member a single mutation hits by name (its last segment), when it hits one exactly. */
function memberHit(m: Mutation, used: readonly string[]): string | undefined {
	if (m.kind === 'extra' || m.kind === 'wrap-root') return undefined;
	const path = touched(m)[0].map(String);
	const hit = used
		.map((p) => p.split('.'))
		.find((p) => p.length === path.length && p.every((seg, i) => seg === '*' || seg === path[i]));
	const last = hit?.[hit.length - 1];
	return last && last !== '*' ? last : undefined;
}

/** Applies the mutations and checks the property; false when none of them applied to this answer. */
async function holds(
	shape: Shape,
	base: Outcome,
	mutations: Mutation[],
	tally: Tally,
): Promise<boolean> {
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
	const what = `${shape.name}: ${applied.map(describeMutation).join(', ')}`;
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
	try {
		shape.invariant?.(outcome);
	} catch (error) {
		throw new Error(
			`${what}: ${(error as Error).message}, got ${JSON.stringify(outcome).slice(0, 400)}`,
		);
	}
	const used = applied.some((m) => touchesUsed(m, shape.used));
	if (!used) {
		tally.unused++;
		expect({ what, outcome }).toEqual({ what, outcome: base });
		return true;
	}
	tally.used++;
	if (outcome.ok) {
		tally.usedWorking++;
		return true;
	}
	tally.usedNamedError++;
	expect({ what, message: outcome.message }).toEqual({
		what,
		message: expect.not.stringMatching(GENERIC),
	});
	expect({ what, message: outcome.message }).toEqual({
		what,
		message: expect.stringMatching(shape.words),
	});
	// an answer that worked, broken by one member: the failure names that member
	const hit = applied.length === 1 && base.ok ? memberHit(applied[0], shape.used) : undefined;
	if (hit)
		expect({ what, message: outcome.message }).toEqual({
			what,
			message: expect.stringContaining(hit),
		});
	return true;
}

afterAll(() => {
	const rows = [...tallies].map(
		([name, t]) =>
			`  ${name.padEnd(44)} ${String(t.exhaustive + t.random).padStart(6)}  (${t.exhaustive} exhaustive + ${t.random} random; ` +
			`${t.unused} unused: no change; ${t.used} used: ${t.usedWorking} working, ${t.usedNamedError} named errors)`,
	);
	const total = [...tallies.values()].reduce((sum, t) => sum + t.exhaustive + t.random, 0);
	process.stdout.write(
		[
			'Mutations per answer shape (test/property):',
			...rows,
			`  ${'in all'.padEnd(44)} ${String(total).padStart(6)}`,
			'',
		].join('\n'),
	);
});

describe.each(SHAPES.map((shape) => [shape.name, shape] as const))('%s', (name, shape) => {
	const tally: Tally = {
		exhaustive: 0,
		random: 0,
		unused: 0,
		used: 0,
		usedWorking: 0,
		usedNamedError: 0,
	};
	tallies.set(name, tally);
	let base: Outcome;

	beforeAll(async () => {
		base = await shape.run(shape.answer, []);
	});

	test(`the answer as the sandbox gives it: ${shape.refusal ? 'a refusal' : 'read'}`, () => {
		expect(base.ok).toBe(!shape.refusal);
		shape.invariant?.(base);
	});

	test('every single mutation of every member', async () => {
		for (const m of mutationsOf(shape.answer)) {
			if (await holds(shape, base, [m], tally)) tally.exhaustive++;
		}
		expect(tally.exhaustive).toBeGreaterThan(50);
	});

	test(`${RANDOM_RUNS} random mutations, one to three at once`, async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(mutationArbitrary(shape.answer), { minLength: 1, maxLength: 3 }),
				async (ms) => {
					if (await holds(shape, base, ms, tally)) tally.random++;
				},
			),
			{ numRuns: RANDOM_RUNS, seed: 22 },
		);
		expect(tally.random).toBeGreaterThan(RANDOM_RUNS / 2);
	});
});
