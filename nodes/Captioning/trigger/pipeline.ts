// The trigger's receive pipeline: from what webhook() read off the request and the node, one decision. The
// order is the order of the questions that can end a delivery: is it ours (token), can it be read (413, 415, 400),
// is it wanted (ignore, before anything else of it is checked), has it an id (400), has it started before
// (duplicate, or a wait while another request of this process starts it), and else the item and the files to fetch.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { readEventType } from '../shared/schemas';
import { checkStored, claimInProcess, settleInProcess } from './recent';
import {
	checkIdBytes,
	checkToken,
	type Download,
	flattenEvent,
	ignoredBecause,
	isSelectedEvent,
	planDownloads,
	type RawBody,
	readDeliveryBody,
	type Rejection,
	removeSecret,
	requiredToken,
	validateEvent,
} from './receive';

export interface TriggerOptions {
	downloadFormats?: string[];
	rawBody?: boolean;
}

/** What webhook() read: the node's parameters, its registration and the request. */
export interface Delivery {
	/** The node's Registration parameter: 'api' or 'manual'. */
	registration: unknown;
	manualToken: unknown;
	/** The stored registration's token hash (registration.ts), for 'api'. */
	registeredTokenHash: string | undefined;
	/** The query's token parameter as n8n parsed it. */
	givenToken: unknown;
	contentType: string | undefined;
	/** The body's bytes, or why there are none (receive.ts). */
	rawBody: RawBody;
	selectedEvents: readonly string[];
	options: TriggerOptions;
}

/** The de-duplication state of one registration, and what tells it that n8n has answered. */
export interface DedupeAccess {
	/** One per registration: workflow, node, and test or production URL (dedupeKey). */
	key: string;
	/** The list in the node's static data (seen.ts), as n8n loaded it for this request. */
	read(): unknown;
	write(list: string): void;
	/** Whether n8n has answered this request with a 2xx; undefined until it has answered. */
	answered(): boolean | undefined;
	/** Calls back once n8n has answered this request, with whether it answered 2xx. */
	onAnswered(listener: (ok: boolean) => void): void;
}

export interface Clock {
	nowMs(): number;
	sleep(ms: number): Promise<void>;
}

export type Decision =
	| { kind: 'reject'; status: Rejection['status']; message: string }
	| { kind: 'ignore'; message: string }
	| { kind: 'duplicate' }
	| {
			kind: 'start';
			/** The execution's one item: no callback token anywhere in it. */
			item: INodeExecutionData;
			/** Files to fetch after answering (Download Caption Files); empty: n8n answers. */
			downloads: Download[];
	  };

/** A copy of an event that another request of this process is starting, until that start settles. */
export interface Pending {
	kind: 'pending';
	settled: Promise<boolean>;
	retry(): Decision | Pending;
}

/** How long a copy of an event waits for another request's start of it, well within delivery timeouts. */
export const MAX_CLAIM_WAIT_MS = 5_000;
export const CLAIM_POLL_MS = 100;

/** Test and production URLs of one trigger are two registrations: an id is de-duplicated within one. */
export function dedupeScope(mode: string): 'test' | 'production' {
	return mode === 'manual' ? 'test' : 'production';
}

export function dedupeKey(workflowId: unknown, nodeId: unknown, mode: string): string {
	return `${String(workflowId)}:${String(nodeId)}:${dedupeScope(mode)}`;
}

/** Where each registration keeps its list in the node's static data. */
export const SEEN_FIELDS = { production: 'recentEvents', test: 'recentTestEvents' } as const;
/** Where versions before this one kept the production list (an array of [id, seenAtSeconds]). */
export const LEGACY_SEEN_FIELD = 'seenEvents';

/** Reads and writes the registration's list in the node's static data, taking over an earlier version's. */
export function seenStore(
	staticData: IDataObject,
	mode: string,
): Pick<DedupeAccess, 'read' | 'write'> {
	const scope = dedupeScope(mode);
	const field = SEEN_FIELDS[scope];
	return {
		read: () =>
			staticData[field] ?? (scope === 'production' ? staticData[LEGACY_SEEN_FIELD] : undefined),
		write: (list) => {
			staticData[field] = list;
			if (scope === 'production' && staticData[LEGACY_SEEN_FIELD] !== undefined) {
				delete staticData[LEGACY_SEEN_FIELD];
			}
		},
	};
}

/** What n8n's request carries of the body (n8n-core's augmented IncomingMessage). */
export interface WebhookRequest {
	rawBody?: unknown;
	readRawBody?: () => Promise<void>;
	headers: Record<string, string | string[] | undefined>;
}

/**
 * The body's bytes: as n8n read them, or read now (n8n reads only the types it parses); `too-large` beyond
 * n8n's limit; undefined when they cannot be read at all.
 */
