import {
	CaptionFormatError,
	formatVtt,
	googleSttSchema,
	googleSttToCues,
	parseGoogleStt,
} from '../../../nodes/Captioning/captions';
import { expectValidVtt, fixture, thrown } from './helpers';

function words(json: unknown) {
	return parseGoogleStt(json).words.map((word) => [word.startMs, word.endMs, word.text]);
}

describe('parseGoogleStt', () => {
	const allHands = () => parseGoogleStt(fixture('all-hands-multilingual.google_stt.json'));

	it('reads the words of the first alternative of every result, in milliseconds', () => {
		const parsed = allHands();
		expect(parsed.words).toHaveLength(25);
		expect(parsed.words[0]).toEqual({ startMs: 400, endMs: 800, text: 'Hello', confidence: 0.97 });
		expect(parsed.words.find((word) => word.text === 'talking')).toEqual({
			startMs: 6600,
			endMs: 7000,
			text: 'talking',
		});
		expect(parsed.words.map((word) => word.text)).toContain('🎉');
		expect(parsed.words.slice(-6).map((word) => word.text)).toEqual([
			'今日',
			'は',
			'いい',
			'天気',
			'です',
			'ね。',
		]);
		expect(parsed.words.some((word) => word.text === 'naive')).toBe(false);
	});

	it('joins the transcripts, without spaces next to Japanese, and averages the confidence', () => {
		const parsed = allHands();
		expect(parsed.transcript).toBe(
			"Hello and welcome to the café. Today we're talking about naïve résumés, jalapeño piñatas 🎉 and Zürich's crème brûlée. 今日はいい天気ですね。Thank you all for coming, see you next quarter!",
		);
		expect(parsed.confidence).toBeCloseTo((0.93 + 0.87 + 0.91 + 0.8) / 4, 10);
	});

	it('gives each result the span from the previous result end to its own end', () => {
		expect(
			allHands().results.map((r) => [r.startMs, r.endMs, r.languageCode, r.words.length]),
		).toEqual([
			[0, 2900, 'en-us', 6],
			[2900, 11_400, 'en-us', 13],
			[11_400, 15_000, 'ja-jp', 6],
			[15_000, 19_500, 'en-us', 0],
		]);
	});

	it.each(['empty-results.json', 'empty-object.json'])(
		'reads %s as an empty transcript',
		(name) => {
			expect(parseGoogleStt(fixture(name))).toEqual({ words: [], transcript: '', results: [] });
		},
	);

	it('accepts an already parsed object and JSON with a BOM', () => {
		const json = fixture('standup-diarized.google_stt.json');
		expect(parseGoogleStt(JSON.parse(json))).toEqual(parseGoogleStt(json));
		expect(parseGoogleStt(`\ufeff${json}`)).toEqual(parseGoogleStt(json));
	});

	it('keeps fields it does not know', () => {
		const parsed = googleSttSchema.parse(
			JSON.parse(fixture('all-hands-multilingual.google_stt.json')),
		);
		expect(parsed.totalBilledTime).toBe('20s');
		expect(parsed.requestId).toBe('8f1c2d9e-5b7a-4c1e-9f0a-2b3c4d5e6f70');
	});

	it('hands the words Google repeats for speaker diarization back to their results', () => {
		const parsed = parseGoogleStt(fixture('standup-diarized.google_stt.json'));
		expect(parsed.words).toHaveLength(11);
		expect(parsed.results).toHaveLength(2);
		expect(parsed.results.map((result) => result.words.map((word) => word.speakerTag))).toEqual([
			[1, 1, 1, 1, 1],
			[2, 2, 2, 2, 2, 2],
		]);
		expect(parsed.transcript).toBe('Did you get the report? Yes, I sent it this morning.');
		expect(parsed.confidence).toBeCloseTo(0.925, 10);
	});

	it('puts repeated words spoken after the last result end into the last result', () => {
		const parsed = parseGoogleStt({
			results: [
				{
					alternatives: [{ words: [{ startTime: '1s', endTime: '2s', word: 'a' }] }],
					resultEndTime: '2s',
				},
				{
					alternatives: [
						{
							words: [
								{ startTime: '1s', endTime: '2s', word: 'a', speakerTag: 1 },
								{ startTime: '3s', endTime: '4s', word: 'b', speakerTag: 2 },
							],
						},
					],
				},
			],
		});
		expect(parsed.results).toHaveLength(1);
		expect(parsed.words.map((word) => [word.text, word.speakerTag])).toEqual([
			['a', 1],
			['b', 2],
		]);
	});

	it('keeps a last result with speaker tags that only holds its own words', () => {
		const parsed = parseGoogleStt({
			results: [
				{
					alternatives: [{ words: [{ startTime: '1s', endTime: '2s', word: 'a', speakerTag: 1 }] }],
				},
				{
					alternatives: [{ words: [{ startTime: '3s', endTime: '4s', word: 'b', speakerTag: 2 }] }],
				},
			],
		});
		expect(parsed.results).toHaveLength(2);
		expect(parsed.words.map((word) => word.text)).toEqual(['a', 'b']);
	});

	it('fills a missing start from the previous word and a missing end from the start', () => {
		const json = {
			results: [
				{
					alternatives: [
						{
							words: [
								{ endTime: '0.500s', word: 'first' },
								{ startTime: '0.600s', word: 'second' },
								{ endTime: '1s', word: 'third' },
								{ startTime: '2s', endTime: '1.500s', word: 'fourth' },
							],
						},
					],
				},
			],
		};
		expect(words(json)).toEqual([
			[0, 500, 'first'],
			[600, 600, 'second'],
			[600, 1000, 'third'],
			[2000, 2000, 'fourth'],
		]);
	});

	it('skips words without text', () => {
		const json = {
			results: [
				{
					alternatives: [
						{
							words: [
								{ startTime: '0s', endTime: '1s', word: ' ' },
								{ startTime: '1s', endTime: '2s' },
								{ startTime: '2s', endTime: '3s', word: 'kept' },
							],
						},
					],
				},
			],
		};
		expect(words(json)).toEqual([[2000, 3000, 'kept']]);
	});

	it('treats null fields as missing', () => {
		const json = {
			results: [
				{
					alternatives: [{ transcript: null, confidence: null, words: null }],
					resultEndTime: null,
					languageCode: null,
					channelTag: null,
				},
				{ alternatives: null },
			],
		};
		expect(parseGoogleStt(json)).toEqual({
			words: [],
			transcript: '',
			results: [
				{ startMs: 0, endMs: 0, transcript: '', words: [] },
				{ startMs: 0, endMs: 0, transcript: '', words: [] },
			],
		});
		expect(parseGoogleStt({ results: null })).toEqual({ words: [], transcript: '', results: [] });
	});

	it('reads the v2 names for offsets', () => {
		const json = {
			results: [
				{
					alternatives: [{ words: [{ startOffset: '1.200s', endOffset: '1.500s', word: 'hi' }] }],
					resultEndOffset: '2s',
				},
			],
		};
		expect(words(json)).toEqual([[1200, 1500, 'hi']]);
		expect(parseGoogleStt(json).results[0].endMs).toBe(2000);
	});

	it('treats words without any timing as missing (word confidence was requested without offsets)', () => {
		const parsed = parseGoogleStt({
			results: [
				{
					alternatives: [
						{ transcript: 'hello there', words: [{ word: 'hello', confidence: 0.9 }] },
					],
					resultEndTime: '2s',
				},
			],
		});
		expect(parsed.words).toEqual([]);
		expect(parsed.results[0]).toEqual({
			startMs: 0,
			endMs: 2000,
			transcript: 'hello there',
			words: [],
		});
	});

	it('ends a result at its last word when resultEndTime is missing, and never before it starts', () => {
		const parsed = parseGoogleStt({
			results: [
				{ alternatives: [{ words: [{ startTime: '1s', endTime: '2.500s', word: 'a' }] }] },
				{ alternatives: [{ transcript: 'b' }], resultEndTime: '1s' },
				{ alternatives: [], resultEndTime: '4s' },
				{ resultEndTime: '5s' },
				{ alternatives: [{ transcript: 'c' }], resultEndTime: '6s' },
			],
		});
		expect(parsed.results.map((r) => [r.startMs, r.endMs])).toEqual([
			[0, 2500],
			[2500, 2500],
			[2500, 4000],
			[4000, 5000],
			[5000, 6000],
		]);
		expect(parsed.transcript).toBe('b c');
	});

	it('keeps separate time spans per audio channel', () => {
		const parsed = parseGoogleStt({
			results: [
				{ alternatives: [{ transcript: 'left one' }], channelTag: 1, resultEndTime: '3s' },
				{ alternatives: [{ transcript: 'right one' }], channelTag: 2, resultEndTime: '2s' },
				{ alternatives: [{ transcript: 'left two' }], channelTag: 1, resultEndTime: '5s' },
			],
		});
		expect(parsed.results.map((r) => [r.channelTag, r.startMs, r.endMs])).toEqual([
			[1, 0, 3000],
			[2, 0, 2000],
			[1, 3000, 5000],
		]);
	});

	it('reports invalid JSON with its line', () => {
		const error = thrown(() =>
			parseGoogleStt('{\n  "results": [\n    {"alternatives": [],}\n  ]\n}'),
		);
		expect(error.line).toBe(3);
		expect(error.message).toMatch(
			/^Line 3: google_stt content is not valid JSON \(.*\); expected a Google Speech-to-Text response/,
		);
	});

	it('reports JSON errors without a line position', () => {
		expect(() => parseGoogleStt('WEBVTT\n\n00:01.000 --> 00:02.000\nHi')).toThrow(
			/^google_stt content is not valid JSON/,
		);
		expect(() => parseGoogleStt('')).toThrow(CaptionFormatError);
	});

	it.each([
		[
			[],
			'google_stt content is not a Google Speech-to-Text response: Expected object, received array.',
		],
		[
			null,
			'google_stt content is not a Google Speech-to-Text response: Expected object, received null.',
		],
		[{ results: {} }, 'response at results: Expected array, received object.'],
		[
			{ results: [{ alternatives: [{ words: [{ word: 'x', startTime: '1.2' }] }] }] },
			'response at results[0].alternatives[0].words[0].startTime: expected a Duration such as "1.300s", "12s" or {"seconds":"1","nanos":300000000}.',
		],
		[
			{ results: [{ alternatives: [{ transcript: 42 }] }] },
			'response at results[0].alternatives[0].transcript: Expected string, received number.',
		],
	])('reports a wrong shape with the path of the problem: %j', (json, message) => {
		expect(() => parseGoogleStt(json)).toThrow(message);
		expect(() => parseGoogleStt(json)).toThrow(/Expected \{"results":\[\{"alternatives"/);
	});
});

describe('googleSttToCues', () => {
	it('lays out a multilingual transcript into readable cues', () => {
		const cues = googleSttToCues(parseGoogleStt(fixture('all-hands-multilingual.google_stt.json')));
		expect(cues).toEqual([
			{ startMs: 400, endMs: 2300, text: 'Hello and welcome to the café.' },
			{ startMs: 6000, endMs: 8200, text: "Today we're talking about naïve résumés," },
			{ startMs: 8200, endMs: 11_200, text: "jalapeño piñatas 🎉\nand Zürich's crème brûlée." },
			{ startMs: 12_500, endMs: 14_600, text: '今日はいい天気ですね。' },
			{ startMs: 15_000, endMs: 19_500, text: 'Thank you all for coming,\nsee you next quarter!' },
		]);
		expectValidVtt(formatVtt(cues));
	});

	it('names the speakers of a diarized transcript', () => {
		const cues = googleSttToCues(parseGoogleStt(fixture('standup-diarized.google_stt.json')));
		expect(cues).toEqual([
			{ startMs: 500, endMs: 1600, text: 'Did you get the report?', voice: 'Speaker 1' },
			{ startMs: 2000, endMs: 3500, text: 'Yes, I sent it this morning.', voice: 'Speaker 2' },
		]);
	});

	it('treats speakerTag 0 as unset: no "Speaker 0" voice, and 0 does not split cues', () => {
		const word = (startTime: string, endTime: string, text: string, speakerTag: number) => ({
			startTime,
			endTime,
			word: text,
			speakerTag,
		});
		const parsed = parseGoogleStt({
			results: [
				{
					alternatives: [
						{
							words: [
								word('0s', '0.5s', 'Hello', 0),
								word('0.5s', '1s', 'there', 0),
								word('1s', '1.5s', 'friend.', 0),
							],
						},
					],
				},
			],
		});
		expect(parsed.words.map((w) => w.speakerTag)).toEqual([undefined, undefined, undefined]);
		expect(googleSttToCues(parsed)).toEqual([
			{ startMs: 0, endMs: 1500, text: 'Hello there friend.' },
		]);
		const mixed = googleSttToCues(
			parseGoogleStt({
				results: [
					{
						alternatives: [
							{ words: [word('0s', '1s', 'Unknown', 0), word('2s', '3s', 'Known', 1)] },
						],
					},
				],
			}),
		);
		expect(mixed.map((cue) => cue.voice)).toEqual([undefined, 'Speaker 1']);
		expect(JSON.stringify(mixed)).not.toContain('Speaker 0');
	});

	it('gives a negative speakerTag no speaker either', () => {
		const parsed = parseGoogleStt({
			results: [
				{
					alternatives: [
						{ words: [{ startTime: '0s', endTime: '1s', word: 'Hi', speakerTag: -1 }] },
					],
				},
			],
		});
		expect(googleSttToCues(parsed)).toEqual([{ startMs: 0, endMs: 1000, text: 'Hi' }]);
	});

	it('follows the layout options', () => {
		const cues = googleSttToCues(
			parseGoogleStt(fixture('all-hands-multilingual.google_stt.json')),
			{
				maxLineChars: 20,
				maxCueChars: 40,
			},
		);
		for (const cue of cues) {
			for (const line of cue.text.split('\n')) expect(line.length).toBeLessThanOrEqual(20);
		}
	});

	it('spreads a long transcript without word timings over its span, within the limits', () => {
		const transcript =
			'This result has no word timings at all, so the transcript is split into cues that share the time of the result in proportion to their length.';
		const cues = googleSttToCues(
			parseGoogleStt({ results: [{ alternatives: [{ transcript }], resultEndTime: '12s' }] }),
		);
		expect(cues.length).toBeGreaterThan(1);
		expect(cues[0].startMs).toBe(0);
		expect(cues[cues.length - 1].endMs).toBe(12_000);
		for (let i = 1; i < cues.length; i++) expect(cues[i].startMs).toBe(cues[i - 1].endMs);
		expect(cues.map((cue) => cue.text.replace(/\n/g, ' ')).join(' ')).toBe(transcript);
	});

	it('splits a Japanese transcript without word timings without adding spaces', () => {
		const transcript =
			'本日はお忙しい中お集まりいただきありがとうございます。これから第三四半期の結果についてご説明します。';
		const cues = googleSttToCues(
			parseGoogleStt({
				results: [{ alternatives: [{ transcript }], resultEndTime: '9s', languageCode: 'ja-jp' }],
			}),
		);
		expect(cues.length).toBeGreaterThan(1);
		expect(cues.map((cue) => cue.text.replace(/\n/g, '')).join('')).toBe(transcript);
	});

	it('estimates a duration when a result has neither words nor an end time', () => {
		const cues = googleSttToCues(
			parseGoogleStt({ results: [{ alternatives: [{ transcript: 'Thank you' }] }] }),
		);
		expect(cues).toEqual([{ startMs: 0, endMs: 1000, text: 'Thank you' }]);
		const long = 'word '.repeat(30).trim();
		const [first] = googleSttToCues(
			parseGoogleStt({ results: [{ alternatives: [{ transcript: long }] }] }),
		);
		expect(first.endMs).toBeGreaterThan(1000);
	});

	it('does not run words of different languages into one cue', () => {
		const cues = googleSttToCues(
			parseGoogleStt({
				results: [
					{
						alternatives: [{ words: [{ startTime: '0s', endTime: '1s', word: 'Merci' }] }],
						languageCode: 'fr-fr',
					},
					{
						alternatives: [{ words: [{ startTime: '1s', endTime: '2s', word: 'Danke' }] }],
						languageCode: 'de-de',
					},
					{
						alternatives: [{ words: [{ startTime: '2s', endTime: '3s', word: 'schön' }] }],
						languageCode: 'de-de',
					},
				],
			}),
		);
		expect(cues.map((cue) => cue.text)).toEqual(['Merci', 'Danke schön']);
	});

	it('makes no cues for empty results', () => {
		expect(googleSttToCues(parseGoogleStt('{"results":[]}'))).toEqual([]);
		expect(
			googleSttToCues(parseGoogleStt({ results: [{ alternatives: [{ transcript: '  ' }] }] })),
		).toEqual([]);
	});
});
