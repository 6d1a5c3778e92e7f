// What the editor shows of manual registration, per typeVersion, as n8n-workflow's own NodeHelpers decide it (the
// functions the editor and n8n's activation checks call): the Secret Token in a required credential from version 3,
// the warning of a trigger saved by 0.1.0 without one, and the token route's webhook with its URL hidden.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { type INode, type INodeParameters, NodeHelpers } from 'n8n-workflow';

import { CaptioningWebhookSecretApi } from '../../credentials/CaptioningWebhookSecretApi.credentials';
import { CaptioningTrigger } from '../../nodes/Captioning/CaptioningTrigger.node';
import { OPEN_MANUAL_WARNING, TOKEN_ROUTE } from '../../nodes/Captioning/trigger/token';

const trigger = new CaptioningTrigger();
/** The description n8n works with for a node of this typeVersion (VersionedNodeType's getNodeType). */
const describe_ = (typeVersion: number) => trigger.getNodeType(typeVersion).description;
const description = describe_(3);

function node(typeVersion: number, parameters: INodeParameters): INode {
	return {
		id: 'n1',
		name: 'Captioning Trigger',
		type: 'n8n-nodes-captioning.captioningTrigger',
		typeVersion,
		position: [0, 0],
		parameters,
		webhookId: '0f6c7c2e-2b1a-4c1e-9b0e-1d2c3b4a5f60',
	};
}

/** The parameters with n8n's defaults, as the editor holds them. */
function resolved(typeVersion: number, parameters: INodeParameters): INodeParameters {
	const n = node(typeVersion, parameters);
	const description = describe_(typeVersion);
	return NodeHelpers.getNodeParameters(
		description.properties,
		parameters,
		true,
		false,
		n,
		description,
	)!;
}

/** The names of the properties the editor shows (notices included), in order. */
function shown(typeVersion: number, parameters: INodeParameters): string[] {
	const values = resolved(typeVersion, parameters);
	const n = node(typeVersion, values);
	const description = describe_(typeVersion);
	return description.properties
		.filter((p) => NodeHelpers.displayParameter(values, p, n, description))
		.map((p) => `${p.name}${p.required ? '*' : ''}`);
}

/** The credentials the editor asks for (required ones starred), as it decides which to show. */
function credentials(typeVersion: number, parameters: INodeParameters): string[] {
	const values = resolved(typeVersion, parameters);
	const n = node(typeVersion, values);
	const description = describe_(typeVersion);
	return (description.credentials ?? [])
		.filter((c) => NodeHelpers.displayParameter(values, c, n, description))
		.map((c) => `${c.name}${c.required ? '*' : ''}`);
}

function issues(typeVersion: number, parameters: INodeParameters) {
	const values = resolved(typeVersion, parameters);
	const description = describe_(typeVersion);
	return NodeHelpers.getNodeParametersIssues(
		description.properties,
		node(typeVersion, values),
		description,
	);
}

describe('manual registration in the editor', () => {
	test('the node a user adds is version 3; 1 and 2 have the same description', () => {
		expect(Object.keys(trigger.nodeVersions)).toEqual(['1', '2', '3']);
		expect(trigger.description.defaultVersion).toBe(3);
		expect(trigger.getNodeType().description.version).toBe(3);
		expect(describe_(1).version).toEqual([1, 2]);
		expect(describe_(2)).toEqual(describe_(1));
		for (const version of [1, 2, 3]) {
			expect(describe_(version)).toMatchObject({ name: 'captioningTrigger', defaultVersion: 3 });
		}
	});

	test("each version's description holds only the properties and credentials that version shows", () => {
		// n8n resolves a node's description several times per request: nothing in it may be for another version
		expect(describe_(3).properties.map((p) => p.name)).toEqual([
			'registration',
			'manualNotice',
			'events',
			'options',
		]);
		expect(describe_(3).credentials?.map((c) => c.name)).toEqual([
			'captioningApi',
			'captioningWebhookSecretApi',
		]);
		expect(describe_(1).properties.map((p) => p.name)).toEqual([
			'registration',
			'manualNotice',
			'events',
			'openManualWarning',
			'manualToken',
			'options',
		]);
		expect(describe_(1).credentials?.map((c) => c.name)).toEqual(['captioningApi']);
		for (const version of [1, 3]) {
			expect(JSON.stringify(describe_(version))).not.toContain('@version');
			// each its own array: n8n's loader may add to one version's properties
			expect(describe_(version).properties).not.toBe(describe_(version === 1 ? 2 : 1).properties);
		}
	});

	test('version 3: the Secret Token in a required Webhook Secret credential, not in a parameter', () => {
		expect(shown(3, { registration: 'manual' })).toEqual([
			'registration',
			'manualNotice',
			'events*',
			'options',
		]);
		expect(credentials(3, { registration: 'manual' })).toEqual(['captioningWebhookSecretApi*']);
		expect(issues(3, { registration: 'manual' })).toBeNull();
		// automatic registration asks for the API credential, and no secret
		expect(shown(3, { registration: 'api' })).toEqual(['registration', 'events*', 'options']);
		expect(credentials(3, { registration: 'api' })).toEqual(['captioningApi*']);
		const secret = description.credentials?.find((c) => c.name === 'captioningWebhookSecretApi');
		expect(secret?.testedBy).toBe('secretToken');
	});

	test('versions 1 and 2 without a Secret Token (as 0.1.0 saved them): no issue, a warning above the field', () => {
		for (const version of [1, 2]) {
			expect(shown(version, { registration: 'manual' })).toEqual([
				'registration',
				'manualNotice',
				'events*',
				'openManualWarning',
				'manualToken',
				'options',
			]);
			expect(issues(version, { registration: 'manual' })).toBeNull();
			expect(credentials(version, { registration: 'manual' })).toEqual([]);
			// with one, the warning goes
			expect(shown(version, { registration: 'manual', manualToken: 'mine' })).not.toContain(
				'openManualWarning',
			);
		}
		const warning = describe_(1).properties.find((p) => p.name === 'openManualWarning');
		expect(warning).toMatchObject({ type: 'notice', displayName: OPEN_MANUAL_WARNING });
	});

	test('the notice says what to paste, in the words of n8n 2.x and 1.x, where the Secret Token is', () => {
		const notice = (version: number) =>
			describe_(version).properties.find(
				(p) =>
					p.name === 'manualNotice' &&
					NodeHelpers.displayParameter(
						resolved(version, { registration: 'manual' }),
						p,
						node(version, { registration: 'manual' }),
						describe_(version),
					),
			)?.displayName;
		expect(notice(3)).toBe(
			'Publish the workflow (n8n 1.x: activate it), then paste its Production URL (under Webhook URLs above) followed by ?token= and the Secret Token of the Captioning Webhook Secret API credential into the service’s developers dashboard, with the same events. The Test URL works only while Execute step waits for an event (n8n 1.x: the button that listens for a test event).',
		);
		expect(notice(2)).toBe(
			'Publish the workflow (n8n 1.x: activate it), then paste its Production URL (under Webhook URLs above) followed by ?token= and the Secret Token below into the service’s developers dashboard, with the same events. The Test URL works only while Execute step waits for an event (n8n 1.x: the button that listens for a test event).',
		);
	});
});

