import { readFileSync } from 'fs';
import { join } from 'path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { WebVTTParser } from 'webvtt-parser';

import {
	CaptionFormatError,
	type Cue,
	IMSC_TEXT_PROFILE,
	parseVtt,
	type TextRun,
	type TextStyle,
	TTML_NAMESPACES,
} from '../../../nodes/Captioning/captions';

/** The cues of fixtures/captions/keynote.vtt, written by hand: what the WebVTT reader must give. */
export const KEYNOTE_CUES: Cue[] = [
	{
		identifier: 'intro-1',
		startMs: 500,
		endMs: 3200,
		settings: { align: 'start', position: 10 },
		voice: 'Roger Bingham',
		text: 'Good morning, everyone & welcome!',
	},
	{
		identifier: 'intro-2',
		startMs: 3400,
		endMs: 6900,
		settings: { line: 85, snapToLines: false, size: 80 },
		voice: 'Esme',
		text: "It's great to see you all.\nLet\u2019s get started.",
		runs: [
			{ text: "It's " },
			{ text: 'great', bold: true },
			{ text: ' to see you all.\nLet\u2019s get started.' },
		],
	},
	{
		startMs: 7000,
		endMs: 10_250,
		settings: { region: 'speaker', align: 'end' },
		voice: 'Roger Bingham',
		text: 'Revenue grew by 12\u00a0% <year over year>.',
		runs: [{ text: 'Revenue', italic: true }, { text: ' grew by 12\u00a0% <year over year>.' }],
	},
	{
		startMs: 10_500,
		endMs: 13_000,
		text: 'Q3 numbers \u200eare in the appendix.',
		runs: [
			{ text: 'Q3 numbers \u200eare in the ' },
			{ text: 'appendix', underline: true },
			{ text: '.' },
		],
	},
	{ startMs: 13_000, endMs: 16_000, text: '漢字 and café — all set.' },
];

export function fixture(name: string): string {
	return readFileSync(join(__dirname, '../../fixtures/captions', name), 'utf8');
}

/**
 * Parses with the independent w3c parser, in its strictest mode (cue text is validated too). It has no support for
 * regions (its own run of the W3C tests skips them): REGION blocks and region settings are taken out first.
 */
export function independentParse(vtt: string) {
	const withoutRegions = vtt
		.replace(/\n\nREGION\n[^\n]*(?=\n\n|\n?$)/g, '')
		.replace(/^(\S.*-->.*) region:\S+/gm, '$1');
	const { cues, errors } = new WebVTTParser().parse(withoutRegions);
	return {
		errors,
		cues: cues.map((cue) => ({
			id: cue.id,
			startMs: Math.round(cue.startTime * 1000),
			endMs: Math.round(cue.endTime * 1000),
			text: cue.text,
		})),
	};
}

