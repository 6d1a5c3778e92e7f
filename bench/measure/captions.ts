// Item 7: the caption library against the most used npm caption libraries, side by side in one process on three
// shapes of input: the sandbox's generated 3-hour transcript (sandbox/longTranscript.ts: short cues, word timings),
// plain subtitles (3,129 two-line cues, no word timings, as subtitle files from editing tools are) and the same
// subtitles styled (one <i> a cue, as films italicise a word or a voice off screen). Parse and write WebVTT, SRT and
// SBV with each library's own functions on its own structures (ours through the format registry, readCaptions and
// renderCaptions, the path the nodes take), our Google STT reading, Check and Fix; the retained heap of what each
// parse returns; ours at 1x, 4x and 16x the length to show the time grows linearly; and, each in a process of its
// own, the peak memory of a parse per MB of input and of Convert of a 100 MB Google STT file. Every call is the
// library's exported function, never a copy.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import subsrt from 'subsrt-ts';
import { parseSync, stringifySync } from 'subtitle';
import { WebVTTParser, WebVTTSerializer } from 'webvtt-parser';

import { PROJECT_ROOT } from '../../harness';
import {
	captionProfile,
	checkCaptions,
	type Cue,
	decodeCaptionBytes,
	fixCaptions,
	formatSbv,
	formatSrt,
	formatVtt,
	parseVtt,
	readCaptions,
	renderCaptions,
	wordsToCues,
} from '../../nodes/Captioning/captions';
import { longTranscript } from '../../sandbox/longTranscript';
import { round, roundSummary, summarize, type Summary } from '../lib/stats';

export const CAPTION_LIBRARIES = ['ours', 'subtitle', 'subsrt-ts', 'webvtt-parser'] as const;
export type CaptionLibrary = (typeof CAPTION_LIBRARIES)[number];

export interface CaptionBenchSettings {
	hours: number;
	rounds: number;
	/** Lengths (multiples of `hours`) ours is timed at. */
	factors: number[];
	/** A timed call repeats until it has run this long, to read short calls reliably. */
	minSampleMs: number;
	/** Cues of the subtitles each parse's peak memory is measured on (about 75 bytes a cue of WebVTT). */
	peakCues?: number;
	/** Hours of the Google STT recording Convert's peak memory is measured on (107 h: about 100 MB). */
	googleSttHours?: number;
}

export interface CaptionTaskRun {
	task: string;
	library: CaptionLibrary;
	/** Milliseconds per call, one sample per round. */
	ms: number[];
	/** What it read or wrote: cues, or characters of output. */
	size: number;
}

export interface CaptionMemory {
	task: string;
	library: CaptionLibrary;
	/** Heap still held by what the parse returned, after a full garbage collection. */
	retainedMB: number;
}

/** Peak memory of one call in a process of its own: the resident set's peak less what it held before the call. */
export interface CaptionPeak {
	task: string;
	library: CaptionLibrary;
	inputMB: number;
	/** The process's peak resident set size, in MB. */
	peakRssMB: number;
	/** What the call added to the resident set at its peak, in MB. */
	addedMB: number;
}

export interface CaptionScalingRun {
	task: string;
	factor: number;
	cues: number;
	ms: number[];
}

export interface CaptionBench {
	input: {
		hours: number;
		durationSeconds: number;
		words: number;
		cues: number;
		vttBytes: number;
		googleSttBytes: number;
		/** The plain-subtitle shape: two-line cues without word timings. */
		subtitles?: { cues: number; vttBytes: number };
	};
	versions: Record<string, string>;
	tasks: CaptionTaskRun[];
	memory: CaptionMemory[];
	scaling: CaptionScalingRun[];
	/** Peak memory per MB of input, each call alone in a process; absent in runs before it was measured. */
	peaks?: CaptionPeak[];
}

type Timed = { library: CaptionLibrary; run: () => unknown };
interface Task {
	name: string;
	entries: Timed[];
}

