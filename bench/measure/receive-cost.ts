// Item 4: CPU per event of the trigger's own receiving code, in isolation and warm: trigger/pipeline.ts's
// receiveNow (what webhook() awaits through receiveDelivery when no other copy of the event is starting), for
// a new event each time, with the de-duplication list in its steady state (full). Each step's function is
// timed alone too; they are the module's own exports, not copies.
import { randomUUID } from 'node:crypto';

import {
	checkStored,
	checkToken,
	claimInProcess,
	type DedupeAccess,
	type Delivery,
	eventHash,
	flattenEvent,
	hashToken,
	minuteOf,
	readDeliveryBody,
	receiveNow,
	SEEN_FIELDS,
	SEEN_LIMIT,
	seenEntry,
	seenStore,
	settleInProcess,
	validateEvent,
} from '../../nodes/Captioning/trigger';
import type { EventTemplate } from '../lib/event';

const CONTENT_TYPE = 'application/json; charset=utf-8';
const TOKEN = 'OXjuL-jpuzW4d_3GRoJCUSMXzhQephRp';
const SELECTED = ['transcription.created', 'transcription.transcribed'];

export interface ReceiveCost {
	iterations: number;
	/** µs of CPU per event for the whole path, and for each step alone. */
	totalUs: number;
	stepsUs: Record<string, number>;
	/** Bytes of the de-duplication list in the static data, in its steady state (JSON). */
	staticDataBytes?: number;
}

function cpuMicros(run: () => void): number {
	const start = process.cpuUsage();
	run();
	const used = process.cpuUsage(start);
	return used.user + used.system;
}

/** A full list, as the static data holds it under sustained traffic. */
export function steadyStateList(nowMs = Date.now()): string {
	return Array.from({ length: SEEN_LIMIT }, () =>
		seenEntry(eventHash(randomUUID()), minuteOf(nowMs)),
	).join('');
}

/** One repetition: `iterations` distinct events through each step and through the whole path. */
export function measureReceiveCost(template: EventTemplate, iterations: number): ReceiveCost {
	const bodies = Array.from({ length: iterations }, () => Buffer.from(template.next(), 'utf8'));
	const parsed = bodies.map((raw) => {
		const body = readDeliveryBody(CONTENT_TYPE, raw);
		if (!body.ok) throw new Error(body.rejection.message);
		return body.body;
	});
	const heads = parsed.map((body) => {
		const head = validateEvent(body);
		if (!head.ok) throw new Error(head.rejection.message);
		return head.event;
	});
	const clock = { nowMs: () => Date.now() };
	let sink = 0;

	/** As n8n runs it: the stored list as loaded for each request, answered 2xx right after. */
	const whole = () => {
		const stored = steadyStateList();
		const key = `bench:${randomUUID()}`;
		return () => {
			for (let i = 0; i < iterations; i++) {
				const staticData = { [SEEN_FIELDS.production]: stored };
				let answer: ((ok: boolean) => void) | undefined;
				const dedupe: DedupeAccess = {
					key,
					...seenStore(staticData, 'webhook'),
					answered: () => undefined,
					onAnswered: (listener) => (answer = listener),
				};
				const delivery: Delivery = {
					registration: 'api',
					manualToken: '',
					registeredTokenHash: hashToken(TOKEN),
					givenToken: TOKEN,
					contentType: CONTENT_TYPE,
					rawBody: bodies[i],
					selectedEvents: SELECTED,
					options: {},
				};
				const decision = receiveNow(delivery, dedupe, clock);
				if (decision.kind !== 'start') throw new Error(`not started: ${decision.kind}`);
				answer?.(true);
				sink += Object.keys(decision.item.json).length;
			}
		};
	};

	const steps: Record<string, () => void> = {
		checkToken: () => {
			for (let i = 0; i < iterations; i++) if (checkToken(TOKEN, TOKEN)) sink++;
		},
		readDeliveryBody: () => {
			for (let i = 0; i < iterations; i++) {
				if (readDeliveryBody(CONTENT_TYPE, bodies[i]).ok) sink++;
			}
		},
		validateEvent: () => {
			for (let i = 0; i < iterations; i++) if (validateEvent(parsed[i]).ok) sink++;
		},
		claimAndCheckStored: (() => {
			const stored = steadyStateList();
			const key = `bench:${randomUUID()}`;
			return () => {
				for (let i = 0; i < iterations; i++) {
					const now = Date.now();
					claimInProcess(key, heads[i].id, now, () => undefined);
					checkStored(key, heads[i].id, stored, now, () => sink++);
					settleInProcess(key, heads[i].id, true, now);
				}
			};
		})(),
		flattenEvent: () => {
			for (let i = 0; i < iterations; i++) {
				sink += Object.keys(flattenEvent(parsed[i], heads[i])).length;
			}
		},
	};

	// warm-up: every path compiled and optimised before anything is timed
	for (const step of Object.values(steps)) step();
	whole()();

	const stepsUs: Record<string, number> = {};
	for (const [name, step] of Object.entries(steps)) {
		stepsUs[name] = cpuMicros(step) / iterations;
	}
	const totalUs = cpuMicros(whole()) / iterations;
	if (sink === 0) throw new Error('nothing ran');
	return {
		iterations,
		totalUs,
		stepsUs,
		staticDataBytes: JSON.stringify({ [SEEN_FIELDS.production]: steadyStateList() }).length,
	};
}