export function timings(cues: readonly { startMs: number; endMs: number }[]): number[][] {
	return cues.map((cue) => [cue.startMs, cue.endMs]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** Asserts that WebVTT we wrote has no validation error and the same cues for both parsers. */
export function expectValidVtt(vtt: string): void {
	const independent = independentParse(vtt);
	expect(independent.errors).toEqual([]);
	expect(timings(independent.cues)).toEqual(timings(parseVtt(vtt)));
}

/** The CaptionFormatError that `run` throws; fails the test when it throws nothing or another error. */
export function thrown(run: () => unknown): CaptionFormatError {
	try {
		run();
	} catch (error) {
		if (error instanceof CaptionFormatError) return error;
		throw error;
	}
	throw new Error('expected a CaptionFormatError');
}

interface XmlNode {
	[name: string]: unknown;
	':@'?: Record<string, string>;
}

const xml = new XMLParser({
	ignoreAttributes: false,
	attributeNamePrefix: '',
	preserveOrder: true,
	parseTagValue: false,
	parseAttributeValue: false,
	trimValues: false,
});

function element(nodes: XmlNode[], name: string): XmlNode {
	const found = nodes.find((node) => name in node);
	if (!found)
		throw new Error(`no <${name}> among ${nodes.map((n) => Object.keys(n)[0]).join(', ')}`);
	return found;
}
const children = (node: XmlNode, name: string) => node[name] as XmlNode[];
const CLOCK_TIME = /^(\d{2,}):([0-5]\d):([0-5]\d)(?:\.(\d+))?$/;

function clockMs(value: string | undefined): number {
	const match = CLOCK_TIME.exec(value ?? '');
	if (!match) throw new Error(`${JSON.stringify(value)} is not a TTML clock time`);
	const [, h, m, s, fraction = ''] = match;
	return (
		Number(h) * 3_600_000 +
		Number(m) * 60_000 +
		Number(s) * 1000 +
		Number(fraction.padEnd(3, '0').slice(0, 3))
	);
}

/** A TTML paragraph as read back: its times, its text (lines joined by "\n" at <br/>), styles and speaker. */
export interface ImscParagraph {
	startMs: number;
	endMs: number;
	text: string;
	/** Present when a span gives part of the text a style. */
	runs?: TextRun[];
	/** The full name of the ttm:agent the paragraph names. */
	agent?: string;
}

const STYLE_ATTRIBUTES: Record<string, [string, keyof TextStyle]> = {
	'tts:fontStyle': ['italic', 'italic'],
	'tts:fontWeight': ['bold', 'bold'],
	'tts:textDecoration': ['underline', 'underline'],
};

/** The content of a p or span: text, <br/>, styled spans and spans of a speaker (ttm:agent), as runs. */
function contentRuns(
	nodes: XmlNode[],
	style: TextStyle & { voice?: string },
	agents: ReadonlyMap<string, string>,
): TextRun[] {
	return nodes.flatMap((node): TextRun[] => {
		if ('br' in node) return [{ text: '\n', ...style }];
		if ('span' in node) {
			const inner: TextStyle & { voice?: string } = { ...style };
			for (const [attribute, value] of Object.entries(node[':@'] ?? {})) {
				const known = STYLE_ATTRIBUTES[attribute];
				if (known && value === known[0]) inner[known[1]] = true;
				if (attribute === 'ttm:agent') {
					expect(agents.has(value)).toBe(true);
					inner.voice = agents.get(value);
				}
			}
			return contentRuns(children(node, 'span'), inner, agents);
		}
		return [{ text: String(node['#text'] ?? ''), ...style }];
	});
}

/**
 * Reads TTML with an independent XML parser (fast-xml-parser), asserting it is well-formed and has the
 * structure the IMSC 1.1 Text Profile asks for: the TTML namespaces, xml:lang, the profile in
 * ttp:contentProfiles, media time base, clock times, at most 4 regions, every region reference resolved,
 * unique xml:ids, tts:lineHeight on every paragraph, every ttm:agent named declared. Returns the paragraphs.
 */
export function parseImscText(document: string): ImscParagraph[] {
	expect(XMLValidator.validate(document)).toBe(true);
	const root = element(xml.parse(document) as XmlNode[], 'tt');
	const attributes = root[':@']!;
	expect(attributes).toMatchObject({
		xmlns: TTML_NAMESPACES.tt,
		'xmlns:ttp': TTML_NAMESPACES.ttp,
		'xmlns:tts': TTML_NAMESPACES.tts,
		'xmlns:ttm': TTML_NAMESPACES.ttm,
		'ttp:timeBase': 'media',
	});
	expect(attributes['xml:lang']).toMatch(/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/);
	expect(attributes['ttp:contentProfiles'].split(/\s+/)).toContain(IMSC_TEXT_PROFILE);
	const tt = children(root, 'tt');
	const head = children(element(tt, 'head'), 'head');
	const regions = children(element(head, 'layout'), 'layout')
		.filter((node) => 'region' in node)
		.map((node) => node[':@']!['xml:id']);
	expect(regions.length).toBeGreaterThan(0);
	expect(regions.length).toBeLessThanOrEqual(4);
	const agents = new Map<string, string>();
	const metadata = head.find((node) => 'metadata' in node);
	for (const agent of metadata ? children(metadata, 'metadata') : []) {
		if (!('ttm:agent' in agent)) continue;
		const name = children(agent, 'ttm:agent').find((node) => 'ttm:name' in node)!;
		agents.set(
			agent[':@']!['xml:id'],
			children(name, 'ttm:name')
				.map((node) => String(node['#text'] ?? ''))
				.join(''),
		);
	}
	const body = element(tt, 'body');
	expect(regions).toContain(body[':@']!.region);
	const paragraphs = children(element(children(body, 'body'), 'div'), 'div').filter(
		(node) => 'p' in node,
	);
	const ids = paragraphs.map((p) => p[':@']!['xml:id']);
	expect(new Set(ids).size).toBe(ids.length);
	return paragraphs.map((p) => {
		const runs = contentRuns(children(p, 'p'), {}, agents);
		const text = runs.map((run) => run.text).join('');
		const startMs = clockMs(p[':@']!.begin);
		const endMs = clockMs(p[':@']!.end);
		expect(p[':@']!['tts:lineHeight']).toMatch(/^\d+(\.\d+)?%$/);
		const paragraph: ImscParagraph = { startMs, endMs, text };
		if (runs.some((run) => run.italic || run.bold || run.underline || run.voice)) {
			paragraph.runs = runs;
		}
		const agent = p[':@']!['ttm:agent'];
		if (agent !== undefined) {
			expect(agents.has(agent)).toBe(true);
			paragraph.agent = agents.get(agent);
		}
		return paragraph;
	});
}
