// The captioningApi credential type as n8n reads it: fields, authenticate() and the credential test.
import fc from 'fast-check';
import {
	type ICredentialType,
	type INode,
	type IHttpRequestOptions,
	type INodeParameters,
	type INodeProperties,
	type INodeType,
	NodeHelpers,
	Workflow,
} from 'n8n-workflow';

import { CaptioningApi } from '../../credentials/CaptioningApi.credentials';
import {
	credentialValues,
	normaliseBaseUrl,
	valuesFingerprint,
} from '../../nodes/Captioning/tokens/values';

const type = new CaptioningApi();
const values = {
	baseUrl: 'https://api.example.com',
	clientId: 'client-1',
	clientSecret: 'cs-type-secret-1',
	assertion: 'as-type-assertion-1',
	mediaType: 'application/vnd.acme.v1',
};
const current = valuesFingerprint(credentialValues(values));
const request: IHttpRequestOptions = {
	url: 'https://api.example.com/webhook_endpoints',
	headers: { 'x-kept': '1' },
};

describe('fields', () => {
	test('the tokens and their fingerprint are hidden; only the access token is expirable', () => {
		const hidden = type.properties.filter((p) => p.type === 'hidden');
		expect(hidden.map((p) => p.name)).toEqual([
			'accessToken',
			'refreshToken',
			'expiresAt',
			'tokenFingerprint',
		]);
		expect(type.properties.filter((p) => p.typeOptions?.expirable).map((p) => p.name)).toEqual([
			'accessToken',
		]);
	});
});

describe("in n8n's HTTP Request node", () => {
	test('authenticate survives the copy n8n makes of a credential type, which offers it there and adds Custom API Call', () => {
		// load-nodes-and-credentials.ts (2.41.1 and 1.123.81) spreads each type: own members only
		const copy = { ...type };
		expect(typeof copy.authenticate).toBe('function');
	});

	test("declares its HTTP Request node as n8n's own credentials do, the URL shown with a Base URL placeholder", () => {
		expect((type as ICredentialType).httpRequestNode).toEqual({
			name: 'Captioning',
			docsUrl:
				'https://github.com/n8n-nodes-captioning/n8n-nodes-captioning/blob/main/docs/credentials.md#in-n8ns-http-request-node',
			apiBaseUrlPlaceholder: 'https://api.example.com/',
		});
	});
});

describe('the API Media Type field', () => {
	const field = type.properties.find((p) => p.name === 'mediaType')!;

	test('is required, with no made-up default and an example in its placeholder', () => {
		expect(field).toMatchObject({ required: true, default: '' });
		expect(field.placeholder).toMatch(/^e\.g\. application\/vnd\.\w+\.v1$/);
	});

	test('a credential saved with the old default still sends it', async () => {
		// what 0.1.0 shipped: the same field with application/vnd.service.v1 as its default
		const old: INodeProperties[] = type.properties.map((p) =>
			p.name === 'mediaType' ? { ...p, default: 'application/vnd.service.v1' } : p,
		);
		const typed = { ...values, mediaType: 'application/vnd.service.v1' } as INodeParameters;
		// n8n's editor saves only what differs from the defaults (CredentialEdit's saveCredential) …
		const saved = NodeHelpers.getNodeParameters(old, typed, false, false, null, null)!;
		expect(saved).not.toHaveProperty('mediaType');
		// … and fills in today's defaults when it decrypts (CredentialsHelper.applyDefaultsAndOverwrites)
		const loaded = NodeHelpers.getNodeParameters(type.properties, saved, true, false, null, null)!;
		expect(loaded.mediaType).toBe('');
		const out = await type.authenticate(loaded as never, request);
		expect(out.headers?.Accept).toBe('application/vnd.service.v1');
	});
});

