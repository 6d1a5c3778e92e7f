// webvtt-parser ships without type declarations; only the parts the tests and the benchmark use.
declare module 'webvtt-parser' {
	export interface WebVTTParsedCue {
		id: string;
		startTime: number;
		endTime: number;
		text: string;
	}

	export interface WebVTTParseError {
		message: string;
		line: number;
		col?: number;
	}

	export class WebVTTParser {
		constructor(entities?: Record<string, string>);
		parse(
			input: string,
			mode?: 'metadata' | 'chapters',
		): { cues: WebVTTParsedCue[]; errors: WebVTTParseError[]; styles: string[] };
	}

	export class WebVTTSerializer {
		serialize(cues: WebVTTParsedCue[], styles?: string[]): string;
	}
}
