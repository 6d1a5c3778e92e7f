// What the workflows of test/fixtures/saved-0.1.0 output, written by hand from a run of 0.1.0's own build (the
// package at commit 43e99bc, built in a temporary folder, its nodes run against the sandbox in n8n-core's
// contexts: 2026-12-02), and what the same workflows output at typeVersion 2. Values the service chose (ids, times,
// signed URLs, the sandbox's random word timings) come from what the sandbox stored or sent; the shapes, names
// and everything else are written here.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { WebhookEndpoint as SandboxEndpoint } from '../../sandbox/webhookEndpoints';

/** Where the output came from: this package at a typeVersion, or 0.1.0's own build (its typeVersion 1). */
export type Producer = { typeVersion: 1 | 2 } | { release: '0.1.0' };

const version = (producer: Producer) => ('release' in producer ? 1 : producer.typeVersion);

/** Convert's `warnings` (every block a reader left out): the one member 0.1.0's items lack. */
const warned = (producer: Producer): IDataObject => ('release' in producer ? {} : { warnings: [] });

export const jsonOf = (items: INodeExecutionData[] | undefined) => (items ?? []).map((i) => i.json);

// ---- webhook-endpoints.json -----------------------------------------------------------------------------------

/** An endpoint as Create, Get and Get Many output it: 0.1.0's JSON:API resource at version 1, flat from 2. */
export function endpointItem(endpoint: SandboxEndpoint, sandboxUrl: string, producer: Producer) {
	const attributes = {
		callback_uri: endpoint.callbackUri,
		enabled_events: endpoint.enabledEvents,
		created_at: endpoint.createdAt,
	};
	if (version(producer) >= 2) return { id: endpoint.id, ...attributes };
	return {
		id: endpoint.id,
		type: 'webhook_endpoint',
		attributes,
		links: { self: `${sandboxUrl}/webhook_endpoints/${endpoint.id}` },
	};
}

/** Every node's output JSON in webhook-endpoints.json, for the one endpoint Create registered. */
export function endpointsWorkflowOutputs(
	endpoint: SandboxEndpoint,
	sandboxUrl: string,
	producer: Producer,
): Record<string, unknown[]> {
	const item = endpointItem(endpoint, sandboxUrl, producer);
	return {
		Webhook: [{ headers: {}, params: {}, query: {}, body: {} }],
		'Create Endpoint': [item],
		'List Endpoints': [item],
		'Get Endpoint': [item],
		'Delete Endpoint': [{ id: endpoint.id, deleted: true }],
	};
}

// ---- captions.json --------------------------------------------------------------------------------------------

interface DeliveredEvent {
	data: {
		id: string;
		attributes: { created_at: string; event_type: string };
		relationships: { subject: { data: { id: string } } };
	};
	included: Array<{
		attributes: {
			title: string;
			duration: number;
			average_confidence: number;
			media: { url: string };
			transcriptions: Array<{ format: string; url: string }>;
		};
	}>;
}

/** The Captioning Trigger's item for a delivered `transcription.transcribed` event, flattened here by hand. */
export function triggerItem(body: string): IDataObject {
	const event = JSON.parse(body) as DeliveredEvent;
	const [transcription] = event.included;
	const files = Object.fromEntries(
		transcription.attributes.transcriptions.map(({ format, url }) => [format, url]),
	);
	return {
		eventId: event.data.id,
		eventType: event.data.attributes.event_type,
		createdAt: event.data.attributes.created_at,
		transcriptionId: event.data.relationships.subject.data.id,
		title: transcription.attributes.title,
		duration: transcription.attributes.duration,
		averageConfidence: transcription.attributes.average_confidence,
		mediaUrl: transcription.attributes.media.url,
		files,
		formats: Object.keys(files),
	};
}

/** A WebVTT file of cues without settings as SRT, by the formats' definitions: no header, commas in the times. */
export const vttAsSrt = (vtt: string) =>
	vtt.replace(/^WEBVTT\n\n/, '').replace(/(\d\d:\d\d:\d\d)\.(\d{3})/g, '$1,$2');

/** "Segments": the fixture's two WebVTT cues, the second spoken by Ann. */
export const VTT_SEGMENTS = [
	{
		start: 1,
		end: 4,
		startTime: '00:00:01.000',
		endTime: '00:00:04.000',
		text: 'Hello world.',
	},
	{
		start: 4.5,
		end: 8,
		startTime: '00:00:04.500',
		endTime: '00:00:08.000',
		text: 'This is a caption test.',
		voice: 'Ann',
	},
];

/**
 * "Cues from Words": sixteen words of 0.4 s every 0.5 s, without a clause between them. Without Max Cue Duration
 * 0.1.0 cut such cues at 5 s (ten words); version 2 at the 6 s its field has always shown (twelve).
 */
export function wordCues(producer: Producer) {
	if (version(producer) >= 2) {
		return [
			{
				start: 0,
				end: 5.9,
				startTime: '00:00:00.000',
				endTime: '00:00:05.900',
				text: 'one two three four five six seven eight nine ten eleven twelve',
			},
			{
				start: 6,
				end: 7.9,
				startTime: '00:00:06.000',
				endTime: '00:00:07.900',
				text: 'thirteen fourteen fifteen sixteen',
			},
		];
	}
	return [
		{
			start: 0,
			end: 4.9,
			startTime: '00:00:00.000',
			endTime: '00:00:04.900',
			text: 'one two three four five six seven eight nine ten',
		},
		{
			start: 5,
			end: 7.9,
			startTime: '00:00:05.000',
			endTime: '00:00:07.900',
			text: 'eleven twelve thirteen fourteen fifteen sixteen',
		},
	];
}

/** Every node's output JSON in captions.json, for one delivered event (the trigger's item, as flattened above). */
export function captionsWorkflowOutputs(
	trigger: IDataObject,
	producer: Producer,
): Record<string, unknown[]> {
	const cues = { ...trigger, segments: wordCues(producer), ...warned(producer) };
	return {
		'Captioning Trigger': [trigger],
		'Download VTT': [trigger],
		'Convert to SRT': [{ ...trigger, ...warned(producer) }],
		Transcript: [{ ...trigger, text: 'Hello world. This is a caption test.', ...warned(producer) }],
		'Cues from Words': [cues],
		Segments: [{ ...cues, segments: VTT_SEGMENTS, ...warned(producer) }],
	};
}

// ---- ai-tool.json ---------------------------------------------------------------------------------------------

/**
 * What the agent's tool answers: at version 1 (and in 0.1.0) its ordinary item; from version 2 the converted value
 * alone, bounded by Max Output Characters (20,000 by default, which the segments stay below).
 */
export function toolOutputs(producer: Producer): Record<string, unknown[]> {
	const item =
		version(producer) >= 2
			? { segments: VTT_SEGMENTS }
			: { segments: VTT_SEGMENTS, ...warned(producer) };
	return { Webhook: [{ headers: {}, params: {}, query: {}, body: {} }], 'Read Captions': [item] };
}
