// Bugs a person could plausibly write in the readers, each as a text replacement: the property suite must fail on
// every one (issue 39). run.ts applies them one at a time in a temporary copy of the checkout, never here. The
// first 17 are the issue's own; 18-23 are the six the "why" names without spelling them out; 24-29 are
// this wave's.

export interface Sabotage {
	id: number;
	what: string;
	file: string;
	/** Each `find` must occur exactly once in the file. */
	edits: Array<{ find: string; replace: string }>;
}

const edit = (find: string, replace: string) => ({ find, replace });

const SCHEMAS = 'nodes/Captioning/shared/schemas.ts';
const ENDPOINTS = 'nodes/Captioning/transport/webhookEndpoints.ts';
const EVENT = 'nodes/Captioning/trigger/event.ts';

export const SABOTAGES: Sabotage[] = [
	{
		id: 1,
		what: 'a numeric id read through `| 0` (2^31 and more wrap around)',
		file: SCHEMAS,
		edits: [edit('		? String(value)\n		: undefined;\n}', '		? String(value | 0)\n		: undefined;\n}')],
	},
	{
		id: 2,
		what: 'a numeric-string id read through Number ("007" becomes "7")',
		file: SCHEMAS,
		edits: [
			edit(
				"if (typeof value === 'string') return value.length > 0 ? value : undefined;",
				"if (typeof value === 'string')\n\t\treturn value.length > 0 ? (/^\\d+$/.test(value) ? String(Number(value)) : value) : undefined;",
			),
		],
	},
	{
		id: 3,
		what: "Create's callback_uri always the one sent, the service's echo ignored",
		file: ENDPOINTS,
		edits: [
			edit(
				'callback_uri: described?.endpoint.callback_uri ?? sent.callbackUri,',
				'callback_uri: sent.callbackUri,',
			),
		],
	},
	{
		id: 4,
		what: "created_at taken from data instead of the event's attributes",
		file: EVENT,
		edits: [
			edit(
				"createdAt: asItIs(memberOf(memberOf(data, 'attributes'), 'created_at')),",
				"createdAt: asItIs(memberOf(data, 'created_at')),",
			),
		],
	},
	{
		id: 5,
		what: 'the media URL from the wrong member',
		file: EVENT,
		edits: [edit("mediaUrl: asItIs(memberOf(read.media, 'url')),", 'mediaUrl: asItIs(read.url),')],
	},
	{
		id: 6,
		what: 'enabled_events losing its last element',
		file: ENDPOINTS,
		edits: [
			edit(
				"		? events.filter((e): e is string => typeof e === 'string')",
				"		? events.slice(0, -1).filter((e): e is string => typeof e === 'string')",
			),
		],
	},
	{
		id: 7,
		what: 'X-RateLimit-Reset in seconds from now read as an epoch',
		file: SCHEMAS,
		edits: [edit('	return now + reset * 1000;', '	return reset * 1000;')],
	},
	{
		id: 8,
		what: "the Link header's rel ignored (its first link taken)",
		file: ENDPOINTS,
		edits: [
			edit(
				"	return readLinks(link).find(({ params }) =>\n		(params.get('rel') ?? '').toLowerCase().split(/\\s+/).includes('next'),\n	)?.target;",
				'	return readLinks(link)[0]?.target;',
			),
		],
	},
	{
		id: 9,
		what: 'dedupe keyed by the transcription instead of the event',
		file: 'nodes/Captioning/trigger/pipeline.ts',
		edits: [
			edit(
				'	return claim(head.event.id, dedupe, clock, start);',
				'	const key = String(flattenEvent(body.body, head.event).transcriptionId);\n	return claim(key, dedupe, clock, start);',
			),
		],
	},
	{
		id: 10,
		what: 'the renewal margin 1000× too small',
		file: 'nodes/Captioning/tokens/renewal.ts',
		edits: [
			edit('	return RENEW_BEFORE_EXPIRY_MS * (0.5', '	return (RENEW_BEFORE_EXPIRY_MS / 1000) * (0.5'),
		],
	},
	{
		id: 11,
		what: 'an event without a subject id read with transcriptionId null',
		file: EVENT,
		edits: [edit('	const id = readId(only[0].resource.id);', '	const id = undefined;')],
	},
	{
		id: 12,
		what: 'the list dropping a good endpoint when another item on its page cannot be read',
		file: ENDPOINTS,
		edits: [
			edit(
				'	const page: EndpointPage = { endpoints, unreadable: items.length - endpoints.length };',
				'	const unreadable = items.length - endpoints.length;\n	const page: EndpointPage = { endpoints: unreadable ? endpoints.slice(1) : endpoints, unreadable };',
			),
		],
	},
	{
		id: 13,
		what: "only the first JSON:API error's words kept",
		file: SCHEMAS,
		edits: [
			edit(
				"	return words.length ? words.join('; ') : undefined;",
				'	return words.length ? words[0] : undefined;',
			),
		],
	},
	{
		id: 14,
		what: 'an hour prefix cached by minute (of the hour)',
		file: 'nodes/Captioning/captions/time.ts',
		edits: [
			edit('	if (lastMinute[slot] !== minutes) {', '	if (lastMinute[slot] !== minutes % 60) {'),
			edit('		lastMinute[slot] = minutes;', '		lastMinute[slot] = minutes % 60;'),
		],
	},
	{
		id: 15,
		what: 'a short SRT fraction read as a decimal fraction of a second (",5" as 500 ms, not 5 ms)',
		file: 'nodes/Captioning/captions/time.ts',
		edits: [
			edit(
				"	return toMs(match[1], match[2], match[3], match[4] ?? '0');",
				"	return toMs(match[1], match[2], match[3], (match[4] ?? '').padEnd(3, '0'));",
			),
		],
	},
	{
		id: 16,
		what: 'SRT given the WebVTT MIME type',
		file: 'nodes/Captioning/captions/srt.ts',
		edits: [edit("	mimeType: 'application/x-subrip',", "	mimeType: 'text/vtt',")],
	},
	{
		id: 17,
		what: 'compareStored taking a token of another value as kept',
		file: 'nodes/Captioning/trigger/callback.ts',
		edits: [
			edit(
				"	if (sameQuery(a.query, b.query)) return 'kept';",
				"	const but = (m: Meaning) => m.query.filter(([n]) => n !== TOKEN_PARAMETER);\n	if (sameQuery(but(a), but(b)) && b.query.some(([n, v]) => n === TOKEN_PARAMETER && v !== '')) return 'kept';",
			),
		],
	},
	{
		id: 18,
		what: 'Retry-After as an HTTP date ignored (seconds only)',
		file: SCHEMAS,
		edits: [
			edit(
				'	return Number.isNaN(date) ? undefined : Math.max(0, date - now);',
				'	return Number.isNaN(date) ? undefined : undefined;',
			),
		],
	},
	{
		id: 19,
		what: 'X-RateLimit-Reset in milliseconds read as epoch seconds',
		file: SCHEMAS,
		edits: [edit('	if (reset >= EPOCH_MS_FROM) return reset;\n', '')],
	},
	{
		id: 20,
		what: 'a Link header given on several lines: only its first line read',
		file: ENDPOINTS,
		edits: [
			edit(
				"nextFromLinkHeader(headerValues(response.headers, 'link').join(', '))",
				"nextFromLinkHeader(headerValues(response.headers, 'link')[0])",
			),
		],
	},
	{
		id: 21,
		what: 'the subject given twice in included: the last copy read, unsaid',
		file: EVENT,
		edits: [
			edit(
				'	const first = (list: Included, said: string) => ({\n		...list[0],\n		id: refId,\n		warnings: list.length > 1',
				'	const first = (list: Included, said: string) => ({\n		...list[list.length - 1],\n		id: refId,\n		warnings: list.length > 99',
			),
		],
	},
	{
		id: 22,
		what: 'two files of one format: the last one silently in files',
		file: EVENT,
		edits: [
			edit(
				'		if (Object.hasOwn(files, format)) {',
				'		if (Object.hasOwn(files, format) && format === "") {',
			),
		],
	},
	{
		id: 23,
		what: 'integer ids taken only up to 15 digits',
		file: SCHEMAS,
		edits: [
			edit(
				"	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0",
				"	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value < 1e15",
			),
		],
	},
	{
		id: 24,
		what: 'files downloaded with Raw Body on named after the raw body (captions.vtt)',
		file: 'nodes/Captioning/trigger/pipeline.ts',
		edits: [edit('			flat.title,\n', '			undefined,\n')],
	},
	{
		id: 25,
		what: 'a duration sent as a decimal string read with parseInt ("12.5" becomes 12)',
		file: EVENT,
		edits: [
			edit(
				'	const number = Number(value);\n	return Number.isFinite(number) ? number : undefined;',
				'	const number = parseInt(value, 10);\n	return Number.isFinite(number) ? number : undefined;',
			),
		],
	},
	{
		id: 26,
		what: "Get's output with the callback token left in",
		file: 'nodes/Captioning/actions/webhookEndpoint/get.operation.ts',
		edits: [
			edit(
				'	return redactEndpoint(endpoint);',
				'	return { ...redactEndpoint(endpoint), callback_uri: endpoint.callback_uri };',
			),
		],
	},
	{
		id: 27,
		what: "a Location header's id left percent-encoded",
		file: ENDPOINTS,
		edits: [edit('		return decodeURIComponent(segment);', '		return segment;')],
	},
	{
		id: 28,
		what: "the subject matched by id alone (a media resource under the transcription's id taken)",
		file: EVENT,
		edits: [
			edit(
				'	const sameType = byId.filter(({ resource }) => sameResourceType(resource.type, type));',
				"	const sameType = byId.filter(({ resource }) => sameResourceType(resource.type, type) || type !== '');",
			),
		],
	},
	{
		id: 29,
		what: 'an asctime Retry-After read in the zone n8n runs in (it names no zone: GMT)',
		file: SCHEMAS,
		edits: [
			edit(
				'	const date = Date.parse(ASCTIME.test(value) ? `${value.trim()} GMT` : value);',
				'	const date = Date.parse(ASCTIME.test(value) ? value.trim() : value);',
			),
		],
	},
];
