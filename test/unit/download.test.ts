// The signed-file download (transport/download.ts): file names from Content-Disposition, else from the title, and
// what a failed download tells the user. The trigger names files after it has answered the delivery: nothing
// here may throw.
import { Readable } from 'node:stream';
import type { IHttpRequestOptions } from 'n8n-workflow';

import {
	describeDownloadFailure,
	describeTooLarge,
	downloadFile,
	downloadToBinary,
	type Fetcher,
	fileNameFor,
	fileNameFromContentDisposition,
	FileTooLargeError,
	formatBytes,
	maxBytesFrom,
	streamFailure,
} from '../../nodes/Captioning/transport/download';

describe('fileNameFromContentDisposition', () => {
	test.each([
		['a quoted filename', 'attachment; filename="board.vtt"', 'board.vtt'],
		['a token filename', 'attachment; filename=board.vtt', 'board.vtt'],
		['no disposition type', 'filename="board.vtt"', 'board.vtt'],
		['parameter names in any case', 'attachment; FILENAME="Board.vtt"', 'Board.vtt'],
		['spaces around "="', 'attachment; filename = "board.vtt" ', 'board.vtt'],
		['filename* in UTF-8', "attachment; filename*=UTF-8''caf%C3%A9.vtt", 'café.vtt'],
		['filename* with a language', "attachment; filename*=utf-8'fr'caf%C3%A9.vtt", 'café.vtt'],
		['filename* in ISO-8859-1', "attachment; filename*=ISO-8859-1''caf%E9.vtt", 'café.vtt'],
		[
			'filename* in a charset Node lacks',
			"attachment; filename*=x-nope''caf%C3%A9.vtt",
			'café.vtt',
		],
		['filename* without charset and language', 'attachment; filename*=caf%C3%A9.vtt', 'café.vtt'],
		[
			'filename* before filename, whatever the order',
			'attachment; filename="fallback.vtt"; filename*=UTF-8\'\'r%C3%A9el.vtt',
			'réel.vtt',
		],
		[
			'a percent sign in a filename',
			'attachment; filename="Q3 50% update.vtt"',
			'Q3 50% update.vtt',
		],
		[
			'a bare percent sign in filename*',
			"attachment; filename*=UTF-8''Q3%2050%%20update.vtt",
			'Q3 50% update.vtt',
		],
		[
			'a percent-encoded filename',
			'attachment; filename="board%20meeting.vtt"',
			'board meeting.vtt',
		],
		[
			'a percent-encoded filename that is not UTF-8 stays as it came',
			'attachment; filename="caf%E9.vtt"',
			'caf%E9.vtt',
		],
		['non-UTF-8 bytes in filename*', "attachment; filename*=UTF-8''caf%E9.vtt", 'caf\uFFFD.vtt'],
		[
			'raw UTF-8 bytes (read by Node as Latin-1)',
			`attachment; filename="${Buffer.from('café.vtt').toString('latin1')}"`,
			'café.vtt',
		],
		['a raw Latin-1 byte', 'attachment; filename="caf\u00e9.vtt"', 'café.vtt'],
		['escaped quotes', 'attachment; filename="say \\"hi\\".vtt"', 'say "hi".vtt'],
		['a semicolon inside quotes', 'attachment; filename="a;b.vtt"; size=3', 'a;b.vtt'],
		['an unterminated quote', 'attachment; filename="board.vtt', 'board.vtt'],
		['path separators', 'attachment; filename="../../etc/passwd"', '.._.._etc_passwd'],
		['backslashes', 'attachment; filename="..\\\\win\\\\x.vtt"', '.._win_x.vtt'],
		['an encoded slash in filename*', "attachment; filename*=UTF-8''a%2Fb.vtt", 'a_b.vtt'],
		['control characters', "attachment; filename*=UTF-8''a%00b%0A.vtt", 'ab.vtt'],
	])('%s', (_name, header, expected) => {
		expect(fileNameFromContentDisposition(header)).toBe(expected);
	});

	test.each([
		['no header', undefined],
		['not a string', ['attachment; filename="a.vtt"']],
		['no filename', 'attachment'],
		['an empty filename', 'attachment; filename=""'],
		['only spaces', 'attachment; filename="   "'],
		['"."', 'attachment; filename="."'],
		['".."', 'attachment; filename=".."'],
		['only control characters', "attachment; filename*=UTF-8''%01%02"],
	])('%s gives none', (_name, header) => {
		expect(fileNameFromContentDisposition(header)).toBeUndefined();
	});

	test('an empty filename* falls back to filename', () => {
		expect(
			fileNameFromContentDisposition('attachment; filename*=UTF-8\'\'; filename="b.vtt"'),
		).toBe('b.vtt');
	});

	test('names are cut to 255 characters', () => {
		expect(
			fileNameFromContentDisposition(`attachment; filename="${'a'.repeat(400)}"`),
		).toHaveLength(255);
	});

	test('never throws, whatever the header holds', () => {
		const alphabet = [
			'%',
			'"',
			'\\',
			';',
			'=',
			'*',
			"'",
			'a',
			'é',
			'\u00ff',
			'%E9',
			'%C3',
			' ',
			'/',
		];
		let seed = 7;
		const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
		for (let i = 0; i < 2000; i++) {
			const tail = Array.from(
				{ length: Math.floor(random() * 30) },
				() => alphabet[Math.floor(random() * alphabet.length)],
			).join('');
			const header = `attachment; filename${random() < 0.5 ? '*' : ''}=${tail}`;
			expect(() => fileNameFor('vtt', 'x', header)).not.toThrow();
		}
	});
});

