export { CaptionFormatError } from './errors';
export type { CaptionDocument, CaptionFormat, CaptionOptions, Cue, Segment, Word } from './types';
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
export { decodeEntities, formatVtt, parseVtt, sanitizeCueSettings } from './vtt';
export { formatSrt, parseSrt } from './srt';
export { formatSbv, parseSbv } from './sbv';
export { escapeXml, formatTtml, IMSC_TEXT_PROFILE, TTML_NAMESPACES } from './ttml';
export {
	DEFAULT_CUE_LAYOUT,
	DEFAULT_MAX_CUE_MS,
	spreadWords,
	wordsToCues,
	wordsToJson,
} from './words';
export { googleSttSchema, googleSttToCues, parseGoogleStt } from './googleStt';
export { cuesToSegments, cuesToText, transcriptPieces } from './text';
export {
	CHARS_PER_TOKEN,
	cuesToChunks,
	DEFAULT_CHUNK_MINUTES,
	estimateTokens,
	type TranscriptChunk,
} from './chunks';
export {
	captionData,
	convertCaptions,
	readCaptions,
	readOptions,
	renderCaptions,
	transcriptFromCaptions,
} from './convert';
export {
	CAPTION_PROFILES,
	type CaptionLimits,
	type CaptionProfile,
	captionProfile,
	DEFAULT_PROFILE_ID,
} from './profiles';
export {
	CHECK_RULES,
	checkCaptions,
	type CheckReport,
	type CheckRule,
	findViolations,
	gapAllowed,
	measureCue,
	readingTimeMs,
	type Violation,
} from './check';
export { fixCaptions, type FixResult, fixLayout, spokenText } from './fix';
