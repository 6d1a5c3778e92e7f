// Instructions counted by valgrind's callgrind: the same for the same work whatever else the machine does (a
// shared 2-core machine makes CPU time of the same work vary by half, and events/s more). n8n's main process runs
// under callgrind with instrumentation on from the start of measuring; each dump (callgrind_control) writes the
// instructions executed since the previous dump, one file per thread, and zeroes the counters.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { sleep } from './machine';

const execFileAsync = promisify(execFile);

/**
 * The command n8n's main process runs under: callgrind, instrumentation off until `instrument(true)` (start-up,
 * the package's install and priming run at valgrind's uninstrumented speed), one output file per thread.
 */
export function callgrindCommand(outDir: string): string[] {
	return [
		'valgrind',
		'--tool=callgrind',
		'--instr-atstart=no',
		'--separate-threads=yes',
		`--callgrind-out-file=${join(outDir, 'callgrind.%p.out')}`,
	];
}

/** The instructions (Ir) a callgrind output file counts: its `totals:` line (or `summary:`, older files). */
export function totalInstructions(text: string): number {
	const match = /^(?:totals|summary):\s+(\d+)/m.exec(text);
	if (!match) throw new Error('no totals: or summary: line in the callgrind output');
	return Number(match[1]);
}

/**
 * The files of dump `n` of process `pid`, and the thread each counts (1 is the main thread): callgrind names them
 * `callgrind.<pid>.out.<n>-<thread>` with --separate-threads=yes (the thread part 2 digits or more).
 */
export function dumpFilesOf(
	names: readonly string[],
	pid: number,
	n: number,
): Array<{ name: string; thread: number }> {
	const pattern = new RegExp(`^callgrind\\.${pid}\\.out\\.${n}-(\\d+)$`);
	return names.flatMap((name) => {
		const match = pattern.exec(name);
		return match ? [{ name, thread: Number(match[1]) }] : [];
	});
}

/** Instructions of one dump: all threads, and the main thread (the event loop, which bounds events/s). */
export interface Counted {
	all: number;
	main: number;
}

export function countedOf(files: ReadonlyArray<{ thread: number; instructions: number }>): Counted {
	return {
		all: files.reduce((sum, f) => sum + f.instructions, 0),
		main: files.find((f) => f.thread === 1)?.instructions ?? 0,
	};
}

/** The callgrind of one process: instrumentation switched, counters dumped and read. */
export class Callgrind {
	private dumps = 0;
	constructor(
		readonly pid: number,
		private readonly outDir: string,
	) {}

	private async control(...args: string[]): Promise<void> {
		await execFileAsync('callgrind_control', [...args, String(this.pid)], { timeout: 120_000 });
	}

	async instrument(on: boolean): Promise<void> {
		await this.control(`--instr=${on ? 'on' : 'off'}`);
	}

	/** The instructions since the previous dump (or since instrumentation went on), per thread summed. */
	async dump(): Promise<Counted> {
		const n = ++this.dumps;
		await this.control('--dump');
		// the dump is written by the process itself after the command returns, a file per thread; a file is
		// complete once its totals line is there
		for (let attempt = 0; ; attempt++) {
			const files = dumpFilesOf(await readdir(this.outDir), this.pid, n);
			const read = files.length ? await this.readAll(files) : undefined;
			if (read) return countedOf(read);
			if (attempt > 600)
				throw new Error(`callgrind wrote no complete dump ${n} of process ${this.pid}`);
			await sleep(200);
		}
	}

	private async readAll(
		files: Array<{ name: string; thread: number }>,
	): Promise<Array<{ thread: number; instructions: number }> | undefined> {
		try {
			return await Promise.all(
				files.map(async (f) => ({
					thread: f.thread,
					instructions: totalInstructions(await readFile(join(this.outDir, f.name), 'utf8')),
				})),
			);
		} catch {
			return undefined;
		}
	}
}
