// The options of reading and writing captions, stated once: the schema below is the type (z.infer), the check of
// what comes from outside (strict: an option this package does not know is an error, not dropped), and, with the
// fields after it, what Convert's editor shows (actions/captionFile/convert.operation.ts builds its properties
// from them: name, bounds, defaults, units).
import { z } from 'zod';

const count = z.number().int().nonnegative();

export const captionOptionsSchema = z
	.object({
		/** Longest time a cue built from words stays on screen. */
		maxCueMs: z.number().int().min(1000).optional(),
		/** Most characters in one cue (both lines). */
		maxCueChars: z.number().int().min(10).optional(),
		/** Most characters per line. */
		maxLineChars: z.number().int().min(10).optional(),
		/** Most lines per cue; two unless set. */
		maxLines: z.number().int().positive().optional(),
		/** Most words per cue. */
		maxCueWords: z.number().int().positive().optional(),
		/** A silence at least this long between words starts a new cue. */
		maxGapMs: count.optional(),
		/** A sentence end only closes a cue that already holds at least this many characters. */
		minCueChars: count.optional(),
		/** A silence at least this long between cues starts a new paragraph of plain text. */
		paragraphGapMs: count.optional(),
		/** Text after `WEBVTT` on the first line of WebVTT output. */
		header: z.string().optional(),
		/** Prefix cues with the speaker name in formats without voice markup (SRT, SBV, TTML). */
		includeVoice: z.boolean().optional(),
		/** Transcript chunks: at most this long, in minutes. */
		chunkMinutes: z.number().min(0.1).optional(),
		/** Transcript chunks: at most about this many tokens (about 4 characters each). */
		chunkTokens: z.number().int().min(50).optional(),
		/** `xml:lang` of TTML output when the captions do not name their language. */
		language: z.string().optional(),
	})
	.strict();

export type CaptionOptions = z.infer<typeof captionOptionsSchema>;
export type CaptionOptionName = keyof CaptionOptions;

/** How Convert's editor shows an option; bounds and type come from the schema. Free of n8n. */
export interface OptionField {
	/** The editor's parameter name (it differs where the editor counts seconds: maxCueSeconds). */
	name: string;
	displayName: string;
	description?: string;
	hint?: string;
	placeholder?: string;
	/** The option's value is the editor's times this (seconds to milliseconds: 1000). */
	scale?: number;
	default: number | string | boolean;
}

/** The longest a cue built from words stays up unless Max Cue Duration is set. */
export const DEFAULT_MAX_CUE_MS = 6000;
export const DEFAULT_MAX_LINE_CHARS = 42;
export const DEFAULT_MAX_CUE_CHARS = 84;
export const DEFAULT_CHUNK_MINUTES = 5;
export const DEFAULT_CHUNK_TOKENS = 1000;

/** The options Convert's editor offers, in the order it shows them; the rest are for callers of the library. */
export const CONVERT_OPTION_FIELDS = {
	includeVoice: {
		name: 'includeVoice',
		displayName: 'Include Speaker Names',
		default: false,
		description:
			'Whether to start a cue with its speaker ("Anna: …") in formats without speaker markup (SRT, SBV, TTML)',
	},
	language: {
		name: 'language',
		displayName: 'Language',
		default: '',
		placeholder: 'e.g. en-GB',
		description:
			'The language of TTML output (xml:lang) when the captions do not name it; "und" (undetermined) if empty',
	},
	maxCueChars: {
		name: 'maxCueChars',
		displayName: 'Max Characters per Cue',
		default: DEFAULT_MAX_CUE_CHARS,
		description: 'When cues are built from words (Google Speech-to-Text input)',
	},
	maxLineChars: {
		name: 'maxLineChars',
		displayName: 'Max Characters per Line',
		default: DEFAULT_MAX_LINE_CHARS,
		description: 'Lines longer than this are wrapped, two lines per cue at most',
	},
	maxCueMs: {
		name: 'maxCueSeconds',
		displayName: 'Max Cue Duration (Seconds)',
		scale: 1000,
		default: DEFAULT_MAX_CUE_MS / 1000,
		description: 'When cues are built from words (Google Speech-to-Text input)',
	},
	chunkMinutes: {
		name: 'chunkMinutes',
		displayName: 'Minutes per Chunk',
		default: DEFAULT_CHUNK_MINUTES,
	},
	chunkTokens: {
		name: 'chunkTokens',
		displayName: 'Tokens per Chunk',
		default: DEFAULT_CHUNK_TOKENS,
		hint: 'Estimated as characters ÷ 4, which fits English text and most models; other languages use more tokens',
	},
} as const satisfies { [K in CaptionOptionName]?: OptionField };

export type EditorOptionName = keyof typeof CONVERT_OPTION_FIELDS;

/** What the editor needs of an option's schema: its type, least value and whether it is whole. */
export function optionBounds(name: CaptionOptionName): {
	type: 'number' | 'string' | 'boolean';
	minValue?: number;
	integer?: boolean;
} {
	const schema = captionOptionsSchema.shape[name].unwrap();
	if (schema instanceof z.ZodNumber) {
		return { type: 'number', minValue: schema.minValue ?? undefined, integer: schema.isInt };
	}
	return { type: schema instanceof z.ZodBoolean ? 'boolean' : 'string' };
}
