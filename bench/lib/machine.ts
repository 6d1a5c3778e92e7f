// The machine a run happened on, its load, and CPU time of a process group read from /proc.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';

export interface MachineInfo {
	cpuModel: string;
	cores: number;
	memoryGiB: number;
	kernel: string;
	platform: string;
}

export function machineInfo(): MachineInfo {
	const list = cpus();
	return {
		cpuModel: list[0]?.model.trim() ?? 'unknown',
		cores: list.length,
		memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
		kernel: release(),
		platform: `${process.platform}-${process.arch}`,
	};
}

export interface LoadSample {
	at: string;
	/** 1, 5 and 15-minute load averages. */
	load: [number, number, number];
}

export function loadSample(): LoadSample {
	const [one, five, fifteen] = loadavg();
	const r = (v: number) => Math.round(v * 100) / 100;
	return { at: new Date().toISOString(), load: [r(one), r(five), r(fifteen)] };
}

/** A plain wait: its timer keeps the process alive (the quiet-machine wait runs before anything else does). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls the 1-minute load average until it is below `threshold` or `maxMinutes` have passed; returns the last
 * sample and whether the machine became quiet enough.
 */
export async function waitForQuietMachine(
	threshold: number,
	maxMinutes: number,
	log: (line: string) => void,
): Promise<{ sample: LoadSample; quiet: boolean; waitedSeconds: number }> {
	const started = Date.now();
	for (;;) {
		const sample = loadSample();
		const waitedSeconds = Math.round((Date.now() - started) / 1000);
		if (sample.load[0] < threshold) return { sample, quiet: true, waitedSeconds };
		if (Date.now() - started > maxMinutes * 60_000) return { sample, quiet: false, waitedSeconds };
		log(
			`load ${sample.load.join(' ')} (1 min >= ${threshold}); waiting (${waitedSeconds} s so far)`,
		);
		await sleep(30_000);
	}
}

const CLOCK_TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux x86-64 and arm64

interface ProcStat {
	pid: number;
	pgrp: number;
	/** utime + stime in seconds. */
	cpuSeconds: number;
}

function readStat(pid: number, path = `/proc/${pid}/stat`): ProcStat | undefined {
	try {
		const text = readFileSync(path, 'utf8');
		// the command name is in parentheses and may contain spaces: split after the last ')'
		const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
		// fields[0] is field 3 (state): pgrp is field 5, utime 14, stime 15
		const pgrp = Number(fields[2]);
		const ticks = Number(fields[11]) + Number(fields[12]);
		return { pid, pgrp, cpuSeconds: ticks / CLOCK_TICKS_PER_SECOND };
	} catch {
		return undefined;
	}
}

function allPids(): number[] {
	return readdirSync('/proc')
		.filter((name) => /^\d+$/.test(name))
		.map(Number);
}

/** CPU seconds (user + system, all threads) of every live process in a process group. */
export function processGroupCpuSeconds(pgid: number): number {
	let total = 0;
	for (const pid of allPids()) {
		const stat = readStat(pid);
		if (stat && stat.pgrp === pgid) total += stat.cpuSeconds;
	}
	return total;
}

/** The pid of the process whose command line contains `needle` (the harness's n8n: its watchdog path). */
export function findPidByCommandLine(needle: string): number | undefined {
	for (const pid of allPids()) {
		if (pid === process.pid) continue;
		try {
			const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
			if (cmdline.some((part) => part.includes(needle))) return pid;
		} catch {
			// gone meanwhile
		}
	}
	return undefined;
}

/**
 * CPU seconds of each thread of `pid`, summed by thread name (`/proc/<pid>/task/<tid>/comm`: the main thread
 * carries the process name, libuv's pool `libuv-worker`, V8's helpers `V8 DefaultWorke`...).
 */
export function threadCpuSeconds(pid: number): Record<string, number> {
	const byName: Record<string, number> = {};
	let tids: string[] = [];
	try {
		tids = readdirSync(`/proc/${pid}/task`);
	} catch {
		return byName;
	}
	for (const tid of tids) {
		try {
			const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
			const stat = readStat(Number(tid), `/proc/${pid}/task/${tid}/stat`);
			const key = Number(tid) === pid ? `main thread (${name})` : name;
			if (stat) byName[key] = (byName[key] ?? 0) + stat.cpuSeconds;
		} catch {
			// the thread ended meanwhile
		}
	}
	return byName;
}
