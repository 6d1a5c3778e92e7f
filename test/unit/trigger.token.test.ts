// The token stage (trigger/token.ts), branch by branch: which token a delivery must carry, its check, its hash,
// and its removal from everything the execution sees.
import {
	checkDelivery,
	checkToken,
	givenToken,
	hashToken,
	MIN_SECRET_LENGTH,
	MISSING_SECRET,
	OPEN_MANUAL_WARNING,
	openDownloadMessage,
	removeSecret,
	sameHash,
	SECRET_REQUIRED_FROM_VERSION,
	secretTokenProblem,
	TOKEN_ROUTE,
	tokenPolicy,
	unusableSecret,
	withoutSecret,
} from '../../nodes/Captioning/trigger/token';
import { sampleEvent, TOKEN } from '../helpers/deliveryEvent';

describe('tokenPolicy', () => {
	test('automatic registration: the registration’s token hash, even when there is none', () => {
		expect(tokenPolicy('api', '', 'hash', 3)).toEqual({ kind: 'token', expectedHash: 'hash' });
		expect(tokenPolicy('api', 'ignored', undefined, 1)).toEqual({
			kind: 'token',
			expectedHash: undefined,
		});
		expect(tokenPolicy(undefined, '', 'hash', 2)).toEqual({ kind: 'token', expectedHash: 'hash' });
	});

	test('manual registration with a Secret Token: its hash, in every version', () => {
		for (const version of [1, 2, 3]) {
			expect(tokenPolicy('manual', 'mine', 'hash', version)).toEqual({
				kind: 'token',
				expectedHash: hashToken('mine'),
			});
		}
	});

	test('manual without one: refused from version 3, open (0.1.0’s default) before', () => {
		expect(SECRET_REQUIRED_FROM_VERSION).toBe(3);
		expect(tokenPolicy('manual', '', 'hash', 3)).toEqual({ kind: 'no-secret' });
		expect(tokenPolicy('manual', undefined, undefined, 4)).toEqual({ kind: 'no-secret' });
		expect(tokenPolicy('manual', '', undefined, 2)).toEqual({ kind: 'open' });
		expect(tokenPolicy('manual', 7, undefined, 1)).toEqual({ kind: 'open' });
	});
});

describe('checkDelivery', () => {
	test('open: passes with no token to remove; no-secret: 401 saying how to set one', () => {
		expect(checkDelivery({ kind: 'open' }, 'anything')).toEqual({ ok: true, token: undefined });
		expect(checkDelivery({ kind: 'no-secret' }, 'anything')).toEqual({
			ok: false,
			rejection: { status: 401, message: MISSING_SECRET },
		});
		expect(MISSING_SECRET).toBe(
			'This trigger has no Secret Token. Create a Captioning Webhook Secret API credential with a long random Secret Token, select it in the trigger, and add ?token= followed by that Secret Token to the URL in the service’s developers dashboard, then publish the workflow again.',
		);
	});

	test('token: checkToken’s answer', () => {
		const hash = hashToken('secret-token');
		expect(checkDelivery({ kind: 'token', expectedHash: hash }, 'secret-token')).toEqual({
			ok: true,
			token: 'secret-token',
		});
		expect(checkDelivery({ kind: 'token', expectedHash: hash }, 'guess')).toMatchObject({
			ok: false,
			rejection: { status: 401 },
		});
	});
});

describe('secretTokenProblem', () => {
	test('usable: at least 24 characters that stay as they are in a URL', () => {
		expect(MIN_SECRET_LENGTH).toBe(24);
		expect(secretTokenProblem('a'.repeat(24))).toBeUndefined();
		expect(secretTokenProblem('Ab9-_.~Ab9-_.~Ab9-_.~Ab9')).toBeUndefined();
		expect(secretTokenProblem('0123456789abcdef'.repeat(3))).toBeUndefined();
	});

	test('empty, too short, or with characters a URL changes: why, never the value', () => {
		expect(secretTokenProblem('')).toBe('The Secret Token is empty.');
		expect(secretTokenProblem('short-but-fine-chars')).toBe(
			'The Secret Token has 20 characters: use at least 24, so that it cannot be guessed.',
		);
		for (const secret of [
			'a+b'.repeat(10),
			'a b'.repeat(10),
			'a&b'.repeat(10),
			'ä'.repeat(30),
			'a/b#c'.repeat(6),
		]) {
			const problem = secretTokenProblem(secret);
			expect(problem).toBe(
				'The Secret Token has characters that change in a URL: use letters, digits, -, _, . and ~ only.',
			);
			expect(problem).not.toContain(secret);
		}
		expect(unusableSecret('The Secret Token is empty.')).toBe(
			'The Secret Token is empty. Give the trigger’s Captioning Webhook Secret API credential another Secret Token, add ?token= followed by it to the URL in the service’s developers dashboard, then publish the workflow again.',
		);
	});
});

