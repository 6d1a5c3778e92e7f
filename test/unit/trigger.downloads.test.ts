// Download Caption Files before n8n answers the delivery (trigger/downloads.ts): every failure, the time budget's
// end included, ends up on the item, none is thrown. The HTTP helper and the binary store are n8n's; here they are
// stand-ins per branch (test/integration has n8n-core's real ones).
import { Readable } from 'node:stream';
import type { IBinaryData, IHttpRequestOptions, INodeExecutionData } from 'n8n-workflow';

import {
	attachDownloads,
	type DownloadHelpers,
	type DownloadSettings,
	outOfTime,
	TRANSCRIPT_SOURCE_MAX_BYTES,
} from '../../nodes/Captioning/trigger/downloads';

const VTT = 'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHello from WebVTT.\n';
const GOOGLE = JSON.stringify({
	results: [
		{
			alternatives: [
				{
					transcript: 'Hello from Google',
					words: [
						{ startTime: '0s', endTime: '0.5s', word: 'Hello' },
						{ startTime: '0.5s', endTime: '1s', word: 'from' },
						{ startTime: '1s', endTime: '1.5s', word: 'Google.' },
					],
				},
			],
		},
	],
});

type Answer =
	| { statusCode: number; headers?: Record<string, string>; body: string | Buffer | Readable }
	| Error
	| 'hang';

const SETTINGS: DownloadSettings = {
	maxBytes: 1024 * 1024,
	budgetMs: 2_000,
	policy: { allowed: [], setting: "Allowed File Hosts under the trigger's Options" },
};

/** Reads a stream whole, as n8n's binary store does. */
async function bytesOf(stream: Readable): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

/**
 * n8n's helpers answering each URL as given, the body as a stream that the request's abortSignal ends as n8n's
 * does ('hang': no answer until then); prepareBinaryData as n8n's, minus the storage.
 */
function helpers(answers: Record<string, Answer>, store?: DownloadHelpers['prepareBinaryData']) {
	const requests: IHttpRequestOptions[] = [];
	const h: DownloadHelpers = {
		// files.example.com is public: the request goes to its address, with the name in Host
		resolve: async () => ['93.184.216.34'],
		http: async (options) => {
			requests.push(options);
			const asked = new URL(String(options.url));
			const host = (options.headers as Record<string, string> | undefined)?.host;
			if (host) asked.host = host;
			const answer = answers[asked.href];
			const signal = options.abortSignal as AbortSignal | undefined;
			const canceled = () => Object.assign(new Error('canceled'), { code: 'ERR_CANCELED' });
			if (answer === 'hang') {
				return await new Promise((_, reject) =>
					signal?.addEventListener('abort', () => reject(canceled())),
				);
			}
			if (answer instanceof Error) throw answer;
			if (!answer) throw new Error(`unexpected ${options.url}`);
			const body =
				answer.body instanceof Readable ? answer.body : Readable.from([Buffer.from(answer.body)]);
			signal?.addEventListener('abort', () => body.destroy(canceled()));
			return { statusCode: answer.statusCode, headers: answer.headers ?? {}, body };
		},
		prepareBinaryData:
			store ??
			(async (data, fileName, mimeType) =>
				({ data: (await bytesOf(data)).toString('base64'), fileName, mimeType }) as IBinaryData),
	};
	return { h, requests };
}

/** A body that sends `first` and then nothing more, as a file server that stalls. */
const stalling = (first = 'WEBVTT\n') =>
	new Readable({
		read() {
			if (first) this.push(Buffer.from(first));
			first = '';
		},
	});

const ok = (body: string | Buffer, headers?: Record<string, string>): Answer => ({
	statusCode: 200,
	headers,
	body,
});
const VTT_URL = 'https://files.example.com/a.vtt?expires=1&signature=secret-sig';
const GOOGLE_URL = 'https://files.example.com/a.json?expires=1&signature=secret-sig';
const item = (
	json: INodeExecutionData['json'] = { title: 'Board meeting' },
): INodeExecutionData => ({
	json,
});

