// The sabotage table (issue 39), on demand, never in npm test:
//   npx tsx test/property/sabotage/run.ts [id ...]
// Copies the checkout into a temporary folder (node_modules linked, not copied), applies each sabotage of
// sabotages.ts there alone, runs the property suite (jest, test/property) in the copy, and prints which tests
// failed: every sabotage must fail it. The checkout itself is never written. Exits 1 when a sabotage does not
// apply, does not compile, or leaves the suite green.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { type Sabotage, SABOTAGES } from './sabotages';

const ROOT = join(__dirname, '..', '..', '..');
const SKIP = new Set(['node_modules', '.git', 'dist', '.tmp', 'test-results', 'coverage']);

interface JestReport {
	numFailedTests: number;
	numRuntimeErrorTestSuites: number;
	testResults: Array<{
		message: string;
		assertionResults: Array<{ status: string; fullName: string }>;
	}>;
}

type Result =
	| { kind: 'caught'; tests: string[] }
	| { kind: 'green' | 'not-applied' | 'not-compiled'; detail: string };

function copyCheckout(): string {
	const copy = mkdtempSync(join(tmpdir(), 'captioning-sabotage-'));
	cpSync(ROOT, copy, {
		recursive: true,
		filter: (source) => !SKIP.has(relative(ROOT, source).split('/')[0]),
	});
	symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
	return copy;
}

function apply(copy: string, sabotage: Sabotage): string | undefined {
	const path = join(copy, sabotage.file);
	let text = readFileSync(path, 'utf8');
	for (const { find, replace } of sabotage.edits) {
		const count = text.split(find).length - 1;
		if (count !== 1) return `"${find.slice(0, 60)}" occurs ${count} times in ${sabotage.file}`;
		text = text.replace(find, () => replace);
	}
	writeFileSync(path, text);
	return undefined;
}

function runSuite(copy: string): JestReport {
	const output = join(copy, '.sabotage-report.json');
	spawnSync(
		process.execPath,
		[
			join(copy, 'node_modules', 'jest', 'bin', 'jest.js'),
			'--ci',
			'--json',
			'--outputFile',
			output,
			'test/property',
		],
		{ cwd: copy, stdio: 'ignore', env: { ...process.env, CI: 'true' } },
	);
	return JSON.parse(readFileSync(output, 'utf8')) as JestReport;
}

/** A failing test as the table names it: which suite, and the shape or case. */
function shortName(fullName: string): string {
	const flow =
		/^(Create|Get Many|Get|a refused Create|a rate-limited Create) through the real helpers|^deliveries through webhook\(\) in the real WebhookContext/;
	if (flow.test(fullName)) return `flow: ${fullName.match(flow)![0]}`;
	const value = / \d+ generated answers decode to the model's values$/;
	const mutation =
		/ (every single mutation of every member|\d+ random mutations, one to three at once)$/;
	if (value.test(fullName)) return `values: ${fullName.replace(value, '')}`;
	if (mutation.test(fullName)) return `mutations: ${fullName.replace(mutation, '')}`;
	return fullName;
}

function judge(report: JestReport): Result {
	const crashed = report.testResults.filter((r) =>
		/Test suite failed to run|TS\d{4}/.test(r.message),
	);
	if (crashed.length) return { kind: 'not-compiled', detail: crashed[0].message.slice(0, 300) };
	const failed = report.testResults.flatMap((r) =>
		r.assertionResults.filter((a) => a.status === 'failed').map((a) => shortName(a.fullName)),
	);
	return failed.length
		? { kind: 'caught', tests: failed }
		: { kind: 'green', detail: 'no test failed' };
}

function main() {
	const wanted = new Set(process.argv.slice(2).map(Number));
	const chosen = SABOTAGES.filter((s) => wanted.size === 0 || wanted.has(s.id));
	const copy = copyCheckout();
	// a run stopped from outside leaves no copy behind
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			rmSync(copy, { recursive: true, force: true });
			process.exit(1);
		});
	}
	let bad = 0;
	try {
		const clean = judge(runSuite(copy));
		if (clean.kind !== 'green') {
			console.log(
				`The suite is not green without a sabotage: ${JSON.stringify(clean).slice(0, 500)}`,
			);
			process.exit(1);
		}
		console.log('| # | Sabotage | Fails the property suite at |');
		console.log('|---|---|---|');
		for (const sabotage of chosen) {
			const original = readFileSync(join(copy, sabotage.file), 'utf8');
			const problem = apply(copy, sabotage);
			const result: Result = problem
				? { kind: 'not-applied', detail: problem }
				: judge(runSuite(copy));
			writeFileSync(join(copy, sabotage.file), original);
			// each suite's test named once: a shape's exhaustive and random runs are one line
			const tests = result.kind === 'caught' ? [...new Set(result.tests)] : [];
			const more = tests.length > 3;
			const cell =
				result.kind === 'caught'
					? `${tests.slice(0, 3).join('; ')}${more ? ` (and ${tests.length - 3} more)` : ''}`
					: `**${result.kind}**: ${result.detail.replace(/\s+/g, ' ')}`;
			if (result.kind !== 'caught') bad++;
			const escape = (text: string) => text.replace(/\|/g, '\\|');
			console.log(`| ${sabotage.id} | ${escape(sabotage.what)} | ${escape(cell)} |`);
		}
	} finally {
		rmSync(copy, { recursive: true, force: true });
	}
	process.exit(bad ? 1 : 0);
}

main();
