// Caption File → Check, Fix and Convert (new formats, chunks, output as an AI tool) through n8n-core's real
// ExecuteContext, reading the sandbox's own files over real HTTP.
import type { IDataObject, INodeExecutionData, INodeParameters, INodeType } from 'n8n-workflow';

import { Captioning } from '../../nodes/Captioning/Captioning.node';
import { parseSrt, parseVtt } from '../../nodes/Captioning/captions';
import { longTranscript } from '../../sandbox/longTranscript';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { allowingHost } from '../helpers/allowedHost';
import { createHarness, type Harness } from '../helpers/n8nContext';
import { startReceiver } from '../helpers/receiver';
import { createEndpoint, credentialsFor, obtainToken } from '../helpers/sandboxClient';
import { parseImscText } from '../unit/captions/helpers';

const captioning = new Captioning();
// the tool variant n8n derives from a node with usableAsTool: the same node, its name ending in "Tool"
const captioningTool: INodeType = {
	description: { ...captioning.description, name: 'captioningTool' },
	execute: captioning.execute,
};
let sandbox: Sandbox;
let h: Harness;
/** The file URLs of one transcription the sandbox delivered, as the trigger's item has them. */
let files: Record<string, string>;

beforeAll(async () => {
	sandbox = await startSandbox({ rateLimit: null, transcribeAfterMs: 0 });
	h = createHarness(credentialsFor(sandbox), { captioning, captioningTool });
	files = await deliveredFiles(SPOKEN);
});

afterAll(async () => {
	await sandbox?.stop();
});

async function run(
	parameters: IDataObject,
	items: INodeExecutionData[] = [{ json: {} }],
	type = 'captioning',
): Promise<INodeExecutionData[]> {
	const node = h.makeNode(type, {
		resource: 'captionFile',
		...allowingHost(parameters, sandbox.url),
	} as INodeParameters);
	const [output] = await captioning.execute.call(h.executeContext(node, items));
	return output;
}

const binaryText = (item: INodeExecutionData, key: string) =>
	Buffer.from(item.binary![key].data, 'base64').toString('utf8');

async function deliveredFiles(text: string): Promise<Record<string, string>> {
	const receiver = await startReceiver();
	try {
		const { access_token } = await obtainToken(sandbox);
		await createEndpoint(sandbox, access_token, `${receiver.url}/hook`, [
			'transcription.transcribed',
		]);
		await sandbox.transcribe({ title: 'Quality check', text });
		await sandbox.idle();
		const event = JSON.parse(receiver.received.at(-1)!.body);
		const files: Record<string, string> = {};
		for (const file of event.included[0].attributes.transcriptions) files[file.format] = file.url;
		return files;
	} finally {
		await receiver.close();
	}
}

// Captions as an automatic tool often makes them: overlaps, flashes, a line too long, an empty cue.
const BAD_VTT = `WEBVTT

00:00:01.000 --> 00:00:01.300
Hi.

00:00:01.250 --> 00:00:04.000
Welcome to the quarterly product update where we look at captions, search and the new dashboard.

00:00:04.010 --> 00:00:04.500


00:00:05.000 --> 00:00:13.500
Captions now arrive within minutes.
`;

// about 4 minutes of speech, as the sandbox times it: enough text for several chunks of 100 tokens
const LONG = longTranscript(0.07, 'chunks');

const SPOKEN =
	'Welcome to the quarterly product update. Today we look at three things: captions, search and the new dashboard. Captions now arrive within minutes of an upload.';

