// `npm run sandbox`: the sandbox service on 127.0.0.1, for curl, the dev stack and manual testing.
// `--variant dimension=value` (repeatable, or comma-separated) plays another reading of the contract.
import { parseArgs } from 'node:util';

import {
	DEFAULT_CLIENT,
	type Sandbox,
	type SandboxOptions,
	SECOND_CLIENT,
	startSandbox,
} from './server';
import { DIMENSIONS, nonDefaultVariants, parseVariantArgs, VARIANT_DIMENSIONS } from './variants';

/** The sandbox's options from the command line; throws with a message naming the bad argument. */
export function cliOptions(argv: string[]): SandboxOptions {
	const { values } = parseArgs({
		args: argv,
		options: {
			port: { type: 'string', default: process.env.SANDBOX_PORT ?? '5680' },
			'service-name': { type: 'string', default: 'service' },
			'token-ttl': { type: 'string', default: '7200' },
			// requests per second per client; 0 = off
			'rate-limit': { type: 'string', default: '20' },
			'retry-delays': { type: 'string', default: '2000,10000,30000,60000,120000' },
			variant: { type: 'string', multiple: true, default: [] },
			quiet: { type: 'boolean', default: false },
		},
	});
	const rate = Number(values['rate-limit']);
	return {
		port: Number(values.port),
		serviceName: values['service-name'],
		accessTokenTtlSeconds: Number(values['token-ttl']),
		rateLimit: rate > 0 ? { limit: rate, windowMs: 1000 } : null,
		retryDelaysMs: values['retry-delays']!.split(',').map(Number),
		logRequests: !values.quiet,
		variants: parseVariantArgs(values.variant ?? []),
	};
}

/** What the CLI prints once the sandbox listens: where, the credential's values, the variants played. */
export function banner(sandbox: Sandbox): string {
	const c = DEFAULT_CLIENT;
	const changed = nonDefaultVariants({ ...sandbox.variants });
	return [
		`Captioning sandbox listening on ${sandbox.url}`,
		`  Accept header:   ${sandbox.mediaType}`,
		`  client id:       ${c.clientId}`,
		`  client secret:   ${c.clientSecret}   (sandbox only)`,
		`  assertion token: ${c.assertions[0]}   (sandbox only)`,
		`  second account:  ${SECOND_CLIENT.clientId} / ${SECOND_CLIENT.clientSecret} / ${SECOND_CLIENT.assertions[0]}`,
		`  variants:        ${changed.length ? changed.join(', ') : 'none (every dimension at its default)'}`,
		`                   (change at run time: POST ${sandbox.url}/_sandbox/variants)`,
		'',
		'Try:',
		`  curl -s -X POST '${sandbox.url}/oauth/token?grant_type=assertion&provider=dashboard&assertion=${c.assertions[0]}&client_id=${c.clientId}&client_secret=${c.clientSecret}&scope=write_transcriptions%20write_media'`,
		`  curl -s -X POST ${sandbox.url}/_sandbox/transcriptions -H 'content-type: application/json' -d '{"title":"Demo"}'`,
		'',
	].join('\n');
}

const USAGE = [
	'Variants: --variant dimension=value (repeatable, or comma-separated); the first value is the default.',
	...DIMENSIONS.map((d) => `  ${d}: ${VARIANT_DIMENSIONS[d].join(' | ')}`),
].join('\n');

async function main() {
	let options: SandboxOptions;
	try {
		options = cliOptions(process.argv.slice(2));
	} catch (error) {
		process.stderr.write(`sandbox: ${(error as Error).message}\n${USAGE}\n`);
		process.exit(2);
	}
	const sandbox = await startSandbox(options);
	process.stdout.write(banner(sandbox));
	const stop = () => void sandbox.stop().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

if (require.main === module) {
	main().catch((error: Error) => {
		process.stderr.write(`sandbox failed to start: ${error.message}\n`);
		process.exit(1);
	});
}
