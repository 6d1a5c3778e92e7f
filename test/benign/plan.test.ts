// The benign suite's generator, checked without n8n: every delivery carries the token, a new id and a
// selected event type in JSON; every variation changes the real event it is applied to; the plan is the
// same for the same seed. A variation that changed nothing would make its row of the suite's table a lie.
import { randomUUID } from 'node:crypto';

import { DEFAULT_CLIENT, type Sandbox, startSandbox } from '../../sandbox/server';
import { Rng } from '../faults/random';
import { startReceiver, type Receiver } from '../helpers/receiver';
import {
	type BenignTarget,
	decodeBody,
	effectiveOn,
	EVENT_TYPES,
	planDeliveries,
	planDownloads,
	planProblems,
	refusedByN8n,
	templatesFrom,
} from './deliveries';
import { CONTENT_DISPOSITIONS } from './files';
import {
	isObject,
	type JsonObject,
	ONE_MIB_TITLE,
	subjectOf,
	TRICKY_TITLES,
	VARIATIONS,
} from './variations';

let sandbox: Sandbox;
let receiver: Receiver;
let target: BenignTarget;
const files = {
	urlFor: (behaviour: string, format: string, disposition = 0) =>
		`http://127.0.0.1:9/${behaviour}/${disposition}/${randomUUID()}/${format}`,
};

beforeAll(async () => {
	receiver = await startReceiver();
	sandbox = await startSandbox({ transcribeAfterMs: 0, rateLimit: null });
	const callbackUri = `${receiver.url}/webhook/${randomUUID()}/webhook?token=secret-${randomUUID()}`;
	const endpointId = randomUUID();
	sandbox.endpoints.set(endpointId, {
		id: endpointId,
		clientId: DEFAULT_CLIENT.clientId,
		callbackUri,
		enabledEvents: [...EVENT_TYPES],
		createdAt: new Date().toISOString(),
	});
	await sandbox.transcribe({ title: 'Quarterly product update' });
	await sandbox.idle();
	const url = new URL(callbackUri);
	target = {
		path: url.pathname,
		token: url.searchParams.get('token')!,
		callbackUri,
		templates: templatesFrom(sandbox.events.values(), endpointId),
	};
});

afterAll(async () => {
	await sandbox?.stop();
	await receiver?.close();
});

describe('what n8n itself refuses before the trigger runs', () => {
	it('on n8n 1.x, a byte order mark before an application/json body (n8n 2.x strips it); nothing else', () => {
		const plan = planDeliveries(target, { seed: 13, total: 1_200 });
		const refused = plan.filter((d) => refusedByN8n(d, 1));
		expect(refused.length).toBeGreaterThan(10);
		for (const d of refused) {
			expect(d.variations).toContain('wire: UTF-8 BOM');
			expect(d.headers.find(([n]) => n === 'content-type')?.[1]).toMatch(/^application\/json/i);
		}
		// the same mark under application/vnd.api+json reaches the trigger, which reads it
		expect(
			plan.filter(
				(d) =>
					d.variations.includes('wire: UTF-8 BOM') &&
					!refusedByN8n(d, 1) &&
					d.headers.some(([n, v]) => n === 'content-type' && v === 'application/vnd.api+json'),
			).length,
		).toBeGreaterThan(0);
		expect(plan.filter((d) => refusedByN8n(d, 2))).toEqual([]);
	});
});

