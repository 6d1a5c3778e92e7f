// The token stage: a delivery is this trigger's when it carries the registration's token, in the query or as the
// token route's last path segment (the static data keeps only the token's hash); once verified, the token is taken
// out of everything the execution sees. A manual trigger's Secret Token is checked the same way.
import { createHash, timingSafeEqual } from 'node:crypto';

import { replaceForms, secretForms, wholeValueForms } from '../shared/secretForms';
import type { Rejection } from './rejection';

/** The query parameter, and the token route's path parameter, that carry the token. */
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

/** The webhook (by n8n's name for it) whose last path segment is the token: the token route. */
export const TOKEN_ROUTE = 'setup';

/**
 * The token a request carries: the token route's path segment (n8n's getParamsData), else the query parameter.
 * Either may carry any registration's token: a hash match is what counts.
 */
export function givenToken(webhookName: string, query: unknown, params: unknown): unknown {
	const source = webhookName === TOKEN_ROUTE ? params : query;
	return typeof source === 'object' && source !== null
		? (source as Record<string, unknown>)[TOKEN_PARAMETER]
		: undefined;
}

/** From this typeVersion on, a manual trigger has to have a Secret Token (docs/design.md, "Manual registration"). */
export const SECRET_REQUIRED_FROM_VERSION = 3;

/**
 * What a delivery must show: `token`, the token of this hash (none stored: every request is refused); `no-secret`,
 * nothing it could show (a manual trigger that has to have a Secret Token but has none); `open`, nothing (a manual
 * trigger of typeVersion 1 or 2 without a Secret Token, as 0.1.0 saved them: it runs, warns and downloads nothing).
 */
export type TokenPolicy =
	| { kind: 'token'; expectedHash: string | undefined }
	| { kind: 'no-secret' }
	| { kind: 'open' };

export function tokenPolicy(
	registration: unknown,
	manualToken: unknown,
	registeredTokenHash: string | undefined,
	typeVersion: number,
): TokenPolicy {
	if (registration !== 'manual') return { kind: 'token', expectedHash: registeredTokenHash };
	if (typeof manualToken === 'string' && manualToken !== '') {
		return { kind: 'token', expectedHash: hashToken(manualToken) };
	}
	return typeVersion >= SECRET_REQUIRED_FROM_VERSION ? { kind: 'no-secret' } : { kind: 'open' };
}

/** How to give a manual trigger of typeVersion 1 or 2 its secret (its Secret Token parameter). */
const SET_A_SECRET =
	'Set a Secret Token in the trigger and add ?token= followed by it to the URL in the service’s developers dashboard';

/** How to give a manual trigger of typeVersion 3 or later its secret (a credential; manualSecret.ts). */
const SELECT_A_SECRET =
	'Create a Captioning Webhook Secret API credential with a long random Secret Token, select it in the trigger, and add ?token= followed by that Secret Token to the URL in the service’s developers dashboard';

/** Why a manual trigger without a Secret Token (0.1.0's default) is open, for n8n's log at every publication. */
export const OPEN_MANUAL_WARNING = `This trigger has no Secret Token: any request to its URL starts the workflow, and Download Caption Files is skipped. ${SET_A_SECRET}.`;

/** The error of a manual trigger that has to have a Secret Token and has none (publication and deliveries). */
export const MISSING_SECRET = `This trigger has no Secret Token. ${SELECT_A_SECRET}, then publish the workflow again.`;

/** Fewer characters than this can be guessed: 24 random base64url characters are 144 bits. */
export const MIN_SECRET_LENGTH = 24;

/** What is wrong with a Secret Token (never quoting it), or undefined when it can be used. */
export function secretTokenProblem(secret: string): string | undefined {
	if (secret === '') return 'The Secret Token is empty.';
	// anything else changes on its way through a URL typed or pasted by hand
	if (!/^[A-Za-z0-9._~-]+$/.test(secret)) {
		return 'The Secret Token has characters that change in a URL: use letters, digits, -, _, . and ~ only.';
	}
	if (secret.length < MIN_SECRET_LENGTH) {
		return `The Secret Token has ${secret.length} characters: use at least ${MIN_SECRET_LENGTH}, so that it cannot be guessed.`;
	}
	return undefined;
}

/** The publication error of a manual trigger whose Secret Token cannot be used. */
export function unusableSecret(problem: string): string {
	return `${problem} Give the trigger’s Captioning Webhook Secret API credential another Secret Token, add ?token= followed by it to the URL in the service’s developers dashboard, then publish the workflow again.`;
}

