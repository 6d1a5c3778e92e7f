// A per-process memory of event ids, ahead of the static data n8n saves after webhook() returns: two deliveries
// of one event racing within a process both read the static data before either is saved.
const MAX_PER_TRIGGER = 10_000;
const TTL_SECONDS = 24 * 60 * 60;
const recent = new Map<string, Map<string, number>>();

/** Records the id; true when this process has already seen it for this trigger. */
export function rememberInProcess(triggerKey: string, id: string, nowSeconds: number): boolean {
	let seen = recent.get(triggerKey);
	if (!seen) recent.set(triggerKey, (seen = new Map()));
	const at = seen.get(id);
	if (at !== undefined && nowSeconds - at < TTL_SECONDS) return true;
	seen.set(id, nowSeconds);
	if (seen.size > MAX_PER_TRIGGER) seen.delete(seen.keys().next().value as string);
	return false;
}
