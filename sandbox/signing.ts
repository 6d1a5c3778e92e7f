// Signed, time-limited file addresses in the manner of object stores: an HMAC over the path and the expiry.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signature(key: string, path: string, expires: number): string {
	return createHmac('sha256', key).update(`${path}\n${expires}`).digest('hex');
}

export function signPath(key: string, path: string, expires: number): string {
	return `${path}?expires=${expires}&signature=${signature(key, path, expires)}`;
}

export type SignatureCheck =
	| { ok: true }
	| { ok: false; reason: 'missing' | 'forged' | 'expired'; expiredAt?: number };

export function verifySignedPath(
	key: string,
	path: string,
	query: URLSearchParams,
	nowSeconds: number,
): SignatureCheck {
	const expiresText = query.get('expires');
	const given = query.get('signature');
	if (!expiresText || !given) return { ok: false, reason: 'missing' };
	const expires = Number(expiresText);
	const expected = Buffer.from(signature(key, path, expires), 'hex');
	const actual = Buffer.from(given, 'hex');
	if (
		!Number.isInteger(expires) ||
		actual.length !== expected.length ||
		!timingSafeEqual(actual, expected)
	) {
		return { ok: false, reason: 'forged' };
	}
	if (expires < nowSeconds) return { ok: false, reason: 'expired', expiredAt: expires };
	return { ok: true };
}
