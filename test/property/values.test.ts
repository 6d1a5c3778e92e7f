// Values, not only shapes (issue 39): for every answer and delivery shape, answers built from generated values
// (valueShapes.ts) must decode to exactly what the model (model.ts, written from the contract) computes from the
// same values, field by field; a warning, note or error only where the model says one is due, naming its field.
// The counts per shape are printed at the end: answers that decoded exactly, that gave a named warning or error,
// and that decoded to another value (always 0: one fails the suite).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import fc from 'fast-check';

import { httpDate, type HttpDateForm } from './generate';
import { retryAfterMs } from './model';
import { judgeValues, newValueTally, type ValueTally, valueTallyLine } from './oracle';
import { VALUE_SHAPES } from './valueShapes';

/** Generated answers per shape (CAPTIONING_PROPERTY_RUNS for a longer run). */
const RUNS = Number(process.env.CAPTIONING_PROPERTY_RUNS ?? 300);
const SEED = Number(process.env.CAPTIONING_PROPERTY_SEED ?? 39);

const tallies = new Map<string, ValueTally>();

afterAll(() => {
	process.stdout.write(
		[
			'Generated answers per shape, judged against the model of the contract (test/property/values.test.ts):',
			...[...tallies].map(([name, t]) => valueTallyLine(name, t)),
			'',
		].join('\n'),
	);
});

describe.each(VALUE_SHAPES.map((shape) => [shape.name, shape] as const))('%s', (name, shape) => {
	const tally = newValueTally();
	tallies.set(name, tally);

	test(`${RUNS} generated answers decode to the model's values`, async () => {
		await fc.assert(
			fc.asyncProperty(shape.values, async (values) => {
				tally.answers++;
				const { outcome, predicted } = await shape.check(values);
				const text = JSON.stringify(outcome);
				for (const secret of shape.secrets) {
					if (text.includes(secret)) throw new Error(`a secret shows in ${text.slice(0, 300)}`);
				}
				try {
					tally[judgeValues(predicted, outcome, shape.names, name)]++;
				} catch (error) {
					tally.other++;
					throw error;
				}
			}),
			{ numRuns: RUNS, seed: SEED },
		);
		expect(tally.other).toBe(0);
	});
});

// A jest worker cannot change its time zone (process.env.TZ there is a copy): a child process can, between reads
test('an HTTP date in Retry-After means the same in every time zone n8n may run in', () => {
	const NOW = Date.parse('2026-01-01T00:00:00Z');
	const zones = ['UTC', 'America/New_York', 'Asia/Tokyo', 'Pacific/Chatham'];
	const sample = fc.sample(
		fc.tuple(
			fc.integer({ min: -100, max: 120 }),
			fc.constantFrom<HttpDateForm>('imf', 'rfc850', 'asctime'),
		),
		{ numRuns: 60, seed: SEED },
	);
	const dates = sample.map(([seconds, form]) => httpDate(NOW + seconds * 1000, form));
	const script = `
		const { readRetryAfter } = require(${JSON.stringify(join(__dirname, '../../nodes/Captioning/shared/schemas.ts'))});
		const { dates, zones, now } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
		const read = zones.map((zone) => { process.env.TZ = zone; return dates.map((d) => readRetryAfter(d, now)); });
		process.stdout.write(JSON.stringify(read));`;
	const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
		input: JSON.stringify({ dates, zones, now: NOW }),
		encoding: 'utf8',
	});
	expect(child.stderr).toBe('');
	const expected = sample.map(([seconds]) =>
		retryAfterMs({ kind: 'date', atMs: NOW + seconds * 1000 }, NOW),
	);
	expect(JSON.parse(child.stdout)).toEqual(zones.map(() => expected));
});
