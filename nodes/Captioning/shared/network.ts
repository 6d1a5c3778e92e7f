// Failures below HTTP (refused connections, unknown hosts, timeouts), read and worded without the error's own
// message: it may quote the URL with the client secret in its query string.

const NETWORK_CODE = /^E[A-Z_]+$/;

/** The network error's code (ECONNREFUSED, ENOTFOUND, …): its message may quote the URL with the secrets. */
export function networkCode(error: unknown): string {
	for (let e = error as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; i++) {
		if (typeof e.code === 'string' && NETWORK_CODE.test(e.code)) return e.code;
		e = e.cause as typeof e;
	}
	return 'network error';
}

// in words: n8n replaces any message that contains a raw code such as ECONNREFUSED with a generic one
const NETWORK_PROBLEMS: Record<string, string> = {
	ECONNREFUSED: 'connection refused',
	ENOTFOUND: 'host name not found',
	EAI_AGAIN: 'host name lookup failed',
	ETIMEDOUT: 'no answer in time',
	ECONNABORTED: 'no answer in time',
	ECONNRESET: 'connection closed by the server',
	EHOSTUNREACH: 'host unreachable',
};

export function networkProblem(code: string): string {
	return NETWORK_PROBLEMS[code] ?? 'network error';
}

/**
 * The failure in words when the error (or one of its causes) carries a code listed above; undefined for anything
 * else (a cancelled call, a worded credential error, a defect), which keeps its own message.
 */
export function knownNetworkProblem(error: unknown): string | undefined {
	// networkCode answers E… codes only, never a name of Object's prototype
	return NETWORK_PROBLEMS[networkCode(error)] as string | undefined;
}
