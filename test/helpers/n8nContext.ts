// Runs package code inside n8n-core's real execution contexts (ExecuteContext, HookContext, WebhookContext) with
// n8n-core's real request helpers, so httpRequestWithAuthentication, preAuthentication and authenticate run as in
// n8n. The one stand-in is the credential store: n8n keeps credentials in its database; here they live in memory,
// behind a CredentialsHelper whose preAuthentication is ported line for line from n8n 2.41.1
// (packages/cli/src/credentials-helper.ts). The end-to-end suite proves the real one.
import { ExecuteContext, HookContext, WebhookContext } from 'n8n-core';
import {
	createRunExecutionData,
	ICredentialsHelper,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type ICredentialType,
	type IExecuteData,
	type IHttpRequestHelper,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypes,
	type IVersionedNodeType,
	type IWebhookData,
	type IWorkflowExecuteAdditionalData,
	NodeHelpers,
	Workflow,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { CaptioningApi } from '../../credentials/CaptioningApi.credentials';

export const CREDENTIAL_ID = 'cred-1';

/** n8n's credentials table, for one credential; `saves` counts what preAuthentication persisted. */
export class CredentialStore {
	data: ICredentialDataDecryptedObject;
	saves = 0;
	constructor(initial: ICredentialDataDecryptedObject) {
		this.data = { accessToken: '', refreshToken: '', expiresAt: 0, ...initial };
	}
}

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

class InMemoryCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly store: CredentialStore,
		private readonly type: ICredentialType,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		requestOptions: IHttpRequestOptions,
	) {
		const authenticate = this.type.authenticate;
		if (typeof authenticate !== 'function')
			throw new Error('captioningApi authenticates with a function');
		return authenticate(credentials, requestOptions);
	}

	// ported from n8n 2.41.1 CredentialsHelper.preAuthentication
	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		node: INode,
		credentialsExpired: boolean,
	) {
		const expirableProperty = this.type.properties.find(
			(property) => property.type === 'hidden' && property?.typeOptions?.expirable === true,
		);
		if (expirableProperty?.name === undefined) return undefined;
		const isTestingCredentials =
			node?.parameters?.temp === '' && node?.type === 'n8n-nodes-base.noOp';
		if (typeof this.type.preAuthentication === 'function') {
			if (
				credentials[expirableProperty.name] === '' ||
				credentialsExpired ||
				isTestingCredentials
			) {
				const output = (await this.type.preAuthentication.call(
					helpers,
					credentials,
				)) as ICredentialDataDecryptedObject;
				if (output[expirableProperty.name] === undefined) return undefined;
				if (node.credentials) {
					const storedData = { ...this.store.data };
					const dataToPersist = { ...storedData };
					for (const [key, value] of Object.entries(output)) {
						if (key === expirableProperty.name || !isExpression(storedData[key]))
							dataToPersist[key] = value;
					}
					this.store.data = dataToPersist;
					this.store.saves++;
					return Object.assign(credentials, output);
				}
			}
		}
		return undefined;
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
	) {
		return (await this.type.preAuthentication?.call(helpers, credentials)) as
			| ICredentialDataDecryptedObject
			| undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by the package');
	}

	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		// a fresh copy, as a database read would be
		return { ...this.store.data };
	}

	async updateCredentials(
		_c: INodeCredentialsDetails,
		_t: string,
		data: ICredentialDataDecryptedObject,
	) {
		this.store.data = { ...data };
		this.store.saves++;
	}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties(): INodeProperties[] {
		return this.type.properties;
	}
}

/** A node type that only declares the credential, for calling the request helpers directly. */
export const credentialProbeNodeType: INodeType = {
	description: {
		displayName: 'Credential Probe',
		name: 'credentialProbe',
		group: ['transform'],
		version: 1,
		description: 'test only',
		defaults: { name: 'Credential Probe' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'captioningApi', required: true }],
		properties: [],
	},
};

