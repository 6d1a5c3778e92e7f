// Decisions of the action node's operations (actions/<resource>/<operation>.operation.ts), branch by branch.
import { validateCallbackUri } from '../../nodes/Captioning/actions/webhookEndpoint/create.operation';

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
