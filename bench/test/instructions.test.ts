// Item 9's figures (bench/measure/instructions.ts): the idle rate taken off each window, and the paired ratios, one
// per round in which both of the goal's targets ran.
//   npm test -- --selectProjects bench
import {
	type InstructionRun,
	instructionRatios,
	medianIdleRate,
	perRequest,
} from '../measure/instructions';

/** A run whose window counted `all`/`main` per request, with no idle instructions. */
const run = (
	round: number,
	target: InstructionRun['target'],
	all: number,
	main: number,
): InstructionRun => ({
	round,
	target,
	requests: 24,
	counted: { all: all * 24, main: main * 24 },
	windowSeconds: 30,
	idleSample: { all: 0, main: 0, seconds: 6 },
});

describe('medianIdleRate and perRequest', () => {
	const withIdle = (allPerSecond: number, mainPerSecond: number, seconds = 5): InstructionRun => ({
		...run(1, 'ours', 40e6, 30e6),
		idleSample: { all: allPerSecond * seconds, main: mainPerSecond * seconds, seconds },
	});

	it('takes the median rate of the idle samples, so that one caught by a periodic task weighs nothing', () => {
		const runs = [
			withIdle(1e6, 0.5e6),
			withIdle(50e6, 40e6),
			withIdle(2e6, 1e6, 10),
			withIdle(3e6, 1.5e6),
		];
		expect(medianIdleRate(runs)).toEqual({ all: 2.5e6, main: 1.25e6 });
		expect(medianIdleRate([])).toEqual({ all: 0, main: 0 });
	});

	it("takes the idle rate's share of the window off the window's count, per request", () => {
		const r = run(1, 'ours', 40e6, 30e6);
		expect(perRequest(r, { all: 0, main: 0 })).toEqual({ all: 40e6, main: 30e6 });
		// 30 s at 2 M/s = 60 M over 24 requests = 2.5 M each
		expect(perRequest(r, { all: 2e6, main: 1e6 })).toEqual({ all: 37.5e6, main: 28.75e6 });
	});
});

describe('instructionRatios', () => {
	it("pairs ours with floorCred of the same round: all threads ours ÷ floorCred, the main thread's inverted", () => {
		const runs = [
			run(1, 'floorCred', 40e6, 30e6),
			run(1, 'ours', 42e6, 32e6),
			run(2, 'ours', 38e6, 31e6),
			run(2, 'floorCred', 40e6, 31e6),
		];
		const { cpu, throughput } = instructionRatios(runs);
		expect(cpu).toEqual([42 / 40, 38 / 40]);
		expect(throughput).toEqual([30 / 32, 1]);
	});

	it('leaves out a round that one of the two did not finish, and other targets', () => {
		const runs = [
			run(1, 'ours', 42e6, 32e6),
			run(1, 'floor', 40e6, 30e6),
			run(2, 'ours', 42e6, 32e6),
			run(2, 'floorCred', 21e6, 16e6),
		];
		expect(instructionRatios(runs)).toEqual({ cpu: [2], throughput: [0.5] });
	});
});
