// What the user reads when the credential fails: a refused or failed grant, and the credential test's read. Each
// message names the cause and what to change in the credential, and never holds a secret.
import { networkProblem } from '../shared/network';
import { rateLimitMessage, type RetryStop } from '../shared/pacing';
import { redact } from '../shared/redact';
import { boundWords } from '../shared/serviceWords';
import { withServiceWords } from '../shared/words';
import type { CaptioningCredentials } from './values';

/** Contract 4.1: the assertion grant must ask for exactly these scopes. */
export const REQUIRED_SCOPE = 'write_transcriptions write_media';

export type Grant = 'assertion' | 'refresh_token';

/** How a grant failed: what the user is told about. */
export type TokenFailure =
	| { kind: 'unreachable'; code: string }
	| { kind: 'refused'; status: number; error?: string; description?: string }
	| { kind: 'server'; status: number; attempts?: number }
	| {
			kind: 'rate-limited';
			stop: Pick<RetryStop, 'reason' | 'attempts' | 'elapsedMs' | 'refusedWaitMs'>;
	  }
	| { kind: 'not-json'; status: number; contentType: string }
	| { kind: 'invalid-response'; detail: string };

/** An OAuth error's own words, redacted before they are bounded: no cut may leave part of a secret. */
function ownWords(
	failure: Extract<TokenFailure, { kind: 'refused' }>,
	secrets: Array<string | undefined>,
): Extract<TokenFailure, { kind: 'refused' }> {
	const words = (text: string | undefined, max: number) =>
		text === undefined ? undefined : boundWords(redact(text, secrets), max);
	return {
		...failure,
		error: words(failure.error, 80),
		description: words(failure.description, 300),
	};
}

/** The message a user sees: the cause, and what to change. Never a secret. */
export function describeTokenFailure(
	failure: TokenFailure,
	grant: Grant,
	credentials: CaptioningCredentials,
): string {
	const secrets = [
		credentials.clientSecret,
		credentials.assertion,
		credentials.accessToken,
		credentials.refreshToken,
	];
	const where = `${credentials.baseUrl}/oauth/token`;
	let message: string;
	switch (failure.kind) {
		case 'unreachable':
			message = `Could not reach the captioning service at ${credentials.baseUrl} (${networkProblem(failure.code)}). Check the Base URL and that n8n can reach that address.`;
			break;
		case 'server': {
			const times = (failure.attempts ?? 1) > 1 ? `, ${failure.attempts} times in a row` : '';
			message = `The captioning service's token endpoint failed with HTTP ${failure.status}${times}. This is a problem on the service's side: try again later.`;
			break;
		}
		case 'rate-limited':
			message = rateLimitMessage(
				`the token request (${grant} grant)`,
				failure.stop,
				'The token endpoint limits requests too: try again in a minute.',
			);
			break;
		case 'not-json':
			message = `${where} answered HTTP ${failure.status} with ${failure.contentType || 'a body'} instead of a JSON token response. Check the Base URL: it must be the API's root address, without /oauth/token.`;
			break;
		case 'invalid-response':
			message = `${where} answered with JSON that is not a valid token response (${failure.detail}). Check the Base URL points at the captioning service.`;
			break;
		case 'refused':
			message = describeRefusal(ownWords(failure, secrets), grant, where);
			break;
	}
	return redact(message, secrets);
}

function describeRefusal(
	failure: Extract<TokenFailure, { kind: 'refused' }>,
	grant: Grant,
	where: string,
): string {
	const said = failure.error ? ` (${failure.error})` : '';
	if (failure.status === 404) {
		return `There is no token endpoint at ${where} (HTTP 404). Check the Base URL: it must be the API's root address.`;
	}
	switch (failure.error) {
		case 'invalid_client':
			return `The service rejected the Client ID or Client Secret${said}. Copy both again from the service's developers dashboard.`;
		case 'invalid_grant':
			return grant === 'assertion'
				? `The service rejected the Assertion Token${said}: it is wrong, expired or revoked, or belongs to another client. Create a new assertion token in the dashboard and paste it into the credential.`
				: `The service rejected the saved refresh token${said}.`;
		case 'invalid_scope':
			return `The service refused the scope "${REQUIRED_SCOPE}"${said}. Ask the service to allow this application both scopes (write_transcriptions and write_media).`;
		case 'unsupported_grant_type':
			return `The service at ${where} does not accept the ${grant} grant${said}. Check the Base URL points at the captioning service.`;
		default: {
			const refused = withServiceWords(
				`The service refused the ${grant} grant with HTTP ${failure.status}${said}`,
				failure.description,
			);
			// without a known code, a 400/401/403 of the assertion grant still points at the values the user gave
			return grant === 'assertion' && [400, 401, 403].includes(failure.status)
				? `${refused} Check the Client ID, Client Secret and Assertion Token against the service's developers dashboard.`
				: refused;
		}
	}
}

/**
 * Answers to the credential test's read that fail the test, with what the user should do. Every other answer
 * passes: the grant before it already proved the values, and 404/405/501 only say the service has no such read.
 */
export const CREDENTIAL_TEST_FAILURES: ReadonlyArray<{ status: number; message: string }> = [
	{
		status: 401,
		message:
			'The service issued a token but refused it on GET /webhook_endpoints (HTTP 401). Check that the Base URL is the address of the API itself, where both /oauth/token and the API are served.',
	},
	{
		status: 406,
		message:
			"The service does not accept the API Media Type (HTTP 406). Set it to application/vnd.<service>.v1 with the service's own name.",
	},
	...Array.from({ length: 100 }, (_, i) => 500 + i)
		.filter((status) => status !== 501)
		.map((status) => ({
			status,
			message: `The token was obtained, but the captioning service failed with HTTP ${status} on GET /webhook_endpoints, so the API Media Type could not be checked. Test again later.`,
		})),
];