describe('Check', () => {
	test('finds the gaps in the sandbox’s WebVTT that Netflix’s English guide does not allow, keeping the item’s files', async () => {
		const item: INodeExecutionData = {
			json: { title: 'Quality check', files },
			binary: { kept: { data: Buffer.from('x').toString('base64'), mimeType: 'text/plain' } },
		};
		const [checked] = await run(
			{
				operation: 'check',
				inputSource: 'url',
				url: files.vtt,
				from: 'auto',
				profile: 'netflixEnglish',
			},
			[item],
		);
		const check = checked.json.check as IDataObject;
		// the sandbox leaves 80 ms between cues inside a sentence: 2 frames at 24 fps (1.92, rounded), as Netflix asks
		expect(check).toMatchObject({
			format: 'vtt',
			profile: {
				id: 'netflixEnglish',
				name: 'Netflix English (USA), Adult Programs',
				frameRate: '24',
			},
			limits: { maxCharsPerLine: 42, maxCharsPerSecond: 20, minGapFrames: 2, frameRate: 24 },
			counts: { gap: 0, chaining: 0, lineLength: 0, readingSpeed: 0, overlap: 0, emptyCue: 0 },
			warnings: [],
		});
		expect(checked.json.title).toBe('Quality check');
		expect(Object.keys(checked.binary!)).toEqual(['kept']);
	});

	test('counts gaps in frames at the chosen frame rate: 2 frames pass at 25 fps, 10 are closed (chaining)', async () => {
		const content = [
			'WEBVTT',
			'',
			'00:00:01.000 --> 00:00:03.000',
			'Two frames after this one.',
			'',
			'00:00:03.080 --> 00:00:05.000',
			'Ten frames after this one.',
			'',
			'00:00:05.400 --> 00:00:07.000',
			'The last one.',
		].join('\n');
		const [at25] = await run({
			operation: 'check',
			inputSource: 'text',
			content,
			profile: 'netflixEnglish',
			frameRate: '25',
		});
		const check = at25.json.check as { counts: Record<string, number>; violations: IDataObject[] };
		expect(check.counts).toMatchObject({ gap: 0, chaining: 1 });
		expect(check.violations).toEqual([
			expect.objectContaining({
				rule: 'chaining',
				cue: 2,
				message:
					'10 frames (0.4 s) before the next cue at 25 fps: gaps of 12 frames (0.48 s) or less are closed to 2 frames (0.08 s) (chaining); end this cue 2 frames (0.08 s) before the next one starts.',
			}),
		]);
		const [custom] = await run({
			operation: 'check',
			inputSource: 'text',
			content,
			profile: 'netflixEnglish',
			frameRate: 'custom',
			customFrameRate: 12.5,
		});
		// at 12.5 fps, 80 ms is one frame
		expect((custom.json.check as { counts: Record<string, number> }).counts.gap).toBe(1);
	});

	test('fails bad captions with counts per rule, the worst cues, and each violation’s times', async () => {
		const [checked] = await run({
			operation: 'check',
			inputSource: 'text',
			content: BAD_VTT,
			from: 'auto',
			profile: 'netflixEnglish',
		});
		const check = checked.json.check as {
			passed: boolean;
			counts: Record<string, number>;
			worst: IDataObject[];
			violations: IDataObject[];
		};
		expect(check.passed).toBe(false);
		expect(check.counts).toMatchObject({
			emptyCue: 1,
			lineLength: 1,
			readingSpeed: 1,
			minDuration: 1,
			maxDuration: 1,
			overlap: 1,
		});
		expect(check.worst[0]).toMatchObject({ cue: 3, excess: null });
		expect(check.violations).toContainEqual(
			expect.objectContaining({
				rule: 'overlap',
				cue: 1,
				nextCue: 2,
				startTime: '00:00:01.000',
				endTime: '00:00:01.300',
				message: 'Overlaps the next cue by 0.05 s.',
			}),
		);
	});

	test('outputs one item per violation when asked, and none for captions that pass', async () => {
		const items = await run({
			operation: 'check',
			inputSource: 'text',
			content: BAD_VTT,
			profile: 'bbc',
			options: { output: 'violations' },
		});
		expect(items.length).toBeGreaterThan(1);
		expect(items[0].json).toMatchObject({ profile: 'BBC Subtitle Guidelines', format: 'vtt' });
		expect(items.every((item) => typeof item.json.rule === 'string')).toBe(true);
		const none = await run({
			operation: 'check',
			inputSource: 'text',
			content: 'WEBVTT\n\n00:01.000 --> 00:03.000\nAll good here.\n',
			profile: 'bbc',
			options: { output: 'violations' },
		});
		expect(none).toEqual([]);
	});

	test('measures against custom limits, and refuses limits that contradict each other', async () => {
		const [checked] = await run({
			operation: 'check',
			inputSource: 'text',
			content: 'WEBVTT\n\n00:01.000 --> 00:03.000\nA line of twenty-five ch\n',
			profile: 'custom',
			customLimits: { maxCharsPerLine: 20, minDurationSeconds: 2.5 },
		});
		expect(checked.json.check).toMatchObject({
			passed: false,
			limits: { maxCharsPerLine: 20, minDurationMs: 2500 },
			counts: { lineLength: 1, minDuration: 1, emptyCue: 0, timing: 0, overlap: 0 },
		});
		expect((checked.json.check as IDataObject).counts).not.toHaveProperty('readingSpeed');
		const error = await run({
			operation: 'check',
			inputSource: 'text',
			content: 'WEBVTT\n',
			profile: 'custom',
			customLimits: { minDurationSeconds: 8, maxDurationSeconds: 7 },
		}).catch((e) => e);
		expect(error.message).toBe(
			'The custom limits do not work: Min Duration is longer than Max Duration',
		);
	});
});