const gc: () => void = (() => {
	setFlagsFromString('--expose-gc');
	return runInNewContext('gc') as () => void;
})();

function version(pkg: string): string {
	const file = pkg === 'ours' ? 'package.json' : join('node_modules', pkg, 'package.json');
	return (JSON.parse(readFileSync(join(PROJECT_ROOT, file), 'utf8')) as { version: string })
		.version;
}

/** The process's processor time in milliseconds (all its threads, the collector's included). */
function cpuMs(): number {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1000;
}

/**
 * Milliseconds of processor time per call: the call repeated until `minSampleMs` of it have been used. Processor
 * time rather than time on the clock: on a shared machine the clock also counts the time other processes held the
 * processor, which falls on one library's sample and not the next one's.
 */
function timeCall(run: () => unknown, minSampleMs: number): number {
	let calls = 0;
	const started = cpuMs();
	let elapsed = 0;
	do {
		run();
		calls++;
		elapsed = cpuMs() - started;
	} while (elapsed < minSampleMs);
	return elapsed / calls;
}

/** Heap a parse's result holds: read after a full collection, while the result is still referenced. */
function retainedMB(parse: () => unknown): number {
	const kept: unknown[] = [];
	gc();
	const before = process.memoryUsage().heapUsed;
	kept.push(parse());
	gc();
	const after = process.memoryUsage().heapUsed;
	kept.length = 0;
	return Math.round(((after - before) / 1024 ** 2) * 100) / 100;
}

const sizeOf = (value: unknown) =>
	Array.isArray(value) ? value.length : typeof value === 'string' ? value.length : 0;

/** Subtitles as editing tools write them: `count` cues of two lines each (42 characters at most), no word timings. */
export function plainSubtitles(count: number, seed = 'subtitles'): Cue[] {
	// about 1,600 two-line cues in 3 hours of the sandbox's speech
	const { words } = longTranscript(Math.ceil(count / 500), seed);
	const cues = wordsToCues(
		words.map((word) => ({ startMs: word.startMs, endMs: word.endMs, text: word.word })),
		{ maxLineChars: 42, maxCueChars: 84, maxLines: 2, maxCueMs: 7000, minCueChars: 60 },
	);
	return cues.filter((cue) => cue.text.includes('\n')).slice(0, count);
}

/** The same subtitles styled as films have them: the first word of every cue in italics. */
export function styledSubtitles(count: number, seed = 'subtitles'): Cue[] {
	return plainSubtitles(count, seed).map((cue) => {
		const space = cue.text.indexOf(' ');
		return {
			...cue,
			runs: [{ text: cue.text.slice(0, space), italic: true }, { text: cue.text.slice(space) }],
		};
	});
}

/** The same cues in each format this package and the others read, written by this package. */
function filesOf(cues: readonly Cue[]) {
	return { vtt: formatVtt(cues), srt: formatSrt(cues), sbv: formatSbv(cues) };
}

/** Each library's parse of a format, as the timed tasks and the peak memory call it. */
const PARSERS: Record<string, Partial<Record<CaptionLibrary, (content: string) => unknown>>> = {
	WebVTT: {
		ours: (content) => readCaptions('vtt', content).cues,
		'webvtt-parser': (content) => new WebVTTParser().parse(content).cues,
		subtitle: (content) => parseSync(content),
		'subsrt-ts': (content) => subsrt.parse(content, { format: 'vtt' }),
	},
	SRT: {
		ours: (content) => readCaptions('srt', content).cues,
		subtitle: (content) => parseSync(content),
		'subsrt-ts': (content) => subsrt.parse(content, { format: 'srt' }),
	},
};

/**
 * Parse and write tasks on one shape: each library's parse and write, with its own structures as write input;
 * ours through the format registry. `shape` names the tasks ("parse WebVTT (subtitles)").
 */