describe('the deliveries phase', () => {
	it('has ≥ 1,000 deliveries, each with the token, a new id and a selected type in JSON', () => {
		const plan = planDeliveries(target, { seed: 13, total: 1_200 });
		expect(plan.length).toBe(1_200);
		expect(planProblems(plan, target)).toEqual([]);
		expect(new Set(plan.map((d) => d.eventType))).toEqual(new Set(EVENT_TYPES));
	});

	it('sends every variation alone, for each event type it changes, and in random combinations', () => {
		const plan = planDeliveries(target, { seed: 13, total: 1_200 });
		const onCreated = new Set(
			effectiveOn(target.templates['transcription.created']).map((v) => v.name),
		);
		for (const { name } of VARIATIONS) {
			const alone = plan.filter((d) => d.kind === 'catalogue' && d.variations.join() === name);
			const types = onCreated.has(name) ? [...EVENT_TYPES] : ['transcription.transcribed'];
			expect([name, alone.map((d) => d.eventType).sort()]).toEqual([name, types]);
			expect([name, plan.some((d) => d.kind === 'random' && d.variations.includes(name))]).toEqual([
				name,
				true,
			]);
		}
		// a created event has no files yet: the file variations have nothing to change there
		expect(onCreated.size).toBeGreaterThan(VARIATIONS.length * 0.8);
		expect(plan.filter((d) => d.variations.includes(ONE_MIB_TITLE.name))).toHaveLength(1);
	});

	it('is the same for the same seed and differs for another', () => {
		const bytes = (seed: number) =>
			planDeliveries(target, { seed, total: 1_050 }).map((d) => `${d.path} ${decodeBody(d)}`);
		expect(bytes(13)).toEqual(bytes(13));
		expect(bytes(14)).not.toEqual(bytes(13));
	});

	it('leaves the catalogue out when asked for random combinations only', () => {
		const plan = planDeliveries(target, { seed: 15, total: 60, randomOnly: true });
		expect(plan).toHaveLength(60);
		expect(plan.every((d) => d.kind === 'random' && d.variations.length > 0)).toBe(true);
		expect(planProblems(plan, target)).toEqual([]);
	});

	it('catches a delivery that lost its token, its id or its type', () => {
		const [first, second, third] = planDeliveries(target, { seed: 13, total: 1_050 });
		const broken = [
			{ ...first, path: first.path.replace(/token=[^&]+/, 'token=guess') },
			{ ...second, eventId: 'another id' },
			{
				...third,
				body: Buffer.from(decodeBody(third).replace(/transcription\.(created|transcribed)/, 'x')),
				headers: [['content-type', 'application/json']] as Array<[string, string]>,
			},
		];
		expect(planProblems(broken, target)).toHaveLength(3);
	});
});

describe('the variations', () => {
	it.each(VARIATIONS.map((v) => [v.name, v] as const))(
		'%s changes the real event',
		(_, variation) => {
			const event = structuredClone(target.templates['transcription.transcribed']);
			const before = JSON.stringify(event);
			variation.apply(event, new Rng(1));
			expect(JSON.stringify(event)).not.toBe(before);
		},
	);

	it('keepsFiles is true only when the subject keeps its vtt and google_stt URLs', () => {
		const urls = (event: JsonObject) => {
			const attributes = subjectOf(event)?.attributes;
			const list =
				isObject(attributes) && Array.isArray(attributes.transcriptions)
					? attributes.transcriptions
					: [];
			return list
				.filter(isObject)
				.filter((f) => f.format === 'vtt' || f.format === 'google_stt')
				.map((f) => `${f.format} ${f.url}`);
		};
		const template = target.templates['transcription.transcribed'];
		expect(urls(template)).toHaveLength(2);
		// the other way round is allowed: without relationships the subject is a guess, so no files are promised
		const wrong: string[] = [];
		for (const variation of VARIATIONS) {
			const event = structuredClone(template);
			variation.apply(event, new Rng(1));
			const kept = JSON.stringify(urls(event)) === JSON.stringify(urls(template));
			if (variation.keepsFiles && !kept)
				wrong.push(`${variation.name}: keepsFiles but changes them`);
		}
		expect(wrong).toEqual([]);
	});
});

describe('the downloads phase', () => {
	const plan = () => planDownloads(target, files, { seed: 14, total: 200, timeouts: 2 });

	it('has the deliveries whose download never answers first, then every file source', () => {
		const deliveries = plan();
		expect(deliveries).toHaveLength(200);
		expect(planProblems(deliveries, target)).toEqual([]);
		expect(deliveries.slice(0, 2).map((d) => d.slow)).toEqual([true, true]);
		expect(deliveries.filter((d) => d.slow)).toHaveLength(2);
		const labels = new Set(deliveries.flatMap((d) => d.variations));
		for (const index of CONTENT_DISPOSITIONS.keys()) {
			const label = `files: Content-Disposition ${JSON.stringify(CONTENT_DISPOSITIONS[index] ?? 'none').slice(0, 60)}`;
			expect([label, labels.has(label)]).toEqual([label, true]);
		}
		for (const title of TRICKY_TITLES)
			expect(labels.has(`title: ${JSON.stringify(title)}`)).toBe(true);
	});

	it('expects an error for a failing file and a binary for a served one', () => {
		const deliveries = plan();
		const withLabel = (label: string) =>
			deliveries.find((d) => d.kind === 'catalogue' && d.variations.includes(label));
		expect(withLabel('files: vtt 404')?.files).toEqual({ vtt: 'error', google_stt: 'binary' });
		expect(withLabel('files: vtt never answers')?.files).toEqual({
			vtt: 'error',
			google_stt: 'binary',
		});
		expect(withLabel('files: the sandbox’s signed URLs')?.files).toEqual({
			vtt: 'binary',
			google_stt: 'binary',
		});
		const failing = withLabel('files: vtt 404')!;
		expect(decodeBody(failing)).toMatch(/\/404\/0\/[^"]+\/vtt/);
	});
});
