// The renewal decisions of one call (docs/design.md, "A token's way"): what the call hands n8n as its
// credential, whether an answer refused the token, and what the call does next. Pure: the transport wires them.
import { createHash, randomUUID } from 'node:crypto';

import {
	type Headers,
	headerValue,
	isObject,
	memberOf,
	parseBody,
	readText,
} from '../shared/schemas';
import { readOAuthError } from './answer';
import { type CallTerms, type HandBackReason, tokenMark, withCallTerms } from './callTerms';
import { RENEW_BEFORE_EXPIRY_MS, renewBeforeCall } from './values';

type Data = Record<string, unknown>;

/** This process's own point in the minute before an expiry (renewalMargin). */
const PROCESS_SEED = randomUUID();

/** How long before its expiry this process renews a token: its own point between 30 and 60 s (queue mode spreads). */
export function renewalMargin(processSeed: string, token: unknown): number {
	const hash = createHash('sha256').update(processSeed).update(tokenMark(token)).digest();
	return RENEW_BEFORE_EXPIRY_MS * (0.5 + (0.5 * hash.readUInt32BE(0)) / 0xffff_ffff);
}

/**
 * The credential a call hands n8n: as stored, its access token emptied when due (n8n then runs preAuthentication
 * first) or when `renew` says so, with the call's terms beside it.
 */
export function handOver(
	stored: Data,
	terms: Omit<CallTerms, 'held'>,
	now: number,
	{ renew = false, processSeed = PROCESS_SEED }: { renew?: boolean; processSeed?: string } = {},
): Data {
	const due = renew || renewBeforeCall(stored, now, renewalMargin(processSeed, stored.accessToken));
	return withCallTerms(
		{ ...stored, ...(due ? { accessToken: '' } : {}) },
		{ ...terms, held: tokenMark(stored.accessToken) },
	);
}

// `invalid_token` (RFC 6750 3.1) and the codes services write for the same thing
const TOKEN_CODE = /^(invalid|expired|revoked)_(access_)?token$|^token_(invalid|expired|revoked)$/i;
// words that say the token itself is invalid, expired or revoked (not "invalid scope for this token")
const TOKEN_WORDS =
	/\b(invalid|expired|revoked|unknown|malformed)\s+(access\s+|bearer\s+)?token\b|\btoken\s+((is|was|has)\s+)?(been\s+)?(invalid|expired|revoked|invalidated)\b/i;

/** Whether a 400 or 403 says, as a 401 would, that the token is invalid: its challenge, OAuth error or JSON:API error. */
export function saysTokenRefused(failure: {
	status: number;
	headers: Headers;
	data: unknown;
}): boolean {
	if (failure.status !== 400 && failure.status !== 403) return false;
	const challenge = headerValue(failure.headers, 'www-authenticate') ?? '';
	if (/\berror\s*=\s*"?invalid_token\b/i.test(challenge)) return true;
	const body = parseBody(failure.data);
	if (TOKEN_CODE.test(readOAuthError(body).error ?? '')) return true;
	const errors = memberOf(body, 'errors');
	const list = Array.isArray(errors) ? errors : isObject(errors) ? [errors] : [];
	return list.some((error) => {
		const code = readText(memberOf(error, 'code')) ?? '';
		const words = ['title', 'detail'].map((name) => readText(memberOf(error, name)) ?? '');
		return TOKEN_CODE.test(code) || words.some((text) => TOKEN_WORDS.test(text));
	});
}

/** What a call has spent of its renewals: one after a refused token, one look at the store after a refused refresh. */
export interface RenewalState {
	tokenRefused: boolean;
	refreshRefused: boolean;
}

export type RenewalStep = 'read-stored' | 'await-stored' | 'give-up';

/** What the call does after `reason`: each refusal is answered by one read of the store, once per call. */
export function nextRenewalStep(
	reason: HandBackReason | undefined,
	state: RenewalState,
): RenewalStep {
	if (reason === 'token-refused') return state.tokenRefused ? 'give-up' : 'read-stored';
	if (reason === 'refresh-refused') return state.refreshRefused ? 'give-up' : 'await-stored';
	return 'give-up';
}

/** Whether the store holds tokens other than those the call held: another process renewed meanwhile. */
export function storedIsNewer(
	stored: Data,
	held: { accessToken: unknown; refreshToken: unknown },
): boolean {
	const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
	return (
		text(stored.accessToken) !== '' &&
		(text(stored.accessToken) !== text(held.accessToken) ||
			text(stored.refreshToken) !== text(held.refreshToken))
	);
}

/** How long a call waits for the process that spent the refresh token to save what it got, read by read. */
export const STORED_READS_MS = [0, 250, 500, 1_000];
