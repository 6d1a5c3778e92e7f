// How a call and preAuthentication share a renewal: the terms are kept beside the credential object the call hands
// n8n, which n8n passes on as that very object (docs/design.md, "The call's terms", cites the n8n lines).
import { createHash } from 'node:crypto';

export interface CallTerms {
	/** When the call must end (epoch milliseconds): a grant's waits come out of the call's budget. */
	deadline: number;
	/** tokenMark of the token the call held before it emptied it: callers share a grant only when it is the same. */
	held: string;
	/** A refused refresh goes back to the call (it looks at the store first); once it has looked, to the assertion. */
	handBackRefusedRefresh: boolean;
}

/** What the call decides better: a refused token or refresh token, after which it first reads the store. */
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
