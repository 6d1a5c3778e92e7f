// `npm run sandbox`: the sandbox service on 127.0.0.1, for curl, the dev stack and manual testing.
import { parseArgs } from 'node:util';

import { DEFAULT_CLIENT, startSandbox } from './server';

const { values } = parseArgs({
	options: {
		port: { type: 'string', default: process.env.SANDBOX_PORT ?? '5680' },
		'service-name': { type: 'string', default: 'service' },
		'token-ttl': { type: 'string', default: '7200' },
		'rate-limit': {
			type: 'string',
			default: '20',
			description: 'requests per second per client; 0 = off',
		},
		'retry-delays': { type: 'string', default: '2000,10000,30000,60000,120000' },
		quiet: { type: 'boolean', default: false },
	},
});

async function main() {
	const rate = Number(values['rate-limit']);
	const sandbox = await startSandbox({
		port: Number(values.port),
		serviceName: values['service-name'],
		accessTokenTtlSeconds: Number(values['token-ttl']),
		rateLimit: rate > 0 ? { limit: rate, windowMs: 1000 } : null,
		retryDelaysMs: values['retry-delays']!.split(',').map(Number),
		logRequests: !values.quiet,
	});
	const c = DEFAULT_CLIENT;
	process.stdout.write(
		[
			`Captioning sandbox listening on ${sandbox.url}`,
			`  Accept header:   ${sandbox.mediaType}`,
			`  client id:       ${c.clientId}`,
			`  client secret:   ${c.clientSecret}   (sandbox only)`,
			`  assertion token: ${c.assertions[0]}   (sandbox only)`,
			'',
			'Try:',
			`  curl -s -X POST '${sandbox.url}/oauth/token?grant_type=assertion&provider=dashboard&assertion=${c.assertions[0]}&client_id=${c.clientId}&client_secret=${c.clientSecret}&scope=write_transcriptions%20write_media'`,
			`  curl -s -X POST ${sandbox.url}/_sandbox/transcriptions -H 'content-type: application/json' -d '{"title":"Demo"}'`,
			'',
		].join('\n'),
	);
	const stop = () => void sandbox.stop().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: Error) => {
	process.stderr.write(`sandbox failed to start: ${error.message}\n`);
	process.exit(1);
});
