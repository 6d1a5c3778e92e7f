// The list of started event ids in the trigger's static data (trigger/dedupe/storedList.ts), branch by branch.
import {
	appendSeen,
	ENTRY_CHARS,
	eventHash,
	HASH_CHARS,
	hasSeen,
	mergeSeen,
	minuteOf,
	readStoredSeen,
	SEEN_LIMIT,
	SEEN_TTL_MINUTES,
	seenCount,
	seenEntry,
	storedFingerprint,
	trimSeen,
} from '../../nodes/Captioning/trigger/dedupe/storedList';

const NOW = 29_000_000; // minutes since 1970, late 2025
const entry = (id: string, minute = NOW) => seenEntry(eventHash(id), minute);
const list = (...entries: string[]) => entries.join('');

describe('entries', () => {
	test('fixed width: a 10-character hash and a 5-character minute', () => {
		expect(eventHash('e1')).toMatch(/^[\w-]{10}$/);
		expect(eventHash('e1')).toBe(eventHash('e1'));
		expect(eventHash('e1')).not.toBe(eventHash('e2'));
		expect(entry('e1')).toHaveLength(ENTRY_CHARS);
		expect(entry('e1', 0).slice(HASH_CHARS)).toBe('00000');
		expect(minuteOf(60_000 * NOW + 59_999)).toBe(NOW);
	});

	test('1,000 ids take 15 KB', () => {
		const full = Array.from({ length: SEEN_LIMIT }, (_, i) => entry(`id-${i}`)).join('');
		expect(JSON.stringify({ recentEvents: full }).length).toBeLessThan(15_100);
	});
});

describe('hasSeen', () => {
	test('finds a hash at an entry boundary only', () => {
		const l = list(entry('a'), entry('b'));
		expect(hasSeen(l, eventHash('a'))).toBe(true);
		expect(hasSeen(l, eventHash('b'))).toBe(true);
		expect(hasSeen(l, eventHash('c'))).toBe(false);
		expect(hasSeen('', eventHash('a'))).toBe(false);
		// the same characters straddling two entries are not an entry
		const straddling = l.slice(HASH_CHARS, HASH_CHARS + HASH_CHARS);
		expect(l.includes(straddling)).toBe(true);
		expect(hasSeen(l, straddling)).toBe(false);
	});

	test('a hash found off the boundary first is still found on it', () => {
		const hash = eventHash('target');
		// an entry whose minute characters continue its hash into the target's hash, at offset 5
		const decoy = 'xxxxx' + hash;
		expect(decoy).toHaveLength(ENTRY_CHARS);
		expect(hasSeen(decoy, hash)).toBe(false);
		expect(hasSeen(decoy + entry('target'), hash)).toBe(true);
	});
});

describe('appendSeen and trimSeen', () => {
	test('adds at the end, once', () => {
		const one = appendSeen('', entry('a'), NOW);
		expect(one).toBe(entry('a'));
		expect(appendSeen(one, entry('a', NOW + 5), NOW)).toBe(one);
		expect(appendSeen(one, entry('b'), NOW)).toBe(list(entry('a'), entry('b')));
	});

	test('keeps the newest SEEN_LIMIT', () => {
		let l = '';
		for (let i = 0; i < 5; i++) l = appendSeen(l, entry(`id-${i}`), NOW, 3);
		expect(l).toBe(list(entry('id-2'), entry('id-3'), entry('id-4')));
	});

	test('drops entries older than a day', () => {
		const old = entry('old', NOW - SEEN_TTL_MINUTES);
		const fresh = entry('fresh', NOW - SEEN_TTL_MINUTES + 1);
		expect(trimSeen(list(old, fresh), NOW)).toBe(fresh);
		expect(trimSeen(list(old), NOW)).toBe('');
		expect(trimSeen(list(fresh), NOW)).toBe(fresh);
	});
});

describe('mergeSeen', () => {
	test('one list, each hash once with its earliest minute, oldest first', () => {
		const merged = mergeSeen(
			list(entry('a', NOW - 5), entry('c', NOW - 1)),
			list(entry('b', NOW - 3), entry('a', NOW - 2), entry('d', NOW)),
			NOW,
		);
		expect(merged).toBe(
			list(entry('a', NOW - 5), entry('b', NOW - 3), entry('c', NOW - 1), entry('d', NOW)),
		);
	});

	test('at most the limit, the newest kept; expired entries dropped', () => {
		expect(
			mergeSeen(
				list(entry('old', NOW - SEEN_TTL_MINUTES), entry('a', NOW - 2)),
				list(entry('b', NOW - 1), entry('c', NOW)),
				NOW,
				2,
			),
		).toBe(list(entry('b', NOW - 1), entry('c', NOW)));
	});

	test('an empty or identical side is a trim of the other', () => {
		const l = list(entry('old', NOW - SEEN_TTL_MINUTES), entry('a'));
		expect(mergeSeen('', l, NOW)).toBe(entry('a'));
		expect(mergeSeen(l, '', NOW)).toBe(entry('a'));
		expect(mergeSeen(l, l, NOW)).toBe(entry('a'));
	});
});

describe('readStoredSeen', () => {
	test('a list is taken as it is; a string of another length is no list', () => {
		const l = list(entry('a'), entry('b'));
		expect(readStoredSeen(l, NOW)).toBe(l);
		expect(readStoredSeen(l + 'x', NOW)).toBe('');
		expect(readStoredSeen('', NOW)).toBe('');
	});

	test('the array an earlier version kept is converted, oldest first, expired ones dropped', () => {
		const seconds = (minute: number) => minute * 60 + 30;
		expect(
			readStoredSeen(
				[
					['b', seconds(NOW - 1)],
					['a', seconds(NOW - 2)],
					['old', seconds(NOW - SEEN_TTL_MINUTES - 1)],
					'garbage',
					['x'],
					[1, 2],
					['b', seconds(NOW)],
				],
				NOW,
			),
		).toBe(list(entry('a', NOW - 2), entry('b', NOW - 1)));
	});

	test('anything else is no list', () => {
		for (const value of [undefined, null, 42, { a: 1 }])
			expect(readStoredSeen(value, NOW)).toBe('');
	});
});

describe('storedFingerprint', () => {
	test('a list is its own; an array is known by its length and ends; anything else has none', () => {
		expect(storedFingerprint('abc')).toBe('abc');
		expect(
			storedFingerprint([
				['a', 1],
				['b', 2],
			]),
		).toBe(
			storedFingerprint([
				['a', 9],
				['b', 9],
			]),
		);
		expect(
			storedFingerprint([
				['a', 1],
				['b', 2],
			]),
		).not.toBe(
			storedFingerprint([
				['a', 1],
				['c', 2],
			]),
		);
		expect(storedFingerprint([])).toBe('legacy:0::');
		expect(storedFingerprint(undefined)).toBeUndefined();
		expect(storedFingerprint({})).toBeUndefined();
	});
});

describe('seenCount', () => {
	test('counts whole entries', () => {
		expect(seenCount('')).toBe(0);
		expect(seenCount(list(entry('a'), entry('b')))).toBe(2);
	});
});
