// What the sandbox sent: one record per event per endpoint. With `event-id=shared` several endpoints receive the
// same event id, so records are kept per id as a list, and `get(id)` answers as a map keyed by id always did.
import type { EventType } from './webhookEndpoints';

export interface SentEvent {
	id: string;
	eventType: EventType;
	endpointId: string;
	transcriptionId: string;
	body: string;
	/** Content-Type the event is delivered with; a redelivery keeps it, as it keeps the body. */
	contentType: string;
}

export class EventLog {
	private readonly byId = new Map<string, SentEvent[]>();
	private count = 0;

	add(event: SentEvent): void {
		const records = this.byId.get(event.id);
		if (records) records.push(event);
		else this.byId.set(event.id, [event]);
		this.count++;
	}

	/** The first record of an event id (its type and subject are the same for every endpoint). */
	get(id: string): SentEvent | undefined {
		return this.byId.get(id)?.[0];
	}

	/** Every endpoint's record of an event id. */
	all(id: string): SentEvent[] {
		return [...(this.byId.get(id) ?? [])];
	}

	has(id: string): boolean {
		return this.byId.has(id);
	}

	/** Number of records: events times the endpoints each was sent to. */
	get size(): number {
		return this.count;
	}

	*values(): IterableIterator<SentEvent> {
		for (const records of this.byId.values()) yield* records;
	}

	[Symbol.iterator](): IterableIterator<SentEvent> {
		return this.values();
	}
}