function formatTasks(files: ReturnType<typeof filesOf>, shape: string, withSbv = true): Task[] {
	const { vtt, srt, sbv } = files;
	const named = (name: string) => (shape === '' ? name : `${name} (${shape})`);
	const ours = readCaptions('vtt', vtt);
	const w3cCues = new WebVTTParser().parse(vtt).cues;
	const subtitleVtt = parseSync(vtt);
	const subtitleSrt = parseSync(srt);
	const subsrtVtt = subsrt.parse(vtt, { format: 'vtt' });
	const subsrtSrt = subsrt.parse(srt, { format: 'srt' });
	const subsrtSbv = subsrt.parse(sbv, { format: 'sbv' });
	const write = (to: string) => () => renderCaptions('vtt', to, ours).content;
	const parses = (format: string, content: string): Timed[] =>
		Object.entries(PARSERS[format]).map(([library, parse]) => ({
			library: library as CaptionLibrary,
			run: () => parse!(content),
		}));
	const tasks: Task[] = [
		{ name: named('parse WebVTT'), entries: parses('WebVTT', vtt) },
		{
			name: named('write WebVTT'),
			entries: [
				{ library: 'ours', run: write('vtt') },
				{ library: 'webvtt-parser', run: () => new WebVTTSerializer().serialize(w3cCues) },
				{ library: 'subtitle', run: () => stringifySync(subtitleVtt, { format: 'WebVTT' }) },
				{ library: 'subsrt-ts', run: () => subsrt.build(subsrtVtt, { format: 'vtt' }) },
			],
		},
		{ name: named('parse SRT'), entries: parses('SRT', srt) },
		{
			name: named('write SRT'),
			entries: [
				{ library: 'ours', run: write('srt') },
				{ library: 'subtitle', run: () => stringifySync(subtitleSrt, { format: 'SRT' }) },
				{ library: 'subsrt-ts', run: () => subsrt.build(subsrtSrt, { format: 'srt' }) },
			],
		},
	];
	// SBV has no styles: the styled shape leaves it out
	if (!withSbv) return tasks;
	return [
		...tasks,
		{
			name: named('parse SBV'),
			entries: [
				{ library: 'ours', run: () => readCaptions('sbv', sbv).cues },
				{ library: 'subsrt-ts', run: () => subsrt.parse(sbv, { format: 'sbv' }) },
			],
		},
		{
			name: named('write SBV'),
			entries: [
				{ library: 'ours', run: write('sbv') },
				{ library: 'subsrt-ts', run: () => subsrt.build(subsrtSbv, { format: 'sbv' }) },
			],
		},
	];
}

/** The tasks on one recording, and on plain and styled subtitles when given: every library's, then ours alone. */
function tasksFor(
	vtt: string,
	googleStt: string,
	subtitles?: readonly Cue[],
	styled?: readonly Cue[],
): Task[] {
	const ours = readCaptions('vtt', vtt);
	const google = readCaptions('google_stt', googleStt);
	const netflix = captionProfile('netflixEnglish')!.limits;
	const plain = subtitles && { cues: [...subtitles] };
	return [
		...formatTasks({ vtt, srt: formatSrt(ours.cues), sbv: formatSbv(ours.cues) }, ''),
		...(subtitles ? formatTasks(filesOf(subtitles), 'subtitles') : []),
		...(styled ? formatTasks(filesOf(styled), 'styled subtitles', false) : []),
		{
			name: 'write TTML',
			entries: [{ library: 'ours', run: () => renderCaptions('vtt', 'ttml', ours).content }],
		},
		{
			name: 'read Google STT (word level) to cues',
			entries: [{ library: 'ours', run: () => readCaptions('google_stt', googleStt).cues }],
		},
		{
			name: 'Check (Netflix)',
			entries: [{ library: 'ours', run: () => checkCaptions(ours.cues, netflix) }],
		},
		{
			name: 'Fix WebVTT (Netflix)',
			entries: [{ library: 'ours', run: () => fixCaptions(ours, netflix).cues }],
		},
		{
			name: 'Fix Google STT (Netflix)',
			entries: [{ library: 'ours', run: () => fixCaptions(google, netflix).cues }],
		},
		...(plain
			? [
					{
						name: 'Check (Netflix) (subtitles)',
						entries: [{ library: 'ours' as const, run: () => checkCaptions(plain.cues, netflix) }],
					},
					{
						name: 'Fix (Netflix) (subtitles)',
						entries: [{ library: 'ours' as const, run: () => fixCaptions(plain, netflix).cues }],
					},
				]
			: []),
	];
}

