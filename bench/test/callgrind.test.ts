// Item 9's instruction counts (bench/lib/callgrind.ts): callgrind's output read, and a real Node under valgrind
// counted by dumps around known work.
//   npm test -- --selectProjects bench
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	Callgrind,
	callgrindCommand,
	countedOf,
	dumpFilesOf,
	totalInstructions,
} from '../lib/callgrind';

describe('totalInstructions', () => {
	it("reads the totals line of a dump, or an older file's summary line", () => {
		const dump =
			'version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nfn=(1) main\n3 12\ntotals: 4567\n';
		expect(totalInstructions(dump)).toBe(4567);
		expect(totalInstructions('events: Ir\nsummary: 89\n')).toBe(89);
	});

	it('refuses a file without either line (a dump still being written)', () => {
		expect(() => totalInstructions('version: 1\nevents: Ir\nfn=(1) main\n3 12\n')).toThrow(
			/no totals/,
		);
	});
});

describe('dumpFilesOf', () => {
	const names = [
		'callgrind.41.out.2-01',
		'callgrind.41.out.2-07',
		'callgrind.41.out.12-01',
		'callgrind.41.out.1-01',
		'callgrind.411.out.2-01',
		'callgrind.41.out.2-01.tmp',
		'callgrind.41.out',
	];

	it("keeps the files of one dump of one process, with each file's thread", () => {
		expect(dumpFilesOf(names, 41, 2)).toEqual([
			{ name: 'callgrind.41.out.2-01', thread: 1 },
			{ name: 'callgrind.41.out.2-07', thread: 7 },
		]);
		expect(dumpFilesOf(names, 41, 12)).toEqual([{ name: 'callgrind.41.out.12-01', thread: 1 }]);
		expect(dumpFilesOf(names, 411, 2)).toEqual([{ name: 'callgrind.411.out.2-01', thread: 1 }]);
		expect(dumpFilesOf(names, 41, 3)).toEqual([]);
	});
});

describe('countedOf', () => {
	it('sums the threads and keeps the main thread (1) apart', () => {
		expect(
			countedOf([
				{ thread: 3, instructions: 5 },
				{ thread: 1, instructions: 100 },
				{ thread: 2, instructions: 20 },
			]),
		).toEqual({ all: 125, main: 100 });
		expect(countedOf([{ thread: 2, instructions: 7 }])).toEqual({ all: 7, main: 0 });
	});
});

const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;
const withValgrind = hasValgrind ? describe : describe.skip;
if (!hasValgrind)
	console.warn('valgrind is not installed: the callgrind test against a real Node is skipped');

// A Node that does `work <n>` (n units of the same computation) on each line it reads, and answers `done`.
const WORKER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const unit = () => { let s = 0; for (let i = 0; i < 20000; i++) s += JSON.stringify({ i, t: 'x' + i }).length; return s; };
rl.on('line', (line) => {
	const n = Number(line.split(' ')[1]);
	let s = 0;
	for (let k = 0; k < n; k++) s += unit();
	process.stdout.write('done ' + s + '\\n');
});
process.stdout.write('ready\\n');
`;

withValgrind('Callgrind against a real Node under valgrind', () => {
	jest.setTimeout(180_000);
	let dir: string;
	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), 'callgrind-test-'));
	});
	afterAll(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	it('counts the instructions between dumps: three times the work, about three times the count', async () => {
		const [command, ...args] = [...callgrindCommand(dir), process.execPath, '-e', WORKER];
		const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
		const lines: string[] = [];
		child.stdout
			.setEncoding('utf8')
			.on('data', (chunk: string) => lines.push(...chunk.split('\n')));
		const waitFor = async (prefix: string, count: number) => {
			while (lines.filter((l) => l.startsWith(prefix)).length < count) {
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
		};
		try {
			await waitFor('ready', 1);
			const callgrind = new Callgrind(child.pid!, dir);
			// warm: the unit's code compiled before anything is counted
			child.stdin.write('work 3\n');
			await waitFor('done', 1);
			await callgrind.instrument(true);
			await callgrind.dump();
			child.stdin.write('work 1\n');
			await waitFor('done', 2);
			const once = await callgrind.dump();
			child.stdin.write('work 3\n');
			await waitFor('done', 3);
			const thrice = await callgrind.dump();
			expect(once.main).toBeGreaterThan(0);
			expect(once.all).toBeGreaterThanOrEqual(once.main);
			expect(thrice.main / once.main).toBeGreaterThan(2.5);
			expect(thrice.main / once.main).toBeLessThan(3.5);
		} finally {
			child.kill('SIGKILL');
		}
	});
});
