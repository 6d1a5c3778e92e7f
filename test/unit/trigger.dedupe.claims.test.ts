// The per-process claim on event ids (trigger/dedupe/claims.ts), branch by branch. Each test uses its own key:
// the memory is module state, as it is in an n8n process.
import { claimInProcess, settleInProcess } from '../../nodes/Captioning/trigger/dedupe/claims';

let n = 0;
const key = () => `wf:${++n}`;
const notAnswered = () => undefined;
const T = 1_760_000_000_000; // ms
const DAY = 24 * 60 * 60_000;

/** Claims and settles, as the pipeline does for a delivery n8n starts. */
function start(k: string, id: string, at = T) {
	claimInProcess(k, id, at, notAnswered);
	settleInProcess(k, id, true);
}

describe('claimInProcess and settleInProcess', () => {
	test('the first request owns a new id; a copy meanwhile sees it starting', () => {
		const k = key();
		expect(claimInProcess(k, 'e1', T, notAnswered)).toEqual({ state: 'new' });
		expect(claimInProcess(k, 'e1', T, notAnswered)).toMatchObject({ state: 'starting' });
	});

	test('a successful start makes later copies duplicates, and tells the waiting copy', async () => {
		const k = key();
		claimInProcess(k, 'e1', T, notAnswered);
		const waiting = claimInProcess(k, 'e1', T, notAnswered);
		settleInProcess(k, 'e1', true);
		if (waiting.state !== 'starting') throw new Error('expected starting');
		await expect(waiting.settled).resolves.toBe(true);
		expect(claimInProcess(k, 'e1', T + 1000, notAnswered)).toEqual({ state: 'started' });
	});

	test('a failed start is forgotten, so the redelivery owns the id again', async () => {
		const k = key();
		claimInProcess(k, 'e1', T, notAnswered);
		const waiting = claimInProcess(k, 'e1', T, notAnswered);
		settleInProcess(k, 'e1', false);
		if (waiting.state !== 'starting') throw new Error('expected starting');
		await expect(waiting.settled).resolves.toBe(false);
		expect(claimInProcess(k, 'e1', T + 1000, notAnswered)).toEqual({ state: 'new' });
	});

	test('an owner whose answer went out while nobody settled it is read from its response', () => {
		const k = key();
		claimInProcess(k, 'ok', T, () => true);
		claimInProcess(k, 'bad', T, () => false);
		expect(claimInProcess(k, 'ok', T, notAnswered)).toEqual({ state: 'started' });
		expect(claimInProcess(k, 'bad', T, notAnswered)).toEqual({ state: 'new' });
	});

	test('a start unanswered for 5 minutes counts as failed', () => {
		const k = key();
		claimInProcess(k, 'e1', T, notAnswered);
		expect(claimInProcess(k, 'e1', T + 5 * 60_000, notAnswered)).toMatchObject({
			state: 'starting',
		});
		expect(claimInProcess(k, 'e1', T + 5 * 60_000 + 1, notAnswered)).toEqual({ state: 'new' });
	});

	test('a started id is forgotten after 24 hours', () => {
		const k = key();
		start(k, 'e1');
		expect(claimInProcess(k, 'e1', T + DAY - 1, notAnswered)).toEqual({ state: 'started' });
		expect(claimInProcess(k, 'e1', T + DAY, notAnswered)).toEqual({ state: 'new' });
	});

	test('each key is its own memory: test and production URLs do not share ids', () => {
		const k = key();
		start(k, 'e1');
		expect(claimInProcess(`${k}:other`, 'e1', T, notAnswered)).toEqual({ state: 'new' });
	});

	test('settling an id nobody claimed changes nothing', () => {
		const k = key();
		settleInProcess(k, 'ghost', true);
		expect(claimInProcess(k, 'ghost', T, notAnswered)).toEqual({ state: 'new' });
	});
});

describe('how many ids a trigger remembers', () => {
	test('10,000 per registration, the newest: the oldest is forgotten first', () => {
		const k = key();
		for (let i = 0; i < 10_001; i++) start(k, `id-${i}`);
		expect(claimInProcess(k, 'id-0', T, notAnswered)).toEqual({ state: 'new' });
		expect(claimInProcess(k, 'id-2', T, notAnswered)).toEqual({ state: 'started' });
		expect(claimInProcess(k, 'id-10000', T, notAnswered)).toEqual({ state: 'started' });
	});
});
