// The last line of defence: query strings and secrets out of every message.
import { redact, stripQueryStrings } from '../../nodes/Captioning/shared/redact';

const SECRET = 'cs-very-secret-123';

describe('redact and stripQueryStrings', () => {
	test('query strings are stripped from URLs', () => {
		expect(
			stripQueryStrings(`POST https://x.test/oauth/token?client_secret=${SECRET}&a=b failed`),
		).toBe('POST https://x.test/oauth/token?[redacted] failed');
	});

	test('each secret is replaced, raw and URL-encoded; short or empty values are ignored', () => {
		const weird = 'p@ss/word+=';
		expect(
			redact(`a ${weird} b ${encodeURIComponent(weird)} c`, [weird, '', undefined, 'ab']),
		).toBe('a [redacted] b [redacted] c');
	});
});
