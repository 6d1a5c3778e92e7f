import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
	IHookFunctions,
	INodeCredentialDescription,
	INodeCredentialTestResult,
	INodeProperties,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, sleep, VersionedNodeType } from 'n8n-workflow';

import { CAPTION_FORMAT_OPTIONS } from './captions/formats';
import { EVENT_OPTIONS, EVENT_TYPES } from './shared/constants';
import {
	allowedHostsProperty,
	attachDownloads,
	checkExists,
	DEFAULT_MAX_FILE_MB,
	DOWNLOAD_BUDGET_MS,
	type Clock,
	create,
	dedupeKey,
	downloadPolicy,
	givenToken,
	manualSecret,
	maxBytesFrom,
	n8nResolver,
	OPEN_MANUAL_WARNING,
	parsedByN8n,
	readRawBody,
	readRegistration,
	receiveDelivery,
	remove,
	secretTokenProblem,
	TOKEN_PARAMETER,
	TOKEN_ROUTE,
	type TriggerOptions,
} from './trigger';

const is2xx = (status: number) => status >= 200 && status < 300;

// The panel the editor shows beside the parameters (n8n 2.41.1 and 1.123.81 alike): its texts are shown as they
// are, with no placeholder filled in, so they name where the URLs are rather than the URLs themselves.
const WEBHOOK_URL_ADVICE =
	"<b>The service must reach these URLs.</b> n8n builds them from <code>N8N_WEBHOOK_URL</code> (in n8n 1.x: <code>WEBHOOK_URL</code>), an environment variable of n8n's process: set it to n8n's public https address (e.g. https://n8n.example.com/) and restart n8n. Without it they start with http://localhost:5678/, which only n8n's own machine reaches, and publishing is refused.";
const TEST_URL_HELP =
	'<b>While building your workflow</b>, click <b>Execute step</b>: the trigger registers its <b>Test URL</b> (under Webhook URLs in the parameters) with the service and listens for 2 minutes. Make the service transcribe something: the event shows up in this editor. With Manual registration, paste the Test URL into the dashboard yourself.';
const TRIGGER_PANEL = {
	header: 'Starts the workflow on transcription events',
	executionsHelp: {
		inactive: `${TEST_URL_HELP}<br /><br /><b>Once the workflow is ready</b>, publish it (in n8n 1.x: set it Active): the trigger registers its <b>Production URL</b>, and every selected event starts an execution, shown in the <a data-key="executions">executions list</a>, not here.<br /><br />${WEBHOOK_URL_ADVICE}`,
		active: `<b>This workflow is published</b>: the service sends every selected event to the trigger's <b>Production URL</b> (under Webhook URLs in the parameters), and each starts an execution, shown in the <a data-key="executions">executions list</a>, not here.<br /><br />${TEST_URL_HELP}<br /><br />${WEBHOOK_URL_ADVICE}`,
	},
	activationHint: {
		inactive:
			"Publish the workflow to register its Production URL (under Webhook URLs) with the service, which must reach it: n8n builds it from N8N_WEBHOOK_URL (in n8n 1.x: WEBHOOK_URL), n8n's public address.",
		active:
			'Published: the service sends the selected events to the Production URL (under Webhook URLs); those executions show in the executions list, not here.',
	},
};
const clock: Clock = { nowMs: () => Date.now(), sleep };

// Each typeVersion's description holds only its own properties and credentials, so that n8n, which resolves a
// node's description several times for every request (three Workflow builds, the webhook lookup, the issues
// check), works through no property a version does not show (docs/design.md, "One description per version").
const REGISTRATION: INodeProperties = {
	displayName: 'Registration',
	name: 'registration',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Automatic (via the API)',
			value: 'api',
			description:
				'Register this workflow’s URL with the service when the workflow is published (n8n 1.x: activated)',
		},
		{
			name: 'Manual (in the Dashboard)',
			value: 'manual',
			description: 'You paste the URL into the service’s developers dashboard yourself',
		},
	],
	default: 'api',
};

/** Manual registration's notice: what to paste into the dashboard, naming where the Secret Token is. */
const manualNotice = (secretToken: string): INodeProperties => ({
	displayName: `Publish the workflow (n8n 1.x: activate it), then paste its Production URL (under Webhook URLs above) followed by ?token= and ${secretToken} into the service’s developers dashboard, with the same events. The Test URL works only while Execute step waits for an event (n8n 1.x: the button that listens for a test event).`,
	name: 'manualNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { registration: ['manual'] } },
});

/** Version 3's: the Secret Token is in the Webhook Secret credential. */
const MANUAL_NOTICE = manualNotice(
	'the Secret Token of the Captioning Webhook Secret API credential',
);

/** Versions 1 and 2 (0.1.0's): the Secret Token is a parameter of the node. */
const MANUAL_NOTICE_V1_2 = manualNotice('the Secret Token below');

const EVENTS: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	noDataExpression: true,
	required: true,
	options: EVENT_OPTIONS,
	default: [...EVENT_TYPES],
	description: 'Which events start the workflow; others are acknowledged and ignored',
};