describe('attachDownloads', () => {
	test('each file into a binary field named by its format, and the transcript from Google STT', async () => {
		// the item as Raw Body gives it has no title of its own: the files are named after the transcription's
		const target = item({ data: {} });
		const { h, requests } = helpers({ [VTT_URL]: ok(VTT), [GOOGLE_URL]: ok(GOOGLE) });
		await attachDownloads(
			target,
			[
				{ format: 'vtt', url: VTT_URL, title: 'Board meeting' },
				{ format: 'google_stt', url: GOOGLE_URL, title: 'Board meeting' },
			],
			h,
			SETTINGS,
		);
		expect(target.binary).toEqual({
			vtt: { data: expect.any(String), fileName: 'board-meeting.vtt', mimeType: 'text/vtt' },
			google_stt: {
				data: expect.any(String),
				fileName: 'board-meeting.google_stt.json',
				mimeType: 'application/json',
			},
		});
		expect(target.json.transcript).toBe('Hello from Google.');
		expect(target.json.downloadErrors).toBeUndefined();
		// signed URLs carry their own authorisation: no credential, the bytes as a stream, the budget's signal
		expect(requests[0]).toMatchObject({ method: 'GET', encoding: 'stream' });
		expect(requests[0].abortSignal).toBeDefined();
	});

	test('the transcript is decoded as Convert decodes a file: Windows-1252 read with a warning, UTF-16 by its mark', async () => {
		const cp1252 = Buffer.from(
			'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nCaf\xe9 cr\xe8me.\n',
			'latin1',
		);
		const latin = item();
		await attachDownloads(
			latin,
			[{ format: 'vtt', url: VTT_URL }],
			helpers({ [VTT_URL]: ok(cp1252) }).h,
			SETTINGS,
		);
		expect(latin.json.transcript).toBe('Café crème.');
		expect(latin.json.warnings).toEqual([
			expect.stringMatching(/^The transcript's vtt file: .*Windows-1252/),
		]);
		expect(latin.json.downloadErrors).toBeUndefined();
		// the file itself is stored as it came
		expect(Buffer.from(String(latin.binary?.vtt.data), 'base64')).toEqual(cp1252);

		const utf16 = item({ title: 'Board meeting', warnings: ['kept'] });
		const marked = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(VTT, 'utf16le')]);
		await attachDownloads(
			utf16,
			[{ format: 'vtt', url: VTT_URL }],
			helpers({ [VTT_URL]: ok(marked) }).h,
			SETTINGS,
		);
		expect(utf16.json.transcript).toBe('Hello from WebVTT.');
		// a byte order mark is no guess: nothing more to say, and what the item said stays
		expect(utf16.json.warnings).toEqual(['kept']);
	});

	test('a name from Content-Disposition that used to throw', async () => {
		const target = item();
		const { h } = helpers({
			[VTT_URL]: ok(VTT, { 'content-disposition': 'attachment; filename="Q3 50% update.vtt"' }),
		});
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h, SETTINGS);
		expect(target.binary?.vtt.fileName).toBe('Q3 50% update.vtt');
		expect(target.json.downloadErrors).toBeUndefined();
	});

	test('a refused download: the reason on the item, without the signature', async () => {
		const target = item();
		const { h } = helpers({
			[VTT_URL]: {
				statusCode: 403,
				body: JSON.stringify({ errors: [{ detail: 'This signed URL expired' }] }),
			},
			[GOOGLE_URL]: ok(GOOGLE),
		});
		await attachDownloads(
			target,
			[
				{ format: 'vtt', url: VTT_URL },
				{ format: 'google_stt', url: GOOGLE_URL },
			],
			h,
			SETTINGS,
		);
		expect(target.json.downloadErrors).toEqual([
			{ format: 'vtt', message: expect.stringMatching(/has expired/) },
		]);
		expect(Object.keys(target.binary ?? {})).toEqual(['google_stt']);
		expect(JSON.stringify(target.json)).not.toContain('secret-sig');
	});

	test('a network failure', async () => {
		const target = item();
		const { h } = helpers({ [VTT_URL]: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) });
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h, SETTINGS);
		expect(target.json.downloadErrors).toEqual([
			{ format: 'vtt', message: expect.stringMatching(/^Could not download/) },
		]);
		expect(target.binary).toBeUndefined();
	});

	test('the binary store failing', async () => {
		const target = item();
		const { h } = helpers({ [VTT_URL]: ok(VTT) }, async () => {
			throw new Error(`disk full while writing ${VTT_URL}`);
		});
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h, SETTINGS);
		expect(target.json.downloadErrors).toEqual([
			{
				format: 'vtt',
				message: expect.stringMatching(
					/^The vtt file could not be stored on the item\. The file from .* could not be stored: disk full/,
				),
			},
		]);
		expect(JSON.stringify(target.json)).not.toContain('secret-sig');
		expect(target.json.transcript).toBeUndefined();
	});

	test('an unreadable Google STT file: the transcript comes from the WebVTT file', async () => {
		const target = item();
		const { h } = helpers({ [VTT_URL]: ok(VTT), [GOOGLE_URL]: ok('{"results": 7}') });
		await attachDownloads(
			target,
			[
				{ format: 'google_stt', url: GOOGLE_URL },
				{ format: 'vtt', url: VTT_URL },
			],
			h,
			SETTINGS,
		);
		expect(target.json.transcript).toBe('Hello from WebVTT.');
		expect(target.json.downloadErrors).toBeUndefined();
	});

	test('no readable caption file: no transcript, and the item says why', async () => {
		const target = item();
		const { h } = helpers({ [GOOGLE_URL]: ok('not json at all') });
		await attachDownloads(target, [{ format: 'google_stt', url: GOOGLE_URL }], h, SETTINGS);
		expect(target.binary?.google_stt).toBeDefined();
		expect(target.json.transcript).toBeUndefined();
		// described, never quoted: the reader's own message would quote the line
		expect(target.json.downloadErrors).toEqual([
			{
				format: 'google_stt',
				message:
					'No transcript: the google_stt file is not Google Speech-to-Text JSON: it is text in no caption format.',
			},
		]);
	});

	test('a format without a transcript reader is only stored', async () => {
		const target = item();
		const url = 'https://files.example.com/a.dfxp';
		const { h } = helpers({ [url]: ok('<tt/>', { 'content-type': 'application/ttml+xml' }) });
		await attachDownloads(target, [{ format: 'dfxp', url }], h, SETTINGS);
		expect(target.binary?.dfxp).toMatchObject({ mimeType: 'application/ttml+xml' });
		expect(target.json).toEqual({ title: 'Board meeting' });
	});

	test('errors the pipeline put on the item are kept, new ones added', async () => {
		const target = item({ title: null, downloadErrors: [{ format: 'srt', message: 'not a URL' }] });
		const { h } = helpers({ [VTT_URL]: { statusCode: 404, body: '' } });
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h, SETTINGS);
		expect(target.json.downloadErrors).toEqual([
			{ format: 'srt', message: 'not a URL' },
			{ format: 'vtt', message: expect.stringMatching(/no file at .*HTTP 404/) },
		]);
	});

	test('a title of any type names nothing', async () => {
		const target = item({ title: { en: 'Board' } });
		const { h } = helpers({ [VTT_URL]: ok(VTT) });
		await attachDownloads(
			target,
			[{ format: 'vtt', url: VTT_URL, title: { en: 'Board' } }],
			h,
			SETTINGS,
		);
		expect(target.binary?.vtt.fileName).toBe('captions.vtt');
	});

	test('never rejects, whatever the helpers do', async () => {
		const target = item();
		const h: DownloadHelpers = {
			http: () => Promise.reject('not even an Error'),
			prepareBinaryData: () => Promise.reject(new Error('x')),
		};
		await expect(
			attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h, SETTINGS),
		).resolves.toBeUndefined();
		expect(target.json.downloadErrors).toHaveLength(1);
	});

	test('a file over Max File Size by its Content-Length: refused before its body is read', async () => {
		const target = item();
		const body = stalling();
		const { h } = helpers({
			[VTT_URL]: {
				statusCode: 200,
				headers: { 'content-length': String(150 * 1024 * 1024) },
				body,
			},
		});
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h, SETTINGS);
		expect(target.json.downloadErrors).toEqual([
			{
				format: 'vtt',
				message:
					'The file at https://files.example.com/a.vtt?[redacted] is 150 MB, over the Max File Size of 1 MB. Raise Max File Size under Options if files this large are expected.',
			},
		]);
		expect(target.binary).toBeUndefined();
		// the connection is closed, not drained
		expect(body.destroyed).toBe(true);
	});

	test('a file over Max File Size without a Content-Length: stopped once the bytes counted pass it', async () => {
		const target = item();
		let sent = 0;
		// 64 KB chunks for ever: only the count can stop it
		const endless = new Readable({
			read() {
				sent += 65_536;
				this.push(Buffer.alloc(65_536, 0x41));
			},
		});
		const { h } = helpers({ [VTT_URL]: { statusCode: 200, body: endless } });
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h, SETTINGS);
		expect(target.json.downloadErrors).toEqual([
			{
				format: 'vtt',
				message: expect.stringMatching(
					/^The file at https:\/\/files\.example\.com\/a\.vtt\?\[redacted\] is larger than 1 MB, over the Max File Size of 1 MB\./,
				),
			},
		]);
		expect(endless.destroyed).toBe(true);
		// read ahead is bounded: a few chunks beyond the cap, never the rest
		expect(sent).toBeLessThan(2 * 1024 * 1024);
		expect(target.binary).toBeUndefined();
	});

	test('a file exactly at Max File Size is stored', async () => {
		const target = item();
		const exact = Buffer.alloc(SETTINGS.maxBytes, 0x41);
		const { h } = helpers({
			[VTT_URL]: {
				statusCode: 200,
				headers: { 'content-length': String(exact.length) },
				body: exact,
			},
		});
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h, SETTINGS);
		expect(Buffer.from(target.binary!.vtt.data, 'base64').equals(exact)).toBe(true);
	});

	test('a file server that stalls: the item is handed on once the budget is spent, saying so', async () => {
		const target = item();
		const { h, requests } = helpers({
			[VTT_URL]: { statusCode: 200, body: stalling() },
			[GOOGLE_URL]: 'hang',
		});
		await attachDownloads(
			target,
			[
				{ format: 'vtt', url: VTT_URL },
				{ format: 'google_stt', url: GOOGLE_URL },
			],
			h,
			{ ...SETTINGS, budgetMs: 200 },
		);
		expect(target.json.downloadErrors).toEqual([
			{ format: 'vtt', message: outOfTime('vtt', 200) },
			{ format: 'google_stt', message: outOfTime('google_stt', 200) },
		]);
		expect(outOfTime('vtt', 5_000)).toBe(
			'The vtt file was not downloaded within 5 s, the time the trigger gives its downloads so that the service gets its answer in time. Its signed URL is under files.vtt: download it in the workflow with Captioning › Caption File › Download before it expires.',
		);
		// both side by side, under the one budget, and both requests aborted with it
		expect(requests.map((r) => (r.abortSignal as AbortSignal).aborted)).toEqual([true, true]);
		expect(target.binary).toBeUndefined();
	});

	test('files that arrive in time are kept when another one runs out of it', async () => {
		const target = item();
		const { h } = helpers({ [VTT_URL]: ok(VTT), [GOOGLE_URL]: 'hang' });
		await attachDownloads(
			target,
			[
				{ format: 'google_stt', url: GOOGLE_URL },
				{ format: 'vtt', url: VTT_URL },
			],
			h,
			{ ...SETTINGS, budgetMs: 200 },
		);
		expect(Object.keys(target.binary ?? {})).toEqual(['vtt']);
		expect(target.json.transcript).toBe('Hello from WebVTT.');
		expect(target.json.downloadErrors).toEqual([
			{ format: 'google_stt', message: outOfTime('google_stt', 200) },
		]);
	});

	test('a caption file too large to read a transcript from is stored, and the item says why', async () => {
		const target = item();
		const cue = '00:00:00.000 --> 00:00:01.000\nWords.\n\n';
		const cap = TRANSCRIPT_SOURCE_MAX_BYTES.vtt;
		const big = `WEBVTT\n\n${cue.repeat(Math.ceil(cap / cue.length) + 1)}`;
		const { h } = helpers({ [VTT_URL]: ok(big) });
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h, {
			...SETTINGS,
			maxBytes: 2 * cap,
		});
		expect(target.binary?.vtt).toBeDefined();
		expect(target.json.transcript).toBeUndefined();
		expect(target.json.downloadErrors).toEqual([
			{
				format: 'vtt',
				message:
					'No transcript: the vtt file is larger than 2 MB, the most the trigger reads a transcript from before it answers the service (reading holds n8n for as long as it takes). The file is on the item: read it in the workflow with Caption File › Convert (Input: Binary Field "vtt", To: Plain Text).',
			},
		]);
	});
});
