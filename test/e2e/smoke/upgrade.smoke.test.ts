// Registrations made by earlier releases keep receiving events after n8n is upgraded to this package, in the n8n
// version under test (CAPTIONING_N8N_VERSION: 2.41.1 or 1.123.81). One n8n and one sandbox for the file: the
// package installed as 0.1.0 registers a trigger (the query route, the only one 0.1.0 has); upgraded to the release
// whose token route's path was an expression, it registers one on the query route and one on the token route (a
// service that refuses a query); upgraded to this checkout, each receives every event once at the first attempt,
// and unpublishing deletes each endpoint. Why the token route's URL is unchanged: docs/design.md, "Where the token
// travels".
import { randomUUID } from 'node:crypto';

import {
	createSandboxCredential,
	installCommunityPackage,
	type N8nInstance,
	N8N_VERSION,
	packCommit,
	packProject,
	removePacked,
	startN8n,
	TRIGGER_NODE,
	triggerWorkflow,
} from '../../../harness';
import { type Sandbox, startSandbox } from '../../../sandbox/server';
import { outputOf, requireStarted, stopAll } from '../../helpers/suite';

/** The releases a registration is made with, by the commit of this repository that built them. */
const RELEASES = {
	/** 0.1.0: the state of 2026-11-22 that CHANGELOG's 0.1.0 describes (trigger typeVersion 1, the query only). */
	'0.1.0': '43e99bcb7b47dd92745601abf223ebdfc2f97fc7',
	/** main before the token route's static path: typeVersions 1-3, the token route at `={{$webhookId}}/:token`. */
	expressionRoute: 'ab741cbc79008e6b905fa959fb28b46e66bfe460',
} as const;

const EVENTS = ['transcription.created', 'transcription.transcribed'];
// redeliveries 1, 4 and 10 s after the first attempt: none is expected, all of them would show as a failure
const RETRY_DELAYS_MS = [1_000, 3_000, 6_000];

let sandbox: Sandbox | undefined;
let n8n: N8nInstance | undefined;
const tarballs: string[] = [];
let credential = { id: '', name: '' };

const sb = requireStarted('the sandbox', () => sandbox);
const instance = requireStarted('n8n', () => n8n);

interface Registered {
	name: string;
	workflowId: string;
	webhookId: string;
	endpointId: string;
	callbackUri: string;
	/** The ids of the events its endpoint was sent so far: each must have started one execution. */
	eventIds: string[];
}
const registered: Registered[] = [];

/** A trigger workflow at `typeVersion`, published; its endpoint is the one the sandbox gained. */
async function publishTrigger(name: string, typeVersion: number): Promise<Registered> {
	const webhookId = randomUUID();
	const workflow = triggerWorkflow({
		name,
		webhookId,
		credential,
		parameters: { registration: 'api', events: EVENTS, options: {} },
	});
	(workflow.nodes as Array<{ typeVersion: number }>)[0].typeVersion = typeVersion;
	const before = new Set(sb().endpoints.keys());
	const created = await instance().createWorkflow(workflow);
	await instance().activateWorkflow(created.id);
	const added = [...sb().endpoints.values()].filter((e) => !before.has(e.id));
	expect(added).toHaveLength(1);
	return {
		name,
		workflowId: created.id,
		webhookId,
		endpointId: added[0].id,
		callbackUri: added[0].callbackUri,
		eventIds: [],
	};
}

/** Restarts n8n with the package replaced by `tarball`, as an upgrade in n8n's community nodes does. */
async function upgradeTo(tarball: string): Promise<void> {
	await instance().restart({
		whileStopped: async () => {
			await installCommunityPackage(instance().userFolder, tarball);
		},
	});
}

/**
 * One transcription: each registration's endpoint gets both events, each answered 200 at the first attempt, and
 * each workflow runs each event once.
 */
