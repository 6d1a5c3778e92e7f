import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { CREDENTIAL_TEST_FAILURES } from '../nodes/Captioning/tokens/failures';
import { obtainTokens } from '../nodes/Captioning/tokens/obtain';
import {
	BASE_URL_EXPRESSION,
	bearerToken,
	DEFAULT_MEDIA_TYPE,
} from '../nodes/Captioning/tokens/values';

export class CaptioningApi implements ICredentialType {
	name = 'captioningApi';

	displayName = 'Captioning API';

	icon: Icon = {
		light: 'file:../nodes/Captioning/captioning.svg',
		dark: 'file:../nodes/Captioning/captioning.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-captioning/n8n-nodes-captioning#credentials';

	// as n8n's own credentials declare it: the HTTP Request node made from this credential (n8n hides it from the
	// nodes panel because the package's nodes use the credential, but opens a saved one with it), its URL shown
	// with the Base URL's placeholder, which differs per account (docs/design.md, "Custom API calls")
	httpRequestNode: ICredentialType['httpRequestNode'] = {
		name: 'Captioning',
		docsUrl:
			'https://github.com/n8n-nodes-captioning/n8n-nodes-captioning/blob/main/docs/credentials.md#in-n8ns-http-request-node',
		apiBaseUrlPlaceholder: 'https://api.example.com/',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.example.com',
			description: 'Root address of the captioning API, without /oauth/token',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: "The application's client ID from the service's developers dashboard",
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: "The application's client secret from the developers dashboard",
		},
		// eslint-disable-next-line @n8n/community-nodes/credential-unnecessary-password -- it obtains tokens: a secret
		{
			displayName: 'Assertion Token',
			name: 'assertion',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The assertion token the dashboard issued to your account. n8n exchanges it for access tokens and renews them on its own.',
		},
		// no default: a made-up one would earn a new user a 406 (docs/design.md, "What 0.1.0 saved")
		{
			displayName: 'API Media Type',
			name: 'mediaType',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. application/vnd.acme.v1',
			description:
				"The vendor media type that names version 1 of the API: application/vnd.<the service's own name>.v1",
			hint: "Sent as the Accept header on every call. The service's API documentation names it (its Accept header); ask the service if it does not.",
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			displayName: 'Refresh Token',
			name: 'refreshToken',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'Access Token Expires At',
			name: 'expiresAt',
			type: 'hidden',
			default: 0,
		},
		// a hash of Base URL, Client ID, Client Secret and Assertion Token: the saved tokens are theirs only
		{
			displayName: 'Saved Tokens Belong To',
			name: 'tokenFingerprint',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
	];

	// n8n runs this when the token is empty, after a 401 and in a credential test (docs/design.md, A token's way)
	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const saved = await obtainTokens((options) => this.helpers.httpRequest(options), credentials);
		return { ...saved };
	}

	// a function rather than expressions: no expression evaluation on every request. A member, not a method: n8n
	// copies credential types with a spread (own members only) before it looks for `authenticate` to offer the
	// credential in the HTTP Request node and to add the nodes' Custom API Call (docs/design.md, "Custom API calls")
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const token = bearerToken(credentials);
		const headers = { ...requestOptions.headers };
		// the old values' token is never sent: the package's calls renew it first, and other callers (n8n's HTTP
		// Request node) meet the service's 401, after which n8n runs preAuthentication
		if (token) headers.Authorization = `Bearer ${token}`;
		else delete headers.Authorization;
		headers.Accept = String(credentials.mediaType || DEFAULT_MEDIA_TYPE);
		// n8n sends credentials along a redirect to another origin unless told not to
		return { ...requestOptions, headers, sendCredentialsOnCrossOriginRedirect: false };
	};

	/**
	 * The grant n8n runs first proves the four values; the read proves the token and the API Media Type where the
	 * service has it (404/405/501 pass). n8n 1.123 ignores `except`: there the grant alone is checked.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: BASE_URL_EXPRESSION,
			url: '/webhook_endpoints',
			method: 'GET',
			ignoreHttpStatusErrors: {
				ignore: true,
				except: CREDENTIAL_TEST_FAILURES.map((f) => f.status),
			},
		},
		rules: CREDENTIAL_TEST_FAILURES.map(({ status, message }) => ({
			type: 'responseCode' as const,
			properties: { value: status, message },
		})),
	};
}
