// Captions back from items: one item per cue, as Convert's Segments JSON writes them (start and end in seconds, or
// startTime and endTime as hh:mm:ss.ttt; text; voice and styledText when the cue has them), so a workflow can
// translate or edit the text with any node and write a caption file again with the timing kept. Each item is checked
// against one schema; what cannot be read is an error that names the item and the field, in words.
import { z } from 'zod';

import { CaptionFormatError } from './errors';
import { tokenize, wrapTokens } from './layout';
import { carryStyles, cleanVoice } from './styling';
import { parseVttTimestamp } from './time';
import type { CaptionWarning, Cue, CueLayoutOptions } from './types';
import { parseCueText } from './vttCueText';
import { excerpt, Warnings } from './warnings';

const seconds = z.union([
	z.number().finite().nonnegative(),
	z.string().regex(/^\s*\d+(?:\.\d+)?\s*$/, 'expected a number of seconds such as 1.5'),
]);

/** One cue as an item holds it; fields not listed (an id, the translation's source) pass through. */
export const cueItemSchema = z
	.object({
		/** Seconds, as Segments JSON writes them; a number or a numeric string. */
		start: seconds.optional(),
		end: seconds.optional(),
		/** hh:mm:ss.ttt (or mm:ss.ttt, or with a comma), when `start` and `end` are not given. */
		startTime: z.string().optional(),
		endTime: z.string().optional(),
		voice: z.string().nullish(),
		/** The same as `voice`, as other nodes name it. */
		speaker: z.string().nullish(),
		/** The text with its styles and speakers as WebVTT cue text (<i>, <b>, <u>, <v Name>). */
		styledText: z.string().nullish(),
	})
	.passthrough();

export type CueItem = z.infer<typeof cueItemSchema>;

export interface CuesFromItemsOptions {
	/** The field that holds each cue's text; `text` unless set (a translation may land in another). */
	textField?: string;
	/** Lines laid out again to these limits (a translation is rarely as long as its source); as given when absent. */
	layout?: Pick<CueLayoutOptions, 'maxLineChars' | 'maxLines'>;
}

export interface CuesFromItems {
	cues: Cue[];
	warnings: CaptionWarning[];
}

const SHAPE =
	'Each item needs start and end in seconds (or startTime and endTime as hh:mm:ss.ttt) and its text, as Convert writes Segments JSON.';

/** A time of an item in milliseconds: `start` (seconds) first, else `startTime` (a clock time). */
function timeOf(item: CueItem, index: number, which: 'start' | 'end'): number {
	const value = item[which];
	if (value !== undefined) return Math.round(Number(value) * 1000);
	const clock = item[which === 'start' ? 'startTime' : 'endTime'];
	if (clock === undefined) {
		throw new CaptionFormatError(`it has neither "${which}" nor "${which}Time". ${SHAPE}`, {
			item: index,
		});
	}
	const ms = parseVttTimestamp(clock.replace(',', '.'));
	if (ms === undefined) {
		throw new CaptionFormatError(
			`"${which}Time" is ${JSON.stringify(excerpt(clock))}, not a time such as "00:01:02.500". ${SHAPE}`,
			{ item: index },
		);
	}
	return ms;
}

/** The first problem zod found in an item, in words: the field and what it expected. */
function notACue(issue: z.ZodIssue, index: number): never {
	const field = issue.path.join('.');
	throw new CaptionFormatError(
		field === ''
			? `it is not an object with the fields of a cue (${issue.message}). ${SHAPE}`
			: `"${field}" ${issue.message.charAt(0).toLowerCase()}${issue.message.slice(1)}. ${SHAPE}`,
		{ item: index },
	);
}

/** The cue's text with its styles: from `styledText` when it says the same as the text, else the text as it is. */
function textOf(
	item: CueItem,
	text: string,
	index: number,
	warnings: Warnings,
): Pick<Cue, 'text' | 'runs' | 'voice'> {
	const styled = item.styledText;
	if (styled === undefined || styled === null || styled === '') return { text };
	const parsed = parseCueText(styled);
	const words = (value: string) => value.replace(/\s+/g, ' ').trim();
	if (words(parsed.text) === words(text)) {
		return { text: parsed.text, runs: parsed.runs, voice: parsed.voice };
	}
	warnings.add({
		cue: index + 1,
		text: excerpt(text),
		message: `Item ${index + 1}: its styledText says something else than its text (the text was changed, e.g. translated, and styledText not): the text is taken, without its styles and speakers. Translate styledText instead, or remove it.`,
	});
	return { text };
}

/** Lines laid out again within the limits, styles carried over. */
function laidOut(cue: Cue, layout: NonNullable<CuesFromItemsOptions['layout']>): Cue {
	const lines = wrapTokens(tokenize(cue.text), layout.maxLineChars ?? Infinity, layout.maxLines);
	const text = lines.join('\n');
	if (text === cue.text) return cue;
	return cue.runs ? carryStyles([cue], [{ ...cue, text }])[0] : { ...cue, text };
}

/**
 * The cues of items, one per item, in the order given (writers put them in time order and say so): the times kept
 * to the millisecond, the text from `textField`, the speaker from `voice` (or `speaker`), styles and the speakers of a
 * shared cue from `styledText` when it says the same as the text. Throws `CaptionFormatError` with `item` (0-based)
 * for an item that is no cue.
 */
export function cuesFromItems(
	items: readonly unknown[],
	options: CuesFromItemsOptions = {},
): CuesFromItems {
	const { textField = 'text', layout } = options;
	const warnings = new Warnings();
	const cues = items.map((raw, index): Cue => {
		const parsed = cueItemSchema.safeParse(raw);
		if (!parsed.success) notACue(parsed.error.issues[0], index);
		const item = parsed.data;
		const text = (item as Record<string, unknown>)[textField];
		if (typeof text !== 'string') {
			throw new CaptionFormatError(
				text === undefined || text === null
					? `it has no "${textField}" field. ${SHAPE}`
					: `"${textField}" is ${typeof text}, not text. ${SHAPE}`,
				{ item: index },
			);
		}
		const said = textOf(item, text, index, warnings);
		const cue: Cue = {
			startMs: timeOf(item, index, 'start'),
			endMs: timeOf(item, index, 'end'),
			text: said.text,
		};
		if (said.runs) cue.runs = said.runs;
		// the speakers of a shared cue are on its runs; one speaker is the cue's, from styledText or the field
		const voice = said.voice ?? cleanVoice(item.voice ?? item.speaker ?? undefined);
		if (voice !== undefined && !said.runs?.some((run) => run.voice !== undefined)) {
			cue.voice = voice;
		}
		return layout ? laidOut(cue, layout) : cue;
	});
	return { cues, warnings: warnings.list() };
}
