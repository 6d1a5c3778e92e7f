// Download Caption Files after the trigger has answered 200 (trigger/downloads.ts): every failure ends up on the
// item, none is thrown. The HTTP helper and the binary store are n8n's; here they are stand-ins per branch.
import type { IBinaryData, IHttpRequestOptions, INodeExecutionData } from 'n8n-workflow';

import { attachDownloads, type DownloadHelpers } from '../../nodes/Captioning/trigger/downloads';

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

type Answer = { statusCode: number; headers?: Record<string, string>; body: string } | Error;

/** n8n's helpers answering each URL as given; prepareBinaryData as n8n's, minus the storage. */
function helpers(answers: Record<string, Answer>, store?: DownloadHelpers['prepareBinaryData']) {
	const requests: IHttpRequestOptions[] = [];
	const h: DownloadHelpers = {
		http: async (options) => {
			requests.push(options);
			const answer = answers[String(options.url)];
			if (answer instanceof Error) throw answer;
			if (!answer) throw new Error(`unexpected ${options.url}`);
			return { ...answer, headers: answer.headers ?? {}, body: Buffer.from(answer.body) };
		},
		prepareBinaryData:
			store ??
			(async (data, fileName, mimeType) =>
				({ data: data.toString('base64'), fileName, mimeType }) as IBinaryData),
	};
	return { h, requests };
}

const ok = (body: string, headers?: Record<string, string>): Answer => ({
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
		const target = item();
		const { h, requests } = helpers({ [VTT_URL]: ok(VTT), [GOOGLE_URL]: ok(GOOGLE) });
		await attachDownloads(
			target,
			[
				{ format: 'vtt', url: VTT_URL },
				{ format: 'google_stt', url: GOOGLE_URL },
			],
			h,
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
		// signed URLs carry their own authorisation: no credential, the raw bytes
		expect(requests[0]).toMatchObject({ method: 'GET', encoding: 'arraybuffer' });
	});

	test('a name from Content-Disposition that used to throw', async () => {
		const target = item();
		const { h } = helpers({
			[VTT_URL]: ok(VTT, { 'content-disposition': 'attachment; filename="Q3 50% update.vtt"' }),
		});
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h);
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
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h);
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
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h);
		expect(target.json.downloadErrors).toEqual([
			{
				format: 'vtt',
				message: expect.stringMatching(/could not be stored on the item: disk full/),
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
		);
		expect(target.json.transcript).toBe('Hello from WebVTT.');
		expect(target.json.downloadErrors).toBeUndefined();
	});

	test('no readable caption file: no transcript, and the item says why', async () => {
		const target = item();
		const { h } = helpers({ [GOOGLE_URL]: ok('not json at all') });
		await attachDownloads(target, [{ format: 'google_stt', url: GOOGLE_URL }], h);
		expect(target.binary?.google_stt).toBeDefined();
		expect(target.json.transcript).toBeUndefined();
		expect(target.json.downloadErrors).toEqual([
			{
				format: 'google_stt',
				message: expect.stringMatching(/^No transcript: the google_stt file/),
			},
		]);
	});

	test('a format without a transcript reader is only stored', async () => {
		const target = item();
		const url = 'https://files.example.com/a.dfxp';
		const { h } = helpers({ [url]: ok('<tt/>', { 'content-type': 'application/ttml+xml' }) });
		await attachDownloads(target, [{ format: 'dfxp', url }], h);
		expect(target.binary?.dfxp).toMatchObject({ mimeType: 'application/ttml+xml' });
		expect(target.json).toEqual({ title: 'Board meeting' });
	});

	test('errors the pipeline put on the item are kept, new ones added', async () => {
		const target = item({ title: null, downloadErrors: [{ format: 'srt', message: 'not a URL' }] });
		const { h } = helpers({ [VTT_URL]: { statusCode: 404, body: '' } });
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h);
		expect(target.json.downloadErrors).toEqual([
			{ format: 'srt', message: 'not a URL' },
			{ format: 'vtt', message: expect.stringMatching(/no file at .*HTTP 404/) },
		]);
	});

	test('a title of any type names nothing', async () => {
		const target = item({ title: { en: 'Board' } });
		const { h } = helpers({ [VTT_URL]: ok(VTT) });
		await attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h);
		expect(target.binary?.vtt.fileName).toBe('captions.vtt');
	});

	test('never rejects, whatever the helpers do', async () => {
		const target = item();
		const h: DownloadHelpers = {
			http: () => Promise.reject('not even an Error'),
			prepareBinaryData: () => Promise.reject(new Error('x')),
		};
		await expect(
			attachDownloads(target, [{ format: 'vtt', url: VTT_URL }], h),
		).resolves.toBeUndefined();
		expect(target.json.downloadErrors).toHaveLength(1);
	});
});
