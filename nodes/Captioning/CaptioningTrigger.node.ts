import type {
	IDataObject,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, sleep } from 'n8n-workflow';

import { CAPTION_FORMAT_OPTIONS, EVENT_OPTIONS, EVENT_TYPES } from './shared/constants';
import { transcriptFromCaptions } from './shared/captions';
import { fetchSignedFile } from './shared/download';
import { checkExists, create, remove } from './trigger/lifecycle';
import {
	checkToken,
	DEDUPE_LIMIT,
	flattenEvent,
	isJsonContentType,
	isSelectedEvent,
	readDeliveryBody,
	rememberEvent,
	type Rejection,
	validateEvent,
} from './trigger/receive';
import { readRegistration, TOKEN_PARAMETER } from './trigger/registration';
import {
	attachList,
	CLAIM_POLL_MS,
	claimInProcess,
	MAX_CLAIM_WAIT_MS,
	mergeSeen,
	settleInProcess,
	startedInProcess,
} from './trigger/recent';

const is2xx = (status: number) => status >= 200 && status < 300;

export class CaptioningTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Captioning Trigger',
		name: 'captioningTrigger',
		icon: { light: 'file:captioning.svg', dark: 'file:captioning.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description:
			'Starts the workflow when the captioning service creates or finishes a transcription',
		defaults: { name: 'Captioning Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'captioningApi',
				required: true,
				displayOptions: { show: { registration: ['api'] } },
			},
		],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties: [
			{
				displayName: 'Registration',
				name: 'registration',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Automatic (via the API)',
						value: 'api',
						description:
							'Register this workflow’s URL with the service when the workflow is activated',
					},
					{
						name: 'Manual (in the Dashboard)',
						value: 'manual',
						description: 'You paste the URL into the service’s developers dashboard yourself',
					},
				],
				default: 'api',
			},
			{
				displayName:
					'Activate the workflow, then paste its Production URL (under Webhook URLs above) into the service’s developers dashboard with the same events. The Test URL works only while "Listen for test event" is running.',
				name: 'manualNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { registration: ['manual'] } },
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				noDataExpression: true,
				required: true,
				options: EVENT_OPTIONS,
				default: [...EVENT_TYPES],
				description: 'Which events start the workflow; others are acknowledged and ignored',
			},
			{
				displayName: 'Secret Token',
				name: 'manualToken',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				displayOptions: { show: { registration: ['manual'] } },
				description:
					'Optional. When set, only requests whose URL ends in ?token=&lt;this value&gt; start the workflow: append it to the URL you paste into the dashboard.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
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
						displayName: 'Raw Body',
						name: 'rawBody',
						type: 'boolean',
						default: false,
						description:
							'Whether to output the event exactly as the service sent it (JSON:API) instead of a flattened item',
					},
				],
			},
		],
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
		const answer = (status: number, body: IDataObject): IWebhookResponseData => {
			res.status(status).json(body);
			return { noWebhookResponse: true };
		};
		const reject = ({ status, message }: Rejection) => answer(status, { error: message });

		const manual = this.getNodeParameter('registration', 'api') === 'manual';
		const staticData = this.getWorkflowStaticData('node');
		if (!manual || this.getNodeParameter('manualToken', '')) {
			const expected = manual
				? (this.getNodeParameter('manualToken', '') as string)
				: readRegistration(staticData)?.token;
			const refused = checkToken(expected, (this.getQueryData() as IDataObject)[TOKEN_PARAMETER]);
			if (refused) return reject(refused);
		}

		const contentType = req.headers['content-type'];
		// n8n has already streamed a multipart/form-data body into its form parser: reading it again throws,
		// and an exception here makes n8n answer 500 and record a failed execution
		if (!req.rawBody && isJsonContentType(contentType)) {
			try {
				await req.readRawBody();
			} catch {
				return reject({ status: 400, message: 'The request body could not be read.' });
			}
		}
		const body = readDeliveryBody(contentType, req.rawBody);
		if (!body.ok) return reject(body.rejection);
		const validated = validateEvent(body.body);
		if (!validated.ok) return reject(validated.rejection);
		const event = validated.event;

		const eventType = event.data.attributes.event_type;
		if (!isSelectedEvent(eventType, this.getNodeParameter('events', []) as string[])) {
			return answer(200, { received: true, ignored: `event type ${eventType} is not selected` });
		}

		// the service redelivers after a non-2xx; an id already started must not start a second execution:
		// trigger/recent.ts knows this process's starts, the static data those of other processes and runs
		const triggerKey = `${this.getWorkflow().id}:${this.getNode().id}`;
		const eventId = event.data.id;
		const nowSeconds = Math.floor(Date.now() / 1000);
		const answered = () => (res.writableEnded ? is2xx(res.statusCode) : undefined);
		let claim = claimInProcess(triggerKey, eventId, nowSeconds, answered);
		// a copy that arrives while another request starts the event waits for the outcome of that start
		for (let waitedMs = 0; claim.state === 'starting'; waitedMs += CLAIM_POLL_MS) {
			if (waitedMs >= MAX_CLAIM_WAIT_MS) {
				return answer(409, {
					error:
						'An earlier delivery of this event is still being started: deliver it again later.',
				});
			}
			await Promise.race([claim.settled, sleep(CLAIM_POLL_MS)]);
			claim = claimInProcess(triggerKey, eventId, nowSeconds, answered);
		}
		if (claim.state === 'started') return answer(200, { received: true, duplicate: true });
		// n8n answers 2xx once the execution exists (queued, in queue mode)
		res.once('finish', () => settleInProcess(triggerKey, eventId, is2xx(res.statusCode)));
		const remembered = rememberEvent(staticData.seenEvents, eventId, nowSeconds);
		if (remembered.duplicate) {
			settleInProcess(triggerKey, eventId, true);
			return answer(200, { received: true, duplicate: true });
		}
		const seen = mergeSeen(
			remembered.seen,
			startedInProcess(triggerKey, DEDUPE_LIMIT),
			DEDUPE_LIMIT,
		);
		attachList(triggerKey, eventId, seen);
		staticData.seenEvents = seen;

		const options = this.getNodeParameter('options', {}) as {
			downloadFormats?: string[];
			rawBody?: boolean;
		};
		const flat = flattenEvent(event);
		const item: INodeExecutionData = { json: options.rawBody ? (body.body as IDataObject) : flat };
		const formats = options.downloadFormats ?? [];
		const files = flat.files as Record<string, string>;
		const wanted = formats.filter((format) => files[format]);
		if (wanted.length === 0) return { workflowData: [[item]] };

		// contract 6.2.3: answer first, download after, so slow file servers never delay the 2xx
		res.status(200).json({ received: true });
		item.binary = {};
		const errors: IDataObject[] = [];
		const texts: Record<string, string> = {};
		for (const format of wanted) {
			const outcome = await fetchSignedFile(
				(o) => this.helpers.httpRequest(o),
				files[format],
				format,
				flat.title,
			);
			if (!outcome.ok) {
				errors.push({ format, message: outcome.message });
				continue;
			}
			const { data, fileName, mimeType } = outcome.file;
			item.binary[format] = await this.helpers.prepareBinaryData(data, fileName, mimeType);
			texts[format] = data.toString('utf8');
		}
		const source = texts.google_stt !== undefined ? 'google_stt' : 'vtt';
		if (texts[source] !== undefined) {
			const transcript = safeTranscript(source, texts[source]);
			if (transcript !== undefined) item.json.transcript = transcript;
		}
		if (errors.length) item.json.downloadErrors = errors;
		return { noWebhookResponse: true, workflowData: [[item]] };
	}
}

function safeTranscript(format: string, content: string): string | undefined {
	try {
		return transcriptFromCaptions(format, content);
	} catch {
		return undefined;
	}
}
