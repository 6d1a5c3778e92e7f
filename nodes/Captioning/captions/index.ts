export { CaptionFormatError } from './errors';
export type { Cue, Word } from './types';
export {
	formatSrtTimestamp,
	formatVttTimestamp,
	msToSeconds,
	parseGoogleDuration,
	parseSrtTimestamp,
	parseVttTimestamp,
} from './time';
export { displayWidth, fitsCue, joinText, tokenize, wrapTokens } from './layout';
export { decodeEntities, formatVtt, parseVtt, sanitizeCueSettings } from './vtt';
export { formatSrt, parseSrt } from './srt';
export { DEFAULT_CUE_LAYOUT, DEFAULT_MAX_CUE_MS, wordsToCues } from './words';
export { googleSttSchema, googleSttToCues, parseGoogleStt } from './googleStt';
export { cuesToSegments, cuesToText } from './text';
export { convertCaptions, transcriptFromCaptions } from './convert';
