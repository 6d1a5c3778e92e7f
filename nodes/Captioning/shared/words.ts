// Messages that quote the service's own words (an error's detail, an OAuth error_description): the words end a
// sentence of ours, which ends with one full stop whatever the words end with.

/** `text` as a sentence: a full stop added unless it already ends with one, or with "!", "?" or "…". */
export function sentence(text: string): string {
	const trimmed = text.trimEnd();
	return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** `lead`, then the service's `words` after a colon when there are any, as one sentence. */
export function withServiceWords(lead: string, words: string | undefined): string {
	const said = words?.trim();
	return sentence(said ? `${lead}: ${said}` : lead);
}
