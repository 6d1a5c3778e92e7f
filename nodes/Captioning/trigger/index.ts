// The trigger's one door: what CaptioningTrigger.node.ts wires into n8n, and what the benchmark measures.
// Nothing outside trigger/ imports a file behind it. docs/design.md ("A delivery's way") walks the stages.

// webhookMethods: the registration's lifecycle
export { checkExists, create, remove } from './lifecycle';
export { migrateRegistration } from './registration';

// webhook(): one delivery, one decision, then the files to fetch after answering
export { readRawBody, readDeliveryBody } from './body';
export { attachDownloads, DOWNLOAD_BUDGET_MS } from './downloads';
export { DEFAULT_MAX_FILE_MB, maxBytesFrom } from '../transport/download';
export { flattenEvent, validateEvent } from './event';
export {
	type Clock,
	type Delivery,
	receiveDelivery,
	receiveNow,
	type TriggerOptions,
} from './pipeline';
export { checkToken, hashToken, TOKEN_PARAMETER } from './token';

// exactly once: the in-process claims, and the list of started events kept in the static data
export { checkStored, claimInProcess, settleInProcess } from './dedupe/claims';
export { type DedupeAccess, dedupeKey, SEEN_FIELDS, seenStore } from './dedupe/staticData';
export {
	ENTRY_CHARS,
	eventHash,
	HASH_CHARS,
	minuteOf,
	readStoredSeen,
	SEEN_LIMIT,
	seenCount,
	seenEntry,
} from './dedupe/storedList';
