// The trigger's one door: what CaptioningTrigger.node.ts wires into n8n, and what the benchmark measures.
// Nothing outside trigger/ imports a file behind it. docs/design.md ("A delivery's way") walks the stages.

// webhookMethods: the registration's lifecycle
export { checkExists, create, remove } from './lifecycle';
export { readRegistration } from './registration';
export { manualSecret, SECRET_CREDENTIAL } from './manualSecret';

// webhook(): one delivery, one decision, then the files to fetch after answering
export { parsedByN8n, readRawBody, readDeliveryBody } from './body';
export { attachDownloads, DOWNLOAD_BUDGET_MS, downloadPolicy } from './downloads';
export { DEFAULT_MAX_FILE_MB, maxBytesFrom } from '../transport/download';
export { allowedHostsProperty } from '../transport/addressPolicy';
export { n8nResolver } from '../transport/outbound';
export { flattenEvent, validateEvent } from './event';
export {
	type Clock,
	type Delivery,
	receiveDelivery,
	receiveNow,
	type TriggerOptions,
} from './pipeline';
export {
	checkToken,
	givenToken,
	hashToken,
	OPEN_MANUAL_WARNING,
	SECRET_REQUIRED_FROM_VERSION,
	secretTokenProblem,
	TOKEN_PARAMETER,
	TOKEN_ROUTE,
} from './token';

// exactly once: the in-process claims (a delivery writes nothing into the static data)
export { claimInProcess, settleInProcess } from './dedupe/claims';
export { type DedupeAccess, dedupeKey, dropEventLists, EARLIER_EVENT_LISTS } from './dedupe/staticData';
