// Ids are kept verbatim (issue 39): a string id is never re-parsed and an integer id never converted, anywhere in
// what ships. This test holds the sources to it: no `| 0` (or any other bitwise coercion), `Number(…)`,
// `parseInt`, `parseFloat`, unary `+` or Math rounding applied to anything named like an id.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SHIPPED = ['nodes', 'credentials'];

/** A name that holds an id: `id`, `ids`, `endpointId`, `eventId`, `refId`, `ID`, … */
const ID_NAME = /(?:^|[^A-Za-z])(?:id|ids|ID)(?![A-Za-z])|[a-z]Ids?(?![a-z])/;

/** Conversions that change an id's text: "007" → 7, 2^31 → negative, 20 digits → rounded. */
const CONVERSIONS: Array<[what: string, pattern: RegExp]> = [
	['Number(…)', /\bNumber\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g],
	['parseInt(…)', /\bparseInt\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g],
	['parseFloat(…)', /\bparseFloat\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g],
	['Math rounding', /\bMath\.(?:floor|round|trunc|ceil)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g],
	['a bitwise coercion', /([\w$.?[\]'"]+)\s*(?:\|\s*0|>>>?\s*0|<<\s*0|&\s*-1)(?![\w.])/g],
	['~~', /~~\s*([\w$.?[\]'"]+)/g],
	['unary +', /(?:^|[=(,:?]\s*|return\s+)\+\s*([\w$.?[\]'"]+)/gm],
];

/** Each conversion of an id in `source`, as `what: the code`. */
function idConversions(source: string): string[] {
	const code = source.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
	return CONVERSIONS.flatMap(([what, pattern]) =>
		[...code.matchAll(pattern)]
			.filter((match) => ID_NAME.test(match[1]))
			.map((match) => `${what}: ${match[0].trim()}`),
	);
}

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sources(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

test('the scan finds every conversion of an id a person might write', () => {
	expect(
		idConversions(
			[
				'const a = endpoint.id | 0;',
				'const b = Number(body.data.id);',
				'const c = parseInt(eventId, 10);',
				'const d = +refId;',
				'const e = ~~ids[0];',
				'const f = Math.floor(String(subject.id));',
				'const g = raw.id >>> 0;',
				'return +id;',
			].join('\n'),
		),
	).toEqual([
		'Number(…): Number(body.data.id)',
		'parseInt(…): parseInt(eventId, 10)',
		'Math rounding: Math.floor(String(subject.id))',
		'a bitwise coercion: endpoint.id | 0',
		'a bitwise coercion: raw.id >>> 0',
		'~~: ~~ids[0]',
		'unary +: = +refId',
		'unary +: return +id',
	]);
	// what is no id stays: widths, counts, hex escapes, sizes
	expect(
		idConversions(
			[
				'const width = Number(options.width) | 0;',
				'const n = parseInt(hex, 16);',
				'const valid = Number(value) // an id here is only a comment',
				'const idle = Number(idleMs);',
				'const width = +value;',
			].join('\n'),
		),
	).toEqual([]);
});

test('what ships converts no id: string ids are never re-parsed, integer ids never rounded', () => {
	const found = SHIPPED.flatMap((dir) =>
		sources(join(ROOT, dir)).flatMap((file) =>
			idConversions(readFileSync(file, 'utf8')).map((c) => `${relative(ROOT, file)}: ${c}`),
		),
	);
	expect(found).toEqual([]);
});
