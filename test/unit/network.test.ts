// Failures below HTTP: the code dug out of the error, and put in words.
import {
	knownNetworkProblem,
	networkCode,
	networkProblem,
} from '../../nodes/Captioning/shared/network';

const SECRET = 'cs-very-secret-123';

describe('networkProblem and networkCode', () => {
	test('network codes are put in words, unknown ones generically', () => {
		expect(networkProblem('ENOTFOUND')).toBe('host name not found');
		expect(networkProblem('EWHATEVER')).toBe('network error');
	});

	test('networkCode digs out the code, never the message', () => {
		expect(
			networkCode({
				message: `connect ECONNREFUSED ?client_secret=${SECRET}`,
				cause: { code: 'ECONNREFUSED' },
			}),
		).toBe('ECONNREFUSED');
		expect(networkCode({ code: 'ENOTFOUND' })).toBe('ENOTFOUND');
		expect(networkCode(new Error('x'))).toBe('network error');
	});
});

describe('knownNetworkProblem', () => {
	test('a listed code, on the error or a cause, in words', () => {
		expect(knownNetworkProblem({ code: 'ECONNREFUSED' })).toBe('connection refused');
		expect(
			knownNetworkProblem({ message: `x ?client_secret=${SECRET}`, cause: { code: 'ETIMEDOUT' } }),
		).toBe('no answer in time');
	});

	test('anything else is not described: an unlisted code, a cancellation, no code', () => {
		expect(knownNetworkProblem({ code: 'EPROTO' })).toBeUndefined();
		expect(knownNetworkProblem({ code: 'ERR_CANCELED' })).toBeUndefined();
		expect(
			knownNetworkProblem(new Error('Could not reach the captioning service')),
		).toBeUndefined();
		expect(knownNetworkProblem(undefined)).toBeUndefined();
	});
});
