import {
	CaptionFormatError,
	convertCaptions,
	DEFAULT_CUE_LAYOUT,
	DEFAULT_MAX_CUE_MS,
	displayWidth,
	parseSrt,
	parseVtt,
	transcriptFromCaptions,
} from '../../../nodes/Captioning/captions';
import {
	CAPTION_FORMATS,
	captionFileExtension,
	captionMimeType,
	conversionsFrom,
} from '../../../nodes/Captioning/captions/formats';
import { description as convertDescription } from '../../../nodes/Captioning/actions/captionFile/convert.operation';
import { expectValidVtt, fixture, independentParse } from './helpers';

const SAMPLES: Record<string, string[]> = {
	vtt: ['keynote.vtt', 'marathon-stream.vtt', 'panel-overlapping.vtt', 'rolling-auto-captions.vtt'],
	google_stt: [
		'all-hands-multilingual.google_stt.json',
		'standup-diarized.google_stt.json',
		'empty-results.json',
		'empty-object.json',
	],
	srt: ['interview.srt'],
	sbv: ['lecture.sbv'],
};

const READABLE = CAPTION_FORMATS.filter((format) => format.parse);
const PAIRS = READABLE.flatMap((from) =>
	conversionsFrom(from).flatMap((to) =>
		SAMPLES[from.id].map((name) => [from.id, to, name] as const),
	),
);

