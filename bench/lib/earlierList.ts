// The list of started event ids that earlier versions of the trigger wrote into the static data with every event
// (recentEvents: 1,000 fixed-width entries, 10 characters of the id's SHA-256 and 5 of its minute, base36), for
// the targets that carry one: a floor that shows what n8n's load and save of 15 KB cost, ours as upgraded.
import { createHash, randomUUID } from 'node:crypto';

export const EARLIER_LIST_FIELD = 'recentEvents';
export const EARLIER_LIST_ENTRIES = 1000;
export const EARLIER_ENTRY_CHARS = 15;

/** A list at its limit, every entry of the minute of `nowMs`. */
export function fullSeenList(nowMs: number): string {
	const minute = Math.floor(nowMs / 60_000)
		.toString(36)
		.padStart(5, '0')
		.slice(-5);
	return Array.from(
		{ length: EARLIER_LIST_ENTRIES },
		() => createHash('sha256').update(randomUUID()).digest('base64url').slice(0, 10) + minute,
	).join('');
}

/** Events through ours before it is measured: past the earlier list's limit, as every earlier run primed. */
export const PRIME_EVENTS = Math.ceil(EARLIER_LIST_ENTRIES * 1.1);
