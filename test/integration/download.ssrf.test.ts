// n8n 2.x's SSRF protection over the package's downloads: n8n-core 2.41.1's helpers.httpRequest (and its resolver)
// apply it by themselves (@n8n/backend-network's OutboundHttp) when N8N_SSRF_PROTECTION_ENABLED=true, which n8n reads
// when the helper is first used; this file's module registry is its own, so the setting holds here only. Both
// policies apply: an address the package's Allowed File Hosts lets through is still refused by n8n's, and the
// download says so, and how to allow a trusted file server, instead of "network error".
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { Captioning } from '../../nodes/Captioning/Captioning.node';
import { n8nResolver } from '../../nodes/Captioning/transport/outbound';
import { attachDownloads } from '../../nodes/Captioning/trigger/downloads';
import { createHarness } from '../helpers/n8nContext';

const captioning = new Captioning();

beforeAll(() => {
	process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
});

afterAll(() => {
	delete process.env.N8N_SSRF_PROTECTION_ENABLED;
});

const h = createHarness({ baseUrl: 'http://127.0.0.1:1', clientId: 'c', clientSecret: 's' });
h.nodeTypes.getByName = () => captioning;
h.nodeTypes.getByNameAndVersion = () => captioning;

const METADATA = 'http://169.254.169.254/latest/meta-data/iam?signature=abc';

test('the action: a blocked address is an error that names the setting and the way to allow a server', async () => {
	const parameters: IDataObject = {
		resource: 'captionFile',
		operation: 'download',
		source: 'url',
		url: METADATA,
		format: 'vtt',
		binaryPropertyName: 'data',
		options: { allowedHosts: '169.254.169.254' },
	};
	const node = h.makeNode('captioning', parameters as INodeParameters);
	const error = await captioning.execute
		.call(h.executeContext(node, [{ json: {} }]))
		.catch((e: Error) => e);
	expect(error).toMatchObject({
		name: 'NodeOperationError',
		message:
			"n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) blocked the download of http://169.254.169.254/latest/meta-data/iam?[redacted]: its address is in a blocked range. If this file server is trusted, allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES on n8n's process.",
	});
});

test('the trigger: a blocked address is a downloadErrors entry, and the item goes on', async () => {
	const node = h.makeNode('captioning', {});
	const ctx = h.executeContext(node, [{ json: {} }]);
	const item = { json: { title: 'Board meeting' } as IDataObject };
	await attachDownloads(
		item,
		[{ format: 'vtt', url: 'http://127.0.0.1:9/a.vtt' }],
		{
			http: (o) => ctx.helpers.httpRequest(o),
			resolve: n8nResolver(ctx.helpers),
			prepareBinaryData: (data, fileName, mimeType) =>
				ctx.helpers.prepareBinaryData(data, fileName, mimeType),
		},
		{
			maxBytes: 1024 * 1024,
			budgetMs: 5_000,
			// the service's own origin, allowed by the package's policy, and still refused by n8n's
			policy: { baseUrl: 'http://127.0.0.1:9', allowed: [], setting: 'Allowed File Hosts' },
		},
	);
	expect(item.json.downloadErrors).toEqual([
		{
			format: 'vtt',
			message: expect.stringMatching(
				/^n8n's SSRF protection \(N8N_SSRF_PROTECTION_ENABLED\) blocked the download of http:\/\/127\.0\.0\.1:9\/a\.vtt:/,
			),
		},
	]);
});

test('with the protection on, the resolver the package asks is n8n’s own: a name of a blocked address is refused', async () => {
	const ctx = h.executeContext(h.makeNode('captioning', {}), [{ json: {} }]);
	await expect(n8nResolver(ctx.helpers)!('localhost')).rejects.toMatchObject({
		name: 'SsrfBlockedIpError',
	});
});
