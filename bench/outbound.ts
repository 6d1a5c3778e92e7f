// The budgets of outside fetches, in a real n8n 2.41.1 with the packed package (issue 38): printed figures, no
// pass or fail.
//   1. The trigger's answer to an event whose Google STT transcript is ~15 MiB (Download Caption Files: google_stt):
//      how long the service waited for its 2xx (the sandbox's own timing of the delivery), and the longest stall of
//      n8n's main event loop meanwhile (the longest answer of /healthz, asked every 20 ms).
//   2. A tarpit file server (one byte every 2 s, forever) behind Caption File › Download with its Download Timeout:
//      when the execution ends, and when the tarpit sees its connection closed.
//
//   bash scripts/run.sh exec tsx bench/outbound.ts [--mib 15[,1,…]] [--timeout 10] [--runs 3] [--only trigger|tarpit]
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';

import {
	ACTION_TYPE,
	createSandboxCredential,
	linearWorkflow,
	type N8nInstance,
	packProject,
	removePacked,
	startN8n,
	triggerWorkflow,
	webhookNode,
} from '../harness';
import { longText } from '../sandbox/longTranscript';
import { type Sandbox, startSandbox } from '../sandbox/server';

const { values } = parseArgs({
	options: {
		mib: { type: 'string', default: '15' },
		timeout: { type: 'string', default: '10' },
		runs: { type: 'string', default: '3' },
		only: { type: 'string' },
	},
});
const SIZES_MIB = values.mib.split(',').map(Number);
const TIMEOUT_S = Number(values.timeout);
const RUNS = Number(values.runs);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (ms: number) => Math.round(ms);

/**
 * Asks /healthz every 20 ms from a worker thread of its own (this process builds the transcripts and serves the
 * files: its own pauses must not count); the longest answer is the longest n8n's main event loop was held.
 */
function stallProbe(n8n: N8nInstance) {
	const worker = new Worker(
		`const { parentPort, workerData } = require('node:worker_threads');
		const samples = [];
		let running = true;
		parentPort.on('message', () => { running = false; });
		(async () => {
			while (running) {
				const started = performance.timeOrigin + performance.now();
				await fetch(workerData.url).then((r) => r.arrayBuffer()).catch(() => undefined);
				samples.push([started, performance.timeOrigin + performance.now() - started]);
				await new Promise((resolve) => setTimeout(resolve, 20));
			}
			parentPort.postMessage(samples);
		})();`,
		{ eval: true, workerData: { url: `${n8n.baseUrl}/healthz` } },
	);
	return {
		/** The longest answer of those asked before `until` (epoch ms), and of all. */
		async stop(until: number): Promise<{ before: number; all: number }> {
			const samples = new Promise<Array<[number, number]>>((resolve) =>
				worker.once('message', resolve),
			);
			worker.postMessage('stop');
			const all = await samples;
			await worker.terminate();
			const longest = (list: Array<[number, number]>) => Math.max(0, ...list.map(([, ms]) => ms));
			return { before: longest(all.filter(([at]) => at < until)), all: longest(all) };
		},
	};
}

/** Words of speech whose Google STT file is about `mib` MiB (the sandbox writes ~0.9 MiB an hour, 1.6 words/s). */
async function wordsFor(sandbox: Sandbox, mib: number): Promise<number> {
	const sample = 2_000;
	const { transcription } = await sandbox.transcribe({
		title: 'sizing',
		text: longText(sample, 'size'),
	});
	const bytes = Buffer.byteLength(transcription.files.google_stt.content);
	return Math.round((sample * mib * 1024 * 1024) / bytes);
}

async function triggerAnswer(n8n: N8nInstance, sandbox: Sandbox) {
	const credential = await createSandboxCredential(n8n, sandbox, `bench ${randomUUID()}`);
	const workflow = await n8n.createWorkflow(
		triggerWorkflow({
			name: 'Bench: a long transcript',
			webhookId: randomUUID(),
			credential,
			parameters: {
				registration: 'api',
				events: ['transcription.transcribed'],
				options: { downloadFormats: ['google_stt'] },
			},
		}),
	);
	await n8n.activateWorkflow(workflow.id);
	const rows: string[] = [];
	for (const size of SIZES_MIB) rows.push(...(await answers(n8n, sandbox, size)));
	await n8n.deactivateWorkflow(workflow.id);
	return rows;
}

