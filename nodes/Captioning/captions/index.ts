export { CaptionFormatError } from './errors';
export { capWarnings, MAX_WARNINGS, Warnings } from './warnings';
export type {
	CaptionDocument,
	CaptionFormat,
	CaptionOptions,
	CaptionRegion,
	CaptionWarning,
	Cue,
	CueSettings,
	Segment,
	TextRun,
	TextStyle,
	Word,
} from './types';
export { type CaptionEncoding, decodeCaptionBytes, type DecodedCaptions } from './decode';
export {
	CONVERT_OPTION_FIELDS,
	captionOptionsSchema,
	DEFAULT_CHUNK_MINUTES,
	DEFAULT_CHUNK_TOKENS,
	DEFAULT_MAX_CUE_MS,
	type EditorOptionName,
	optionBounds,
	type OptionField,
} from './options';
export {
	formatSbvTimestamp,
	formatSrtTimestamp,
	formatVttTimestamp,
	msToSeconds,
	parseGoogleDuration,
	parseSbvTimestamp,
	parseSrtTimestamp,
	parseVttTimestamp,
} from './time';
export { displayWidth, fitsCue, graphemeCount, joinText, tokenize, wrapTokens } from './layout';
export { carryStyles, toRuns, voicesOf } from './styling';
export {
	formatCueSettings,
	formatVtt,
	parseCueSettings,
	parseRegion,
	parseVtt,
	plainNumber,
	readVtt,
} from './vtt';
export { cueTextToVtt, decodeEntities, parseCueText, runsToVtt } from './vttCueText';
export { formatSrt, parseSrt, readSrt } from './srt';
export { formatSbv, parseSbv, readSbv } from './sbv';
export {
	escapeXml,
	formatTtml,
	IMSC_TEXT_PROFILE,
	TTML_LINE_HEIGHT,
	TTML_NAMESPACES,
} from './ttml';
export { DEFAULT_CUE_LAYOUT, spreadWords, wordsToCues, wordsToJson } from './words';
export { googleSttSchema, googleSttToCues, parseGoogleStt } from './googleStt';
export { cuesToSegments, cuesToText, transcriptPieces } from './text';
export {
	type CueItem,
	cueItemSchema,
	type CuesFromItems,
	cuesFromItems,
	type CuesFromItemsOptions,
} from './items';
export { CHARS_PER_TOKEN, cuesToChunks, estimateTokens, type TranscriptChunk } from './chunks';
export {
	captionData,
	convertCaptions,
	readCaptions,
	readOptions,
	readTranscript,
	type RenderedCaptions,
	renderCaptions,
	transcriptFromCaptions,
	WRITABLE_FILE_FORMATS,
	writeCaptionFile,
} from './convert';
export {
	CAPTION_PROFILES,
	type CaptionLimits,
	type CaptionProfile,
	captionProfile,
	DEFAULT_PROFILE_ID,
	FRAME_RATES,
	frameRateLabel,
	framesToMs,
	msToFrames,
} from './profiles';
export {
	chainingGap,
	CHECK_RULES,
	checkCaptions,
	type CheckReport,
	type CheckRule,
	findViolations,
	frameRateOf,
	gapAllowed,
	gapChainable,
	measureCue,
	minimumGap,
	readingTimeMs,
	type Violation,
	violationExcess,
} from './check';
export { fixCaptions, type FixResult, fixLayout, spokenText, worstPerRule } from './fix';