describe('authenticate', () => {
	test('tokens of the current values: the bearer and the media type', async () => {
		const out = await type.authenticate(
			{ ...values, accessToken: 'at-1', tokenFingerprint: current },
			request,
		);
		expect(out.headers).toEqual({
			'x-kept': '1',
			Accept: 'application/vnd.acme.v1',
			Authorization: 'Bearer at-1',
		});
	});

	test.each([
		['another assertion', { assertion: 'as-edited' }],
		['another Base URL', { baseUrl: 'https://moved.example.com' }],
		['no fingerprint saved yet', { tokenFingerprint: '' }],
		['an expiry in the past', { expiresAt: Date.now() - 1_000 }],
	])(
		'tokens of %s: no bearer at all, so the service answers 401 and n8n renews',
		async (_n, edit) => {
			const out = await type.authenticate(
				{ ...values, accessToken: 'at-1', tokenFingerprint: current, ...edit },
				{ ...request, headers: { Authorization: 'Bearer stale' } },
			);
			expect(out.headers).toEqual({ Accept: 'application/vnd.acme.v1' });
		},
	);

	test('the token never follows a redirect to another origin', async () => {
		const out = await type.authenticate({ ...values, accessToken: 'at-1' }, request);
		expect(out.sendCredentialsOnCrossOriginRedirect).toBe(false);
	});

	test('the default media type when the field is empty', async () => {
		const out = await type.authenticate({ ...values, mediaType: '' }, request);
		expect(out.headers?.Accept).toBe('application/vnd.service.v1');
	});
});

describe('the credential test', () => {
	const test_ = type.test;

	test('reads /webhook_endpoints below the Base URL', () => {
		expect(test_.request).toMatchObject({ url: '/webhook_endpoints', method: 'GET' });
	});

	/** The credential test's baseURL as n8n's own expression engine evaluates it for `baseUrl`. */
	function evaluated(baseUrl: string): unknown {
		const node: INode = {
			id: 'n',
			name: 'Credential test',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const nodeType = { description: { properties: [] } } as unknown as INodeType;
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: {
				getByName: () => nodeType,
				getByNameAndVersion: () => nodeType,
				getKnownTypes: () => ({}),
			},
		});
		return workflow.expression.getSimpleParameterValue(
			node,
			test_.request.baseURL as string,
			'internal',
			{ $credentials: { baseUrl } } as never,
			undefined,
			'',
		);
	}

	test.each([
		['https://api.example.com', 'https://api.example.com'],
		['https://api.example.com/', 'https://api.example.com'],
		['  https://api.example.com//  ', 'https://api.example.com'],
		['\thttps://api.example.com/v1/\n', 'https://api.example.com/v1'],
	])('its Base URL follows the one rule of every other caller: %j → %j', (input, expected) => {
		expect(normaliseBaseUrl(input)).toBe(expected);
		expect(evaluated(input)).toBe(expected);
	});

	test('the expression and normaliseBaseUrl agree on any Base URL a user may type', () => {
		const padding = fc.constantFrom('', ' ', '  ', '\t', '\n', ' \t ');
		const slashes = fc.constantFrom('', '/', '//', '///');
		const path = fc.stringMatching(/^(\/[a-z0-9._~-]{1,8}){0,3}$/);
		fc.assert(
			fc.property(padding, path, slashes, padding, (before, p, s, after) => {
				const input = `${before}https://api.example.com${p}${s}${after}`;
				expect(evaluated(input)).toBe(normaliseBaseUrl(input));
			}),
			{ numRuns: 200 },
		);
	});

	test('only a refused token, a refused media type and a failing service fail it', () => {
		const ignore = test_.request.ignoreHttpStatusErrors as { ignore: true; except: number[] };
		expect(ignore.ignore).toBe(true);
		expect(ignore.except).toEqual(expect.arrayContaining([401, 406, 500, 502, 503, 504]));
		for (const passes of [403, 404, 405, 429, 501]) expect(ignore.except).not.toContain(passes);
	});

	test('each failing status has a rule with a message naming the cause', () => {
		const rules = test_.rules ?? [];
		const except = (test_.request.ignoreHttpStatusErrors as { except: number[] }).except;
		expect(rules.map((r) => (r.properties as { value: number }).value)).toEqual(except);
		expect(rules.every((r) => r.type === 'responseCode')).toBe(true);
		expect(rules.find((r) => (r.properties as { value: number }).value === 406)).toMatchObject({
			properties: { message: expect.stringMatching(/API Media Type/) },
		});
	});
});