describe('fileNameFor', () => {
	test('the server’s name first', () => {
		expect(fileNameFor('vtt', 'Title', 'attachment; filename="given.vtt"')).toBe('given.vtt');
	});

	test('the server’s Content-Disposition name wins, with path separators neutralised', () => {
		expect(fileNameFor('vtt', 'x', 'attachment; filename="board.vtt"')).toBe('board.vtt');
		expect(fileNameFor('vtt', 'x', "attachment; filename*=UTF-8''caf%C3%A9.vtt")).toBe('café.vtt');
		expect(fileNameFor('vtt', 'x', 'attachment; filename="../../etc/passwd"')).toBe(
			'.._.._etc_passwd',
		);
	});

	test('else a slug of the title with the format’s extension', () => {
		expect(fileNameFor('vtt', 'Q3 50% update')).toBe('q3-50-update.vtt');
		expect(fileNameFor('google_stt', 'Board meeting', 'attachment')).toBe(
			'board-meeting.google_stt.json',
		);
		expect(fileNameFor('vtt', 42)).toBe('42.vtt');
		expect(fileNameFor('vtt', 'Board Meeting: Q3 / Café')).toBe('board-meeting-q3-cafe.vtt');
		expect(fileNameFor('google_stt', 'Board meeting')).toBe('board-meeting.google_stt.json');
		expect(fileNameFor('vtt', '日本語')).toBe('captions.vtt');
		expect(fileNameFor('srt', null)).toBe('captions.srt');
		expect(fileNameFor('ttml', 'Talk')).toBe('talk.ttml');
		expect(fileNameFor('docx', 'Talk')).toBe('talk.bin');
	});

	test('a title that is not text gives the generic name', () => {
		expect(fileNameFor('vtt', { en: 'Board' })).toBe('captions.vtt');
		expect(fileNameFor('vtt', ['Board'])).toBe('captions.vtt');
		expect(fileNameFor('vtt', undefined)).toBe('captions.vtt');
	});
});

describe('describeDownloadFailure', () => {
	const url = 'https://files.example.com/a.vtt?expires=1&signature=abc';

	test('403 with expiry: expired, and what to do; the signature never appears', () => {
		const text = describeDownloadFailure(403, url, undefined, true);
		expect(text).toMatch(/has expired\..*turn on "Download Caption Files"/);
		expect(text).not.toContain('signature=abc');
	});

	test('403 otherwise, 404, other statuses and network errors', () => {
		expect(describeDownloadFailure(403, url)).toMatch(
			/was refused \(HTTP 403\): it was altered or has expired/,
		);
		expect(describeDownloadFailure(404, url)).toBe(
			'There is no file at https://files.example.com/a.vtt?[redacted] (HTTP 404).',
		);
		// the file server's words are never quoted: it may be anything that address answers
		expect(describeDownloadFailure(500, url)).toBe(
			'Downloading https://files.example.com/a.vtt?[redacted] failed with HTTP 500.',
		);
		expect(describeDownloadFailure(undefined, url, 'connection refused')).toMatch(
			/Could not download .*: connection refused\.$/,
		);
	});
});

