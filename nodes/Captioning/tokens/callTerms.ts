// How a call and the credential's preAuthentication share a renewal (docs/design.md, "A token's way"). The
// transport hands n8n its own read of the credential (`credentialsDecrypted`), which n8n 2.41.1 and 1.123.81 both
// pass on to preAuthentication as the same object. The call's terms are kept beside that object, never in it
// (n8n 1.123 saves the object it renewed whole), and what preAuthentication hands back to the call is noted there
// too: n8n 1.123's errors drop the error they wrap, so a thrown hand-back cannot be found by its cause.
import { createHash } from 'node:crypto';

export interface CallTerms {
	/** When the call must end (epoch milliseconds): a grant's waits come out of the call's budget. */
	deadline: number;
	/**
	 * tokenMark of the access token the call held before it emptied it to ask for a renewal: callers share a
	 * grant only when they held the same token (sharing.ts).
	 */
	held: string;
	/**
	 * A refused refresh is handed back to the call (it looks at the store first), or, once it has looked, falls
	 * back to the assertion grant as it does for every other caller.
	 */
	handBackRefusedRefresh: boolean;
}

/**
 * - `token-refused`: n8n asks for a renewal after the service refused the token the call sent (a 401): the
 *   transport first sees whether another process saved a newer one;
 * - `refresh-refused`: the service refused the saved refresh token: the transport first sees whether another
 *   process, which spent it, saved what it got for it, before the assertion grant.
 */
export type HandBackReason = 'token-refused' | 'refresh-refused';

/** The terms of each credential object a call handed over, and what was handed back to it. */
const calls = new WeakMap<object, { terms: CallTerms; handedBack?: HandBackReason }>();

/** `data` with the call's terms beside it: preAuthentication, called with this very object, keeps to them. */
export function withCallTerms<T extends object>(data: T, terms: CallTerms): T {
	calls.set(data, { terms: { ...terms } });
	return data;
}

/** The call's terms, when a call of the transport handed `data` over. */
export function callTermsOf(data: object): CallTerms | undefined {
	return calls.get(data)?.terms;
}

/** What was handed back to the call that handed `data` over, if anything. */
export function handedBack(data: object): HandBackReason | undefined {
	return calls.get(data)?.handedBack;
}

/** Thrown by preAuthentication to the transport's call; the call reads the reason with handedBack. */
export class RenewalHandBack extends Error {
	constructor(readonly reason: HandBackReason) {
		super(
			reason === 'token-refused'
				? 'The service refused the access token; the call renews it.'
				: 'The service refused the saved refresh token; the call renews from the credential as stored.',
		);
		this.name = 'CaptioningRenewalHandBack';
	}
}

/** Notes `reason` for the call that handed `data` over, and returns the error preAuthentication throws. */
export function handBack(data: object, reason: HandBackReason): RenewalHandBack {
	const call = calls.get(data);
	if (call) call.handedBack = reason;
	return new RenewalHandBack(reason);
}

/** A mark of an access token ('' or none marks the same): compared, never the token itself. */
export function tokenMark(token: unknown): string {
	const text = typeof token === 'string' ? token.trim() : '';
	return createHash('sha256').update(text).digest('base64url');
}