describe('Fix', () => {
	test('fixes bad captions to pass the same Check, in the chosen format, saying what it changed', async () => {
		const [fixed] = await run({
			operation: 'fix',
			inputSource: 'text',
			content: BAD_VTT,
			from: 'vtt',
			profile: 'netflixEnglish',
			to: 'srt',
			outputBinaryPropertyName: 'fixed',
		});
		expect(fixed.json.fix).toMatchObject({
			passed: true,
			format: 'vtt',
			to: 'srt',
			violations: { before: 6, after: 0 },
			unfixable: [],
			changes: { removedEmpty: 1, split: 1 },
		});
		expect(fixed.binary!.fixed).toMatchObject({
			mimeType: 'application/x-subrip',
			fileName: 'captions.srt',
		});
		const srt = binaryText(fixed, 'fixed');
		const [rechecked] = await run({
			operation: 'check',
			inputSource: 'text',
			content: srt,
			profile: 'netflixEnglish',
		});
		expect((rechecked.json.check as IDataObject).passed).toBe(true);
		expect(
			parseSrt(srt)
				.map((cue) => cue.text.replace(/\n/g, ' '))
				.join(' '),
		).toBe(
			'Hi. Welcome to the quarterly product update where we look at captions, search and the new dashboard. Captions now arrive within minutes.',
		);
	});

	test('fixes the sandbox’s WebVTT to pass, and lays its Google Speech-to-Text out again as TTML', async () => {
		const [vtt] = await run({
			operation: 'fix',
			inputSource: 'url',
			url: files.vtt,
			profile: 'netflixEnglish',
			to: 'vtt',
			outputBinaryPropertyName: 'fixed',
		});
		expect(vtt.json.fix).toMatchObject({ passed: true, violations: { after: 0 }, unfixable: [] });
		const [fixed] = await run(
			{
				operation: 'fix',
				inputSource: 'url',
				url: files.google_stt,
				profile: 'dcmp',
				to: 'ttml',
				outputBinaryPropertyName: 'ttml',
			},
			[{ json: { title: 'Quality check' } }],
		);
		expect(fixed.json.fix).toMatchObject({
			passed: true,
			format: 'google_stt',
			changes: { fromWordTimings: true },
		});
		expect(fixed.binary!.ttml).toMatchObject({
			mimeType: 'application/ttml+xml',
			fileName: 'quality-check.ttml',
		});
		const cues = parseImscText(binaryText(fixed, 'ttml'));
		expect(cues.map((cue) => cue.text.replace(/\n/g, ' ')).join(' ')).toBe(SPOKEN);
		for (const cue of cues) {
			for (const line of cue.text.split('\n')) expect(line.length).toBeLessThanOrEqual(32);
		}
	});
});