describe('givenToken', () => {
	test('the token route reads the path parameter, every other webhook the query', () => {
		expect(TOKEN_ROUTE).toBe('setup');
		expect(givenToken(TOKEN_ROUTE, { token: 'q' }, { token: 'p' })).toBe('p');
		expect(givenToken('default', { token: 'q' }, { token: 'p' })).toBe('q');
		expect(givenToken('default', { token: ['a', 'b'] }, {})).toEqual(['a', 'b']);
	});

	test('nothing to read: undefined, which checkToken refuses', () => {
		expect(givenToken('default', {}, { token: 'p' })).toBeUndefined();
		expect(givenToken(TOKEN_ROUTE, { token: 'q' }, undefined)).toBeUndefined();
		expect(givenToken('default', null, null)).toBeUndefined();
	});
});

describe('the words of an open manual trigger', () => {
	test('the log’s warning and a skipped file say why and what to do', () => {
		expect(OPEN_MANUAL_WARNING).toBe(
			'This trigger has no Secret Token: any request to its URL starts the workflow, and Download Caption Files is skipped. Set a Secret Token in the trigger and add ?token= followed by it to the URL in the service’s developers dashboard.',
		);
		expect(openDownloadMessage('vtt')).toBe(
			'The vtt file was not downloaded: this trigger has no Secret Token, so anyone could have sent this event and named any address to fetch. Set a Secret Token in the trigger and add ?token= followed by it to the URL in the service’s developers dashboard.',
		);
	});
});

describe('checkToken', () => {
	const HASH = hashToken('secret-token');

	test('the hash matches: the verified token, for removing it from the output', () => {
		expect(checkToken(HASH, 'secret-token')).toEqual({ ok: true, token: 'secret-token' });
		expect(checkToken(HASH, ['secret-token', 'x'])).toEqual({ ok: true, token: 'secret-token' });
	});

	test('the hash does not match: 401, whatever the length', () => {
		for (const given of ['secret-tokem', 'short', HASH, `secret-token${'x'.repeat(100)}`]) {
			expect(checkToken(HASH, given)).toEqual({
				ok: false,
				rejection: { status: 401, message: expect.stringMatching(/does not match/) },
			});
		}
		// a stored value that is not a hash of this shape matches nothing (and does not throw)
		expect(checkToken('secret-token', 'secret-token')).toMatchObject({
			ok: false,
			rejection: { status: 401, message: expect.stringMatching(/does not match/) },
		});
	});

	test('a request without a token, or a trigger without a registration, is refused', () => {
		for (const given of [undefined, '', [], { x: 'secret-token' }, 7]) {
			expect(checkToken(HASH, given)).toEqual({
				ok: false,
				rejection: { status: 401, message: expect.stringMatching(/no token/) },
			});
		}
		for (const expected of [undefined, '']) {
			expect(checkToken(expected, 'anything')).toEqual({
				ok: false,
				rejection: {
					status: 401,
					message: expect.stringMatching(
						/no registration.*unpublish and publish the workflow \(n8n 1\.x: deactivate and activate\)/,
					),
				},
			});
		}
	});
});

