// The per-process claim on event ids and the list it hands to the static data (trigger/dedupe/claims.ts), branch by
// branch. Each test uses its own key: the memory is module state, as it is in an n8n process.
import {
	checkStored,
	claimInProcess,
	settleInProcess,
	shouldSpread,
	SPREAD_INTERVAL_MS,
} from '../../nodes/Captioning/trigger/dedupe/claims';
import {
	eventHash,
	hasSeen,
	minuteOf,
	seenCount,
	seenEntry,
} from '../../nodes/Captioning/trigger/dedupe/storedList';

let n = 0;
const key = () => `wf:${++n}`;
const notAnswered = () => undefined;
const T = 1_760_000_000_000; // ms
const DAY = 24 * 60 * 60_000;
const entry = (id: string, ms = T) => seenEntry(eventHash(id), minuteOf(ms));

/** A request's static data copy: what checkStored wrote into it last. */
function copy() {
	const written: string[] = [];
	return { write: (list: string) => written.push(list), last: () => written[written.length - 1] };
}

/** Claims, checks the stored list and settles, as the pipeline does for a delivery n8n starts. */
function start(k: string, id: string, stored: unknown = undefined, at = T) {
	claimInProcess(k, id, at, notAnswered);
	const c = copy();
	const outcome = checkStored(k, id, stored, at, c.write);
	settleInProcess(k, id, true, at);
	return { outcome, list: c.last() };
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
		settleInProcess(k, 'e1', true, T);
		if (waiting.state !== 'starting') throw new Error('expected starting');
		await expect(waiting.settled).resolves.toBe(true);
		expect(claimInProcess(k, 'e1', T + 1000, notAnswered)).toEqual({ state: 'started' });
	});

	test('a failed start is forgotten, so the redelivery owns the id again', async () => {
		const k = key();
		claimInProcess(k, 'e1', T, notAnswered);
		const waiting = claimInProcess(k, 'e1', T, notAnswered);
		settleInProcess(k, 'e1', false, T);
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
		settleInProcess(k, 'ghost', true, T);
		expect(claimInProcess(k, 'ghost', T, notAnswered)).toEqual({ state: 'new' });
	});
});

describe('checkStored', () => {
	test('a new id: the request’s copy gets the list with its own id', () => {
		const { outcome, list } = start(key(), 'e1');
		expect(outcome).toBe('new');
		expect(list).toBe(entry('e1'));
	});

	test('an id in the stored list started elsewhere', () => {
		const k = key();
		claimInProcess(k, 'e1', T, notAnswered);
		const c = copy();
		expect(checkStored(k, 'e1', entry('e1', T - 60_000), T, c.write)).toBe('seen');
		expect(c.last()).toBeUndefined();
	});

	test('the list an earlier version stored is read too', () => {
		const k = key();
		claimInProcess(k, 'e1', T, notAnswered);
		expect(checkStored(k, 'e1', [['e1', Math.floor(T / 1000) - 60]], T, copy().write)).toBe('seen');
	});

	test('each copy carries every id this process started, and those it read', () => {
		const k = key();
		start(k, 'a', entry('elsewhere', T - 120_000));
		const { list } = start(k, 'b', undefined, T + 60_000);
		expect(list).toBe(entry('elsewhere', T - 120_000) + entry('a') + entry('b', T + 60_000));
	});

	test('an id read once is known afterwards, even from a copy that lacks it', () => {
		const k = key();
		start(k, 'a', entry('elsewhere'));
		claimInProcess(k, 'elsewhere', T, notAnswered);
		expect(checkStored(k, 'elsewhere', '', T, copy().write)).toBe('seen');
	});

	test('ids that start meanwhile are written into the copies of requests still starting', () => {
		const k = key();
		claimInProcess(k, 'slow', T, notAnswered);
		const slow = copy();
		checkStored(k, 'slow', undefined, T, slow.write);
		expect(slow.last()).toBe(entry('slow'));
		start(k, 'fast');
		expect(slow.last()).toBe(entry('fast') + entry('slow'));
		// a failed start writes nothing
		claimInProcess(k, 'failed', T, notAnswered);
		checkStored(k, 'failed', undefined, T, copy().write);
		settleInProcess(k, 'failed', false, T);
		expect(slow.last()).toBe(entry('fast') + entry('slow'));
		// once settled, a request's copy is left alone
		settleInProcess(k, 'slow', true, T);
		const written = slow.last();
		start(k, 'later');
		expect(slow.last()).toBe(written);
	});

	test('under load the copies still starting are rewritten once per interval, then with every id since', () => {
		const k = key();
		claimInProcess(k, 'slow', T, notAnswered);
		const slow = copy();
		checkStored(k, 'slow', undefined, T, slow.write);
		start(k, 'a', undefined, T);
		expect(slow.last()).toBe(entry('a') + entry('slow'));
		// within the interval: the copy is not written again (n8n would save it once more)
		start(k, 'b', undefined, T + SPREAD_INTERVAL_MS - 1);
		expect(slow.last()).toBe(entry('a') + entry('slow'));
		// the next start after it brings the skipped id along
		start(k, 'c', undefined, T + SPREAD_INTERVAL_MS);
		expect(slow.last()).toBe(entry('a') + entry('b') + entry('c') + entry('slow'));
		// every request that begins meanwhile gets the whole list in its own copy all the same
		claimInProcess(k, 'd', T + SPREAD_INTERVAL_MS + 1, notAnswered);
		const d = copy();
		checkStored(k, 'd', undefined, T + SPREAD_INTERVAL_MS + 1, d.write);
		expect(d.last()).toBe(entry('a') + entry('b') + entry('c') + entry('d'));
	});

	test('shouldSpread: only a change, at most once per interval; a clock set back does not stop it', () => {
		expect(shouldSpread(false, SPREAD_INTERVAL_MS * 10)).toBe(false);
		expect(shouldSpread(true, SPREAD_INTERVAL_MS - 1)).toBe(false);
		expect(shouldSpread(true, 0)).toBe(false);
		expect(shouldSpread(true, SPREAD_INTERVAL_MS)).toBe(true);
		expect(shouldSpread(true, Infinity)).toBe(true);
		expect(shouldSpread(true, -5_000)).toBe(true);
	});

	test('a failed start takes its own id out of its copy again', () => {
		const k = key();
		start(k, 'before');
		claimInProcess(k, 'failed', T, notAnswered);
		const c = copy();
		checkStored(k, 'failed', undefined, T, c.write);
		expect(c.last()).toBe(entry('before') + entry('failed'));
		settleInProcess(k, 'failed', false, T);
		expect(c.last()).toBe(entry('before'));
		// the redelivery reads that copy and owns the id
		claimInProcess(k, 'failed', T, notAnswered);
		expect(checkStored(k, 'failed', c.last(), T, copy().write)).toBe('new');
	});

	test('the list holds 1,000 ids at most, the newest', () => {
		const k = key();
		let list = '';
		for (let i = 0; i < 1005; i++) list = start(k, `id-${i}`).list;
		expect(seenCount(list)).toBe(1000);
		expect(hasSeen(list, eventHash('id-4'))).toBe(false);
		expect(hasSeen(list, eventHash('id-5'))).toBe(true);
		expect(hasSeen(list, eventHash('id-1004'))).toBe(true);
	});
});