export async function readRawBody(req: WebhookRequest): Promise<RawBody> {
	if (Buffer.isBuffer(req.rawBody)) return req.rawBody;
	const type = String(req.headers['content-type'] ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
	// n8n has already streamed a multipart/form-data body into its form parser: the bytes are gone
	if (type === 'multipart/form-data' || !req.readRawBody) return undefined;
	try {
		await req.readRawBody();
	} catch (error) {
		// an exception here would make n8n answer 500 and record a failed execution
		return isTooLarge(error) ? 'too-large' : undefined;
	}
	return Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
}

/**
 * Whether reading failed on n8n's size limit: raw-body's http-errors 413 (`type` entity.too.large), which
 * n8n 2.41.1's readRawBody passes on as thrown. n8n reads the types it parses before any node runs and answers
 * 500 itself when they are too large; it leaves other types (application/vnd.api+json at typeVersion 2) to us.
 */
export function isTooLarge(error: unknown): boolean {
	if (typeof error !== 'object' || error === null) return false;
	const { status, statusCode, type } = error as Record<string, unknown>;
	return type === 'entity.too.large' || status === 413 || statusCode === 413;
}

const reject = ({ status, message }: Rejection): Decision => ({ kind: 'reject', status, message });

/**
 * One pass over a delivery, without waiting: a decision, or `pending` while another request of this process
 * starts the same event (receiveDelivery waits for it).
 */
export function receiveNow(
	delivery: Delivery,
	dedupe: DedupeAccess,
	clock: Pick<Clock, 'nowMs'>,
): Decision | Pending {
	const policy = requiredToken(
		delivery.registration,
		delivery.manualToken,
		delivery.registeredTokenHash,
	);
	// the verified token is the registered one: what removeSecret takes out of the output
	let secret: string | undefined;
	if (policy) {
		const checked = checkToken(policy.expectedHash, delivery.givenToken);
		if (!checked.ok) return reject(checked.rejection);
		secret = checked.token;
	}
	const body = readDeliveryBody(delivery.contentType, delivery.rawBody);
	if (!body.ok) return reject(body.rejection);
	// an event the user did not select is acknowledged whatever the rest of it holds: refused, it would be retried
	const eventType = readEventType(body.body);
	if (!isSelectedEvent(eventType, delivery.selectedEvents)) {
		return { kind: 'ignore', message: ignoredBecause(eventType) };
	}
	const head = validateEvent(body.body);
	if (!head.ok) return reject(head.rejection);
	const garbled = checkIdBytes(head.event.id, body.lossy);
	if (garbled) return reject(garbled);

	const start = (): Decision => {
		const flat = removeSecret(flattenEvent(body.body, head.event), secret);
		const plan = planDownloads(flat.files as IDataObject, delivery.options.downloadFormats ?? []);
		const json = delivery.options.rawBody ? (removeSecret(body.body, secret) as IDataObject) : flat;
		if (plan.errors.length) json.downloadErrors = plan.errors;
		return { kind: 'start', item: { json }, downloads: plan.downloads };
	};
	return claim(head.event.id, dedupe, clock, start);
}

// the service redelivers after a non-2xx; an id already started must not start a second execution:
// recent.ts knows this process's starts, the static data those of other processes and runs
function claim(
	id: string,
	dedupe: DedupeAccess,
	clock: Pick<Clock, 'nowMs'>,
	start: () => Decision,
): Decision | Pending {
	const nowMs = clock.nowMs();
	const claimed = claimInProcess(dedupe.key, id, nowMs, dedupe.answered);
	if (claimed.state === 'starting') {
		return {
			kind: 'pending',
			settled: claimed.settled,
			retry: () => claim(id, dedupe, clock, start),
		};
	}
	if (claimed.state === 'started') return { kind: 'duplicate' };
	// n8n answers 2xx once the execution exists (queued, in queue mode); a failed start is forgotten
	dedupe.onAnswered((ok) => settleInProcess(dedupe.key, id, ok, clock.nowMs()));
	if (checkStored(dedupe.key, id, dedupe.read(), nowMs, dedupe.write) === 'seen') {
		settleInProcess(dedupe.key, id, true, nowMs);
		return { kind: 'duplicate' };
	}
	return start();
}

/** The decision on a delivery; a copy of an event that is being started waits for that start's outcome. */
export async function receiveDelivery(
	delivery: Delivery,
	dedupe: DedupeAccess,
	clock: Clock,
): Promise<Decision> {
	const deadline = clock.nowMs() + MAX_CLAIM_WAIT_MS;
	let outcome = receiveNow(delivery, dedupe, clock);
	while (outcome.kind === 'pending') {
		if (clock.nowMs() >= deadline) {
			return {
				kind: 'reject',
				status: 409,
				message:
					'An earlier delivery of this event is still being started: deliver it again later.',
			};
		}
		await Promise.race([outcome.settled, clock.sleep(CLAIM_POLL_MS)]);
		outcome = outcome.retry();
	}
	return outcome;
}