export interface Harness {
	store: CredentialStore;
	/** n8n's webhook base URL (WEBHOOK_URL + "webhook"); a test may change it between activations. */
	urls: { webhookBaseUrl: string };
	nodeTypes: INodeTypes;
	/**
	 * A node as a workflow holds it, at `typeVersion`: by default the version a new node gets (the last one its type
	 * lists), but 1 for the trigger, whose tests name 2 and 3 where those differ.
	 */
	makeNode(
		type: string,
		parameters?: INode['parameters'],
		name?: string,
		typeVersion?: number,
	): INode;
	additionalData(): IWorkflowExecuteAdditionalData;
	workflow(node: INode, staticData?: Workflow['staticData']): Workflow;
	executeContext(
		node: INode,
		items: INodeExecutionData[],
		workflow?: Workflow,
		mode?: WorkflowExecuteMode,
		/** The execution's cancel signal (getExecutionCancelSignal), as n8n passes it. */
		abortSignal?: AbortSignal,
	): ExecuteContext;
	/** The context n8n gives webhookMethods; `test` gives the editor's "Listen for test event" URL. */
	hookContext(node: INode, workflow: Workflow, mode?: 'production' | 'test'): HookContext;
}

export function createHarness(
	initialCredentials: ICredentialDataDecryptedObject,
	types: Record<string, INodeType | IVersionedNodeType> = {},
	/** The credential class n8n would load: an earlier release's, to run that release's nodes. */
	credentialType: ICredentialType = new CaptioningApi(),
): Harness {
	const store = new CredentialStore(initialCredentials);
	const urls = { webhookBaseUrl: 'http://127.0.0.1:1/webhook' };
	const all: Record<string, INodeType | IVersionedNodeType> = {
		credentialProbe: credentialProbeNodeType,
		...types,
	};
	// as n8n's NodeTypes: a versioned type answers with the node's typeVersion (the trigger's)
	const nodeTypes: INodeTypes = {
		getByName: (name) => all[name],
		// an unknown type: undefined, for n8n-workflow's Workflow to say so
		getByNameAndVersion: (name, version) =>
			all[name] && NodeHelpers.getVersionedNodeType(all[name], version),
		getKnownTypes: () => ({}),
	};
	const helper = new InMemoryCredentialsHelper(store, credentialType);
	const additionalData = () =>
		({
			credentialsHelper: helper,
			executionId: 'exec-1',
			restApiUrl: 'http://127.0.0.1/rest',
			instanceBaseUrl: 'http://127.0.0.1/',
			webhookBaseUrl: urls.webhookBaseUrl,
			webhookTestBaseUrl: urls.webhookBaseUrl.replace(/\/webhook$/, '/webhook-test'),
			webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
			formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
			variables: {},
		}) as unknown as IWorkflowExecuteAdditionalData;
	const newNodeVersion = (type: string) => {
		const version =
			(all[type] && NodeHelpers.getVersionedNodeType(all[type]).description.version) ?? 1;
		return type === 'captioningTrigger' ? 1 : Array.isArray(version) ? version.at(-1)! : version;
	};
	const makeNode = (
		type: string,
		parameters: INode['parameters'] = {},
		name = 'Captioning',
		typeVersion = newNodeVersion(type),
	): INode => ({
		id: 'node-1',
		name,
		type,
		typeVersion,
		position: [0, 0],
		parameters,
		credentials: { captioningApi: { id: CREDENTIAL_ID, name: 'Captioning account' } },
		webhookId: 'a1b2c3d4-0000-4000-8000-000000000001',
	});
	const workflow = (node: INode, staticData: Workflow['staticData'] = {}) =>
		new Workflow({
			id: 'wf-1',
			name: 'Test workflow',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData,
		});
	return {
		store,
		urls,
		nodeTypes,
		makeNode,
		additionalData,
		workflow,
		executeContext(node, items, wf = workflow(node), mode = 'manual', abortSignal) {
			const executeData: IExecuteData = {
				node,
				data: { main: [items] },
				source: { main: [{ previousNode: 'Start' }] },
			};
			return new ExecuteContext(
				wf,
				node,
				additionalData(),
				mode,
				createRunExecutionData(),
				0,
				items,
				{ main: [items] },
				executeData,
				[],
				abortSignal,
			);
		},
		hookContext(node, wf, mode = 'production') {
			const data = additionalData();
			const webhookData: IWebhookData = {
				httpMethod: 'POST',
				node: node.name,
				path: 'webhook',
				webhookDescription: { name: 'default', httpMethod: 'POST', path: 'webhook' },
				workflowId: wf.id,
				workflowExecuteAdditionalData: data,
				webhookId: node.webhookId,
				isTest: mode === 'test',
			} as IWebhookData;
			return new HookContext(
				wf,
				node,
				data,
				mode === 'test' ? 'manual' : 'trigger',
				'activate',
				webhookData,
			);
		},
	};
}

export { WebhookContext };