describe('withoutSecret and removeSecret', () => {
	test.each([
		[
			'the only parameter',
			`https://h/webhook/x/webhook?token=${TOKEN}`,
			'https://h/webhook/x/webhook',
		],
		['the first parameter', `https://h/w?token=${TOKEN}&a=1`, 'https://h/w?a=1'],
		['a middle parameter', `https://h/w?a=1&token=${TOKEN}&b=2`, 'https://h/w?a=1&b=2'],
		['the last parameter', `https://h/w?a=1&token=${TOKEN}`, 'https://h/w?a=1'],
		['before a fragment', `https://h/w?token=${TOKEN}#f`, 'https://h/w#f'],
		['under another name', `https://h/w?t=${TOKEN}`, 'https://h/w'],
		['in text', `the token is ${TOKEN}.`, 'the token is [redacted].'],
		['twice', `${TOKEN}/${TOKEN}`, '[redacted]/[redacted]'],
		['absent', 'https://h/w?a=1', 'https://h/w?a=1'],
		['a question mark elsewhere', `Really? https://h/w?token=${TOKEN}`, 'Really? https://h/w'],
	])('the token as %s', (_name, text, expected) => {
		expect(withoutSecret(text, TOKEN)).toBe(expected);
	});

	test('a token with characters a URI encodes is removed in both forms', () => {
		const secret = 'a b/c, as long as version 3 asks';
		expect(withoutSecret(`https://h/w?token=${encodeURIComponent(secret)}`, secret)).toBe(
			'https://h/w',
		);
		expect(withoutSecret(`said "${secret}"`, secret)).toBe('said "[redacted]"');
	});

	test('every string of a value, at any depth, in arrays too; other values untouched', () => {
		const body = sampleEvent();
		body.included.push({
			id: 'ep',
			type: 'webhook_endpoint',
			attributes: { callback_uri: `https://h/w?token=${TOKEN}`, list: [TOKEN, 1, null] },
		} as never);
		const cleaned = removeSecret(body, TOKEN);
		expect(cleaned).toBe(body);
		expect(JSON.stringify(cleaned)).not.toContain(TOKEN);
		expect(cleaned.data.attributes.uri).toBe('https://n8n.example.com/webhook/abc/webhook');
		expect(
			(cleaned.included[1] as never as { attributes: { list: unknown[] } }).attributes.list,
		).toEqual(['[redacted]', 1, null]);
		expect(cleaned.included[0].attributes.duration).toBe(61.5);
	});

	test('member names too (files keyed by a format that carries the token), never overwriting a member', () => {
		const value = {
			files: { [TOKEN]: 'https://f/a', [`vtt?token=${TOKEN}`]: 'https://f/b', vtt: 'https://f/c' },
			formats: [TOKEN, `vtt?token=${TOKEN}`],
		};
		removeSecret(value, TOKEN);
		expect(JSON.stringify(value)).not.toContain(TOKEN);
		expect(value.files).toEqual({
			'[redacted]': 'https://f/a',
			vtt: 'https://f/c',
			vtt_: 'https://f/b',
		});
		expect(value.formats).toEqual(['[redacted]', 'vtt']);
	});

	test('a short secret (a legacy Secret Token of a few characters) only as a whole value or URL parameter', () => {
		expect(withoutSecret('Board meeting', 'ee')).toBe('Board meeting');
		expect(withoutSecret('ee', 'ee')).toBe('[redacted]');
		expect(withoutSecret('https://h/webhook/x/webhook?token=ee', 'ee')).toBe(
			'https://h/webhook/x/webhook',
		);
		expect(withoutSecret('https://h/webhook/x/webhook?a=1&token=ee#f', 'ee')).toBe(
			'https://h/webhook/x/webhook?a=1#f',
		);
		// the token route: the node's webhook ID twice, then the token
		expect(withoutSecret('https://h/webhook/id-1/id-1/ee', 'ee')).toBe(
			'https://h/webhook/id-1/id-1/[redacted]',
		);
		// a file's signature that happens to be the same value is not the token's parameter
		expect(withoutSecret('https://files.example.com/see.vtt?signature=ee', 'ee')).toBe(
			'https://files.example.com/see.vtt?signature=ee',
		);
		expect(withoutSecret('a b', 'a b')).toBe('[redacted]');
		expect(withoutSecret('https://h/w?token=a%20b', 'a b')).toBe('https://h/w');
		// member names are names of formats and fields, which a short token would match: left as they are
		const value = { files: { vtt: 'https://f/see.vtt' }, formats: ['vtt', 'ee'], ee: 'x' };
		removeSecret(value, 'ee');
		expect(value).toEqual({
			files: { vtt: 'https://f/see.vtt' },
			formats: ['vtt', '[redacted]'],
			ee: 'x',
		});
	});

	test('a long secret in every form a server may echo it in, inside any text', () => {
		const b64 = Buffer.from(TOKEN).toString('base64');
		const hex = Buffer.from(TOKEN).toString('hex');
		expect(withoutSecret(`Basic ${b64} and ${hex}`, TOKEN)).toBe('Basic [redacted] and [redacted]');
	});

	test('deeper than the stack allows', () => {
		let deep: unknown = TOKEN;
		for (let i = 0; i < 100_000; i++) deep = [deep];
		const value = { deep };
		expect(() => removeSecret(value, TOKEN)).not.toThrow();
		let inner: unknown = value.deep;
		while (Array.isArray(inner)) inner = inner[0];
		expect(inner).toBe('[redacted]');
	});

	test('without a secret nothing changes; a string is returned cleaned', () => {
		const body = { uri: `https://h/w?token=${TOKEN}` };
		expect(removeSecret(body, undefined)).toEqual({ uri: `https://h/w?token=${TOKEN}` });
		expect(removeSecret(`x ${TOKEN}`, TOKEN)).toBe('x [redacted]');
	});
});

describe('the token hash', () => {
	const token = 'tok-secret-value';
	const tokenHash = hashToken(token);

	test('SHA-256 in base64url: fixed length, never the token, different for another token', () => {
		expect(tokenHash).toBe('E7Qq5n8WzBQnymQV5az0bx0vLFpmILiaMQwcAzwMDCo');
		expect(tokenHash).toMatch(/^[\w-]{43}$/);
		expect(tokenHash).not.toContain(token);
		expect(hashToken(`${token}x`)).not.toBe(tokenHash);
	});

	test('sameHash: equal hashes only; another length is not equal (and does not throw)', () => {
		expect(sameHash(tokenHash, hashToken(token))).toBe(true);
		expect(sameHash(tokenHash, hashToken('other'))).toBe(false);
		expect(sameHash(tokenHash, tokenHash.slice(1))).toBe(false);
		expect(sameHash(tokenHash, '')).toBe(false);
	});
});
