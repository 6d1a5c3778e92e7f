// The forms of a secret an echo may hold, each replaced: the expected forms are written out by hand for one value,
// and every echo below is built the way a server would build it.
import {
	formsOfSecrets,
	replaceForms,
	secretForms,
} from '../../nodes/Captioning/shared/secretForms';

const SECRET = 'cs/very secret+1';

describe('secretForms', () => {
	test('the forms of one value, longest first', () => {
		expect(secretForms(SECRET)).toEqual([
			'63732f76657279207365637265742b31', // hex
			'63732F76657279207365637265742B31',
			'Y3MvdmVyeSBzZWNyZXQrMQ==', // base64
			'cs%2Fvery%20secret%2B1', // encodeURIComponent
			'cs%2fvery%20secret%2b1',
			'Y3MvdmVyeSBzZWNyZXQrMQ', // base64 without padding
			'Y3MvdmVyeSBzZWNyZXQrM', // base64 inside a longer value: at offset 0…
			'jcy92ZXJ5IHNlY3JldCsx', // …2…
			'cs%2Fvery+secret%2B1', // form-encoded
			'cs%2fvery+secret%2b1',
			'NzL3Zlcnkgc2VjcmV0Kz', // …and 1
			'cs/very secret+1',
		]);
	});

	test('a JSON string holds the value escaped', () => {
		expect(secretForms('pa"ss\\word-long')).toContain('pa\\"ss\\\\word-long');
	});

	test('short values have no forms; values under 8 characters only their plain and URL forms', () => {
		expect(secretForms('abc')).toEqual([]);
		expect(secretForms('a b/cd')).toEqual([
			'a%20b%2Fcd',
			'a%20b%2fcd',
			'a+b%2Fcd',
			'a+b%2fcd',
			'a b/cd',
		]);
	});

	test('formsOfSecrets skips what is absent or short and sorts all forms', () => {
		const forms = formsOfSecrets(['abc', undefined, null, 'token-value-1']);
		expect(forms).toContain('token-value-1');
		expect(forms).toContain(Buffer.from('token-value-1').toString('hex'));
		expect(forms.some((f) => f.includes('abc'))).toBe(false);
	});
});

describe('replaceForms: no echo gives the secret back', () => {
	const forms = formsOfSecrets([SECRET]);
	// the secret, or its first 12 characters, in the text as it is or decoded from any run of hex or base64
	const holds = (text: string) => {
		const runs = (pattern: RegExp) => text.match(pattern) ?? [];
		const decoded = [
			text,
			decodeURIComponent(text.replace(/\+/g, ' ')),
			...runs(/[0-9a-f]{8,}/gi).map((run) => Buffer.from(run, 'hex').toString('latin1')),
			...runs(/[A-Za-z0-9+/_-]{8,}={0,2}/g).map((run) =>
				Buffer.from(run, 'base64').toString('latin1'),
			),
		];
		return decoded.some((d) => d.includes(SECRET) || d.includes(SECRET.slice(0, 12)));
	};

	test.each([
		['as sent', `client_secret is ${SECRET}`],
		['in a query', `?client_secret=${encodeURIComponent(SECRET)}&x=1`],
		['form-encoded', `body: ${new URLSearchParams({ client_secret: SECRET }).toString()}`],
		['lower-case escapes', `got ${encodeURIComponent(SECRET).toLowerCase()}`],
		['in JSON', JSON.stringify({ echo: SECRET })],
		['in hex', `sent ${Buffer.from(SECRET).toString('hex')}`],
		['in upper-case hex', `sent ${Buffer.from(SECRET).toString('hex').toUpperCase()}`],
		['in base64', `sent ${Buffer.from(SECRET).toString('base64')}`],
		['in URL-safe base64', `sent ${Buffer.from(SECRET).toString('base64url')}`],
	])('%s', (_label, echo) => {
		expect(holds(echo)).toBe(true);
		const redacted = replaceForms(echo, forms);
		expect(redacted).toContain('[redacted]');
		expect(holds(redacted)).toBe(false);
	});

	test.each([0, 1, 2, 3, 4, 5])(
		'inside a longer base64 value whose secret starts at byte %i (a Basic Authorization header)',
		(offset) => {
			const prefix = 'client-id:'.slice(0, offset);
			const value = Buffer.from(`${prefix}${SECRET}:and more`).toString('base64');
			const echo = `Authorization: Basic ${value}`;
			expect(echo).not.toContain(SECRET); // a secret inside base64 is not seen as it is…
			expect(Buffer.from(value, 'base64').toString()).toContain(SECRET); // …yet it is there
			const redacted = replaceForms(echo, forms);
			expect(redacted).toContain('[redacted]');
			for (const piece of redacted.slice(21).split('[redacted]')) {
				expect(Buffer.from(piece, 'base64').toString('latin1')).not.toContain(SECRET.slice(2, 10));
			}
		},
	);

	test('text without a secret stays as it is', () => {
		expect(replaceForms('The service rejected POST /x (HTTP 422).', forms)).toBe(
			'The service rejected POST /x (HTTP 422).',
		);
	});
});