describe('sizes and the cap', () => {
	test.each([
		[1, '1 KB'],
		[250 * 1024, '250 KB'],
		[1024 * 1024, '1 MB'],
		[1.5 * 1024 * 1024, '1.5 MB'],
		[100 * 1024 * 1024, '100 MB'],
		[150.4 * 1024 * 1024, '150 MB'],
	])('formatBytes(%d) is %s', (bytes, text) => {
		expect(formatBytes(bytes)).toBe(text);
	});

	test('Max File Size in MB; anything but a positive number is the default, 100 MB', () => {
		expect(maxBytesFrom(5)).toBe(5 * 1024 * 1024);
		expect(maxBytesFrom('2.5')).toBe(2.5 * 1024 * 1024);
		for (const value of [undefined, null, '', 0, -3, 'many', Number.NaN]) {
			expect(maxBytesFrom(value)).toBe(100 * 1024 * 1024);
		}
	});

	test('a file over the cap is named with its size, or as larger than the cap, and the fix', () => {
		const url = 'https://files.example.com/a.vtt?signature=abc';
		expect(describeTooLarge(url, 100 * 1024 * 1024, 150 * 1024 * 1024)).toBe(
			'The file at https://files.example.com/a.vtt?[redacted] is 150 MB, over the Max File Size of 100 MB. Raise Max File Size under Options if files this large are expected.',
		);
		expect(describeTooLarge(url, 1024 * 1024)).toMatch(
			/ is larger than 1 MB, over the Max File Size of 1 MB\./,
		);
	});

	test('a failure while the body streams: the cap, the signal, else the network in words', () => {
		const url = 'https://files.example.com/a.vtt?signature=abc';
		const limits = { maxBytes: 1024 * 1024 };
		expect(streamFailure(new FileTooLargeError(1), url, limits)).toMatchObject({
			kind: 'too-large',
		});
		const stopped = new AbortController();
		stopped.abort();
		expect(
			streamFailure(new Error('canceled'), url, { ...limits, signal: stopped.signal }),
		).toEqual({
			ok: false,
			kind: 'stopped',
			message: 'Downloading https://files.example.com/a.vtt?[redacted] was stopped.',
		});
		expect(
			streamFailure(
				Object.assign(new Error(`reset at ${url}`), { code: 'ECONNRESET' }),
				url,
				limits,
			),
		).toEqual({
			ok: false,
			kind: 'network',
			message:
				'Could not download https://files.example.com/a.vtt?[redacted]: connection closed by the server.',
		});
	});
});

