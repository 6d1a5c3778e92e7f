import type { ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * The Secret Token of a Captioning Trigger registered by hand in the service's dashboard (typeVersion 3 on): kept
 * where n8n keeps secrets, encrypted and out of the workflow and its executions (docs/design.md, "Manual
 * registration"). The trigger tests it (its credentialTest `secretToken`); nothing is sent anywhere.
 */
export class CaptioningWebhookSecretApi implements ICredentialType {
	name = 'captioningWebhookSecretApi';

	displayName = 'Captioning Webhook Secret API';

	icon: Icon = {
		light: 'file:../nodes/Captioning/captioning.svg',
		dark: 'file:../nodes/Captioning/captioning.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-captioning/n8n-nodes-captioning#manual-registration';

	properties: INodeProperties[] = [
		{
			displayName:
				'The Captioning Trigger accepts only requests whose URL ends in ?token= and this Secret Token: paste its Production URL followed by ?token= and the Secret Token into the service’s developers dashboard.',
			name: 'urlNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Secret Token',
			name: 'secretToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'A long random value you make: n8n cannot generate one. At least 24 characters, each a letter, a digit, -, _, . or ~, e.g. from a password manager or openssl rand -hex 24.',
		},
	];
}
