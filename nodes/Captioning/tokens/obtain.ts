// The tokens preAuthentication returns: the values read, then one grant shared by the callers that ask together;
// a call of the transport hands its terms over with the data (callTerms.ts).
import { settle } from '../shared/settle';
import { callTermsOf, handBack, RenewalHandBack } from './callTerms';
import type { GrantOptions, Http, SavedTokens } from './grant';
import { sharedGrant } from './sharing';
import { readCredentials } from './values';

export async function obtainTokens(
	http: Http,
	data: Record<string, unknown>,
	now: () => number = Date.now,
	sleep?: GrantOptions['sleep'],
): Promise<SavedTokens> {
	const credentials = readCredentials(data);
	const terms = callTermsOf(data);
	// the call asks for a renewal by emptying the token: with one, n8n is asking after the service refused it
	if (terms && credentials.accessToken) throw handBack(data, 'token-refused');
	const outcome = await settle(
		sharedGrant(http, credentials, {
			now,
			sleep,
			...(terms
				? { deadline: terms.deadline, handsBack: terms.handBackRefusedRefresh, held: terms.held }
				: {}),
		}),
	);
	if (outcome.ok) return outcome.value;
	// callers may share one grant: each notes a hand-back for its own call
	if (terms && outcome.error instanceof RenewalHandBack) throw handBack(data, outcome.error.reason);
	throw outcome.error;
}
