/**
 * Thrown for caption content or conversion requests that cannot be handled; `line` is 1-based when known, `item`
 * the 0-based index of the input item that holds the problem (captions from items).
 */
export class CaptionFormatError extends Error {
	readonly line?: number;
	readonly item?: number;

	constructor(message: string, options: { line?: number; item?: number; cause?: unknown } = {}) {
		const { line, item, cause } = options;
		const where =
			item !== undefined ? `Item ${item + 1}: ` : line !== undefined ? `Line ${line}: ` : '';
		super(`${where}${message}`, { cause });
		this.name = 'CaptionFormatError';
		this.line = line;
		this.item = item;
	}
}