/** Why a file was not fetched for an open manual trigger: a forged event could name any address. */
export function openDownloadMessage(format: string): string {
	return `The ${format} file was not downloaded: this trigger has no Secret Token, so anyone could have sent this event and named any address to fetch. ${SET_A_SECRET}.`;
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
					'This trigger has no registration with the service: unpublish and publish the workflow (n8n 1.x: deactivate and activate) to register it again.',
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

/** The request checked against the policy: its verified token (to take out of the output), none needed, or refused. */
export function checkDelivery(
	policy: TokenPolicy,
	given: unknown,
): { ok: true; token: string | undefined } | { ok: false; rejection: Rejection } {
	switch (policy.kind) {
		case 'open':
			return { ok: true, token: undefined };
		case 'no-secret':
			return { ok: false, rejection: { status: 401, message: MISSING_SECRET } };
		case 'token':
			return checkToken(policy.expectedHash, given);
	}
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How the verified token is taken out of a text. */
interface SecretRemoval {
	/** Whether the text may hold the token where this removal takes it out (a quick test before `remove`). */
	holds(text: string): boolean;
	remove(text: string): string;
	/** Whether member names are cleaned too: a short token would match the names of formats and fields. */
	names: boolean;
}

const REDACTED = '[redacted]';

/** A URL parameter `name=<form>`: the whole parameter goes, and the separator stays only when another follows. */
function dropParameter(text: string, name: string, form: string): string {
	const parameter = new RegExp(`([?&])${name}=${escapeRegExp(form)}(?=[&#\\s"']|$)(&?)`, 'g');
	// "?token=T&a=1" → "?a=1", "?token=T" → "", "a=1&token=T&b=2" → "a=1&b=2", "a=1&token=T" → "a=1"
	return text.replace(parameter, (_match, separator: string, next: string) =>
		next ? separator : '',
	);
}

/** A token as long as version 3 asks for: every form of it (shared/secretForms.ts), inside any text. */
function everywhere(secret: string): SecretRemoval {
	const forms = secretForms(secret);
	const values = wholeValueForms(secret);
	return {
		names: true,
		holds: (text) => forms.some((form) => text.includes(form)),
		remove(text) {
			let out = text;
			// a query parameter carrying it, under any name, goes entirely
			for (const form of values) {
				if (out.includes(form)) out = dropParameter(out, '[^=&#?\\s]*', form);
			}
			return replaceForms(out, forms);
		},
	};
}

/**
 * A shorter token (a typeVersion 1 or 2 Secret Token of a few characters) is inside ordinary words and addresses:
 * it is taken out only where it stands alone, as a whole value, as the URL's `token` parameter, or as the token
 * route's last segment (`…/<id>/<id>/<token>`); member names are left as they are.
 */
function whereAlone(secret: string): SecretRemoval {
	const forms = wholeValueForms(secret);
	const routeTails = forms.map(
		(form) => new RegExp(`/([^/?#\\s]+)/\\1/${escapeRegExp(form)}(?=[?#\\s"']|$)`, 'g'),
	);
	return {
		names: false,
		holds: (text) => forms.some((form) => text.includes(form)),
		remove(text) {
			if (forms.includes(text)) return REDACTED;
			let out = text;
			for (const form of forms) out = dropParameter(out, TOKEN_PARAMETER, form);
			for (const tail of routeTails) out = out.replace(tail, `/$1/$1/${REDACTED}`);
			return out;
		},
	};
}

// every delivery of a registration carries the same token: its removal is built once
let cached: { secret: string; removal: SecretRemoval } | undefined;

function removalOf(secret: string): SecretRemoval {
	if (cached?.secret !== secret) {
		const removal = secret.length >= MIN_SECRET_LENGTH ? everywhere(secret) : whereAlone(secret);
		cached = { secret, removal };
	}
	return cached.removal;
}

/** The text without the secret: a query parameter carrying it goes entirely, any other occurrence is masked. */
export function withoutSecret(text: string, secret: string): string {
	return removalOf(secret).remove(text);
}

/** Member names carry text from the body too (e.g. `files` is keyed by format): the token leaves them as well. */
function renameSecretKeys(container: Record<string, unknown>, removal: SecretRemoval): void {
	for (const key of Object.keys(container)) {
		if (!removal.holds(key)) continue;
		let renamed = removal.remove(key);
		if (renamed === key) continue;
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
	const removal = removalOf(secret);
	if (typeof value === 'string') return removal.remove(value) as T;
	const stack: unknown[] = [value];
	while (stack.length) {
		const next = stack.pop();
		if (typeof next !== 'object' || next === null) continue;
		const container = next as Record<string, unknown>;
		if (removal.names && !Array.isArray(container)) renameSecretKeys(container, removal);
		for (const key of Object.keys(container)) {
			const child = container[key];
			if (typeof child === 'string') {
				if (removal.holds(child)) container[key] = removal.remove(child);
			} else if (typeof child === 'object' && child !== null) {
				stack.push(child);
			}
		}
	}
	return value;
}
