// Item 4: CPU per event of the trigger's own receiving code, in isolation and warm: trigger/pipeline.ts's
// receiveNow (what webhook() awaits through receiveDelivery when no other copy of the event is starting), given
// n8n's parse of the body as n8n hands it over for application/json, for a new event each time, the claims of
// this process holding the events before it. Each step's function is timed alone too; they are the module's own
// exports, not copies.
import { randomUUID } from 'node:crypto';

import {
	checkToken,
	claimInProcess,
	type DedupeAccess,
	type Delivery,
	flattenEvent,
	hashToken,
	readDeliveryBody,
	receiveNow,
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
	/** Bytes a delivery writes into the static data (JSON): none since the stored list went. */
	staticDataBytes?: number;
}

function cpuMicros(run: () => void): number {
	const start = process.cpuUsage();
	run();
	const used = process.cpuUsage(start);
	return used.user + used.system;
}

/** One repetition: `iterations` distinct events through each step and through the whole path. */
export function measureReceiveCost(template: EventTemplate, iterations: number): ReceiveCost {
	const events = distinctEvents(template, iterations);
	const sink: Sink = { count: 0 };
	const steps = stepRunners(events, sink);
	// warm-up: every path compiled and optimised before anything is timed
	for (const step of Object.values(steps)) step();
	wholePath(events, sink)();

	const stepsUs: Record<string, number> = {};
	for (const [name, step] of Object.entries(steps)) {
		stepsUs[name] = cpuMicros(step) / iterations;
	}
	const totalUs = cpuMicros(wholePath(events, sink)) / iterations;
	if (sink.count === 0) throw new Error('nothing ran');
	return { iterations, totalUs, stepsUs, staticDataBytes: 0 };
}

/** What every timed loop adds to, so that no result is optimised away. */
interface Sink {
	count: number;
}

/** `iterations` distinct deliveries: their raw bodies, the bodies parsed, and the events' validated heads. */
function distinctEvents(template: EventTemplate, iterations: number) {
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
	return { iterations, bodies, parsed, heads };
}

type Events = ReturnType<typeof distinctEvents>;

/** The whole path as n8n runs it, answered 2xx right after. */
function wholePath(events: Events, sink: Sink): () => void {
	const key = `bench:${randomUUID()}`;
	const clock = { nowMs: () => Date.now() };
	const { iterations, bodies, parsed } = events;
	return () => {
		for (let i = 0; i < iterations; i++) {
			let answer: ((ok: boolean) => void) | undefined;
			const dedupe: DedupeAccess = {
				key,
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
				// as n8n hands it over for application/json: its JSON.parse of the same bytes
				n8nParsed: parsed[i] as object,
				selectedEvents: SELECTED,
				options: {},
			};
			const decision = receiveNow(delivery, dedupe, clock);
			if (decision.kind !== 'start') throw new Error(`not started: ${decision.kind}`);
			answer?.(true);
			sink.count += Object.keys(decision.item.json).length;
		}
	};
}

/** Each step's function alone, over the same events. */
function stepRunners(events: Events, sink: Sink): Record<string, () => void> {
	const { iterations, bodies, parsed, heads } = events;
	return {
		checkToken: () => {
			for (let i = 0; i < iterations; i++) if (checkToken(TOKEN, TOKEN)) sink.count++;
		},
		// the bytes parsed by the stage (a type n8n does not parse, or a text n8n's parse would read otherwise)
		readDeliveryBody: () => {
			for (let i = 0; i < iterations; i++) {
				if (readDeliveryBody(CONTENT_TYPE, bodies[i]).ok) sink.count++;
			}
		},
		// n8n's parse taken (application/json): what the whole path does with the benchmark's body
		'readDeliveryBody, parsed by n8n': () => {
			for (let i = 0; i < iterations; i++) {
				if (readDeliveryBody(CONTENT_TYPE, bodies[i], parsed[i] as object).ok) sink.count++;
			}
		},
		validateEvent: () => {
			for (let i = 0; i < iterations; i++) if (validateEvent(parsed[i]).ok) sink.count++;
		},
		claimAndSettle: claimAndSettle(events, sink),
		flattenEvent: () => {
			for (let i = 0; i < iterations; i++) {
				sink.count += Object.keys(flattenEvent(parsed[i], heads[i])).length;
			}
		},
	};
}

/** The exactly-once steps: an in-process claim, settled. */
function claimAndSettle(events: Events, sink: Sink): () => void {
	const key = `bench:${randomUUID()}`;
	const { iterations, heads } = events;
	return () => {
		for (let i = 0; i < iterations; i++) {
			const now = Date.now();
			const { id } = heads[i];
			if (claimInProcess(key, id, now, () => undefined).state === 'new') sink.count++;
			settleInProcess(key, id, true);
		}
	};
}
