// Item 8's paired ratios (bench/measure/instructions.ts): one per round in which both of the goal's targets ran.
//   npm test -- --selectProjects bench
import { type InstructionRun, instructionRatios } from '../measure/instructions';

const run = (
	round: number,
	target: InstructionRun['target'],
	all: number,
	main: number,
): InstructionRun => ({
	round,
	target,
	requests: 24,
	instructionsPerRequest: all,
	mainThreadInstructionsPerRequest: main,
	counted: { all: all * 24, main: main * 24 },
	windowSeconds: 30,
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
