// The per-process claim on event ids (trigger/recent.ts), branch by branch. Each test uses its own trigger key:
// the memory is module state, as it is in an n8n process.
import {
	attachList,
	claimInProcess,
	mergeSeen,
	settleInProcess,
	startedInProcess,
	type SeenList,
} from '../../nodes/Captioning/trigger/recent';

let n = 0;
const key = () => `wf:${++n}`;
const notAnswered = () => undefined;

describe('claimInProcess and settleInProcess', () => {
	test('the first request owns a new id; a copy meanwhile sees it starting', () => {
		const k = key();
		expect(claimInProcess(k, 'e1', 100, notAnswered)).toEqual({ state: 'new' });
		expect(claimInProcess(k, 'e1', 100, notAnswered)).toMatchObject({ state: 'starting' });
	});

	test('a successful start makes later copies duplicates, and tells the waiting copy', async () => {
		const k = key();
		claimInProcess(k, 'e1', 100, notAnswered);
		const copy = claimInProcess(k, 'e1', 100, notAnswered);
		settleInProcess(k, 'e1', true);
		if (copy.state !== 'starting') throw new Error('expected starting');
		await expect(copy.settled).resolves.toBe(true);
		expect(claimInProcess(k, 'e1', 101, notAnswered)).toEqual({ state: 'started' });
		expect(startedInProcess(k, 10)).toEqual([['e1', 100]]);
	});

	test('a failed start is forgotten, so the redelivery owns the id again', async () => {
		const k = key();
		claimInProcess(k, 'e1', 100, notAnswered);
		const copy = claimInProcess(k, 'e1', 100, notAnswered);
		settleInProcess(k, 'e1', false);
		if (copy.state !== 'starting') throw new Error('expected starting');
		await expect(copy.settled).resolves.toBe(false);
		expect(claimInProcess(k, 'e1', 101, notAnswered)).toEqual({ state: 'new' });
		expect(startedInProcess(k, 10)).toEqual([]);
	});

	test('an owner whose answer went out while nobody settled it is read from its response', () => {
		const k = key();
		claimInProcess(k, 'ok', 100, () => true);
		claimInProcess(k, 'bad', 100, () => false);
		expect(claimInProcess(k, 'ok', 100, notAnswered)).toEqual({ state: 'started' });
		expect(claimInProcess(k, 'bad', 100, notAnswered)).toEqual({ state: 'new' });
	});

	test('a started id is forgotten after the TTL (24 h)', () => {
		const k = key();
		claimInProcess(k, 'e1', 100, notAnswered);
		settleInProcess(k, 'e1', true);
		expect(claimInProcess(k, 'e1', 100 + 24 * 60 * 60, notAnswered)).toEqual({ state: 'new' });
	});

	test('settling an id nobody claimed changes nothing', () => {
		const k = key();
		settleInProcess(k, 'ghost', true);
		expect(startedInProcess(k, 10)).toEqual([]);
	});

	test('ids that start are added to the lists of requests still starting (against lost updates)', () => {
		const k = key();
		claimInProcess(k, 'slow', 100, notAnswered);
		const slowList: SeenList = [['slow', 100]];
		attachList(k, 'slow', slowList);
		claimInProcess(k, 'fast', 101, notAnswered);
		settleInProcess(k, 'fast', true);
		expect(slowList).toEqual([
			['slow', 100],
			['fast', 101],
		]);
	});

	test('startedInProcess keeps the newest ids up to the limit', () => {
		const k = key();
		for (const [id, at] of [
			['a', 1],
			['b', 2],
			['c', 3],
		] as const) {
			claimInProcess(k, id, at, notAnswered);
			settleInProcess(k, id, true);
		}
		expect(startedInProcess(k, 2)).toEqual([
			['b', 2],
			['c', 3],
		]);
	});
});

describe('mergeSeen', () => {
	test('one list without repeats (earliest time kept), oldest first, at most the limit', () => {
		expect(
			mergeSeen(
				[
					['a', 5],
					['b', 2],
				],
				[
					['a', 3],
					['c', 9],
				],
				10,
			),
		).toEqual([
			['b', 2],
			['a', 3],
			['c', 9],
		]);
		expect(
			mergeSeen(
				[['a', 1]],
				[
					['b', 2],
					['c', 3],
				],
				2,
			),
		).toEqual([
			['b', 2],
			['c', 3],
		]);
	});
});
