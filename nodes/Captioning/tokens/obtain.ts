// The tokens preAuthentication returns: the credential's values read (values.ts), then one grant shared by the
// callers that ask together (sharing.ts). A call of the package's transport hands over its terms with the data
// (nodes/Captioning/shared/renewal.ts): the grant keeps to the call's budget, and what the call decides better is
// handed back to it.
import { callTermsOf, handBack, RenewalHandBack } from './callTerms';
import { settle } from '../shared/settle';
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