const OPEN_MANUAL_NOTICE: INodeProperties = {
	// a trigger saved by 0.1.0 (typeVersion 1 or 2) with no Secret Token still runs: it says so here and
	// in n8n's log at every publication
	displayName: OPEN_MANUAL_WARNING,
	name: 'openManualWarning',
	type: 'notice',
	default: '',
	displayOptions: { show: { registration: ['manual'], manualToken: [''] } },
};

const MANUAL_TOKEN: INodeProperties = {
	displayName: 'Secret Token',
	name: 'manualToken',
	type: 'string',
	typeOptions: { password: true },
	default: '',
	displayOptions: { show: { registration: ['manual'] } },
	description:
		'Only requests whose URL ends in ?token=&lt;this value&gt; start the workflow: append it to the URL you paste into the dashboard. Empty (as 0.1.0 saved it): any request does, and no caption file is downloaded. A new Captioning Trigger keeps it in a credential instead.',
};

const OPTIONS: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [
		{
			...allowedHostsProperty,
			description:
				'The trigger fetches files from public addresses and from the origin of the credential’s Base URL only. List other trusted file servers here: host names (any port, or host:port), *.suffixes, addresses or ranges, separated by commas.',
		},
		{
			displayName: 'Download Caption Files',
			name: 'downloadFormats',
			type: 'multiOptions',
			options: CAPTION_FORMAT_OPTIONS,
			default: [],
			description:
				'Fetch these files into binary properties when the event arrives (their signed URLs expire soon after), and add the plain transcript text to the item',
		},
		{
			displayName: 'Max File Size (MB)',
			name: 'maxFileSize',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: DEFAULT_MAX_FILE_MB,
			description:
				'The largest caption file Download Caption Files fetches; a larger one is not downloaded and the item says so under downloadErrors',
		},
		{
			displayName: 'Raw Body',
			name: 'rawBody',
			type: 'boolean',
			default: false,
			description:
				'Whether to output the event exactly as the service sent it (JSON:API) instead of a flattened item',
		},
	],
};

const API_CREDENTIAL: INodeCredentialDescription = {
	name: 'captioningApi',
	required: true,
	// `hide`, not `show: ['api']`: a parameter all of whose values show a credential is taken by n8n's editor for
	// the node's authentication choice and moved out of the panel (getMainAuthField)
	displayOptions: { hide: { registration: ['manual'] } },
};

const BASE_DESCRIPTION: INodeTypeBaseDescription = {
	displayName: 'Captioning Trigger',
	name: 'captioningTrigger',
	icon: { light: 'file:captioning.svg', dark: 'file:captioning.dark.svg' },
	group: ['trigger'],
	description:
		'Starts the workflow when the captioning service creates or finishes a transcription',
	// 2: n8n 2.x evaluates an expression for every request to a version-1 trigger (webhook-helpers'
	// parseRequestBody reads options.binaryData). 3: manual registration has to have a Secret Token (1 and 2
	// keep 0.1.0's optional one, with a warning). Otherwise the versions behave the same.
	defaultVersion: 3,
};

