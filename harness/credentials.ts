// The Captioning credential for a sandbox, as a user fills it in: the sandbox's URL and media type, and one
// of its clients (by default the one every sandbox knows, DEFAULT_CLIENT).
import type { ClientConfig } from '../sandbox/oauth';
import { DEFAULT_CLIENT, type Sandbox } from '../sandbox/server';
import type { N8nClient } from './rest';

export const CREDENTIAL_TYPE = 'captioningApi';

// a type, not an interface: it is passed where n8n's API types take Record<string, unknown>
export type CaptioningCredentialData = {
	baseUrl: string;
	clientId: string;
	clientSecret: string;
	assertion: string;
	mediaType: string;
};

/** The credential's fields for `sandbox` and `client`. */
export function sandboxCredentialData(
	sandbox: Pick<Sandbox, 'url' | 'mediaType'>,
	client: ClientConfig = DEFAULT_CLIENT,
): CaptioningCredentialData {
	return {
		baseUrl: sandbox.url,
		clientId: client.clientId,
		clientSecret: client.clientSecret,
		assertion: client.assertions[0],
		mediaType: sandbox.mediaType,
	};
}

/** Creates a Captioning credential for `sandbox`; `overrides` replaces fields (a wrong secret, say). */
export async function createSandboxCredential(
	n8n: Pick<N8nClient, 'createCredential'>,
	sandbox: Pick<Sandbox, 'url' | 'mediaType'>,
	name: string,
	options: { client?: ClientConfig; overrides?: Record<string, string> } = {},
): Promise<{ id: string; name: string; type: string }> {
	return await n8n.createCredential(name, CREDENTIAL_TYPE, {
		...sandboxCredentialData(sandbox, options.client),
		...options.overrides,
	});
}
