// Where a manual trigger keeps its Secret Token: a Captioning Webhook Secret API credential from typeVersion 3, the
// Secret Token parameter in 1 and 2 (docs/design.md, "Manual registration").
import type { ICredentialDataDecryptedObject, INode } from 'n8n-workflow';

import { settle } from '../shared/settle';
import { SECRET_REQUIRED_FROM_VERSION } from './token';

export const SECRET_CREDENTIAL = 'captioningWebhookSecretApi';

/** What the hook and webhook contexts both offer. */
interface SecretSource {
	getNode(): INode;
	getNodeParameter(name: 'manualToken', fallback: string): unknown;
	getCredentials(type: string): Promise<ICredentialDataDecryptedObject>;
}

/** The manual trigger's Secret Token, or '' when it has none (no credential selected, or an empty one). */
export async function manualSecret(ctx: SecretSource): Promise<string> {
	if (ctx.getNode().typeVersion < SECRET_REQUIRED_FROM_VERSION) {
		const value = ctx.getNodeParameter('manualToken', '');
		return typeof value === 'string' ? value : '';
	}
	// n8n throws when the node has no credential of the type: that is a trigger without a secret
	const credential = await settle(ctx.getCredentials(SECRET_CREDENTIAL));
	const value = credential.ok ? credential.value.secretToken : undefined;
	return typeof value === 'string' ? value : '';
}
