// The event body every throughput request carries: a real transcription.transcribed event from the sandbox
// (signed file URLs included), padded to a fixed size, with a fresh event id per request so that the
// trigger's de-duplication sees a new event every time.
import { randomUUID } from 'node:crypto';

import { startSandbox } from '../../sandbox/server';

const ID_PLACEHOLDER = '00000000-0000-4000-8000-000000000000';

export interface EventTemplate {
	/** Body bytes (every body has the same size: ids are UUIDs). */
	bytes: number;
	/** A new body with a new event id. */
	next(): string;
}

export async function eventTemplate(targetBytes = 2048): Promise<EventTemplate> {
	const sandbox = await startSandbox({ rateLimit: null, retryDelaysMs: [] });
	try {
		sandbox.endpoints.set('template', {
			id: 'template',
			clientId: 'sandbox-client-id',
			// nothing listens on the discard port: the one delivery attempt is refused at once
			callbackUri: 'http://127.0.0.1:9/webhook/template/webhook',
			enabledEvents: ['transcription.transcribed'],
			createdAt: new Date().toISOString(),
		});
		const { events } = await sandbox.transcribe({ transcribeAfterMs: 0 });
		await sandbox.idle();
		const event = JSON.parse(events[0].body) as {
			data: { id: string };
			included: { attributes: { title: string } }[];
		};
		event.data.id = ID_PLACEHOLDER;
		const base = Buffer.byteLength(JSON.stringify(event));
		if (base < targetBytes) {
			event.included[0].attributes.title += ' ' + 'x'.repeat(targetBytes - base - 1);
		}
		const template = JSON.stringify(event);
		const [before, after] = template.split(ID_PLACEHOLDER);
		return {
			bytes: Buffer.byteLength(template),
			next: () => before + randomUUID() + after,
		};
	} finally {
		await sandbox.stop();
	}
}
