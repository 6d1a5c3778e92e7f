// The token endpoint's answer (contract 2.1, 4.1, 4.2), read by need: `access_token` required, the rest read
// when usable; an OAuth error body for wording (docs/design.md, "Answers are read by need").
import { z } from 'zod';

import {
	describeIssues,
	isObject,
	memberOf,
	parseBody,
	readCount,
	readText,
} from '../shared/schemas';
import type { TokenFailure } from './failures';

/** A member the code can do without, in a zod shape: its value when `read` can use it, else undefined. */
const byNeed = <T>(read: (value: unknown) => T | undefined) => z.unknown().transform(read);

/** A token's lifetime in seconds (`expires_in`): a positive number, or a string that spells one. */
export function readExpiresIn(value: unknown): number | undefined {
	const seconds = readCount(value);
	return seconds !== undefined && seconds > 0 ? seconds : undefined;
}

/**
 * A token answer: `access_token` required; `expires_in` a positive count, `refresh_token` text, each when usable
 * (RFC 6749 section 6: without one, the client keeps the one it holds); nothing else is read.
 */
export const tokenAnswerSchema = z.object({
	access_token: z.string().refine((value) => value.trim() !== '', { message: 'is empty' }),
	expires_in: byNeed(readExpiresIn),
	refresh_token: byNeed(readText),
});
export type TokenAnswer = z.infer<typeof tokenAnswerSchema>;

/** An OAuth 2.0 error body (RFC 6749 section 5.2), as far as it is text; used only for wording. */
export function readOAuthError(body: unknown): { error?: string; description?: string } {
	const error = readText(memberOf(body, 'error'));
	const description = readText(memberOf(body, 'error_description'));
	return { ...(error ? { error } : {}), ...(description ? { description } : {}) };
}

export type TokenOutcome = { ok: true; token: TokenAnswer } | { ok: false; failure: TokenFailure };

/**
 * Classifies the token endpoint's answer, reading only what decides: `access_token` (the one required member) on a
 * 2xx, `error` and `error_description` (for wording) otherwise or when there is no usable access token.
 */
export function readTokenAnswer(status: number, contentType: string, body: unknown): TokenOutcome {
	if (status >= 500) return { ok: false, failure: { kind: 'server', status } };
	const json = parseBody(body);
	if (!isObject(json)) return { ok: false, failure: { kind: 'not-json', status, contentType } };
	const token = tokenAnswerSchema.safeParse(json);
	if (status >= 200 && status < 300 && token.success) return { ok: true, token: token.data };
	const said = readOAuthError(json);
	if (status >= 300 || said.error) {
		return { ok: false, failure: { kind: 'refused', status, ...said } };
	}
	return {
		ok: false,
		failure: {
			kind: 'invalid-response',
			detail: token.success ? `HTTP ${status}` : describeIssues(token.error),
		},
	};
}