/** What every typeVersion's description has besides its own credentials and properties. */
const SHARED_DESCRIPTION = {
	defaults: { name: 'Captioning Trigger' },
	inputs: [],
	outputs: [NodeConnectionTypes.Main],
	// the editor's words while it listens for a test event, and after the workflow is published
	eventTriggerDescription: 'Waiting for the captioning service to send a selected event',
	activationMessage:
		'The captioning service now sends the selected events to this workflow’s production URL, and each one starts an execution.',
	triggerPanel: TRIGGER_PANEL,
	webhooks: [
		{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		// the token route: the token as the last path segment, for services that refuse or drop a callback
		// URI's query. A static path, so that n8n evaluates nothing for it per request; n8n keeps it under the
		// node's webhook ID (one per node) and routes it at <id>/<id>/<token>, as the expression path of
		// earlier versions (docs/design.md, "Where the token travels")
		{
			name: TOKEN_ROUTE,
			httpMethod: 'POST',
			responseMode: 'onReceived',
			path: `:${TOKEN_PARAMETER}`,
			ndvHideUrl: true,
		},
	],
} satisfies Partial<INodeTypeDescription>;

/** What every typeVersion of the Captioning Trigger does: its credential test, its hooks and webhook(). */
abstract class CaptioningTriggerNode {
	abstract description: INodeTypeDescription;

	methods = {
		credentialTest: {
			// nothing to ask the service: the Secret Token is checked for what makes it usable in a URL
			async secretToken(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const secret = credential.data?.secretToken;
				const problem = secretTokenProblem(typeof secret === 'string' ? secret : '');
				return problem
					? { status: 'Error', message: problem }
					: { status: 'OK', message: 'The Secret Token can be used in the URL.' };
			},
		},
	};

	webhookMethods = {
		default: {
			checkExists(this: IHookFunctions) {
				return checkExists.call(this);
			},
			create(this: IHookFunctions) {
				return create.call(this);
			},
			delete(this: IHookFunctions) {
				return remove.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const res = this.getResponseObject();
		const staticData = this.getWorkflowStaticData('node');
		const mode = this.getMode();

		// n8n copies the node for every getNode(): one copy per request
		const node = this.getNode();
		const registration = this.getNodeParameter('registration', 'api');
		const decision = await receiveDelivery(
			{
				registration,
				// only a manual trigger has one: n8n throws (an error built per request) for the credential it lacks
				manualToken: registration === 'manual' ? await manualSecret(this) : undefined,
				typeVersion: node.typeVersion,
				// read only: a delivery writes nothing into the static data, which n8n saves whole, from the copy the
				// request read (docs/design.md, "Nothing written per delivery"); activation migrates 0.1.0's token
				registeredTokenHash: readRegistration(staticData)?.tokenHash,
				givenToken: givenToken(this.getWebhookName(), this.getQueryData(), this.getParamsData()),
				contentType: req.headers['content-type'],
				rawBody: await readRawBody(req),
				n8nParsed: parsedByN8n(req),
				selectedEvents: this.getNodeParameter('events', []) as string[],
				options: this.getNodeParameter('options', {}) as TriggerOptions,
			},
			{
				key: dedupeKey(this.getWorkflow().id, node.id, mode),
				answered: () => (res.writableEnded ? is2xx(res.statusCode) : undefined),
				onAnswered: (listener) => res.once('finish', () => listener(is2xx(res.statusCode))),
			},
			clock,
		);

		const answer = (status: number, body: IDataObject): IWebhookResponseData => {
			res.status(status).json(body);
			return { noWebhookResponse: true };
		};
		switch (decision.kind) {
			case 'reject':
				return answer(decision.status, { error: decision.message });
			case 'ignore':
				return answer(200, { received: true, ignored: decision.message });
			case 'duplicate':
				return answer(200, { received: true, duplicate: true });
		}
		// n8n answers once the execution exists (1.x: as it creates it): a crash before that is redelivered
		if (decision.downloads.length === 0) return { workflowData: [[decision.item]] };
		const maxFileSize = this.getNodeParameter('options.maxFileSize', DEFAULT_MAX_FILE_MB);
		const { policy, problems } = await downloadPolicy(this);
		await attachDownloads(
			decision.item,
			decision.downloads,
			{
				http: (o) => this.helpers.httpRequest(o),
				resolve: n8nResolver(this.helpers),
				prepareBinaryData: (data, fileName, mimeType) =>
					this.helpers.prepareBinaryData(data, fileName, mimeType),
			},
			{
				maxBytes: maxBytesFrom(maxFileSize),
				budgetMs: DOWNLOAD_BUDGET_MS,
				policy,
				policyProblems: problems,
			},
		);
		// the files are on the item before anything answers: a crash during the downloads is redelivered too
		// (docs/design.md, "Downloads")
		return { workflowData: [[decision.item]] };
	}
}

/**
 * Versions 1 and 2 (0.1.0's): the Secret Token of manual registration in a parameter, and a warning while it is
 * empty. Each version's description is a literal of its class, as n8n's lint reads descriptions.
 */
class CaptioningTriggerV1 extends CaptioningTriggerNode implements INodeType {
	description: INodeTypeDescription = {
		...BASE_DESCRIPTION,
		...SHARED_DESCRIPTION,
		icon: { light: 'file:captioning.svg', dark: 'file:captioning.dark.svg' },
		group: ['trigger'],
		subtitle: '={{$parameter["events"].join(", ")}}',
		version: [1, 2],
		credentials: [API_CREDENTIAL],
		properties: [
			REGISTRATION,
			MANUAL_NOTICE_V1_2,
			EVENTS,
			OPEN_MANUAL_NOTICE,
			MANUAL_TOKEN,
			OPTIONS,
		],
	};
}

/** Version 3: the Secret Token of manual registration in a required Webhook Secret credential. */
class CaptioningTriggerV3 extends CaptioningTriggerNode implements INodeType {
	description: INodeTypeDescription = {
		...BASE_DESCRIPTION,
		...SHARED_DESCRIPTION,
		icon: { light: 'file:captioning.svg', dark: 'file:captioning.dark.svg' },
		group: ['trigger'],
		subtitle: '={{$parameter["events"].join(", ")}}',
		version: 3,
		credentials: [
			API_CREDENTIAL,
			{
				// SECRET_CREDENTIAL (trigger/manualSecret.ts), spelled out: n8n's lint reads the name from here
				name: 'captioningWebhookSecretApi',
				required: true,
				testedBy: 'secretToken',
				displayOptions: { show: { registration: ['manual'] } },
			},
		],
		properties: [REGISTRATION, MANUAL_NOTICE, EVENTS, OPTIONS],
	};
}

/**
 * The Captioning Trigger, typeVersions 1 to 3: one description each (n8n asks getNodeType(version) for it), the
 * same credential test, hooks and webhook() for all. Each version its own instance: n8n's loader writes into a
 * version's description (communityNodePackageVersion, the codex) and may add to its properties.
 */
export class CaptioningTrigger extends VersionedNodeType {
	constructor() {
		super(
			{ 1: new CaptioningTriggerV1(), 2: new CaptioningTriggerV1(), 3: new CaptioningTriggerV3() },
			BASE_DESCRIPTION,
		);
	}
}
