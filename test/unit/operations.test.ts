// Decisions of the action node's operations and of the signed-file download, branch by branch.
import { detectFormat } from '../../nodes/Captioning/actions/captionFile/convert.operation';
import { validateCallbackUri } from '../../nodes/Captioning/actions/webhookEndpoint/create.operation';
import { describeDownloadFailure, fileNameFor } from '../../nodes/Captioning/shared/download';

describe('validateCallbackUri', () => {
	test('absolute http(s) URIs pass; anything else says what to use', () => {
		expect(validateCallbackUri('https://example.com/hook?x=1')).toBeUndefined();
		expect(validateCallbackUri('http://127.0.0.1:5678/webhook/a/webhook')).toBeUndefined();
		expect(validateCallbackUri('/relative')).toBe(
			'"/relative" is not an absolute URI. Use the full address, starting with https://.',
		);
		expect(validateCallbackUri('mailto:a@b.c')).toBe(
			'The callback URI must use http or https, not mailto.',
		);
	});
});

describe('detectFormat', () => {
	test('WebVTT by its signature (with a BOM or blank lines), Google STT by JSON', () => {
		expect(detectFormat('WEBVTT\n\n')).toBe('vtt');
		expect(detectFormat('\uFEFFWEBVTT - title\n')).toBe('vtt');
		expect(detectFormat('\n  {"results": []}')).toBe('google_stt');
		expect(detectFormat('1\n00:00:01,000 --> 00:00:02,000\nhi')).toBeUndefined();
	});
});

describe('fileNameFor', () => {
	test('the server’s Content-Disposition name wins, with path separators neutralised', () => {
		expect(fileNameFor('vtt', 'x', 'attachment; filename="board.vtt"')).toBe('board.vtt');
		expect(fileNameFor('vtt', 'x', "attachment; filename*=UTF-8''caf%C3%A9.vtt")).toBe('café.vtt');
		expect(fileNameFor('vtt', 'x', 'attachment; filename="../../etc/passwd"')).toBe(
			'.._.._etc_passwd',
		);
	});

	test('else a slug of the title with the format’s extension', () => {
		expect(fileNameFor('vtt', 'Board Meeting: Q3 / Café')).toBe('board-meeting-q3-cafe.vtt');
		expect(fileNameFor('google_stt', 'Board meeting')).toBe('board-meeting.google_stt.json');
		expect(fileNameFor('vtt', '日本語')).toBe('captions.vtt');
		expect(fileNameFor('srt', null)).toBe('captions.srt');
		expect(fileNameFor('ttml', 'Talk')).toBe('talk.bin');
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
