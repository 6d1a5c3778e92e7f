/** Thrown for caption content or conversion requests that cannot be handled; `line` is 1-based when known. */
export class CaptionFormatError extends Error {
	readonly line?: number;

	constructor(message: string, options: { line?: number; cause?: unknown } = {}) {
		const { line, cause } = options;
		super(line === undefined ? message : `Line ${line}: ${message}`, { cause });
		this.name = 'CaptionFormatError';
		this.line = line;
	}
}
