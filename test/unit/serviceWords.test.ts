// A service's error words: title/detail only, redacted, bounded, on one line.
import { boundWords, readServiceWords } from '../../nodes/Captioning/shared/serviceWords';

const TOKEN = 'access-token-value-123';
const redact = (text: string) => text.split(TOKEN).join('[redacted]');

describe('readServiceWords', () => {
	test('each JSON:API error’s detail, else its title; nothing else of the body', () => {
		expect(
			readServiceWords(
				{
					errors: [
						{ title: 'Invalid', detail: 'callback_uri must be https', code: 'invalid' },
						{ title: 'Missing events', meta: { echo: `Bearer ${TOKEN}` } },
						{ code: 'only-a-code' },
					],
					message: `Authorization: Bearer ${TOKEN}`,
				},
				redact,
			),
		).toBe('callback_uri must be https; Missing events');
	});

	test('a problem document (RFC 9457), a single error object, the body as text', () => {
		expect(
			readServiceWords({ type: 'about:blank', title: 'Not allowed', status: 403 }, redact),
		).toBe('Not allowed');
		expect(readServiceWords({ errors: { detail: 'one error' } }, redact)).toBe('one error');
		expect(readServiceWords('{"errors":[{"detail":"from text"}]}', redact)).toBe('from text');
		expect(readServiceWords(Buffer.from('{"title":"from bytes"}'), redact)).toBe('from bytes');
	});

	test('no words: bodies without them, or not JSON', () => {
		for (const body of [
			undefined,
			null,
			'',
			'<html>Bearer x</html>',
			[{ detail: 'in an array' }],
			{ message: 'not read' },
			{ errors: [{ detail: '   ' }, { title: 7 }] },
		]) {
			expect(readServiceWords(body, redact)).toBeUndefined();
		}
	});

	test('redacted before being bounded, so that no cut leaves a part of a secret', () => {
		const long = `${'x'.repeat(290)} ${TOKEN}`;
		expect(readServiceWords({ errors: [{ detail: `echo: ${TOKEN}` }] }, redact)).toBe(
			'echo: [redacted]',
		);
		const words = readServiceWords({ errors: [{ detail: long }] }, redact)!;
		expect(words).not.toContain(TOKEN.slice(0, 6));
		expect(words.length).toBeLessThanOrEqual(300);
	});
});

describe('boundWords', () => {
	test('short words on one line stay', () => {
		expect(boundWords('line one\nline\ttwo\u0007 ')).toBe('line one line two');
	});

	test('long words are cut at a word, with an ellipsis, within the bound', () => {
		expect(boundWords('alpha beta gamma delta', 15)).toBe('alpha beta…');
		expect(boundWords('alpha, beta, gamma', 14)).toBe('alpha, beta…');
		// one long word is cut where it must
		expect(boundWords('x'.repeat(20), 10)).toBe(`${'x'.repeat(9)}…`);
	});
});
