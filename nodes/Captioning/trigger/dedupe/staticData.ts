// The key of each registration's in-process claims (claims.ts): the test and the production URL of one trigger
// are two registrations. And the lists of started events that earlier versions kept in the static data, dropped.
import type { IDataObject } from 'n8n-workflow';

/** The de-duplication state of one registration, and what tells it that n8n has answered. */
export interface DedupeAccess {
	/** One per registration: workflow, node, and test or production URL (dedupeKey). */
	key: string;
	/** Whether n8n has answered this request with a 2xx; undefined until it has answered. */
	answered(): boolean | undefined;
	/** Calls back once n8n has answered this request, with whether it answered 2xx. */
	onAnswered(listener: (ok: boolean) => void): void;
}

/** Test and production URLs of one trigger are two registrations: an id is de-duplicated within one. */
export function dedupeScope(mode: string): 'test' | 'production' {
	return mode === 'manual' ? 'test' : 'production';
}

export function dedupeKey(workflowId: unknown, nodeId: unknown, mode: string): string {
	return `${String(workflowId)}:${String(nodeId)}:${dedupeScope(mode)}`;
}

/**
 * Where earlier versions kept a list of started event ids (up to 15 KB), written with every event: a delivery
 * writes nothing now (docs/design.md, "Nothing written per delivery").
 */
export const EARLIER_EVENT_LISTS = ['recentEvents', 'recentTestEvents', 'seenEvents'] as const;

/** Drops the lists earlier versions kept, at activation: n8n copies the static data into every execution. */
export function dropEventLists(staticData: IDataObject): void {
	for (const field of EARLIER_EVENT_LISTS) {
		if (field in staticData) delete staticData[field];
	}
}
