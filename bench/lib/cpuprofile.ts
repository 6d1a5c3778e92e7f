// Where a V8 CPU profile (the inspector's Profiler.stop answer) spends its time: self time by code owner (our
// package, each n8n package, the database, node core), and the time spent under named places of n8n's request
// path (a sample counts for a place when the place is anywhere on its stack).

export interface CpuProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
	children?: number[];
}

export interface CpuProfile {
	nodes: CpuProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	/** µs before each sample. */
	timeDeltas: number[];
}

/** A place on the request path: matches a frame by its script (and function name). */
export interface Marker {
	label: string;
	url: string;
	functionName?: string;
}

/** Who owns a script: a package (the innermost node_modules one), node core, or the V8 pseudo-frames. */
export function ownerOf(url: string, functionName: string): string | undefined {
	if (functionName === '(idle)') return 'idle';
	if (functionName === '(garbage collector)') return 'garbage collector';
	if (functionName === '(program)') return 'V8 / native (unattributed)';
	if (functionName === '(root)') return undefined;
	if (!url) return undefined;
	if (url.startsWith('node:')) return 'node core';
	const path = url.replace(/^file:\/\//, '');
	const index = path.lastIndexOf('/node_modules/');
	if (index < 0) return 'other';
	const [first, second] = path.slice(index + '/node_modules/'.length).split('/');
	return first.startsWith('@') ? `${first}/${second}` : first;
}

export interface ProfileBreakdown {
	/** ms of samples in the profile, idle excluded. */
	busyMs: number;
	idleMs: number;
	/** Self time by owner, ms; frames without a script (builtins such as JSON.parse) count for their caller's owner. */
	byOwner: Record<string, number>;
	/** Time with the marker anywhere on the stack, ms. */
	byMarker: Record<string, number>;
}

export function analyseProfile(profile: CpuProfile, markers: readonly Marker[]): ProfileBreakdown {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes) {
		for (const child of node.children ?? []) parent.set(child, node.id);
	}
	const ownerCache = new Map<number, string>();
	const owner = (id: number): string => {
		const cached = ownerCache.get(id);
		if (cached !== undefined) return cached;
		const { url, functionName } = byId.get(id)!.callFrame;
		let found = ownerOf(url, functionName);
		if (found === undefined) {
			const up = parent.get(id);
			found = up === undefined ? 'V8 / native (unattributed)' : owner(up);
		}
		ownerCache.set(id, found);
		return found;
	};
	const markerCache = new Map<number, Set<number>>();
	const markersOn = (id: number): Set<number> => {
		const cached = markerCache.get(id);
		if (cached) return cached;
		const up = parent.get(id);
		const set = new Set(up === undefined ? [] : markersOn(up));
		const { url, functionName } = byId.get(id)!.callFrame;
		markers.forEach((marker, index) => {
			if (
				url.includes(marker.url) &&
				(marker.functionName === undefined || marker.functionName === functionName)
			) {
				set.add(index);
			}
		});
		markerCache.set(id, set);
		return set;
	};
	const byOwner: Record<string, number> = {};
	const byMarker: Record<string, number> = Object.fromEntries(markers.map((m) => [m.label, 0]));
	let idleMs = 0;
	let busyMs = 0;
	profile.samples.forEach((id, i) => {
		const ms = (profile.timeDeltas[i] ?? 0) / 1000;
		const who = owner(id);
		if (who === 'idle') {
			idleMs += ms;
			return;
		}
		busyMs += ms;
		byOwner[who] = (byOwner[who] ?? 0) + ms;
		for (const index of markersOn(id)) byMarker[markers[index].label] += ms;
	});
	return { busyMs, idleMs, byOwner, byMarker };
}