/** Plain subtitles of the length the issue measured (3,129 two-line cues). */
export const SUBTITLE_CUES = 3129;

/** The tasks ours is timed on at every length. */
const SCALED = new Set([
	'parse WebVTT',
	'write SRT',
	'read Google STT (word level) to cues',
	'Check (Netflix)',
	'Fix WebVTT (Netflix)',
	'Fix Google STT (Netflix)',
]);

/** Rounds in which every library runs each task once, in an order that turns each round. */
function timeTasks(
	tasks: Task[],
	rounds: number,
	minSampleMs: number,
	log: (line: string) => void,
	collectFirst = false,
): CaptionTaskRun[] {
	const runs = new Map<string, CaptionTaskRun>();
	for (const task of tasks) {
		for (const entry of task.entries) {
			const size = sizeOf(entry.run()); // warm-up, and what it read or wrote
			entry.run();
			runs.set(`${task.name}|${entry.library}`, {
				task: task.name,
				library: entry.library,
				ms: [],
				size,
			});
		}
	}
	for (let round = 0; round < rounds; round++) {
		for (const task of tasks) {
			const order = task.entries.map((_, i) => task.entries[(i + round) % task.entries.length]);
			for (const entry of order) {
				// a full collection first: a sample does not pay for the garbage of the one before
				if (collectFirst) gc();
				runs.get(`${task.name}|${entry.library}`)!.ms.push(timeCall(entry.run, minSampleMs));
			}
		}
		log(`captions round ${round + 1}/${rounds}`);
	}
	return [...runs.values()];
}

export function measureCaptions(
	settings: CaptionBenchSettings,
	log: (line: string) => void,
): CaptionBench {
	const base = longTranscript(settings.hours, 'bench');
	const subtitles = plainSubtitles(SUBTITLE_CUES);
	const styled = styledSubtitles(SUBTITLE_CUES);
	const tasks = tasksFor(base.vtt, base.googleStt, subtitles, styled);
	log(
		`captions: ${settings.hours} h recording, ${parseVtt(base.vtt).length} cues, ${base.words.length} words; ${subtitles.length} two-line subtitles, plain and styled`,
	);
	const timed = timeTasks(tasks, settings.rounds, settings.minSampleMs, log);
	const memory: CaptionMemory[] = tasks
		.filter((task) => task.name.startsWith('parse') || task.name.startsWith('read'))
		.flatMap((task) =>
			task.entries.map((entry) => ({
				task: task.name,
				library: entry.library,
				retainedMB: retainedMB(entry.run),
			})),
		);
	// one length at a time, alone in the heap with the 1x recording: a longer one is not charged for collecting
	// the others' data (all kept alive at once, the 16x recording made every call slower, however long)
	const scaling: CaptionScalingRun[] = [];
	for (const factor of settings.factors) {
		const recording = factor === 1 ? base : longTranscript(settings.hours * factor, 'bench');
		const cues = parseVtt(recording.vtt).length;
		const scaled = tasksFor(recording.vtt, recording.googleStt)
			.filter((task) => SCALED.has(task.name))
			.map((task) => ({ ...task, entries: task.entries.filter((e) => e.library === 'ours') }));
		gc();
		const rounds = Math.max(3, Math.ceil(settings.rounds / 2));
		for (const run of timeTasks(scaled, rounds, settings.minSampleMs, () => undefined, true)) {
			scaling.push({ task: run.task, factor, cues, ms: run.ms });
		}
		log(`captions: ${factor}x (${cues} cues) timed`);
	}
	return {
		input: {
			hours: settings.hours,
			durationSeconds: base.durationSeconds,
			words: base.words.length,
			cues: parseVtt(base.vtt).length,
			vttBytes: Buffer.byteLength(base.vtt),
			googleSttBytes: Buffer.byteLength(base.googleStt),
			subtitles: { cues: subtitles.length, vttBytes: Buffer.byteLength(formatVtt(subtitles)) },
		},
		versions: Object.fromEntries(
			['ours', 'subtitle', 'subsrt-ts', 'webvtt-parser'].map((pkg) => [pkg, version(pkg)]),
		),
		tasks: timed,
		memory,
		scaling,
		peaks: measurePeaks(settings, log),
	};
}

