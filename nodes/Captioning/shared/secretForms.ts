// The forms a secret takes where a server may echo it: as sent, URL- and form-encoded, escaped in JSON, in base64
// (also inside a longer base64 value, such as an echoed Basic Authorization header) and in hex. The redaction
// (shared/redact.ts) replaces each of them, so that no echo gives a secret back in another spelling.

/** Shorter values are not redacted: they would cut ordinary words apart (the fields' own minimums are longer). */
export const MIN_SECRET_LENGTH = 4;
/** Encoded forms of shorter values are short enough to occur by chance in other encoded text. */
const MIN_ENCODED_LENGTH = 8;

const urlSafe = (base64: string) => base64.replace(/\+/g, '-').replace(/\//g, '_');

/**
 * The base64 of `bytes` at each of the three offsets a longer value may start them at: only the characters the
 * bytes alone decide (the first and last may mix with the bytes around them), and the whole encoding, padded or not.
 */
function base64Forms(bytes: Buffer): string[] {
	const whole = bytes.toString('base64');
	const forms = [whole, whole.replace(/=+$/, '')];
	for (let offset = 0; offset < 3; offset++) {
		const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
		const start = Math.ceil((offset * 8) / 6);
		const end = Math.floor((padded.length * 8) / 6);
		forms.push(padded.toString('base64').slice(start, end));
	}
	return forms.flatMap((form) => [form, urlSafe(form)]);
}

/** Percent escapes in lower case, as some servers write them (`%2f` for `%2F`). */
const lowerEscapes = (text: string) =>
	text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());

/**
 * The forms `secret` takes as a whole value or as a URL parameter's value: as sent, URL- and form-encoded. A secret
 * too short to be told from ordinary words (a legacy Secret Token of a few characters) is looked for only as these,
 * and only where it stands alone (trigger/token.ts).
 */
export function wholeValueForms(secret: string): string[] {
	if (secret === '') return [];
	const uri = encodeURIComponent(secret);
	const form = new URLSearchParams({ s: secret }).toString().slice(2);
	return [...new Set([secret, uri, lowerEscapes(uri), form, lowerEscapes(form)])];
}

/** Every form of `secret` to replace, longest first; none for a value shorter than MIN_SECRET_LENGTH. */
export function secretForms(secret: string): string[] {
	if (secret.length < MIN_SECRET_LENGTH) return [];
	const forms = [...wholeValueForms(secret), JSON.stringify(secret).slice(1, -1)];
	if (secret.length >= MIN_ENCODED_LENGTH) {
		const bytes = Buffer.from(secret, 'utf8');
		const hex = bytes.toString('hex');
		forms.push(...base64Forms(bytes), hex, hex.toUpperCase());
	}
	return [...new Set(forms)].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

/** The forms of all `secrets` (absent and short values skipped), longest first. */
export function formsOfSecrets(secrets: Iterable<string | undefined | null>): string[] {
	const forms = new Set<string>();
	for (const secret of secrets) {
		if (typeof secret === 'string') for (const form of secretForms(secret)) forms.add(form);
	}
	return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with every form replaced by `[redacted]`, longest first (a form inside a longer one goes with it). */
export function replaceForms(text: string, forms: readonly string[]): string {
	let result = text;
	for (const form of forms) {
		if (result.includes(form)) result = result.split(form).join('[redacted]');
	}
	return result;
}
