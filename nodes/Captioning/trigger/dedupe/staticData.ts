// Where each registration keeps its list of started events (storedList.ts) in the node's static data, and the
// key of its in-process claims (claims.ts): the test and the production URL of one trigger are two registrations.
import type { IDataObject } from 'n8n-workflow';

/** The de-duplication state of one registration, and what tells it that n8n has answered. */
export interface DedupeAccess {
	/** One per registration: workflow, node, and test or production URL (dedupeKey). */
	key: string;
	/** The list in the node's static data (storedList.ts), as n8n loaded it for this request. */
	read(): unknown;
	write(list: string): void;
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

/** Where each registration keeps its list in the node's static data. */
export const SEEN_FIELDS = { production: 'recentEvents', test: 'recentTestEvents' } as const;
/** Where 0.1.0 kept the production list (an array of [id, seenAtSeconds]; docs/design.md, What 0.1.0 saved). */
export const LEGACY_SEEN_FIELD = 'seenEvents';

/** Reads and writes the registration's list in the node's static data, taking over 0.1.0's. */
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
