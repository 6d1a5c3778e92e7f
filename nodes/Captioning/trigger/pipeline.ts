// The trigger's receive pipeline: from what webhook() read off the request and the node, one decision, asking
// the stages in the order of the questions that can end a delivery: token.ts, body.ts, event.ts, dedupe/, then
// the item and the files to fetch. It writes nothing into the static data (docs/design.md, "A delivery's way").
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { isObject } from '../shared/schemas';
import { type RawBody, readDeliveryBody } from './body';
import { claimInProcess, settleInProcess } from './dedupe/claims';
import type { DedupeAccess } from './dedupe/staticData';
import { type Download, type DownloadPlan, flattenEvent, planDownloads, readEvent } from './event';
import type { Rejection } from './rejection';
import {
	checkDelivery,
	openDownloadMessage,
	removeSecret,
	SECRET_REQUIRED_FROM_VERSION,
	tokenPolicy,
} from './token';

export interface TriggerOptions {
	downloadFormats?: string[];
	rawBody?: boolean;
}

/** What webhook() read: the node's parameters, its registration and the request. */
export interface Delivery {
	/** The node's Registration parameter: 'api' or 'manual'. */
	registration: unknown;
	manualToken: unknown;
	/** The node's typeVersion: from 3 on (and when absent), a manual trigger has to have a Secret Token. */
	typeVersion?: number;
	/** The stored registration's token hash (token.ts), for 'api'. */
	registeredTokenHash: string | undefined;
	/** The request's token (token.ts givenToken): its query parameter or the token route's path segment. */
	givenToken: unknown;
	contentType: string | undefined;
	/** The body's bytes, or why there are none (body.ts). */
	rawBody: RawBody;
	/** n8n's parse of those bytes, where it parsed them as this stage would read them (body.ts parsedByN8n). */
	n8nParsed?: object;
	selectedEvents: readonly string[];
	options: TriggerOptions;
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
	const policy = tokenPolicy(
		delivery.registration,
		delivery.manualToken,
		delivery.registeredTokenHash,
		delivery.typeVersion ?? SECRET_REQUIRED_FROM_VERSION,
	);
	const checked = checkDelivery(policy, delivery.givenToken);
	if (!checked.ok) return reject(checked.rejection);
	// the verified token is the registered one: what removeSecret takes out of the output
	const secret = checked.token;
	const body = readDeliveryBody(delivery.contentType, delivery.rawBody, delivery.n8nParsed);
	if (!body.ok) return reject(body.rejection);
	const head = readEvent(body.body, body.lossy, delivery.selectedEvents);
	if (head.kind === 'ignore') return head;
	if (head.kind === 'reject') return reject(head.rejection);

	const start = (): Decision => {
		const flat = removeSecret(flattenEvent(body.body, head.event), secret);
		let plan = planDownloads(
			isObject(flat.files) ? (flat.files as IDataObject) : {},
			delivery.options.downloadFormats ?? [],
			flat.title,
		);
		// anyone may have sent an open manual trigger's event: it names no address for n8n to fetch
		if (policy.kind === 'open') plan = withoutDownloads(plan);
		const json = delivery.options.rawBody ? (removeSecret(body.body, secret) as IDataObject) : flat;
		if (plan.errors.length) json.downloadErrors = plan.errors;
		return { kind: 'start', item: { json }, downloads: plan.downloads };
	};
	return claim(head.event.id, dedupe, clock, start);
}

function withoutDownloads(plan: DownloadPlan): DownloadPlan {
	const skipped = plan.downloads.map(({ format }) => ({
		format,
		message: openDownloadMessage(format),
	}));
	return { downloads: [], errors: [...plan.errors, ...skipped] };
}

// the service redelivers after a non-2xx; an id this process already started must not start a second execution
function claim(
	id: string,
	dedupe: DedupeAccess,
	clock: Pick<Clock, 'nowMs'>,
	start: () => Decision,
): Decision | Pending {
	const claimed = claimInProcess(dedupe.key, id, clock.nowMs(), dedupe.answered);
	if (claimed.state === 'starting') {
		return {
			kind: 'pending',
			settled: claimed.settled,
			retry: () => claim(id, dedupe, clock, start),
		};
	}
	if (claimed.state === 'started') return { kind: 'duplicate' };
	// n8n answers 2xx once the execution exists (queued, in queue mode); a failed start is forgotten
	dedupe.onAnswered((ok) => settleInProcess(dedupe.key, id, ok));
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
