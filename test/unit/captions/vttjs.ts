// mozilla/vtt.js's parser tests (test/fixtures/vttjs) as expectations of this package's WebVTT reader: what each test
// file's JSON says vtt.js parses, and what its processing-model JSON shows of the cue text, compared with what readVtt
// gives. The spec renamed some values after vtt.js was written; those renamings are applied to vtt.js's side first
// (expectedCue), everything else is compared as it is.
import { readFileSync } from 'fs';
import { join } from 'path';

import {
	CaptionFormatError,
	type CaptionDocument,
	type Cue,
	decodeCaptionBytes,
	readVtt,
} from '../../../nodes/Captioning/captions';

export const VTTJS_DIR = join(__dirname, '../../fixtures/vttjs');

interface VttJsCue {
	id: string;
	startTime: number;
	endTime: number;
	text: string;
	align: string;
	line: number | 'auto';
	lineAlign: string;
	position: number | 'auto';
	positionAlign: string;
	size: number;
	snapToLines: boolean;
	vertical: string;
	region: string | null;
}

interface VttJsRegion {
	width: number;
	lines: number;
	regionAnchorX: number;
	regionAnchorY: number;
	viewportAnchorX: number;
	viewportAnchorY: number;
	scroll: string;
}

/** A node of vtt.js's processing-model JSON: the DOM it builds for a cue. */
interface DomNode {
	localName: string;
	data?: string;
	title?: string;
	childNodes?: DomNode[];
}

export const manifest = JSON.parse(readFileSync(join(VTTJS_DIR, 'manifest.json'), 'utf8')) as {
	tests: Array<[vtt: string, json: string]>;
};

const readJson = <T>(file: string): T | undefined => {
	try {
		return JSON.parse(readFileSync(join(VTTJS_DIR, file), 'utf8')) as T;
	} catch {
		return undefined;
	}
};

/** What a cue shows, compared between vtt.js and readVtt. */
export interface Shown {
	id: string;
	start: number;
	end: number;
	align: string;
	line: number | 'auto';
	snapToLines: boolean;
	lineAlign: string;
	position: number | 'auto';
	/** The position alignment as a renderer computes it ('auto' resolved from the text alignment). */
	positionAlign: string;
	size: number;
	vertical: string;
	region: string;
	/** The visible text (ruby annotations left out) with the styles of each character, when known. */
	text?: string;
	styles?: string;
	voices?: string[];
}

// WebVTT's alignment keywords as they were named when vtt.js was written (middle) and are named now (center)
const RENAMED: Record<string, string> = { middle: 'center' };
// the position alignment 'auto' resolves to, from the text alignment (the spec's "computed position alignment")
const AUTO_POSITION_ALIGN: Record<string, string> = {
	start: 'line-left',
	left: 'line-left',
	end: 'line-right',
	right: 'line-right',
	center: 'center',
};
// vtt.js's position alignments: start, middle, end, the old names of line-left, center, line-right
const OLD_POSITION_ALIGN: Record<string, string> = {
	start: 'line-left',
	middle: 'center',
	end: 'line-right',
	left: 'line-left',
	right: 'line-right',
};

/** The visible text of a cue's DOM, each character's styles ("i", "b", "u") and the voices it names. */
function domText(nodes: readonly DomNode[]): { text: string; styles: string; voices: string[] } {
	let text = '';
	let styles = '';
	const voices: string[] = [];
	const walk = (node: DomNode, style: string) => {
		if (node.localName === 'rt') return;
		if (node.localName === '') {
			const data = node.data ?? '';
			text += data;
			for (const char of data) if (!/\s/.test(char)) styles += `${char}${style} `;
			return;
		}
		if (node.localName === 'span' && node.title) voices.push(node.title);
		const own = ['i', 'b', 'u'].includes(node.localName) ? node.localName : '';
		const next = [...new Set((style + own).split(''))].sort().join('');
		for (const child of node.childNodes ?? []) walk(child, next);
	};
	for (const node of nodes) walk(node, '');
	return { text, styles: styles.trim(), voices: [...new Set(voices)] };
}

/** The cue text nodes of one cue of the processing-model JSON: the children of its background box. */
function cueNodes(box: DomNode): DomNode[] {
	return box.childNodes?.[0]?.childNodes ?? [];
}

