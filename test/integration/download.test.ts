// Downloads through n8n-core's real request and binary helpers (ExecuteContext) against a file server on 127.0.0.1:
// the byte cap (by Content-Length, and counted while the body streams), and the execution's cancel signal ending a
// download at once. CAPTIONING_DOWNLOAD_MEMORY=1 adds the memory figures of a download three times the cap
// (docs/design.md, "Downloads"): they are printed, and the growth must stay under twice the cap.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { Captioning } from '../../nodes/Captioning/Captioning.node';
import { allowingHost } from '../helpers/allowedHost';
import { createHarness, type Harness } from '../helpers/n8nContext';

const MB = 1024 * 1024;
const captioning = new Captioning();
const CHUNK = Buffer.alloc(64 * 1024, 0x41);
const VTT = 'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHello.\n';

interface FileServer {
	url: string;
	/** Bytes written per path, and whether the client closed the connection before the end. */
	sent: Map<string, { bytes: number; closedEarly: boolean; closedAt?: number }>;
	close(): Promise<void>;
}

/**
 * /big?mb=N (N MB with Content-Length), /endless?mb=N (N MB without it), /slow (1 KB per 50 ms for 30 s),
 * /small.vtt (a WebVTT file).
 */
async function startFileServer(): Promise<FileServer> {
	const sent: FileServer['sent'] = new Map();
	const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const url = new URL(req.url ?? '/', 'http://files');
		const record = { bytes: 0, closedEarly: false } as {
			bytes: number;
			closedEarly: boolean;
			closedAt?: number;
		};
		sent.set(url.pathname, record);
		res.on('close', () => {
			if (!res.writableFinished) {
				record.closedEarly = true;
				record.closedAt = Date.now();
			}
		});
		if (url.pathname === '/small.vtt') {
			res.writeHead(200, { 'content-type': 'text/vtt' });
			res.end(VTT);
			return;
		}
		const total = Number(url.searchParams.get('mb') ?? 1) * MB;
		if (url.pathname === '/big' || url.pathname === '/endless') {
			res.writeHead(200, {
				'content-type': 'text/vtt',
				...(url.pathname === '/big' ? { 'content-length': String(total) } : {}),
			});
			const write = () => {
				while (record.bytes < total && !res.destroyed) {
					record.bytes += CHUNK.length;
					if (!res.write(CHUNK)) return void res.once('drain', write);
				}
				if (!res.destroyed) res.end();
			};
			write();
			return;
		}
		// /slow
		res.writeHead(200, { 'content-type': 'text/vtt' });
		const timer = setInterval(() => {
			if (res.destroyed || record.bytes >= 600 * 1024) {
				clearInterval(timer);
				if (!res.destroyed) res.end();
				return;
			}
			record.bytes += 1024;
			res.write(Buffer.alloc(1024, 0x41));
		}, 50);
		res.on('close', () => clearInterval(timer));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		sent,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

let files: FileServer;
let h: Harness;

beforeEach(async () => {
	files = await startFileServer();
	h = createHarness({ baseUrl: 'http://127.0.0.1:1', clientId: 'c', clientSecret: 's' });
	h.nodeTypes.getByName = () => captioning;
	h.nodeTypes.getByNameAndVersion = () => captioning;
});

afterEach(async () => {
	await files.close();
});

/** Runs the node once; a `url` starting with "/" is on the file server. */
async function run(parameters: IDataObject, signal?: AbortSignal): Promise<INodeExecutionData[]> {
	const url = String(parameters.url ?? '');
	const node = h.makeNode(
		'captioning',
		allowingHost(
			{ ...parameters, ...(url.startsWith('/') ? { url: `${files.url}${url}` } : {}) },
			files.url,
		) as INodeParameters,
	);
	const ctx = h.executeContext(node, [{ json: {} }], undefined, 'manual', signal);
	const [output] = await captioning.execute.call(ctx);
	return output;
}

const download = (path: string, options: IDataObject = {}): IDataObject => ({
	resource: 'captionFile',
	operation: 'download',
	source: 'url',
	url: path,
	format: 'vtt',
	binaryPropertyName: 'data',
	options,
});

describe('the byte cap', () => {
	test('Download stores a file within the cap as a stream into binary data', async () => {
		const [item] = await run(download('/small.vtt'));
		expect(Buffer.from(item.binary!.data.data, 'base64').toString('utf8')).toBe(VTT);
		expect(item.binary!.data).toMatchObject({ mimeType: 'text/vtt', fileName: 'captions.vtt' });
	});

	test('Download: a Content-Length over Max File Size ends before the body is read, naming size and cap', async () => {
		const error = await run(download('/big?mb=50', { maxFileSize: 1 })).catch((e: Error) => e);
		expect(error).toMatchObject({
			name: 'NodeOperationError',
			message: `The file at ${files.url}/big?[redacted] is 50 MB, over the Max File Size of 1 MB. Raise Max File Size under Options if files this large are expected.`,
		});
		await waitUntil(() => files.sent.get('/big')?.closedEarly === true);
		// what the server could write before the connection closed: socket buffers, not the file
		expect(files.sent.get('/big')!.bytes).toBeLessThan(50 * MB);
	});

	test('Download: a body without Content-Length is stopped once the bytes counted pass the cap', async () => {
		const error = await run(download('/endless?mb=20', { maxFileSize: 2 })).catch((e: Error) => e);
		expect(error).toMatchObject({
			name: 'NodeOperationError',
			message: expect.stringMatching(/ is larger than 2 MB, over the Max File Size of 2 MB\./),
		});
		await waitUntil(() => files.sent.get('/endless')?.closedEarly === true);
		expect(files.sent.get('/endless')!.bytes).toBeLessThan(10 * MB);
	});

	test('Convert from a URL has the same cap, beside the URL', async () => {
		const error = await run({
			resource: 'captionFile',
			operation: 'convert',
			inputSource: 'url',
			url: '/endless?mb=20',
			maxFileSize: 1,
			from: 'vtt',
			to: 'text',
			options: {},
		}).catch((e: Error) => e);
		expect((error as Error).message).toMatch(
			/ is larger than 1 MB, over the Max File Size of 1 MB\./,
		);
	});
});

describe("the execution's cancel signal", () => {
	test('a cancelled execution stops its download within a second, and the file server sees it', async () => {
		const controller = new AbortController();
		let abortedAt = 0;
		setTimeout(() => {
			abortedAt = Date.now();
			controller.abort();
		}, 300);
		const error = await run(download('/slow'), controller.signal).catch((e: Error) => e);
		const endedAfterMs = Date.now() - abortedAt;
		expect(error).toMatchObject({
			name: 'NodeOperationError',
			message: `The execution was cancelled: downloading ${files.url}/slow was stopped.`,
		});
		await waitUntil(() => files.sent.get('/slow')?.closedEarly === true);
		const closedAfterMs = files.sent.get('/slow')!.closedAt! - abortedAt;
		process.stdout.write(
			`[download] cancelled: the execution ended ${endedAfterMs} ms and the connection closed ${closedAfterMs} ms after the signal\n`,
		);
		expect(endedAfterMs).toBeLessThan(1_000);
		expect(closedAfterMs).toBeLessThan(1_000);
		// the file would have taken 30 s
		expect(files.sent.get('/slow')!.bytes).toBeLessThan(100 * 1024);
	});
});

const describeMemory = process.env.CAPTIONING_DOWNLOAD_MEMORY === '1' ? describe : describe.skip;

describeMemory('memory (CAPTIONING_DOWNLOAD_MEMORY=1)', () => {
	const CAP_MB = 100;

	// a full collection before each baseline, without --expose-gc on jest's command line
	setFlagsFromString('--expose-gc');
	const gc = runInNewContext('gc') as () => void;

	/** Peak growth of RSS and of heap + array buffers while `body` runs, sampled every 5 ms. */
	async function peakGrowth(body: () => Promise<unknown>) {
		gc();
		const base = process.memoryUsage();
		let rss = 0;
		let heap = 0;
		const sample = () => {
			const now = process.memoryUsage();
			rss = Math.max(rss, now.rss - base.rss);
			heap = Math.max(heap, now.heapUsed + now.arrayBuffers - base.heapUsed - base.arrayBuffers);
		};
		const timer = setInterval(sample, 5);
		const outcome = await body().catch((e: Error) => e);
		sample();
		clearInterval(timer);
		return { outcome, rssMb: rss / MB, heapMb: heap / MB };
	}

	test.each([
		['Download, no Content-Length (counted)', download(`/endless?mb=${3 * CAP_MB}`)],
		['Download, Content-Length', download(`/big?mb=${3 * CAP_MB}`)],
		[
			'Convert from a URL, no Content-Length',
			{
				resource: 'captionFile',
				operation: 'convert',
				inputSource: 'url',
				url: `/endless?mb=${3 * CAP_MB}`,
				from: 'vtt',
				to: 'text',
				options: {},
			},
		],
	])('%s: a file of 3× the 100 MB cap grows memory by less than 2× the cap', async (name, p) => {
		const parameters = {
			...p,
			url: String(p.url).startsWith('/') ? `${files.url}${p.url}` : p.url,
		};
		const { outcome, rssMb, heapMb } = await peakGrowth(() => run(parameters));
		process.stdout.write(
			`[download] ${name}: ${3 * CAP_MB} MB file, cap ${CAP_MB} MB: peak growth RSS ${rssMb.toFixed(1)} MB, heap + buffers ${heapMb.toFixed(1)} MB; ${(outcome as Error).message}\n`,
		);
		expect((outcome as Error).message).toMatch(/over the Max File Size of 100 MB/);
		expect(rssMb).toBeLessThan(2 * CAP_MB);
		expect(heapMb).toBeLessThan(2 * CAP_MB);
	});
});

async function waitUntil(check: () => boolean, timeoutMs = 5_000) {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline) throw new Error('timed out');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
