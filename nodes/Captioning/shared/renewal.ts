// How a call and the credential's preAuthentication share a renewal (docs/design.md, "A token's way"). The
// transport hands n8n its own read of the credential with the call's terms in it; preAuthentication, which n8n
// runs with that object, keeps to the call's budget and hands back to the transport what the transport decides
// better: whether a refused token or a refused refresh means that another process has renewed meanwhile.
import { createHash } from 'node:crypto';

/**
 * The member of the credential data the transport hands n8n for one call. Not a field of the credential: n8n
 * saves only what preAuthentication returns, and reads the stored data afresh for every other caller.
 */
export const CALL_TERMS = 'captioningCall';

export interface CallTerms {
	/** When the call must end (epoch milliseconds): a grant's waits come out of the call's budget. */
	deadline: number;
	/**
	 * tokenMark of the access token the call held before it emptied it to ask for a renewal: callers share a
	 * grant only when they held the same token (credentials/CaptioningApi/sharing.ts).
	 */
	held: string;
	/**
	 * A refused refresh is handed back to the call (it looks at the store first), or, once it has looked, falls
	 * back to the assertion grant as it does for every other caller.
	 */
	handBackRefusedRefresh: boolean;
}

/** The call's terms in credential data, when a call of the transport handed it over. */
export function callTermsOf(data: Record<string, unknown>): CallTerms | undefined {
	const terms = data[CALL_TERMS] as Partial<CallTerms> | undefined;
	if (typeof terms?.deadline !== 'number' || typeof terms.held !== 'string') return undefined;
	return {
		deadline: terms.deadline,
		held: terms.held,
		handBackRefusedRefresh: terms.handBackRefusedRefresh === true,
	};
}

/** A mark of an access token ('' or none marks the same): compared, never the token itself. */
export function tokenMark(token: unknown): string {
	const text = typeof token === 'string' ? token.trim() : '';
	return createHash('sha256').update(text).digest('base64url');
}

/**
 * - `token-refused`: n8n asks for a renewal after the service refused the token the call sent (a 401): the
 *   transport first sees whether another process saved a newer one;
 * - `refresh-refused`: the service refused the saved refresh token: the transport first sees whether another
 *   process, which spent it, saved what it got for it, before the assertion grant.
 */
export type HandBackReason = 'token-refused' | 'refresh-refused';

const HAND_BACK = 'CaptioningRenewalHandBack';

/** Thrown by preAuthentication to the transport's call; recognised by name through n8n's wrapping errors. */
export class RenewalHandBack extends Error {
	constructor(readonly reason: HandBackReason) {
		super(
			reason === 'token-refused'
				? 'The service refused the access token; the call renews it.'
				: 'The service refused the saved refresh token; the call renews from the credential as stored.',
		);
		this.name = HAND_BACK;
	}
}

/** The hand-back behind an error of n8n's request helpers (which wrap what preAuthentication threw), if any. */
export function handBackIn(error: unknown): HandBackReason | undefined {
	let e = error as { name?: unknown; reason?: unknown; cause?: unknown } | undefined;
	for (let depth = 0; e && depth < 5; depth++) {
		if (e.name === HAND_BACK) return e.reason as HandBackReason;
		e = e.cause as typeof e;
	}
	return undefined;
}
