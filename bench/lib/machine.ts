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

/**
 * The CPU seconds the whole machine has been busy since boot, from /proc/stat's first line (user, nice, system,
 * irq, softirq and steal; idle and iowait are not busy).
 */
export function parseMachineBusy(procStat: string): number | undefined {
	const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
	if (!line) return undefined;
	const [user, nice, system, , , irq, softirq, steal] = line
		.trim()
		.split(/\s+/)
		.slice(1)
		.map(Number);
	const busy = [user, nice, system, irq, softirq, steal ?? 0].reduce((sum, v) => sum + v, 0);
	return Number.isFinite(busy) ? busy / CLOCK_TICKS_PER_SECOND : undefined;
}

/** The machine's busy CPU seconds since boot (NaN where /proc/stat cannot be read). */
export function machineBusySeconds(): number {
	try {
		return parseMachineBusy(readFileSync('/proc/stat', 'utf8')) ?? Number.NaN;
	} catch {
		return Number.NaN;
	}
}

/** This benchmark process's own CPU seconds (the load generator and the sandbox run in it). */
export const ownCpuSeconds = () => {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1e6;
};

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
	/** utime + stime, and the cutime + cstime of children it has reaped, in seconds. */
	cpuSeconds: number;
}

/** One /proc/<pid>/stat line read (fields: proc(5)); undefined when it cannot be read. */
export function parseStat(pid: number, text: string): ProcStat | undefined {
	// the command name is in parentheses and may contain spaces: split after the last ')'
	const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
	// fields[0] is field 3 (state): pgrp is field 5, utime 14, stime 15, cutime 16, cstime 17
	const pgrp = Number(fields[2]);
	// a task runner that ends is reaped by n8n: its CPU moves into n8n's cutime, and stays counted
	const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
	if (!Number.isFinite(pgrp) || !Number.isFinite(ticks)) return undefined;
	return { pid, pgrp, cpuSeconds: ticks / CLOCK_TICKS_PER_SECOND };
}

function readStat(pid: number, path = `/proc/${pid}/stat`): ProcStat | undefined {
	try {
		return parseStat(pid, readFileSync(path, 'utf8'));
	} catch {
		return undefined;
	}
}

function allPids(): number[] {
	return readdirSync('/proc')
		.filter((name) => /^\d+$/.test(name))
		.map(Number);
}

/** The live processes of a process group (n8n's main process and its task runner). */
export function groupPids(pgid: number): number[] {
	return allPids().filter((pid) => readStat(pid)?.pgrp === pgid);
}

/** CPU seconds of the given processes (one that has ended counts nothing: its parent's cutime has it). */
export function cpuSecondsOf(pids: readonly number[]): number {
	return pids.reduce((total, pid) => total + (readStat(pid)?.cpuSeconds ?? 0), 0);
}

/** CPU seconds (user + system, all threads, reaped children included) of every live process in a process group. */
export function processGroupCpuSeconds(pgid: number): number {
	return cpuSecondsOf(groupPids(pgid));
}

/** A CPU reading of a process group: its CPU seconds at a time (epoch ms). */
export interface CpuReading {
	atMs: number;
	cpuSeconds: number;
}

/**
 * Where a series of readings (taken `sampleMs` apart) first shows the group quiet for `quietSamples` intervals in
 * a row: each interval's CPU rate at most `quietRate` (CPU seconds per second). Returns the index of the reading
 * that begins the quiet stretch, or undefined when the series has none.
 */
export function quietFrom(
	readings: readonly CpuReading[],
	quietRate: number,
	quietSamples: number,
): number | undefined {
	let quiet = 0;
	for (let i = 1; i < readings.length; i++) {
		const seconds = (readings[i].atMs - readings[i - 1].atMs) / 1000;
		const rate = seconds > 0 ? (readings[i].cpuSeconds - readings[i - 1].cpuSeconds) / seconds : 0;
		quiet = rate <= quietRate ? quiet + 1 : 0;
		if (quiet >= quietSamples) return i - quietSamples;
	}
	return undefined;
}

/**
 * Waits until the group's CPU falls back to its idle rate (what the last requests left has run: executions, their
 * saves), reading only /proc, so that nothing the benchmark asks n8n adds to the CPU it measures. Returns the
 * reading where the quiet began; throws after `timeoutMs`.
 */
export async function waitForQuiet(
	pids: readonly number[],
	options: { quietRate: number; sampleMs?: number; quietSamples?: number; timeoutMs?: number },
): Promise<CpuReading> {
	const sampleMs = options.sampleMs ?? 200;
	const quietSamples = options.quietSamples ?? 2;
	const deadline = Date.now() + (options.timeoutMs ?? 120_000);
	const readings: CpuReading[] = [{ atMs: Date.now(), cpuSeconds: cpuSecondsOf(pids) }];
	for (;;) {
		await sleep(sampleMs);
		readings.push({ atMs: Date.now(), cpuSeconds: cpuSecondsOf(pids) });
		const from = quietFrom(readings, options.quietRate, quietSamples);
		if (from !== undefined) return readings[from];
		if (Date.now() > deadline) throw new Error(`n8n was not quiet within ${options.timeoutMs} ms`);
		// only the last stretch can still become quiet
		if (readings.length > quietSamples + 1) readings.splice(0, readings.length - quietSamples - 1);
	}
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
