// Item 4: CPU per event of the trigger's own receiving code, in isolation and warm: the calls
// CaptioningTrigger.webhook() makes for an accepted event, in its order, on a full de-duplication list.
import { randomUUID } from 'node:crypto';

import {
	checkToken,
	DEDUPE_LIMIT,
	flattenEvent,
	isSelectedEvent,
	readDeliveryBody,
	rememberEvent,
	validateEvent,
} from '../../nodes/Captioning/trigger/receive';
import { rememberInProcess } from '../../nodes/Captioning/trigger/recent';
import type { WebhookEvent } from '../../nodes/Captioning/shared/schemas';
import type { EventTemplate } from '../lib/event';

const CONTENT_TYPE = 'application/json; charset=utf-8';
const TOKEN = 'OXjuL-jpuzW4d_3GRoJCUSMXzhQephRp';
const SELECTED = ['transcription.created', 'transcription.transcribed'];

export interface ReceiveCost {
	iterations: number;
	/** µs of CPU per event for the whole path, and for each step alone. */
	totalUs: number;
	stepsUs: Record<string, number>;
}

function cpuMicros(run: () => void): number {
	const start = process.cpuUsage();
	run();
	const used = process.cpuUsage(start);
	return used.user + used.system;
}

/** One repetition: `iterations` distinct events through each step and through the whole path. */
export function measureReceiveCost(template: EventTemplate, iterations: number): ReceiveCost {
	const bodies = Array.from({ length: iterations }, () => Buffer.from(template.next(), 'utf8'));
	const parsed = bodies.map((raw) => {
		const body = readDeliveryBody(CONTENT_TYPE, raw);
		if (!body.ok) throw new Error(body.rejection.message);
		return body.body;
	});
	const events = parsed.map((body) => {
		const validated = validateEvent(body);
		if (!validated.ok) throw new Error(validated.rejection.message);
		return validated.event;
	});
	const now = Math.floor(Date.now() / 1000);
	const fullList = (): Array<[string, number]> =>
		Array.from({ length: DEDUPE_LIMIT }, () => [randomUUID(), now]);
	let sink = 0;

	const whole = (events: WebhookEvent[] | undefined) => {
		let seen: unknown = fullList();
		const key = `bench:${randomUUID()}`;
		return () => {
			for (let i = 0; i < iterations; i++) {
				if (checkToken(TOKEN, TOKEN)) throw new Error('token refused');
				const body = readDeliveryBody(CONTENT_TYPE, bodies[i]);
				if (!body.ok) throw new Error('body refused');
				const validated = validateEvent(body.body);
				if (!validated.ok) throw new Error('event refused');
				const event = events ? events[i] : validated.event;
				if (!isSelectedEvent(event.data.attributes.event_type, SELECTED))
					throw new Error('ignored');
				const remembered = rememberEvent(seen, event.data.id, now);
				if (remembered.duplicate || rememberInProcess(key, event.data.id, now)) {
					throw new Error('duplicate');
				}
				seen = remembered.seen;
				// webhook() flattens twice: once for the item, once to find the file URLs
				sink += Object.keys(flattenEvent(event)).length + Object.keys(flattenEvent(event)).length;
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
		rememberEvent: (() => {
			let seen: unknown = fullList();
			return () => {
				for (let i = 0; i < iterations; i++) {
					const remembered = rememberEvent(seen, events[i].data.id, now);
					seen = remembered.seen;
				}
			};
		})(),
		flattenEvent: () => {
			for (let i = 0; i < iterations; i++) sink += Object.keys(flattenEvent(events[i])).length;
		},
	};

	// warm-up: every path compiled and optimised before anything is timed
	for (const step of Object.values(steps)) step();
	whole(events)();

	const stepsUs: Record<string, number> = {};
	for (const [name, step] of Object.entries(steps)) {
		stepsUs[name] = cpuMicros(step) / iterations;
	}
	const totalUs = cpuMicros(whole(undefined)) / iterations;
	if (sink === 0) throw new Error('nothing ran');
	return { iterations, totalUs, stepsUs };
}
