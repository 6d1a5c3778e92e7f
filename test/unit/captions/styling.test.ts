import { carryStyles, type Cue, toRuns } from '../../../nodes/Captioning/captions';
import { HTML_TAGS, taggedText } from '../../../nodes/Captioning/captions/styling';

describe('toRuns', () => {
	it('joins neighbours of one style and gives nothing for unstyled text', () => {
		expect(
			toRuns([
				{ text: 'a' },
				{ text: 'b', italic: true },
				{ text: 'c', italic: true },
				{ text: '' },
			]),
		).toEqual([{ text: 'a' }, { text: 'bc', italic: true }]);
		expect(toRuns([{ text: 'plain' }, { text: ' text' }])).toBeUndefined();
	});
});

describe('taggedText', () => {
	it('opens styles in one order and closes only the innermost, so tags are always well nested', () => {
		const tagged = taggedText(
			[
				{ text: 'a', italic: true },
				{ text: 'b', italic: true, bold: true },
				{ text: 'c', bold: true },
				{ text: 'd', bold: true, underline: true },
				{ text: 'e' },
			],
			HTML_TAGS,
			(text) => text,
		);
		expect(tagged).toBe('<i>a</i><b><i>b</i>c<u>d</u></b>e');
	});
});

describe('carryStyles', () => {
	const source: Cue = {
		startMs: 0,
		endMs: 1000,
		text: 'one two three',
		runs: [{ text: 'one ' }, { text: 'two', italic: true }, { text: ' three' }],
	};

	it('gives each character of text laid out again the style it had, spaces between styled ones too', () => {
		const made = carryStyles(
			[source],
			[
				{ startMs: 0, endMs: 500, text: 'one\ntwo' },
				{ startMs: 500, endMs: 1000, text: 'three' },
			],
		);
		expect(made.map((cue) => cue.runs)).toEqual([
			[{ text: 'one\n' }, { text: 'two', italic: true }],
			undefined,
		]);
	});

	it('skips characters the new text left out, as roll-up lines are', () => {
		const [made] = carryStyles([source], [{ startMs: 0, endMs: 1000, text: 'two three' }]);
		expect(made.runs).toEqual([{ text: 'two', italic: true }, { text: ' three' }]);
	});

	it('leaves unstyled cues as they are', () => {
		const plain = [{ startMs: 0, endMs: 1, text: 'x' }];
		expect(carryStyles(plain, plain)).toEqual(plain);
	});
});
