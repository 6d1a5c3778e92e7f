// What the Webhook Endpoint operations output by typeVersion (1: the JSON:API resource 0.1.0 output; 2: flat), and
// the reading that keeps a resource's own members for version 1, branch by branch.
import {
	endpointOutput,
	FLAT_ENDPOINTS_FROM_VERSION,
	readOptionsFor,
} from '../../nodes/Captioning/actions/webhookEndpoint/output';
import {
	createdEndpoint,
	readEndpoint,
	readEndpointDocument,
	readEndpointPage,
	redactEndpoint,
	RESOURCE_MEMBERS,
	withNote,
} from '../../nodes/Captioning/transport/webhookEndpoints';

const URI = 'https://example.com/hooks/captions';
const EVENTS = ['transcription.created', 'transcription.transcribed'];
const CREATED = '2026-11-22T10:00:00.000Z';
const SELF = 'https://api.example.com/webhook_endpoints/ep-1';
const resource = {
	id: 'ep-1',
	type: 'webhook_endpoint',
	attributes: { callback_uri: URI, enabled_events: EVENTS, created_at: CREATED },
	links: { self: SELF },
};
const asVersion1 = { resourceMembers: true };

describe('readOptionsFor', () => {
	test('version 1 reads the resource members, version 2 and later do not', () => {
		expect(FLAT_ENDPOINTS_FROM_VERSION).toBe(2);
		expect(readOptionsFor(1)).toEqual({ resourceMembers: true });
		expect(readOptionsFor(2)).toEqual({ resourceMembers: false });
		expect(readOptionsFor(3)).toEqual({ resourceMembers: false });
	});
});

describe('reading with resourceMembers', () => {
	test('a JSON:API resource keeps its type, links, relationships and meta, under a symbol the flat output lacks', () => {
		const read = readEndpoint(
			{ ...resource, relationships: { owner: { data: null } }, meta: { etag: 'x' } },
			asVersion1,
		)!;
		expect(read[RESOURCE_MEMBERS]).toEqual({
			type: 'webhook_endpoint',
			links: { self: SELF },
			relationships: { owner: { data: null } },
			meta: { etag: 'x' },
		});
		expect(Object.keys(read)).toEqual(['callback_uri', 'enabled_events', 'created_at', 'id']);
		expect(JSON.parse(JSON.stringify(read))).toEqual({
			id: 'ep-1',
			callback_uri: URI,
			enabled_events: EVENTS,
			created_at: CREATED,
		});
	});

	test('without the option, and for a flat object, there are none', () => {
		expect(readEndpoint(resource)![RESOURCE_MEMBERS]).toBeUndefined();
		const flat = { id: 'ep-1', type: 'odd', callback_uri: URI, enabled_events: EVENTS };
		expect(readEndpoint(flat, asVersion1)![RESOURCE_MEMBERS]).toBeUndefined();
	});

	test('a resource member the service left out is not made up', () => {
		const bare = { id: resource.id, type: resource.type, attributes: resource.attributes };
		expect(readEndpoint(bare, asVersion1)![RESOURCE_MEMBERS]).toEqual({ type: 'webhook_endpoint' });
	});

	test('documents, list pages and creation answers pass the option on; the note and redaction keep the members', () => {
		const members = { type: 'webhook_endpoint', links: { self: SELF } };
		expect(readEndpointDocument({ data: resource }, asVersion1)![RESOURCE_MEMBERS]).toEqual(
			members,
		);
		const page = readEndpointPage({ headers: {}, body: { data: [resource] } }, asVersion1)!;
		expect(page.endpoints[0][RESOURCE_MEMBERS]).toEqual(members);
		const created = createdEndpoint(
			{ headers: {}, body: { data: resource } },
			{ callbackUri: URI, events: EVENTS },
			asVersion1,
		);
		expect(created[RESOURCE_MEMBERS]).toEqual(members);
		const kept = redactEndpoint(withNote(created, ['listedNoId']));
		expect(kept[RESOURCE_MEMBERS]).toEqual(members);
	});

	test("version 1's resource members are redacted as the attributes are: the callback token, secrets by name, the credential's values", () => {
		const token = 'cb-token-0123456789abcdef';
		const access = 'access-token-abcdef0123456789';
		const read = readEndpoint(
			{
				...resource,
				attributes: { ...resource.attributes, callback_uri: `${URI}?token=${token}` },
				links: { self: SELF, callback: `${URI}?token=${token}` },
				meta: { signing_secret: 'whsec_1', seen_with: `Bearer ${access}` },
			},
			asVersion1,
		)!;
		expect(redactEndpoint(read, [access])[RESOURCE_MEMBERS]).toEqual({
			type: 'webhook_endpoint',
			links: { self: SELF, callback: `${URI}?token=[redacted]` },
			meta: { signing_secret: '[redacted]', seen_with: 'Bearer [redacted]' },
		});
	});
});

describe('endpointOutput', () => {
	const read = readEndpoint(resource, asVersion1)!;

	test('version 1: the resource as 0.1.0 output it', () => {
		expect(endpointOutput(read, 1)).toEqual(resource);
		expect(Object.keys(endpointOutput(read, 1))).toEqual(['id', 'type', 'attributes', 'links']);
	});

	test('version 2: the endpoint flat, without the resource members', () => {
		const flat = endpointOutput(readEndpoint(resource)!, 2);
		expect(flat).toEqual({
			id: 'ep-1',
			callback_uri: URI,
			enabled_events: EVENTS,
			created_at: CREATED,
		});
		expect(Object.getOwnPropertySymbols(flat)).toEqual([]);
	});

	test('version 1 of an answer that was no JSON:API resource (0.1.0 refused it): the type is webhook_endpoint', () => {
		const flat = readEndpoint({ id: 7, callback_uri: URI, enabled_events: EVENTS }, asVersion1)!;
		expect(endpointOutput(flat, 1)).toEqual({
			id: '7',
			type: 'webhook_endpoint',
			attributes: { callback_uri: URI, enabled_events: EVENTS },
		});
	});

	test('version 1: a note stays beside the resource, never among its attributes', () => {
		const noted = withNote(read, ['events']);
		expect(endpointOutput(noted, 1)).toEqual({
			...resource,
			note: 'The service’s answer did not show the endpoint’s enabled_events.',
		});
	});

	test('version 1: another type the service named is kept as it named it', () => {
		const other = readEndpoint({ ...resource, type: 'webhook-endpoints' }, asVersion1)!;
		expect(endpointOutput(other, 1)).toEqual({ ...resource, type: 'webhook-endpoints' });
	});
});