describe('Convert', () => {
	test('reads SRT and SBV and writes SBV, TTML and WebVTT files', async () => {
		const srt =
			'1\n00:00:01,000 --> 00:00:02,500\nFirst line\n\n2\n00:00:03,000 --> 00:00:04,000\nSecond\n';
		const [sbv] = await run({ operation: 'convert', inputSource: 'text', content: srt, to: 'sbv' });
		expect(binaryText(sbv, 'data')).toBe(
			'0:00:01.000,0:00:02.500\nFirst line\n\n0:00:03.000,0:00:04.000\nSecond\n',
		);
		expect(sbv.binary!.data).toMatchObject({ fileName: 'captions.sbv' });
		const [vtt] = await run({
			operation: 'convert',
			inputSource: 'text',
			content: binaryText(sbv, 'data'),
			to: 'vtt',
		});
		expect(parseVtt(binaryText(vtt, 'data')).map((cue) => cue.text)).toEqual([
			'First line',
			'Second',
		]);
		const [ttml] = await run({
			operation: 'convert',
			inputSource: 'text',
			content: srt,
			to: 'ttml',
			options: { language: 'en' },
		});
		expect(binaryText(ttml, 'data')).toContain('xml:lang="en"');
		expect(parseImscText(binaryText(ttml, 'data'))).toHaveLength(2);
	});

	test('reads Windows-1252 and UTF-16 files with the right characters, saying when it had to guess', async () => {
		const srt = '1\r\n00:00:01,000 --> 00:00:02,000\r\nCafé crème, «très» cher – 5 €\r\n';
		const inputs: Array<[string, Buffer]> = [
			['windows-1252', Buffer.from(srt.replace('–', '\x96').replace('€', '\x80'), 'latin1')],
			['utf-16le', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(srt, 'utf16le')])],
			[
				'utf-16be',
				Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(srt, 'utf16le').swap16()]),
			],
		];
		for (const [encoding, bytes] of inputs) {
			const [converted] = await run(
				{ operation: 'convert', inputSource: 'binary', binaryPropertyName: 'data', to: 'vtt' },
				[
					{
						json: {},
						binary: {
							data: {
								data: bytes.toString('base64'),
								mimeType: 'application/x-subrip',
								fileName: 'cafe.srt',
							},
						},
					},
				],
			);
			expect({ encoding, text: parseVtt(binaryText(converted, 'data'))[0].text }).toEqual({
				encoding,
				text: 'Café crème, «très» cher – 5 €',
			});
			const warnings = converted.json.warnings as Array<{ message: string }>;
			if (encoding === 'windows-1252') {
				expect(warnings).toEqual([
					{
						message: expect.stringMatching(
							/^The file is not UTF-8: read as Windows-1252 \(Western European\).* Bytes that are not UTF-8 are on line 3 \("Café crème, «très» cher – 5 €"\)\./,
						),
					},
				]);
			} else {
				expect(warnings).toEqual([]);
			}
		}
	});

	test('converts what it can read of a file with bad blocks, naming each left out in warnings', async () => {
		const [converted] = await run({
			operation: 'convert',
			inputSource: 'text',
			content:
				'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nKept.\n\n00:00:03,000 --> 00:00:04,000\nSRT times.\n\n00:00:05.000 --> 00:00:06.000\nKept too.\n',
			to: 'srt',
		});
		expect(parseSrt(binaryText(converted, 'data')).map((cue) => cue.text)).toEqual([
			'Kept.',
			'Kept too.',
		]);
		expect(converted.json.warnings).toEqual([
			expect.objectContaining({ line: 6, text: '00:00:03,000 --> 00:00:04,000' }),
		]);
	});

	test('writes transcript chunks by minutes or by a token budget into the item', async () => {
		const [byTokens] = await run(
			{
				operation: 'convert',
				inputSource: 'text',
				content: LONG.vtt,
				to: 'chunks',
				chunkBy: 'tokens',
				chunkTokens: 100,
			},
			[{ json: { title: 'Quality check' } }],
		);
		const chunks = byTokens.json.chunks as Array<{ index: number; text: string; tokens: number }>;
		expect(chunks.length).toBeGreaterThan(1);
		expect(chunks.every((chunk) => chunk.tokens <= 100)).toBe(true);
		expect(chunks.map((c) => c.text).join(' ')).toBe(LONG.text);
		expect(chunks[0]).toMatchObject({ index: 1 });
		const [byMinutes] = await run({
			operation: 'convert',
			inputSource: 'url',
			url: files.vtt,
			to: 'chunks',
			chunkBy: 'minutes',
			chunkMinutes: 5,
		});
		expect(byMinutes.json.chunks).toHaveLength(1);
		expect((byMinutes.json.chunks as Array<{ text: string }>)[0].text).toBe(SPOKEN);
	});

	test('refuses a token budget below the one the options schema and the editor allow', async () => {
		await expect(
			run({
				operation: 'convert',
				inputSource: 'url',
				url: files.vtt,
				to: 'chunks',
				chunkBy: 'tokens',
				chunkTokens: 20,
			}),
		).rejects.toThrow(
			'Invalid conversion option chunkTokens: Number must be greater than or equal to 50.',
		);
	});

	test('as an AI tool: JSON entries by default, or simplified text, bounded to Max Output Characters, saying so', async () => {
		const toolArgs = { json: { query: 'read the captions' } };
		const [entries] = await run(
			{ operation: 'convert', inputSource: 'url', url: files.vtt, to: 'segments' },
			[toolArgs],
			'captioningTool',
		);
		expect(entries.binary).toBeUndefined();
		expect(entries.json).not.toHaveProperty('query');
		expect(entries.json).not.toHaveProperty('truncated');
		expect((entries.json.segments as IDataObject[])[0]).toMatchObject({
			startTime: '00:00:00.300',
			text: expect.stringMatching(/^Welcome to the quarterly/),
		});
		const [simple] = await run(
			{
				operation: 'convert',
				inputSource: 'url',
				url: files.vtt,
				to: 'segments',
				toolOutput: 'simplified',
			},
			[toolArgs],
			'captioningTool',
		);
		expect(simple.json.text).toMatch(
			/^\[00:00:00\.300 → 00:00:0\d\.\d{3}\] Welcome to the quarterly/,
		);
		const [bounded] = await run(
			{
				operation: 'convert',
				inputSource: 'url',
				url: files.vtt,
				to: 'segments',
				toolOutput: 'full',
				toolMaxChars: 300,
			},
			[toolArgs],
			'captioningTool',
		);
		expect(JSON.stringify(bounded.json.segments).length).toBeLessThanOrEqual(300);
		expect(bounded.json.truncated).toMatchObject({ shownEntries: expect.any(Number) });
		const [file] = await run(
			{ operation: 'convert', inputSource: 'url', url: files.vtt, to: 'srt', toolMaxChars: 0 },
			[toolArgs],
			'captioningTool',
		);
		expect(file.binary).toBeUndefined();
		expect(parseSrt(file.json.content as string).length).toBeGreaterThan(1);
	});

	test('as an AI tool: 20,000 warnings stay inside Max Output Characters, as a count and the first few', async () => {
		// a cue, then 20,000 blocks that are not cues: each one a warning of the WebVTT reader
		const content = `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nKept\n\n${'not a cue\n\n'.repeat(20_000)}`;
		const [answer] = await run(
			{ operation: 'convert', inputSource: 'text', content, to: 'text', toolMaxChars: 20_000 },
			[{ json: {} }],
			'captioningTool',
		);
		expect(answer.json.warningCount).toBe(20_000);
		expect((answer.json.warnings as unknown[]).length).toBe(5);
		expect(answer.json.text).toBe('Kept');
		expect(JSON.stringify(answer.json).length).toBeLessThanOrEqual(20_000);
	});
});