describe('the webhooks', () => {
	test('the default webhook, then the token route: a static path (nothing to evaluate per request), its URL not shown', () => {
		for (const version of [1, 3]) expect(describe_(version).webhooks).toEqual(description.webhooks);
		expect(description.webhooks).toEqual([
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
			{
				name: TOKEN_ROUTE,
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: ':token',
				ndvHideUrl: true,
			},
		]);
	});
});

describe('the Webhook Secret credential', () => {
	const test_ = trigger.getNodeType(3).methods!.credentialTest!.secretToken;
	const run = async (secretToken: unknown) =>
		await test_.call(
			{} as never,
			{
				id: 'c1',
				name: 'Webhook Secret',
				type: 'captioningWebhookSecretApi',
				data: { secretToken },
			} as never,
		);

	test('its test passes a usable Secret Token, and says what is wrong with another', async () => {
		expect(await run('Xk2-_.~Xk2-_.~Xk2-_.~Xk2')).toEqual({
			status: 'OK',
			message: 'The Secret Token can be used in the URL.',
		});
		expect(await run('short')).toEqual({
			status: 'Error',
			message: 'The Secret Token has 5 characters: use at least 24, so that it cannot be guessed.',
		});
		expect(await run(undefined)).toEqual({
			status: 'Error',
			message: 'The Secret Token is empty.',
		});
	});

	test('one required password field, tested by the trigger', () => {
		const credential = new CaptioningWebhookSecretApi();
		expect(credential.name).toBe('captioningWebhookSecretApi');
		expect(credential.properties.filter((p) => p.type !== 'notice')).toEqual([
			expect.objectContaining({
				name: 'secretToken',
				type: 'string',
				typeOptions: { password: true },
				required: true,
				default: '',
			}),
		]);
	});
});

test("the codex names the trigger's current version, and neither node answers a search for n8n's Webhook", () => {
	const codex = (name: string) =>
		JSON.parse(readFileSync(join(__dirname, '../../nodes/Captioning', name), 'utf8')) as {
			nodeVersion: string;
			alias: string[];
		};
	expect(codex('CaptioningTrigger.node.json').nodeVersion).toBe(
		`${trigger.description.defaultVersion}.0`,
	);
	for (const name of ['CaptioningTrigger.node.json', 'Captioning.node.json']) {
		expect(codex(name).alias.map((a) => a.toLowerCase())).not.toContain('webhook');
	}
});

test('no text of the trigger names an n8n 1.x button or action as its own', () => {
	for (const version of [1, 3]) {
		expect(JSON.stringify(describe_(version))).not.toMatch(
			/Activate the workflow|Listen for test event/,
		);
	}
});

test("Registration stays in the panel: n8n's editor moves a parameter all of whose values show a credential into the credential's dialog", () => {
	// the editor's findAlternativeAuthField (editor-ui nodeTypesUtils): the values credentials name under `show`
	const shown = new Map<string, Set<unknown>>();
	for (const credential of [1, 3].flatMap((version) => describe_(version).credentials ?? [])) {
		for (const [name, values] of Object.entries(credential.displayOptions?.show ?? {})) {
			for (const value of values ?? []) shown.set(name, (shown.get(name) ?? new Set()).add(value));
		}
	}
	const movedOut = [1, 3]
		.flatMap((version) => describe_(version).properties)
		.filter(
			(p) =>
				shown.has(p.name) &&
				(p.options ?? []).every((o) => 'value' in o && shown.get(p.name)!.has(o.value)),
		);
	expect(movedOut.map((p) => p.name)).toEqual([]);
	// and each registration still gets its own credential
	for (const typeVersion of [2, 3]) {
		const credentialsFor = (registration: string) =>
			(describe_(typeVersion).credentials ?? [])
				.filter((c) =>
					NodeHelpers.displayParameter(
						resolved(typeVersion, { registration }),
						c,
						node(typeVersion, { registration }),
						describe_(typeVersion),
					),
				)
				.map((c) => c.name);
		expect(credentialsFor('api')).toEqual(['captioningApi']);
		expect(credentialsFor('manual')).toEqual(
			typeVersion >= 3 ? ['captioningWebhookSecretApi'] : [],
		);
	}
});