/** What vtt.js gives for a cue, with the spec's later renamings applied. */
function expectedCue(cue: VttJsCue, box: DomNode | undefined): Shown {
	const align = RENAMED[cue.align] ?? cue.align;
	const shown: Shown = {
		id: cue.id,
		start: cue.startTime,
		end: cue.endTime,
		align,
		line: cue.line,
		snapToLines: cue.snapToLines,
		lineAlign: RENAMED[cue.lineAlign] ?? cue.lineAlign,
		position: cue.position,
		positionAlign: OLD_POSITION_ALIGN[cue.positionAlign] ?? cue.positionAlign,
		size: cue.size,
		vertical: cue.vertical,
		region: cue.region ?? '',
	};
	if (box) Object.assign(shown, domText(cueNodes(box)));
	// without the processing model only text free of markup can be compared
	else if (!/[<&]/.test(cue.text)) shown.text = cue.text;
	return shown;
}

function styleString(cue: Cue): string {
	const runs = cue.runs ?? [{ text: cue.text }];
	const out: string[] = [];
	for (const run of runs) {
		const style = `${run.bold ? 'b' : ''}${run.italic ? 'i' : ''}${run.underline ? 'u' : ''}`;
		for (const char of run.text) if (!/\s/.test(char)) out.push(`${char}${style}`);
	}
	return out.join(' ');
}

function voicesOf(cue: Cue): string[] {
	if (cue.voice !== undefined) return [cue.voice];
	return [
		...new Set((cue.runs ?? []).flatMap((run) => (run.voice === undefined ? [] : [run.voice]))),
	];
}

/** What readVtt gives for a cue, in vtt.js's terms; only the fields `like` has are filled. */
function actualCue(cue: Cue, like: Shown | undefined): Shown {
	const settings = cue.settings ?? {};
	const align = settings.align ?? 'center';
	const shown: Shown = {
		id: cue.identifier ?? '',
		start: cue.startMs / 1000,
		end: cue.endMs / 1000,
		align,
		line: settings.line ?? 'auto',
		snapToLines: settings.snapToLines ?? true,
		lineAlign: settings.lineAlign ?? 'start',
		position: settings.position ?? 'auto',
		positionAlign: settings.positionAlign ?? AUTO_POSITION_ALIGN[align],
		size: settings.size ?? 100,
		vertical: settings.vertical ?? '',
		region: settings.region ?? '',
	};
	if (like === undefined || like.text !== undefined) shown.text = cue.text;
	if (like === undefined || like.styles !== undefined) shown.styles = styleString(cue);
	if (like === undefined || like.voices !== undefined) shown.voices = voicesOf(cue);
	return shown;
}

const REGION_KEYS = [
	'width',
	'lines',
	'regionAnchorX',
	'regionAnchorY',
	'viewportAnchorX',
	'viewportAnchorY',
	'scroll',
] as const;

export interface Compared {
	expected: { cues: Shown[]; regions: VttJsRegion[] };
	actual: { cues: Shown[]; regions: VttJsRegion[] };
}

/** One test of vtt.js: what it expects and what readVtt gives, in the same terms. */
export function compare(vttFile: string, jsonFile: string): Compared {
	const json = readJson<{ cues: VttJsCue[]; regions: VttJsRegion[] }>(jsonFile)!;
	const proc = readJson<DomNode[] | null>(vttFile.replace(/\.vtt$/, '-proc.json'));
	const boxes = proc && proc.length === json.cues.length ? proc : undefined;
	const expected = {
		cues: json.cues.map((cue, at) => expectedCue(cue, boxes?.[at])),
		regions: json.regions.map((region) => pick(region)),
	};
	const bytes = readFileSync(join(VTTJS_DIR, vttFile));
	let document: CaptionDocument;
	try {
		document = readVtt(decodeCaptionBytes(bytes).text);
	} catch (error) {
		if (!(error instanceof CaptionFormatError)) throw error;
		// a file without the signature: vtt.js reads no cue of it either
		document = { cues: [] };
	}
	const actual = {
		cues: document.cues.map((cue, at) => actualCue(cue, expected.cues[at])),
		regions: (document.regions ?? []).map((region) => pick(region)),
	};
	return { expected, actual };
}

function pick(region: Partial<VttJsRegion>): VttJsRegion {
	return Object.fromEntries(REGION_KEYS.map((key) => [key, region[key]])) as unknown as VttJsRegion;
}