describe('convertCaptions', () => {
	it.each(PAIRS)('converts %s to %s (%s) with the right file type', (from, to, name) => {
		const result = convertCaptions({ from, to, content: fixture(name) });
		expect(result.mimeType).toBe(captionMimeType(to));
		expect(result.fileExtension).toBe(captionFileExtension(to));
		if (to === 'vtt') expectValidVtt(result.content);
		if (['segments', 'words', 'chunks'].includes(to)) {
			expect(Array.isArray(JSON.parse(result.content))).toBe(true);
		}
	});

	it('has samples of every format it reads', () => {
		expect(Object.keys(SAMPLES).sort()).toEqual(READABLE.map((format) => format.id).sort());
	});

	it('labels outputs with the MIME types and extensions n8n binary data expects', () => {
		const content = fixture('standup-diarized.google_stt.json');
		const targets = ['vtt', 'srt', 'sbv', 'ttml', 'text', 'segments', 'words', 'chunks'];
		const types = targets.map((to) => {
			const { mimeType, fileExtension } = convertCaptions({ from: 'google_stt', to, content });
			return [to, mimeType, fileExtension];
		});
		expect(types).toEqual([
			['vtt', 'text/vtt', 'vtt'],
			['srt', 'application/x-subrip', 'srt'],
			['sbv', 'text/plain', 'sbv'],
			['ttml', 'application/ttml+xml', 'ttml'],
			['text', 'text/plain', 'txt'],
			['segments', 'application/json', 'json'],
			['words', 'application/json', 'json'],
			['chunks', 'application/json', 'json'],
		]);
	});

	it('keeps vtt as vtt: style sheets, regions, settings, voices and styles; comments and header lines go', () => {
		const { content, warnings } = convertCaptions({
			from: 'vtt',
			to: 'vtt',
			content: fixture('keynote.vtt'),
		});
		expect(content).not.toMatch(/NOTE|Kind:|&#39;|<c\./);
		expect(content).toMatch(/\nSTYLE\n::cue \{[^]*\nREGION\nid:speaker /);
		expect(content).toContain("<v Esme>It's <b>great</b> to see you all.");
		expect(independentParse(content).cues).toHaveLength(5);
		expect(parseVtt(content)).toEqual(parseVtt(fixture('keynote.vtt')));
		// the ruby annotation WebVTT's cue text had is the one thing left out, and named
		expect(warnings.map((warning) => warning.text)).toEqual(['kan ji']);
	});

	it('converts vtt to srt', () => {
		const { content } = convertCaptions({
			from: 'vtt',
			to: 'srt',
			content: fixture('panel-overlapping.vtt'),
		});
		expect(content).toBe(
			[
				'1',
				'00:00:01,000 --> 00:00:05,000',
				'So what did the client say?',
				'',
				'2',
				'00:00:02,000 --> 00:00:06,000',
				'[crowd cheering]',
				'',
				'3',
				'00:00:03,000 --> 00:00:04,000',
				'They loved it.',
				'',
			].join('\n'),
		);
	});

	it('adds speakers to srt when asked', () => {
		const { content } = convertCaptions({
			from: 'vtt',
			to: 'srt',
			content: fixture('panel-overlapping.vtt'),
			options: { includeVoice: true },
		});
		expect(parseSrt(content).map((cue) => cue.text)).toEqual([
			'Anna: So what did the client say?',
			'[crowd cheering]',
			'Ben: They loved it.',
		]);
	});

	it('converts vtt to text and to segments', () => {
		const content = fixture('rolling-auto-captions.vtt');
		expect(convertCaptions({ from: 'vtt', to: 'text', content }).content).toBe(
			"so today we're going to look at how captions work\n\nand why timing matters",
		);
		const segments = JSON.parse(convertCaptions({ from: 'vtt', to: 'segments', content }).content);
		expect(segments[0]).toEqual({
			start: 0.32,
			end: 2.79,
			startTime: '00:00:00.320',
			endTime: '00:00:02.790',
			text: "so today we're going to look",
		});
	});

	it('converts google_stt to vtt with speakers as voices', () => {
		const { content } = convertCaptions({
			from: 'google_stt',
			to: 'vtt',
			content: fixture('standup-diarized.google_stt.json'),
			options: { header: 'Kind: captions' },
		});
		expect(content).toBe(
			[
				'WEBVTT Kind: captions',
				'',
				'00:00:00.500 --> 00:00:01.600',
				'<v Speaker 1>Did you get the report?',
				'',
				'00:00:02.000 --> 00:00:03.500',
				'<v Speaker 2>Yes, I sent it this morning.',
				'',
			].join('\n'),
		);
	});

	it('converts google_stt to text with paragraphs per pause', () => {
		const { content } = convertCaptions({
			from: 'google_stt',
			to: 'text',
			content: fixture('all-hands-multilingual.google_stt.json'),
		});
		expect(content).toBe(
			[
				'Hello and welcome to the café.',
				"Today we're talking about naïve résumés, jalapeño piñatas 🎉 and Zürich's crème brûlée. 今日はいい天気ですね。Thank you all for coming, see you next quarter!",
			].join('\n\n'),
		);
	});

	it('converts google_stt to srt', () => {
		const { content } = convertCaptions({
			from: 'google_stt',
			to: 'srt',
			content: fixture('all-hands-multilingual.google_stt.json'),
		});
		expect(
			content.startsWith('1\n00:00:00,400 --> 00:00:02,300\nHello and welcome to the café.\n\n2\n'),
		).toBe(true);
		expect(parseSrt(content)).toHaveLength(5);
	});

	it('converts google_stt to words in seconds with three decimals', () => {
		const diarized = JSON.parse(
			convertCaptions({
				from: 'google_stt',
				to: 'words',
				content: fixture('standup-diarized.google_stt.json'),
			}).content,
		);
		expect(diarized.slice(4, 6)).toEqual([
			{ start: 1.1, end: 1.6, text: 'report?', speakerTag: 1 },
			{ start: 2, end: 2.3, text: 'Yes,', speakerTag: 2 },
		]);
		const words = JSON.parse(
			convertCaptions({
				from: 'google_stt',
				to: 'words',
				content: fixture('all-hands-multilingual.google_stt.json'),
			}).content,
		);
		expect(words[0]).toEqual({ start: 0.4, end: 0.8, text: 'Hello', confidence: 0.97 });
		expect(words).toHaveLength(25);
	});

	it('writes empty but valid files for empty google_stt results', () => {
		for (const name of ['empty-results.json', 'empty-object.json']) {
			const content = fixture(name);
			expect(convertCaptions({ from: 'google_stt', to: 'vtt', content }).content).toBe('WEBVTT\n');
			expect(convertCaptions({ from: 'google_stt', to: 'srt', content }).content).toBe('');
			expect(convertCaptions({ from: 'google_stt', to: 'text', content }).content).toBe('');
			expect(convertCaptions({ from: 'google_stt', to: 'words', content }).content).toBe('[]');
		}
	});

	it('applies layout options', () => {
		const { content } = convertCaptions({
			from: 'google_stt',
			to: 'vtt',
			content: fixture('all-hands-multilingual.google_stt.json'),
			options: { maxLineChars: 16, maxCueChars: 32, maxCueMs: 2000, maxGapMs: 800, minCueChars: 0 },
		});
		const cues = parseVtt(content);
		expect(cues.length).toBeGreaterThan(8);
		for (const cue of cues) {
			expect(cue.endMs - cue.startMs).toBeLessThanOrEqual(2000);
			for (const line of cue.text.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(16);
		}
		expectValidVtt(content);
	});

	it('applies paragraphGapMs to text output', () => {
		const content = fixture('all-hands-multilingual.google_stt.json');
		const text = convertCaptions({
			from: 'google_stt',
			to: 'text',
			content,
			options: { paragraphGapMs: 60_000 },
		});
		expect(text.content).not.toContain('\n');
	});

	describe('refuses what it cannot do, listing what is supported', () => {
		const supported =
			'Supported conversions: vtt → vtt, srt, sbv, ttml, text, segments, chunks; google_stt → vtt, srt, sbv, ttml, text, segments, words, chunks; srt → vtt, srt, sbv, ttml, text, segments, chunks; sbv → vtt, srt, sbv, ttml, text, segments, chunks.';

		it('vtt to words, because WebVTT has no word timings', () => {
			expect(() => convertCaptions({ from: 'vtt', to: 'words', content: 'WEBVTT\n' })).toThrow(
				new CaptionFormatError(
					`Cannot convert vtt to words: WebVTT has no word timings. ${supported}`,
				),
			);
		});

		it('srt to words, because SRT has no word timings', () => {
			expect(() => convertCaptions({ from: 'srt', to: 'words', content: '' })).toThrow(
				`Cannot convert srt to words: SRT has no word timings. ${supported}`,
			);
		});

		it('an unknown target format', () => {
			expect(() => convertCaptions({ from: 'google_stt', to: 'docx', content: '{}' })).toThrow(
				`Cannot convert google_stt to docx: "docx" is not an output format for google_stt. ${supported}`,
			);
		});

		it.each(['docx', 'toString', ''])('the unknown source format %j', (from) => {
			expect(() => convertCaptions({ from, to: 'text', content: '' })).toThrow(
				`Cannot convert from "${from}": unknown caption format. ${supported}`,
			);
		});

		it('a format it writes but does not read', () => {
			expect(() => convertCaptions({ from: 'ttml', to: 'text', content: '<tt/>' })).toThrow(
				`Cannot convert from "ttml": TTML (IMSC 1.1) is written, not read, by this package. ${supported}`,
			);
		});
	});

	it.each([
		[
			{ maxLineChars: 0 },
			'Invalid conversion option maxLineChars: Number must be greater than or equal to 10.',
		],
		[
			{ maxGapMs: -1 },
			'Invalid conversion option maxGapMs: Number must be greater than or equal to 0.',
		],
		[{ maxCueMs: 1.5 }, 'Invalid conversion option maxCueMs: Expected integer, received float.'],
		[{ header: 3 }, 'Invalid conversion option header: Expected string, received number.'],
		['fast', 'Invalid conversion option options: Expected object, received string.'],
	])('rejects the options %j', (options, message) => {
		expect(() =>
			convertCaptions({
				from: 'vtt',
				to: 'vtt',
				content: 'WEBVTT\n',
				options: options as never,
			}),
		).toThrow(new CaptionFormatError(message));
	});

	it('refuses options it does not know, naming the ones it does (one schema, strict)', () => {
		expect(() =>
			convertCaptions({
				from: 'vtt',
				to: 'vtt',
				content: 'WEBVTT\n',
				options: { colour: 'red', maxCueWords: 12 } as never,
			}),
		).toThrow(
			new CaptionFormatError(
				'Unknown conversion option "colour": the options are maxCueMs, maxCueChars, maxLineChars, maxLines, maxCueWords, maxGapMs, minCueChars, paragraphGapMs, header, includeVoice, chunkMinutes, chunkTokens, language.',
			),
		);
	});

	it('keeps maxCueWords, which the schema once dropped', () => {
		const content = fixture('standup-diarized.google_stt.json');
		const cues = (maxCueWords?: number) =>
			JSON.parse(
				convertCaptions({ from: 'google_stt', to: 'segments', content, options: { maxCueWords } })
					.content,
			) as { text: string }[];
		expect(cues(2).every((cue) => cue.text.split(' ').length <= 2)).toBe(true);
		expect(cues(2).length).toBeGreaterThan(cues().length);
	});

	it('passes content errors through, and what it left out as warnings', () => {
		const { warnings } = convertCaptions({
			from: 'vtt',
			to: 'srt',
			content: fixture('bad-timing.vtt'),
		});
		expect(warnings.map((warning) => warning.line)).toEqual([7]);
		expect(() => convertCaptions({ from: 'vtt', to: 'srt', content: 'WEBVT\n' })).toThrow(
			/^Line 1: expected the "WEBVTT" signature/,
		);
		expect(() => convertCaptions({ from: 'vtt', to: 'text', content: 42 as never })).toThrow(
			new CaptionFormatError('vtt content must be text, got number.'),
		);
		expect(() =>
			convertCaptions({ from: 'google_stt', to: 'vtt', content: fixture('keynote.vtt') }),
		).toThrow(/google_stt content is not valid JSON/);
	});
});

describe('transcriptFromCaptions', () => {
	it('reads vtt, google_stt and srt as plain text', () => {
		expect(transcriptFromCaptions('vtt', fixture('rolling-auto-captions.vtt'))).toBe(
			"so today we're going to look at how captions work\n\nand why timing matters",
		);
		expect(transcriptFromCaptions('google_stt', fixture('standup-diarized.google_stt.json'))).toBe(
			'Speaker 1: Did you get the report?\n\nSpeaker 2: Yes, I sent it this morning.',
		);
		expect(transcriptFromCaptions('srt', fixture('interview.srt'))).toBe(
			'Previously on the show... We need to talk. Now. Fine. There was no blank line before this one. 2024',
		);
		expect(transcriptFromCaptions('google_stt', '{}')).toBe('');
	});

	it('returns undefined for formats it does not read', () => {
		expect(transcriptFromCaptions('ttml', '<tt/>')).toBeUndefined();
		expect(transcriptFromCaptions('docx', '')).toBeUndefined();
		expect(transcriptFromCaptions('hasOwnProperty', '')).toBeUndefined();
	});

	it('throws for content that does not match its format', () => {
		expect(() => transcriptFromCaptions('vtt', '{"results":[]}')).toThrow(CaptionFormatError);
	});
});

describe('the maximum cue duration', () => {
	/** Words of 1 s each, without punctuation: only the cue duration limit breaks them into cues. */
	const google = JSON.stringify({
		results: [
			{
				alternatives: [
					{
						words: 'a b c d e f g h i j k l'.split(' ').map((word, i) => ({
							startTime: `${i}s`,
							endTime: `${i + 1}s`,
							word,
						})),
					},
				],
			},
		],
	});
	const firstCueMs = (options?: { maxCueMs?: number }) => {
		const [first] = JSON.parse(
			convertCaptions({ from: 'google_stt', to: 'segments', content: google, options }).content,
		) as Array<{ start: number; end: number }>;
		return Math.round((first.end - first.start) * 1000);
	};
	const editorDefault = (name: string) =>
		(
			convertDescription
				.find((property) => property.name === 'options')
				?.options?.find((option) => 'name' in option && option.name === name) as
				| { default: unknown }
				| undefined
		)?.default;

	it('is 6 s when the option is not added, as the editor shows', () => {
		expect(firstCueMs()).toBe(6000);
		expect(firstCueMs({ maxCueMs: undefined })).toBe(6000);
		expect(editorDefault('maxCueSeconds')).toBe(DEFAULT_MAX_CUE_MS / 1000);
		expect(DEFAULT_CUE_LAYOUT.maxCueMs).toBe(DEFAULT_MAX_CUE_MS);
	});

	it('follows the option when it is added', () => {
		expect(firstCueMs({ maxCueMs: 3000 })).toBe(3000);
	});

	it('shares the editor defaults of the other layout options', () => {
		expect(editorDefault('maxCueChars')).toBe(DEFAULT_CUE_LAYOUT.maxCueChars);
		expect(editorDefault('maxLineChars')).toBe(DEFAULT_CUE_LAYOUT.maxLineChars);
	});
});
