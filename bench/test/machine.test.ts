// How the benchmark reads n8n's CPU time (bench/lib/machine.ts): /proc/<pid>/stat, and where a series of readings
// shows n8n quiet again (the end of a run's CPU window).
//   npm test -- --selectProjects bench
import { parseMachineBusy, parseStat, quietFrom } from '../lib/machine';
import { othersRate, quietRate } from '../measure/throughput';

describe('parseStat', () => {
	// proc(5): pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
	const line = (comm: string) =>
		`4242 (${comm}) S 1 4200 4200 0 -1 4194560 100 0 0 0 250 50 30 20 20 0 12 0 100 0 0`;

	it('reads the process group and utime + stime + cutime + cstime in seconds (100 ticks a second)', () => {
		expect(parseStat(4242, line('node'))).toEqual({ pid: 4242, pgrp: 4200, cpuSeconds: 3.5 });
	});

	it('reads a command name with spaces and parentheses', () => {
		expect(parseStat(4242, line('n8n (task) runner'))).toEqual({
			pid: 4242,
			pgrp: 4200,
			cpuSeconds: 3.5,
		});
	});

	it('refuses a line it cannot read', () => {
		expect(parseStat(1, '1 (x) S 1')).toBeUndefined();
	});
});

describe('quietFrom', () => {
	// readings 200 ms apart; CPU seconds cumulated
	const series = (cpu: number[]) => cpu.map((cpuSeconds, i) => ({ atMs: i * 200, cpuSeconds }));

	it('finds the reading where two quiet intervals in a row begin', () => {
		// busy (0.18 s per 200 ms = 0.9 CPU), then 0.01 s per interval (0.05 CPU) twice
		expect(quietFrom(series([0, 0.18, 0.36, 0.37, 0.38]), 0.1, 2)).toBe(2);
	});

	it('starts over after a busy interval between quiet ones', () => {
		expect(quietFrom(series([0, 0.01, 0.2, 0.21, 0.22]), 0.1, 2)).toBe(2);
		expect(quietFrom(series([0, 0.01, 0.2, 0.21]), 0.1, 2)).toBeUndefined();
	});

	it('counts an interval at the rate as quiet, and nothing without two readings', () => {
		expect(quietFrom(series([0, 0.02, 0.04]), 0.1, 2)).toBe(0);
		expect(quietFrom(series([0]), 0.1, 1)).toBeUndefined();
	});
});

describe('quietRate', () => {
	it('is the idle rate with a margin, and never below two ticks (10 ms of CPU each) per 200 ms sample', () => {
		expect(quietRate(0.01)).toBe(0.1);
		expect(quietRate(0.14)).toBeCloseTo(0.26, 10);
	});
});

describe('parseMachineBusy', () => {
	it('adds user, nice, system, irq, softirq and steal of the first line, in seconds', () => {
		const stat = 'cpu  1000 20 300 5000 70 0 40 10 0 0\ncpu0 500 10 150 2500 35 0 20 5 0 0\n';
		expect(parseMachineBusy(stat)).toBe(13.7);
	});
	it('reads nothing without the summary line', () => {
		expect(parseMachineBusy('cpu0 1 2 3 4\n')).toBeUndefined();
	});
});

describe('othersRate', () => {
	it('is the machine’s busy CPU less n8n’s and this process’s, per second', () => {
		const a = { atMs: 0, machine: 100, n8n: 10, own: 5 };
		const b = { atMs: 2000, machine: 103.5, n8n: 11, own: 5.5 };
		expect(othersRate(a, b)).toBeCloseTo(1, 10);
	});
	it('never below 0 (the readings are not taken at the same instant)', () => {
		const a = { atMs: 0, machine: 100, n8n: 10, own: 5 };
		expect(othersRate(a, { atMs: 1000, machine: 100.5, n8n: 10.6, own: 5 })).toBe(0);
	});
});
