export { CaptionFormatError } from './errors';
export type { Cue, CueLayoutOptions, Segment, Word } from './types';
export {
	formatSrtTimestamp,
	formatVttTimestamp,
	msToSeconds,
	parseGoogleDuration,
	parseSrtTimestamp,
	parseVttTimestamp,
} from './time';
export { displayWidth, fitsCue, joinText, tokenize, wrapTokens } from './layout';
export { decodeEntities, formatVtt, parseCueText, parseVtt, sanitizeCueSettings } from './vtt';
export type { VttFormatOptions } from './vtt';
export { formatSrt, parseSrt } from './srt';
export type { SrtFormatOptions } from './srt';
export { DEFAULT_CUE_LAYOUT, DEFAULT_MAX_CUE_MS, wordsToCues } from './words';
export { googleSttSchema, googleSttToCues, parseGoogleStt } from './googleStt';
export type { GoogleSttResponse, GoogleSttResult, GoogleSttTranscript } from './googleStt';
export { cuesToSegments, cuesToText, DEFAULT_PARAGRAPH_GAP_MS } from './text';
export type { TextOptions } from './text';
export { convertCaptions, convertOptionsSchema, transcriptFromCaptions } from './convert';
export type { ConvertedCaptions, ConvertOptions, ConvertRequest, WordJson } from './convert';