describe('Create From Items', () => {
	test('writes the sandbox’s WebVTT again from its segments with a translated text: the same times, new lines', async () => {
		const [converted] = await run({
			operation: 'convert',
			inputSource: 'url',
			url: files.vtt,
			to: 'segments',
		});
		const segments = converted.json.segments as unknown as IDataObject[];
		// a stand-in for a translation node: every word in capitals, the rest of the item as it was
		const translated = segments.map((segment) => ({
			json: { ...segment, translation: String(segment.text).toUpperCase() },
		}));
		const [file] = await run(
			{ operation: 'fromItems', to: 'vtt', textField: 'translation', lines: 'netflixEnglish' },
			translated,
		);
		const source = parseVtt(await (await fetch(files.vtt)).text());
		const written = parseVtt(binaryText(file, 'data'));
		expect(written.map((cue) => [cue.startMs, cue.endMs])).toEqual(
			source.map((cue) => [cue.startMs, cue.endMs]),
		);
		expect(written.map((cue) => cue.text.replace(/\s+/g, ' '))).toEqual(
			source.map((cue) => cue.text.toUpperCase().replace(/\s+/g, ' ')),
		);
		expect(file.json).toEqual({ format: 'vtt', cues: source.length, warnings: [] });
		expect(file.binary!.data).toMatchObject({ fileName: 'captions.vtt', mimeType: 'text/vtt' });
		expect(file.pairedItem).toEqual(translated.map((_, item) => ({ item })));
	});

	test('names the item that is no cue, and under Continue On Fail answers with the error', async () => {
		const items = [
			{ json: { start: 1, end: 2, text: 'One' } },
			{ json: { start: 3, text: 'Two' } },
		];
		await expect(run({ operation: 'fromItems', to: 'srt' }, items)).rejects.toMatchObject({
			message:
				'Item 2: it has neither "end" nor "endTime". Each item needs start and end in seconds (or startTime and endTime as hh:mm:ss.ttt) and its text, as Convert writes Segments JSON.',
			context: { itemIndex: 1 },
		});
		const node = h.makeNode('captioning', {
			resource: 'captionFile',
			operation: 'fromItems',
			to: 'srt',
		} as INodeParameters);
		node.continueOnFail = true;
		const [output] = await captioning.execute.call(h.executeContext(node, items));
		expect(output).toEqual([
			{
				json: { error: expect.stringMatching(/^Item 2: it has neither "end"/) },
				pairedItem: [{ item: 0 }, { item: 1 }],
			},
		]);
	});
});