describe('downloadFile and downloadToBinary', () => {
	const url = 'https://files.example.com/a.vtt?signature=abc';
	// files.example.com resolves to a public address; the policy has nothing to allow
	const fetcher = (http: (options: IHttpRequestOptions) => Promise<unknown>): Fetcher => ({
		helpers: { http, resolve: async () => ['93.184.216.34'] },
		policy: { allowed: [], setting: 'Allowed File Hosts under Options' },
	});
	const limits = { maxBytes: 1024 };
	const answer =
		(statusCode: number, body: Readable, headers: Record<string, string> = {}) =>
		async (_options: IHttpRequestOptions) => ({ statusCode, headers, body });

	test('a whole file into memory, with its name and type', async () => {
		const http = answer(200, Readable.from([Buffer.from('WEBVTT\n')]), {
			'content-disposition': 'attachment; filename="board.vtt"',
		});
		await expect(downloadFile(fetcher(http), url, 'vtt', 'Board', limits)).resolves.toEqual({
			ok: true,
			file: {
				format: 'vtt',
				data: Buffer.from('WEBVTT\n'),
				fileName: 'board.vtt',
				mimeType: 'text/vtt',
			},
		});
	});

	test('an error answer: nothing of its body quoted, at most 4 KB read (to tell an expired URL), then closed', async () => {
		let pushed = 0;
		const body = new Readable({
			read() {
				pushed++;
				this.push(
					pushed === 1 ? Buffer.from('{"message":"gone for good"}') : Buffer.alloc(16 * 1024, 0x20),
				);
			},
		});
		const outcome = await downloadFile(fetcher(answer(410, body)), url, 'vtt', undefined, limits);
		expect(outcome).toEqual({
			ok: false,
			kind: 'http',
			status: 410,
			message: 'Downloading https://files.example.com/a.vtt?[redacted] failed with HTTP 410.',
		});
		expect(body.destroyed).toBe(true);
		expect(pushed).toBeLessThan(3);
	});

	test('a 403 whose body says it expired: the expired message, without the body', async () => {
		const body = Readable.from([
			Buffer.from('<Error><Message>Request has expired</Message></Error>'),
		]);
		const outcome = await downloadFile(fetcher(answer(403, body)), url, 'vtt', undefined, limits);
		expect(outcome).toMatchObject({ ok: false, kind: 'http', status: 403 });
		expect(outcome.ok || outcome.message).toMatch(/^The signed URL of .* has expired\./);
		expect(outcome.ok || outcome.message).not.toContain('Request has expired');
	});

	test('an address the policy refuses: refused, and nothing is requested', async () => {
		const http = jest.fn(answer(200, Readable.from([Buffer.from('x')])));
		await expect(
			downloadFile(
				fetcher(http),
				'http://169.254.169.254/latest/meta-data/',
				'vtt',
				undefined,
				limits,
			),
		).resolves.toEqual({
			ok: false,
			kind: 'refused',
			message:
				'http://169.254.169.254/latest/meta-data/ was not fetched: 169.254.169.254 is a link-local address (where cloud metadata services answer). Only public addresses are fetched unless allowed: if this file server is trusted, add 169.254.169.254 to Allowed File Hosts under Options.',
		});
		expect(http).not.toHaveBeenCalled();
	});

	test('over the cap while collecting: a too-large failure, the body closed', async () => {
		const body = Readable.from([Buffer.alloc(600), Buffer.alloc(600), Buffer.alloc(600)]);
		const outcome = await downloadFile(fetcher(answer(200, body)), url, 'vtt', undefined, limits);
		expect(outcome).toMatchObject({ ok: false, kind: 'too-large' });
		expect(body.destroyed).toBe(true);
	});

	test('a signal that already fired: nothing is requested', async () => {
		const controller = new AbortController();
		controller.abort();
		const http = jest.fn(answer(200, Readable.from([Buffer.from('x')])));
		await expect(
			downloadFile(fetcher(http), url, 'vtt', undefined, { ...limits, signal: controller.signal }),
		).resolves.toMatchObject({ ok: false, kind: 'stopped' });
		expect(http).not.toHaveBeenCalled();
	});

	test('the request failing: stopped when the signal fired, else the network in words', async () => {
		const controller = new AbortController();
		const http = async (options: IHttpRequestOptions) => {
			controller.abort();
			// the request's signal follows the caller's
			expect((options.abortSignal as AbortSignal).aborted).toBe(true);
			throw Object.assign(new Error('canceled'), { code: 'ERR_CANCELED' });
		};
		await expect(
			downloadFile(fetcher(http), url, 'vtt', undefined, { ...limits, signal: controller.signal }),
		).resolves.toMatchObject({ ok: false, kind: 'stopped' });
		const refused = async () => {
			throw Object.assign(new Error(`connect ECONNREFUSED ${url}`), { code: 'ECONNREFUSED' });
		};
		await expect(downloadFile(fetcher(refused), url, 'vtt', undefined, limits)).resolves.toEqual({
			ok: false,
			kind: 'network',
			message: 'Could not download https://files.example.com/a.vtt?[redacted]: connection refused.',
		});
	});

	test("n8n's SSRF protection refusing the address, itself or as a cause: blocked, and how to allow it", async () => {
		const blocked = (error: Error) => async () => {
			throw error;
		};
		const ssrf = Object.assign(new Error('The request was blocked'), {
			name: 'SsrfBlockedIpError',
		});
		for (const error of [ssrf, new Error('request failed', { cause: ssrf })]) {
			await expect(
				downloadFile(fetcher(blocked(error)), url, 'vtt', undefined, limits),
			).resolves.toEqual({
				ok: false,
				kind: 'blocked',
				message: expect.stringMatching(
					/^n8n's SSRF protection \(N8N_SSRF_PROTECTION_ENABLED\) blocked the download of https:\/\/files\.example\.com\/a\.vtt\?\[redacted\]: .* allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES/,
				),
			});
		}
	});

	test('into binary data: the store gets the stream, the bytes kept aside up to the limit asked', async () => {
		const store = async (data: Readable) => {
			const chunks: Buffer[] = [];
			for await (const chunk of data) chunks.push(chunk as Buffer);
			return Buffer.concat(chunks).length;
		};
		const body = () => Readable.from([Buffer.from('WEBVTT\n'), Buffer.from('\n')]);
		const kept = await downloadToBinary(
			fetcher(answer(200, body())),
			store,
			url,
			'vtt',
			'B',
			limits,
			100,
		);
		expect(kept).toMatchObject({ ok: true, file: { binary: 8, kept: Buffer.from('WEBVTT\n\n') } });
		const tooMuch = await downloadToBinary(
			fetcher(answer(200, body())),
			store,
			url,
			'vtt',
			'B',
			limits,
			4,
		);
		expect(tooMuch).toMatchObject({ ok: true, file: { binary: 8 } });
		expect(tooMuch.ok && tooMuch.file.kept).toBeUndefined();
	});

	test('into binary data: a stream failure and a failure of the store itself are returned, the body closed', async () => {
		const reading = async (data: Readable) => {
			for await (const chunk of data) void chunk;
			return 'stored';
		};
		const big = () => Readable.from([Buffer.alloc(800), Buffer.alloc(800)]);
		await expect(
			downloadToBinary(fetcher(answer(200, big())), reading, url, 'vtt', undefined, limits),
		).resolves.toMatchObject({ ok: false, kind: 'too-large' });
		const broken = async () => {
			throw new Error(`disk full at ${url}`);
		};
		const body = big();
		await expect(
			downloadToBinary(fetcher(answer(200, body)), broken, url, 'vtt', undefined, {
				maxBytes: 10_000,
			}),
		).resolves.toEqual({
			ok: false,
			kind: 'store',
			message:
				'The file from https://files.example.com/a.vtt?[redacted] could not be stored: disk full at https://files.example.com/a.vtt?[redacted]',
		});
		expect(body.destroyed).toBe(true);
	});
});