async function answers(n8n: N8nInstance, sandbox: Sandbox, size: number) {
	const words = await wordsFor(sandbox, size);
	const rows: string[] = [];
	for (let run = 1; run <= RUNS; run++) {
		const text = longText(words, `bench-${run}`);
		const probe = stallProbe(n8n);
		await sleep(200);
		const { transcription, events } = await sandbox.transcribe({ title: `Bench ${run}`, text });
		const mib = Buffer.byteLength(transcription.files.google_stt.content) / 1024 / 1024;
		const sent = events.find((e) => e.eventType === 'transcription.transcribed');
		let attempt;
		for (let waited = 0; !attempt && waited < 60_000; waited += 50) {
			attempt = sandbox.deliveries.find((d) => d.eventId === sent?.id && d.attempt === 1);
			if (!attempt) await sleep(50);
		}
		await sleep(1_000); // the execution runs on: its stalls are counted apart
		const answeredAt = attempt ? Date.parse(attempt.at) + attempt.durationMs : Date.now();
		const stall = await probe.stop(answeredAt);
		rows.push(
			`  ${size} MiB, run ${run}: google_stt ${mib.toFixed(2)} MiB, answered ${attempt ? `${round(attempt.durationMs)} ms (HTTP ${attempt.status})` : 'not within 60 s'}, longest /healthz until the answer ${round(stall.before)} ms, with the execution after it ${round(stall.all)} ms`,
		);
	}
	return rows;
}

/** One byte every 2 s, for ever; records when each connection opened and closed. */
async function startTarpit() {
	const connections: Array<{ opened: number; closed?: number }> = [];
	const server: Server = createServer((req, res) => {
		const entry = { opened: performance.now() } as { opened: number; closed?: number };
		connections.push(entry);
		res.writeHead(200, { 'content-type': 'text/vtt' });
		res.write('W');
		const timer = setInterval(() => res.write('E'), 2_000);
		req.socket.on('close', () => {
			clearInterval(timer);
			entry.closed = performance.now();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		port,
		connections,
		stop: () => {
			server.closeAllConnections();
			return new Promise((resolve) => server.close(resolve));
		},
	};
}

async function tarpitDownload(n8n: N8nInstance) {
	const tarpit = await startTarpit();
	const path = `bench-tarpit-${randomUUID()}`;
	const workflow = await n8n.createWorkflow(
		linearWorkflow('Bench: a tarpit download', [
			webhookNode(path, { parameters: { responseData: 'firstEntryJson' } }),
			{
				id: randomUUID(),
				name: 'Download',
				type: ACTION_TYPE,
				typeVersion: 1,
				onError: 'continueRegularOutput',
				parameters: {
					resource: 'captionFile',
					operation: 'download',
					source: 'url',
					url: `http://127.0.0.1:${tarpit.port}/slow.vtt`,
					format: 'vtt',
					binaryPropertyName: 'data',
					options: { allowedHosts: `127.0.0.1:${tarpit.port}`, downloadTimeout: TIMEOUT_S },
				},
			},
		]),
	);
	await n8n.activateWorkflow(workflow.id);
	const started = performance.now();
	const answer = await Promise.race([
		// the harness's own request gives up after a while: that is no answer either
		n8n.request('POST', `${n8n.webhookBaseUrl}/${path}`, { body: {} }).catch(() => undefined),
		sleep(TIMEOUT_S * 1000 + 60_000).then(() => undefined),
	]);
	const ended = performance.now() - started;
	await sleep(500);
	const connection = tarpit.connections[0];
	const closed =
		connection?.closed === undefined ? 'still open' : `${round(connection.closed - started)} ms`;
	await n8n.deactivateWorkflow(workflow.id);
	await tarpit.stop();
	const said = answer ? JSON.stringify(answer.body).slice(0, 200) : 'no answer';
	return [
		`  Download Timeout ${TIMEOUT_S} s: the execution ended after ${round(ended)} ms; the tarpit's connection closed at ${closed}`,
		`  the item: ${said}`,
	];
}

async function main() {
	const tarball = await packProject();
	const sandbox = await startSandbox({ rateLimit: null, transcribeAfterMs: 0 });
	const n8n = await startN8n({ packageTarball: tarball });
	try {
		if (values.only !== 'tarpit') {
			const sizes = SIZES_MIB.join(', ');
			console.log(
				`The trigger's answer with a Google STT transcript of ${sizes} MiB (budget 5 s):`,
			);
			for (const row of await triggerAnswer(n8n, sandbox)) console.log(row);
		}
		if (values.only !== 'trigger') {
			console.log('A tarpit download (one byte every 2 s):');
			for (const row of await tarpitDownload(n8n)) console.log(row);
		}
	} finally {
		await n8n.stop();
		await sandbox.stop();
		await removePacked(tarball);
	}
}

void main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