async function expectEveryRegistrationReceives(title: string): Promise<void> {
	const { events } = await sb().transcribe({ title });
	await sb().idle();
	for (const r of registered) {
		const mine = events.filter((e) => e.endpointId === r.endpointId);
		expect([r.name, mine.map((e) => e.eventType).sort()]).toEqual([r.name, EVENTS]);
		for (const event of mine) {
			const attempts = sb().deliveries.filter(
				(d) => d.eventId === event.id && d.endpointId === r.endpointId,
			);
			expect([r.name, attempts.map((a) => a.status)]).toEqual([r.name, [200]]);
		}
		r.eventIds.push(...mine.map((e) => e.id));
		const executions = await instance().waitForExecutions(r.workflowId, {
			count: r.eventIds.length,
		});
		const started = executions.map((e) => outputOf(e, TRIGGER_NODE)[0].json.eventId as string);
		expect([r.name, started.sort()]).toEqual([r.name, [...r.eventIds].sort()]);
	}
}

beforeAll(async () => {
	// the releases first: three builds at once would compete for the same two cores
	for (const commit of [RELEASES['0.1.0'], RELEASES.expressionRoute]) {
		tarballs.push(await packCommit(commit));
	}
	tarballs.push(await packProject());
	sandbox = await startSandbox({ retryDelaysMs: RETRY_DELAYS_MS });
	n8n = await startN8n({ packageTarball: tarballs[0] });
	const created = await createSandboxCredential(instance(), sb(), 'Captioning sandbox');
	credential = { id: created.id, name: created.name };
}, 600_000);

afterAll(async () => {
	await stopAll([
		() => n8n?.stop(),
		() => sandbox?.stop(),
		...tarballs.map((tarball) => () => removePacked(tarball)),
	]);
});

describe(`an upgrade in n8n ${N8N_VERSION}`, () => {
	it('0.1.0 registers a trigger on the query route', async () => {
		expect(instance().installedPackages.map((p) => p.version)).toEqual(['0.1.0']);
		const r = await publishTrigger('Registered by 0.1.0', 1);
		expect(r.callbackUri).toMatch(
			new RegExp(`^${instance().webhookBaseUrl}/${r.webhookId}/webhook\\?token=[\\w-]{32}$`),
		);
		registered.push(r);
		await expectEveryRegistrationReceives('Before the first upgrade');
	});

	it('the release with the expression path registers on the query route and, for a refusing service, on the token route', async () => {
		await upgradeTo(tarballs[1]);
		const onQuery = await publishTrigger('Query route, expression release', 3);
		expect(onQuery.callbackUri).toMatch(/\/webhook\?token=[\w-]{32}$/);
		sb().setVariants({ 'callback-query': 'refuse' });
		try {
			const onPath = await publishTrigger('Token route, expression release', 3);
			const route = `${instance().webhookBaseUrl}/${onPath.webhookId}/${onPath.webhookId}/`;
			expect(onPath.callbackUri.startsWith(route)).toBe(true);
			expect(onPath.callbackUri.slice(route.length)).toMatch(/^[\w-]{32}$/);
			registered.push(onQuery, onPath);
		} finally {
			sb().setVariants({ 'callback-query': 'keep' });
		}
		await expectEveryRegistrationReceives('Before the second upgrade');
	});

	it('after the upgrade to this package, every registration receives each event once, at the first attempt', async () => {
		await upgradeTo(tarballs[2]);
		expect(sb().endpoints.size).toBe(3);
		await expectEveryRegistrationReceives('After the upgrade');
		// nothing was registered again: the service knows the same three endpoints
		expect([...sb().endpoints.keys()].sort()).toEqual(registered.map((r) => r.endpointId).sort());
	});

	it('unpublishing after the upgrade deletes each endpoint at the service', async () => {
		for (const r of registered) {
			await instance().deactivateWorkflow(r.workflowId);
			expect([r.name, sb().endpoints.has(r.endpointId)]).toEqual([r.name, false]);
		}
		expect(sb().endpoints.size).toBe(0);
	});
});
