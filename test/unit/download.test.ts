// The signed-file download (transport/download.ts): file names from Content-Disposition, else from the title, and
// what a failed download tells the user. The trigger names files after it has answered the delivery: nothing
// here may throw.
import {
	describeDownloadFailure,
	fileNameFor,
	fileNameFromContentDisposition,
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
		const text = describeDownloadFailure(403, url, 'This signed URL expired at 2026-01-01');
		expect(text).toMatch(/has expired\..*turn on "Download Caption Files"/);
		expect(text).not.toContain('signature=abc');
	});

	test('403 otherwise, 404, other statuses and network errors', () => {
		expect(describeDownloadFailure(403, url, 'signature mismatch')).toMatch(
			/was refused \(HTTP 403\): it was altered or has expired/,
		);
		expect(describeDownloadFailure(404, url)).toBe(
			'There is no file at https://files.example.com/a.vtt?[redacted] (HTTP 404).',
		);
		expect(describeDownloadFailure(500, url, 'boom')).toMatch(/failed with HTTP 500: boom\.$/);
		expect(describeDownloadFailure(undefined, url, 'connection refused')).toMatch(
			/Could not download .*: connection refused\.$/,
		);
	});
});