// ---- peak memory, each call in a process of its own ------------------------------------------------------------

const PEAK_FILES = join(PROJECT_ROOT, 'bench', 'tmp', 'captions-peak');

/** The calls whose peak memory is measured, by task name: what they read (a file's text) and do with it. */
const PEAK_CALLS: Record<string, Partial<Record<CaptionLibrary, (bytes: Buffer) => unknown>>> = {
	'Convert Google STT to WebVTT': {
		// as Convert does it: bytes decoded, read, written, the written text as bytes for n8n's binary data
		ours: (bytes) => {
			const { text } = decodeCaptionBytes(bytes);
			const document = readCaptions('google_stt', text);
			return Buffer.from(renderCaptions('google_stt', 'vtt', document).content, 'utf8').length;
		},
	},
};
for (const format of Object.keys(PARSERS)) {
	for (const shape of ['subtitles', 'styled subtitles']) {
		PEAK_CALLS[`parse ${format} (${shape})`] = Object.fromEntries(
			Object.entries(PARSERS[format]).map(([library, parse]) => [
				library,
				(bytes: Buffer) => parse!(bytes.toString('utf8')),
			]),
		);
	}
}

/** In the child: the file read, what the process holds then, the call, and the peak it reached. */
function peakChild(task: string, library: CaptionLibrary, file: string): void {
	const bytes = readFileSync(file);
	gc();
	const before = process.memoryUsage().rss;
	PEAK_CALLS[task][library]!(bytes);
	const peak = process.resourceUsage().maxRSS * 1024;
	const mb = (value: number) => Math.round((value / 1024 ** 2) * 10) / 10;
	process.stdout.write(
		`${JSON.stringify({ inputMB: mb(bytes.length), peakRssMB: mb(peak), addedMB: mb(peak - before) })}\n`,
	);
}

/** Each call alone in a fresh process (tsx, as the bench runs), on files written once into bench/tmp. */
function measurePeaks(settings: CaptionBenchSettings, log: (line: string) => void): CaptionPeak[] {
	mkdirSync(PEAK_FILES, { recursive: true });
	const cues = settings.peakCues ?? 200_000;
	const files: Record<string, string> = {};
	for (const [shape, made] of [
		['subtitles', plainSubtitles(cues, 'peak')],
		['styled subtitles', styledSubtitles(cues, 'peak')],
	] as const) {
		for (const [format, write] of [
			['WebVTT', formatVtt],
			['SRT', formatSrt],
		] as const) {
			const file = join(PEAK_FILES, `${format}-${shape.replace(' ', '-')}.txt`);
			writeFileSync(file, write(made));
			files[`parse ${format} (${shape})`] = file;
		}
	}
	const hours = settings.googleSttHours ?? 107;
	const sttFile = join(PEAK_FILES, 'google-stt.json');
	writeFileSync(sttFile, longTranscript(hours, 'bench').googleStt);
	files['Convert Google STT to WebVTT'] = sttFile;
	const peaks: CaptionPeak[] = [];
	for (const [task, calls] of Object.entries(PEAK_CALLS)) {
		for (const library of Object.keys(calls) as CaptionLibrary[]) {
			const out = execFileSync(
				join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'),
				[__filename, '--peak', task, library, files[task]],
				{ cwd: PROJECT_ROOT, maxBuffer: 1024 * 1024 },
			);
			peaks.push({ task, library, ...JSON.parse(out.toString().trim().split('\n').pop()!) });
		}
		log(`captions: peak memory of ${task} measured`);
	}
	return peaks;
}

