// n8n 1.123's request helpers throw their own NodeApiError, whose HTTP error n8n drops (its ExecutionBaseError keeps
// no `cause` that is an Error) but whose status stays in `httpCode`. The transport keeps that status, so that the
// trigger can tell a refused callback URI (422) from any other failure on n8n 1.x too.
import { captioningApiCall } from '../../nodes/Captioning/transport';
import { statusOf } from '../../nodes/Captioning/transport/errors';
import { createHarness } from '../helpers/n8nContext';

test('an n8n 1.123 NodeApiError of a 422 keeps its status through the transport', async () => {
	const h = createHarness({
		baseUrl: 'http://127.0.0.1:9',
		clientId: 'client',
		clientSecret: 'secret-value',
		assertion: 'assertion-value',
		mediaType: 'application/vnd.service.v1',
		accessToken: 'token',
	});
	const node = h.makeNode('credentialProbe');
	const ctx = h.executeContext(node, [{ json: {} }]);
	// as n8n 1.123 throws it: its generic message for a 4xx, the status in httpCode, no HTTP error behind it
	const thrown = Object.assign(
		new Error('Your request is invalid or could not be processed by the service'),
		{ httpCode: '422' },
	);
	ctx.helpers.httpRequestWithAuthentication = async () => {
		throw thrown;
	};
	const error: unknown = await captioningApiCall
		.call(ctx, {
			method: 'POST',
			path: '/webhook_endpoints',
			form: [['callback_uri', 'https://n8n.example.com/webhook/a/webhook?token=t0ken-value']],
		})
		.then(
			() => undefined,
			(e: unknown) => e,
		);
	// the node's own words for the refusal instead of n8n's generic ones, and the status kept
	expect(error).toMatchObject({
		message: 'The service rejected POST /webhook_endpoints (HTTP 422).',
		httpCode: '422',
	});
	expect(statusOf(error)).toBe(422);
	// an error without a status still has none
	ctx.helpers.httpRequestWithAuthentication = async () => {
		throw new Error('socket hang up');
	};
	const plain = await captioningApiCall.call(ctx, { method: 'GET', path: '/x' }).catch((e) => e);
	expect(statusOf(plain)).toBeUndefined();
});
