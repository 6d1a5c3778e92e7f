// One call's attempts and the renewals between them (docs/design.md, "A token's way"): each failed attempt is
// planned from (planRenewal) and stepped to the next attempt, a new value each time; the I/O is passed in.
import { settle } from '../shared/settle';
import { type CallTerms, handedBack } from '../tokens/callTerms';
import {
	handOver,
	nextRenewalStep,
	type RenewalState,
	saysTokenRefused,
	STORED_READS_MS,
	storedIsNewer,
} from '../tokens/renewal';
import { readFailure, TokenRefusedAgain } from './errors';
import type { ApiResponse } from './types';

type Data = Record<string, unknown>;

/** Where a call stands before an attempt; a renewal makes a new one. */
export interface Attempt {
	/** The credential data handed to n8n (handOver); n8n writes a renewal's tokens into it. */
	data: Data;
	/** The tokens the call holds as the store gave them: a store that holds others was renewed meanwhile. */
	held: Data;
	terms: Omit<CallTerms, 'held'>;
	spent: RenewalState;
}

/** What a call's renewals need of the world. */
export interface RenewingIo {
	/** One attempt with this credential data. */
	send: (data: Data) => Promise<ApiResponse>;
	/** The credential as stored now: n8n reads it from its database for every call (no cache in 2.41.1 or 1.123). */
	readStored: () => Promise<Data>;
	wait: (ms: number) => Promise<void>;
}

/** The first attempt of a call, with the credential as stored when it began. */
export function firstAttempt(stored: Data, terms: Omit<CallTerms, 'held'>, now: number): Attempt {
	return {
		data: handOver(stored, terms, now),
		held: stored,
		terms,
		spent: { tokenRefused: false, refreshRefused: false },
	};
}

export type RenewalPlan =
	| { step: 'give-up'; error: unknown }
	| { step: 'read-stored' | 'await-stored' };

/**
 * After a failed attempt: give up with its error, or renew. The service refused the token (a 401 handed back, or
 * a 400/403 that says so): the credential as stored, once; it refused the refresh token: what the process that
 * spent it saved, once.
 */
export function planRenewal(error: unknown, attempt: Attempt): RenewalPlan {
	const failure = readFailure(error);
	const reason =
		handedBack(attempt.data) ??
		(failure && saysTokenRefused(failure) ? 'token-refused' : undefined);
	const step = nextRenewalStep(reason, attempt.spent);
	if (step !== 'give-up') return { step };
	return {
		step,
		error: reason === 'token-refused' ? new TokenRefusedAgain(failure?.status ?? 401) : error,
	};
}

const tokensOf = (data: Data) => ({
	accessToken: data.accessToken,
	refreshToken: data.refreshToken,
});

/**
 * After the service refused the refresh token: the process that spent it (rotation makes it single-use) saves
 * what it got a moment later, so the store is read a few times over STORED_READS_MS.
 */
async function awaitStored(io: RenewingIo, held: Data): Promise<{ stored: Data; newer: boolean }> {
	let stored = held;
	for (const ms of STORED_READS_MS) {
		if (ms > 0) await io.wait(ms);
		stored = await io.readStored();
		if (storedIsNewer(stored, tokensOf(held))) return { stored, newer: true };
	}
	return { stored, newer: false };
}

/** The attempt a renewal step leads to. */
async function renewed(
	io: RenewingIo,
	attempt: Attempt,
	step: 'read-stored' | 'await-stored',
): Promise<Attempt> {
	if (step === 'read-stored') {
		const stored = await io.readStored();
		// a token another process saved meanwhile is used as it is; the one the call sent is renewed
		const renew = !storedIsNewer(stored, tokensOf(attempt.data));
		return {
			data: handOver(stored, attempt.terms, Date.now(), { renew }),
			held: stored,
			terms: attempt.terms,
			spent: { ...attempt.spent, tokenRefused: true },
		};
	}
	const terms = { ...attempt.terms, handBackRefusedRefresh: false };
	const { stored, newer } = await awaitStored(io, attempt.held);
	// nothing newer: the credential as stored goes on to the assertion grant (this process dropped the refused
	// refresh token)
	return {
		data: handOver(stored, terms, Date.now(), { renew: !newer }),
		held: stored,
		terms,
		spent: { ...attempt.spent, refreshRefused: true },
	};
}

export type Sent =
	| { ok: true; response: ApiResponse; attempt: Attempt }
	| { ok: false; error: unknown; attempt: Attempt };

/**
 * Attempts from `attempt` until one is answered or the plan gives up; the last attempt comes back with the
 * outcome, so that a paced retry goes on from it (a call renews once, however often it is paced).
 */
export async function sendRenewing(io: RenewingIo, attempt: Attempt): Promise<Sent> {
	const outcome = await settle(io.send(attempt.data));
	if (outcome.ok) return { ok: true, response: outcome.value, attempt };
	const plan = planRenewal(outcome.error, attempt);
	if (plan.step === 'give-up') return { ok: false, error: plan.error, attempt };
	return await sendRenewing(io, await renewed(io, attempt, plan.step));
}