if (require.main === module && process.argv[2] === '--peak') {
	peakChild(process.argv[3], process.argv[4] as CaptionLibrary, process.argv[5]);
}

// ---- figures ----------------------------------------------------------------------------------------------------

export interface CaptionTaskFigures {
	task: string;
	ms: Partial<Record<CaptionLibrary, Summary>>;
	/** The fastest other library and ours ÷ it (below 1: ours is faster); absent where no other library does it. */
	fastestPeer?: CaptionLibrary;
	/** The median over rounds of ours ÷ that library in the same round: a shared machine slows both alike. */
	oursOverFastestPeer?: number;
	/** The least and the most of those ratios over the rounds. */
	ratioRange?: [number, number];
}

export interface CaptionFigures {
	tasks: CaptionTaskFigures[];
	memory: CaptionMemory[];
	/**
	 * Per task: ms at each length; (time at the longest ÷ time at the shortest) ÷ their length ratio, 1 when linear
	 * and 16 when quadratic from 1x to 16x; and the same between the two longest (4x to 16x), past the CPU caches.
	 */
	scaling: Array<{
		task: string;
		ms: Record<string, number>;
		growthOverLinear?: number;
		lastGrowthOverLinear?: number;
	}>;
}

export function captionFigures(bench: CaptionBench): CaptionFigures {
	const names = [...new Set(bench.tasks.map((run) => run.task))];
	const tasks = names.map((task): CaptionTaskFigures => {
		const ms: CaptionTaskFigures['ms'] = {};
		for (const run of bench.tasks.filter((r) => r.task === task))
			ms[run.library] = roundSummary(summarize(run.ms), 3);
		const peers = Object.entries(ms).filter(([library]) => library !== 'ours') as Array<
			[CaptionLibrary, Summary]
		>;
		if (peers.length === 0 || !ms.ours) return { task, ms };
		const [fastestPeer] = peers.sort((a, b) => a[1].median - b[1].median)[0];
		const runOf = (library: CaptionLibrary) =>
			bench.tasks.find((run) => run.task === task && run.library === library)!.ms;
		const peerMs = runOf(fastestPeer);
		const ratios = summarize(runOf('ours').map((value, at) => value / peerMs[at]));
		return {
			task,
			ms,
			fastestPeer,
			oursOverFastestPeer: round(ratios.median, 3),
			ratioRange: [round(ratios.min, 3), round(ratios.max, 3)],
		};
	});
	const scaledNames = [...new Set(bench.scaling.map((run) => run.task))];
	const scaling = scaledNames.map((task) => {
		const runs = bench.scaling
			.filter((run) => run.task === task)
			.sort((a, b) => a.factor - b.factor);
		const median = (run: CaptionScalingRun) => summarize(run.ms).median;
		const ms = Object.fromEntries(
			runs.map((run) => [`${run.factor}x`, Math.round(median(run) * 100) / 100]),
		);
		const growth = (from: CaptionScalingRun | undefined, to: CaptionScalingRun | undefined) =>
			from && to && to.factor > from.factor
				? Math.round((median(to) / median(from) / (to.factor / from.factor)) * 100) / 100
				: undefined;
		return {
			task,
			ms,
			growthOverLinear: growth(runs[0], runs[runs.length - 1]),
			lastGrowthOverLinear: growth(runs[runs.length - 2], runs[runs.length - 1]),
		};
	});
	return { tasks, memory: bench.memory, scaling };
}
