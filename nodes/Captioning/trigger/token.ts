// The token stage: a delivery is this trigger's when its query carries the registration's token (the static
// data keeps only the token's hash); once verified, the token is taken out of everything the execution sees.
import { createHash, timingSafeEqual } from 'node:crypto';

import type { Rejection } from './rejection';

/** The query parameter of the callback URI that carries the token. */
export const TOKEN_PARAMETER = 'token';

/** SHA-256 of the token, base64url: what the static data keeps instead of the token. */
export function hashToken(token: string): string {
	return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** Whether two token hashes are equal, in constant time for hashes of the same length. */
export function sameHash(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The hash of the token a request must carry: the registration's, the manual one's, or none (`undefined`).
 */
export function requiredToken(
	registration: unknown,
	manualToken: unknown,
	registeredTokenHash: string | undefined,
): { expectedHash: string | undefined } | undefined {
	if (registration !== 'manual') return { expectedHash: registeredTokenHash };
	return typeof manualToken === 'string' && manualToken !== ''
		? { expectedHash: hashToken(manualToken) }
		: undefined;
}

/** The request's token once verified (it is then the registered one), or why the request is refused. */
export type TokenCheck = { ok: true; token: string } | { ok: false; rejection: Rejection };

/** Compares the hash of the request's token with the registered hash in constant time. */
export function checkToken(expectedHash: string | undefined, given: unknown): TokenCheck {
	if (!expectedHash) {
		return {
			ok: false,
			rejection: {
				status: 401,
				message:
					'This trigger has no registration with the service: deactivate and activate the workflow to register it again.',
			},
		};
	}
	const value = Array.isArray(given) ? given[0] : given;
	if (typeof value !== 'string' || value.length === 0) {
		return {
			ok: false,
			rejection: {
				status: 401,
				message: 'The request has no token: it was not sent by the registered endpoint.',
			},
		};
	}
	if (!sameHash(hashToken(value), expectedHash)) {
		return {
			ok: false,
			rejection: { status: 401, message: 'The token does not match this trigger’s registration.' },
		};
	}
	return { ok: true, token: value };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text without the secret: a query parameter carrying it goes entirely, any other occurrence is masked. */
export function withoutSecret(text: string, secret: string): string {
	let out = text;
	for (const form of new Set([secret, encodeURIComponent(secret)])) {
		if (!out.includes(form)) continue;
		const parameter = new RegExp(`([?&])[^=&#?\\s]*=${escapeRegExp(form)}(?=[&#\\s"']|$)(&?)`, 'g');
		// "?token=T&a=1" → "?a=1", "?token=T" → "", "a=1&token=T&b=2" → "a=1&b=2", "a=1&token=T" → "a=1"
		out = out.replace(parameter, (_match, separator: string, next: string) =>
			next ? separator : '',
		);
		out = out.split(form).join('[redacted]');
	}
	return out;
}

/** Member names carry text from the body too (e.g. `files` is keyed by format): the token leaves them as well. */
function renameSecretKeys(container: Record<string, unknown>, secret: string): void {
	for (const key of Object.keys(container)) {
		if (!key.includes(secret) && !key.includes(encodeURIComponent(secret))) continue;
		let renamed = withoutSecret(key, secret);
		// never overwrite a member the body already has under the cleaned name
		while (Object.prototype.hasOwnProperty.call(container, renamed)) renamed += '_';
		container[renamed] = container[key];
		delete container[key];
	}
}

/**
 * Removes the callback token from every string and member name of an output value, in place, iteratively (a body may be
 * nested deeper than the stack allows). `data.attributes.uri` carries it in every delivery.
 */
export function removeSecret<T>(value: T, secret: string | undefined): T {
	if (!secret) return value;
	if (typeof value === 'string') return withoutSecret(value, secret) as T;
	const stack: unknown[] = [value];
	while (stack.length) {
		const next = stack.pop();
		if (typeof next !== 'object' || next === null) continue;
		const container = next as Record<string, unknown>;
		if (!Array.isArray(container)) renameSecretKeys(container, secret);
		for (const key of Object.keys(container)) {
			const child = container[key];
			if (typeof child === 'string') {
				if (child.includes(secret) || child.includes(encodeURIComponent(secret))) {
					container[key] = withoutSecret(child, secret);
				}
			} else if (typeof child === 'object' && child !== null) {
				stack.push(child);
			}
		}
	}
	return value;
}
