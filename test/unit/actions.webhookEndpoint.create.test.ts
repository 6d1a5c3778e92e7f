// Decisions of the action node's operations (actions/<resource>/<operation>.operation.ts), branch by branch.
import {
	createdItem,
	validateCallbackUri,
} from '../../nodes/Captioning/actions/webhookEndpoint/create.operation';
import { gotItem } from '../../nodes/Captioning/actions/webhookEndpoint/get.operation';
import { listedItems } from '../../nodes/Captioning/actions/webhookEndpoint/getAll.operation';
import { createdEndpoint } from '../../nodes/Captioning/transport/webhookEndpoints';

describe('validateCallbackUri', () => {
	test('absolute http(s) URIs pass; anything else says what to use', () => {
		expect(validateCallbackUri('https://example.com/hook?x=1')).toBeUndefined();
		expect(validateCallbackUri('http://127.0.0.1:5678/webhook/a/webhook')).toBeUndefined();
		expect(validateCallbackUri('/relative')).toBe(
			'"/relative" is not an absolute URI. Use the full address, starting with https://.',
		);
		expect(validateCallbackUri('mailto:a@b.c')).toBe(
			'The callback URI must use http or https, not mailto.',
		);
	});
});

describe('the outputs of Create, Get and Get Many: what the service stored, as stored', () => {
	const TOKEN = 'tok3n-value-1234';
	const URI = `https://n8n.example.com/webhook/a/webhook?token=${TOKEN}`;
	const REDACTED = 'https://n8n.example.com/webhook/a/webhook?token=[redacted]';

	test('Create: the echoed URI and events, redacted; what the answer did not show is said', () => {
		const sent = { callbackUri: URI, events: ['transcription.created'] };
		const stored = `https://N8N.example.com/webhook/a/webhook/?token=${TOKEN}`;
		const echo = { data: { id: '007', attributes: { callback_uri: stored, enabled_events: [] } } };
		expect(createdItem(createdEndpoint({ headers: {}, body: echo }, sent))).toEqual({
			id: '007',
			callback_uri: 'https://N8N.example.com/webhook/a/webhook/?token=[redacted]',
			enabled_events: [],
		});
		expect(createdItem(createdEndpoint({ headers: {}, body: { id: 4294967297 } }, sent))).toEqual({
			id: '4294967297',
			callback_uri: REDACTED,
			enabled_events: ['transcription.created'],
			note: 'The service’s answer did not show the callback URI it stored: callback_uri is the one sent. The service’s answer did not show the enabled_events it stored: enabled_events are the ones sent.',
		});
	});

	test('Get: the id asked for where the record has none; events it did not show are said', () => {
		expect(gotItem({ callback_uri: URI }, '0042')).toEqual({
			id: '0042',
			callback_uri: REDACTED,
			enabled_events: [],
			note: 'The service’s answer did not show the endpoint’s enabled_events.',
		});
		expect(gotItem({ id: '7', callback_uri: URI, enabled_events: ['a'] }, '8')).toEqual({
			id: '7',
			callback_uri: REDACTED,
			enabled_events: ['a'],
		});
		expect(gotItem({ id: '7' }, '7')).toBeUndefined();
	});

	test('Get Many: each endpoint redacted; one listed without an id says so; items that are none, a hint', () => {
		const listed = listedItems({
			endpoints: [
				{ id: null, callback_uri: URI, enabled_events: ['a'] },
				{ id: '1', callback_uri: 'https://x/y', enabled_events: [] },
			],
			skipped: '1 item of the list is not a webhook endpoint (no callback_uri) and is left out',
		});
		expect(listed).toEqual({
			items: [
				{
					id: null,
					callback_uri: REDACTED,
					enabled_events: ['a'],
					note: 'The service listed the endpoint without its ID.',
				},
				{ id: '1', callback_uri: 'https://x/y', enabled_events: [] },
			],
			hints: [
				"The service's list of webhook endpoints was read, but 1 item of the list is not a webhook endpoint (no callback_uri) and is left out.",
			],
		});
	});
});
