// mozilla/vtt.js's parser tests (test/fixtures/vttjs: the files, their licence, how to refresh them), read by this
// package's WebVTT reader and compared with what vtt.js gives: every cue's identifier, times, settings (the spec's
// later renamings applied, see vttjs.ts), visible text, styles and voices, and the regions. A file either agrees or
// is listed below with the reason, and for a listed file the test checks what the reader gives instead.
import { compare, type Compared, manifest, type Shown } from './vttjs';

type Expected = Compared['expected'];

interface Disagreement {
	reason: string;
	files: string[];
	/** What the reader gives instead of vtt.js's expectation, written from the reason. */
	instead: (expected: Expected, file: string) => Expected;
}

const withoutRegions = (expected: Expected): Expected => ({
	cues: expected.cues.map((cue) => ({ ...cue, region: '' })),
	regions: [],
});

const textCue = (start: number, end: number, text: string, styles: string): Shown => ({
	id: '',
	start,
	end,
	align: 'center',
	line: 'auto',
	snapToLines: true,
	lineAlign: 'start',
	position: 'auto',
	positionAlign: 'center',
	size: 100,
	vertical: '',
	region: '',
	text,
	styles,
	voices: [],
});

const TREE = "It's a blue apple tree!";
const TREE_STYLES = "I t ' s a b l u e a p p l e t r e e !";

const REGION_FILES = manifest.tests
	.map(([vtt]) => vtt)
	.filter(
		(vtt) =>
			vtt.startsWith('regions/') ||
			['cue-settings/region/valid.vtt', 'cue-settings/region/region-arrows.vtt'].includes(vtt) ||
			vtt === 'integration/regions.vtt',
	)
	.filter((vtt) => {
		const { expected } = compare(vtt, manifest.tests.find(([file]) => file === vtt)![1]);
		return expected.regions.length > 0;
	});

const DISAGREEMENTS: Disagreement[] = [
	{
		reason:
			'The WebVTT spec changed after vtt.js: regions are REGION blocks before the first cue (W3C test regions-id), and a "Region:" line in the header, the syntax of the drafts vtt.js follows, is header text that defines nothing (W3C test regions-old).',
		files: REGION_FILES,
		instead: withoutRegions,
	},
	{
		reason:
			'The WebVTT spec changed after vtt.js: position alignments are line-left, center and line-right ("start" and "end" were their old names), and a setting whose alignment is not one of these is ignored whole, its number too (W3C tests settings-position, invalid8, and settings-line, invalid36).',
		files: [
			'cue-settings/line/bad-line-align.vtt',
			'cue-settings/position/bad-position-align.vtt',
			'cue-settings/position/position-end-align.vtt',
			'cue-settings/position/position-start-align.vtt',
		],
		instead: (expected) => ({
			...expected,
			cues: expected.cues.map((cue) => ({
				...cue,
				line: 'auto',
				snapToLines: true,
				lineAlign: 'start',
				position: 'auto',
				positionAlign: 'center',
			})),
		}),
	},
	{
		reason:
			'By the spec\'s "collect a WebVTT timestamp", more than two digits before the first colon are hours, which need minutes and seconds after them: "000:00.000" and "120:00.000" are not timestamps, and the cue is left out (with a warning). vtt.js reads them as minutes.',
		files: ['cue-times/min-top-digits.vtt', 'cue-times/minimum-spots-over-sixty.vtt'],
		instead: () => ({ cues: [], regions: [] }),
	},
	{
		reason:
			'The WebVTT spec changed after vtt.js: a timing line right after the "WEBVTT" line ends the header and starts the first cue (W3C test header-timings); vtt.js reads no cue.',
		files: ['file-layout/header-no-new-line.vtt'],
		instead: () => ({ cues: [textCue(11, 13, 'Test', 'T e s t')], regions: [] }),
	},
	{
		reason:
			'A line "-->" is a timing line that cannot be read, and the timing line after it starts a cue of its own, as the spec collects blocks (W3C test arrows); vtt.js leaves that cue out.',
		files: ['integration/id.vtt'],
		instead: (expected) => ({
			...expected,
			cues: [
				...expected.cues.slice(0, 3),
				textCue(4, 5, 'Test', 'T e s t'),
				...expected.cues.slice(3),
			],
		}),
	},
	{
		reason:
			'Chosen here: blank lines before "WEBVTT" are read, with a warning, since they are most often left by pasting; the spec and vtt.js reject the file (docs/captions.md).',
		files: ['file-layout/newline-before-webvtt.vtt'],
		instead: () => ({ cues: [textCue(0, 2, 'text', 't e x t')], regions: [] }),
	},
	{
		reason:
			'Chosen here: the text after a tag without its ">" is kept as text, with a warning, so no word is lost; the spec and vtt.js read it as the tag\'s annotation and show nothing (for <v>: the voice).',
		files: [
			'cuetext/lang/no-end-gt.vtt',
			'cuetext/tag-format/no-closing-gt.vtt',
			'cuetext/voice/no-end-gt.vtt',
		],
		instead: () => ({ cues: [textCue(0, 2, TREE, TREE_STYLES)], regions: [] }),
	},
];

const listed = new Map(
	DISAGREEMENTS.flatMap((disagreement) => disagreement.files.map((file) => [file, disagreement])),
);
const agreeing = manifest.tests.filter(([vtt]) => !listed.has(vtt));

describe(`mozilla/vtt.js parser tests: ${agreeing.length} of ${manifest.tests.length} files agree, ${listed.size} differ for the reasons listed`, () => {
	it('every file of the tests is read, and every listed file is one of them', () => {
		expect(manifest.tests).toHaveLength(264);
		const files = new Set(manifest.tests.map(([vtt]) => vtt));
		expect([...listed.keys()].filter((file) => !files.has(file))).toEqual([]);
		expect(listed.size).toBe(DISAGREEMENTS.reduce((sum, entry) => sum + entry.files.length, 0));
	});

	it.each(agreeing)('%s: as vtt.js reads it (%s)', (vtt, json) => {
		const { expected, actual } = compare(vtt, json);
		expect(actual).toEqual(expected);
	});

	describe.each(DISAGREEMENTS.map((entry) => [entry.reason, entry] as const))('%s', (_, entry) => {
		it.each(entry.files)('%s', (vtt) => {
			const json = manifest.tests.find(([file]) => file === vtt)![1];
			const { expected, actual } = compare(vtt, json);
			expect(actual).not.toEqual(expected);
			expect(actual).toEqual(entry.instead(expected, vtt));
		});
	});
});
