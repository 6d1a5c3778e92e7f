import { sentence, withServiceWords } from '../../nodes/Captioning/shared/words';

describe("messages built from the service's words end with one full stop", () => {
	test('a full stop is added to words that end without one', () => {
		expect(withServiceWords('The service refused it (HTTP 400)', 'callback_uri is invalid')).toBe(
			'The service refused it (HTTP 400): callback_uri is invalid.',
		);
	});

	test('words that end a sentence themselves get none: never "second.."', () => {
		expect(withServiceWords('Refused with HTTP 429', 'Retry after 1 second.')).toBe(
			'Refused with HTTP 429: Retry after 1 second.',
		);
		expect(withServiceWords('Refused', 'Try again later! ')).toBe('Refused: Try again later!');
		expect(withServiceWords('Refused', 'Is it valid?')).toBe('Refused: Is it valid?');
		expect(withServiceWords('Refused', 'it was cut…')).toBe('Refused: it was cut…');
	});

	test('no words, or only white space: the lead alone, as a sentence', () => {
		expect(withServiceWords('The service rejected GET /x (HTTP 409)', undefined)).toBe(
			'The service rejected GET /x (HTTP 409).',
		);
		expect(withServiceWords('The service rejected GET /x (HTTP 409)', '  ')).toBe(
			'The service rejected GET /x (HTTP 409).',
		);
	});

	test('sentence: one full stop, whatever the text ends with', () => {
		expect(sentence('Done')).toBe('Done.');
		expect(sentence('Done. ')).toBe('Done.');
	});
});
