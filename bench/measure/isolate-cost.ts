// Child process (run with tsx by bench/run.ts): what one expression-isolate cycle costs in n8n 2.41's own
// engine. Starts n8n-workflow's Expression engine from the installed n8n exactly as n8n's BaseCommand does
// (engine 'vm', pool size 1), then repeats what a production webhook request does for each scope that takes an
// isolate: acquireIsolate() (pops the warm isolate; the pool builds its replacement), one evaluation,
// releaseIsolate() (disposes it). Prints JSON: CPU ms and wall ms per cycle.
import { createRequire } from 'node:module';
import { join } from 'node:path';

interface ExpressionModule {
	Expression: {
		initExpressionEngine(options: Record<string, unknown>): Promise<void>;
		disposeExpressionEngine(): Promise<void>;
		vmEvaluator?: { waitForReplenishment(): Promise<void> };
	};
	Workflow: new (options: Record<string, unknown>) => {
		expression: {
			acquireIsolate(): Promise<boolean>;
			releaseIsolate(): Promise<void>;
			getSimpleParameterValue(node: unknown, value: string, mode: string, keys: object): unknown;
		};
	};
}

async function main() {
	const [n8nDir, cyclesArg] = process.argv.slice(2);
	const cycles = Number(cyclesArg ?? 40);
	const requireFromN8n = createRequire(join(n8nDir, 'node_modules', 'n8n', 'package.json'));
	const workflowModule = requireFromN8n('n8n-workflow') as ExpressionModule;
	const { Expression, Workflow } = workflowModule;
	await Expression.initExpressionEngine({
		engine: 'vm',
		poolSize: 1,
		maxCodeCacheSize: 1024,
		bridgeTimeout: 5000,
		bridgeMemoryLimit: 128,
	});
	const nodeTypes = {
		getByNameAndVersion: () => ({
			description: { name: 'x', version: 1, properties: [] },
		}),
		getByName() {
			return this.getByNameAndVersion();
		},
		getKnownTypes: () => ({}),
	};
	const node = {
		id: '1',
		name: 'N',
		type: 'x',
		typeVersion: 1,
		position: [0, 0],
		parameters: { options: {} },
	};
	const cycle = async () => {
		const workflow = new Workflow({
			id: 'w',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
		});
		await workflow.expression.acquireIsolate();
		workflow.expression.getSimpleParameterValue(
			node,
			'={{$parameter["options"]["binaryData"]}}',
			'webhook',
			{},
		);
		await workflow.expression.releaseIsolate();
		// the replacement isolate is built in the background; count it against this cycle
		await Expression.vmEvaluator?.waitForReplenishment();
	};
	for (let i = 0; i < 5; i++) await cycle();
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	for (let i = 0; i < cycles; i++) await cycle();
	const wallMs = performance.now() - t0;
	const cpu = process.cpuUsage(cpu0);
	await Expression.disposeExpressionEngine();
	process.stdout.write(
		JSON.stringify({
			cycles,
			cpuMsPerCycle: (cpu.user + cpu.system) / 1000 / cycles,
			wallMsPerCycle: wallMs / cycles,
		}) + '\n',
	);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
