// The tokens preAuthentication returns: the credential's values read (values.ts), then one grant shared by the
// callers that ask together (sharing.ts).
import type { Http, SavedTokens } from './grant';
import { sharedGrant } from './sharing';
import { readCredentials } from './values';

export async function obtainTokens(
	http: Http,
	data: Record<string, unknown>,
	now: () => number = Date.now,
): Promise<SavedTokens> {
	return await sharedGrant(http, readCredentials(data), now);
}
