import { endpointSearchResults } from '../../nodes/Captioning/actions/webhookEndpoint/listSearch';
import type { WebhookEndpoint } from '../../nodes/Captioning/transport/webhookEndpoints';

const endpoint = (id: string | null, uri: string, events: string[] = []): WebhookEndpoint => ({
	id,
	callback_uri: uri,
	enabled_events: events,
});

describe('endpointSearchResults', () => {
	const endpoints = [
		endpoint('1', 'https://example.com/a', ['transcription.created']),
		endpoint(null, 'https://example.com/no-id', ['transcription.created']),
		endpoint('2', 'https://example.com/b?token=abc&x=1'),
	];

	it('leaves out endpoints without an ID: they cannot be picked', () => {
		expect(endpointSearchResults(endpoints).map((r) => r.value)).toEqual(['1', '2']);
	});

	it('names an endpoint by its URI with the token redacted, and says its events and ID', () => {
		expect(endpointSearchResults(endpoints)).toEqual([
			{ name: 'https://example.com/a', value: '1', description: 'transcription.created (ID 1)' },
			{ name: 'https://example.com/b?token=[redacted]&x=1', value: '2', description: 'ID 2' },
		]);
	});

	it('filters on URI, ID and events, trimmed and ignoring case; a blank filter keeps all', () => {
		expect(endpointSearchResults(endpoints, '  EXAMPLE.COM/B ').map((r) => r.value)).toEqual(['2']);
		expect(endpointSearchResults(endpoints, 'created').map((r) => r.value)).toEqual(['1']);
		expect(endpointSearchResults(endpoints, '2').map((r) => r.value)).toEqual(['2']);
		expect(endpointSearchResults(endpoints, 'abc')).toEqual([]);
		expect(endpointSearchResults(endpoints, '   ')).toHaveLength(2);
	});
});
