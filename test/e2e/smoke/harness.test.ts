// The harness end to end: a throwaway community package installed as n8n installs one, a workflow
// Webhook -> probe node imported and activated through the public API, called over HTTP, and its
// execution read back; then the same after a restart. Also pins how zod and n8n-workflow resolve for a
// community package inside n8n (CAPTIONING_N8N_VERSION, default 2.41.1).
import { randomUUID } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

import {
	linearWorkflow,
	type N8nInstance,
	projectManifest,
	startN8n,
	webhookNode,
} from '../../../harness';
import { createActiveWorkflow, requireStarted } from '../../helpers/suite';
import {
	createProbeTarball,
	PROBE_NODE_NAME,
	PROBE_NODE_TYPE,
	PROBE_PACKAGE,
	type ProbeReport,
	type ProbeTarball,
} from './probe-package';

describe('e2e harness (real n8n)', () => {
	let n8n: N8nInstance | undefined;
	let workflowId = '';
	let probe: ProbeTarball | undefined;
	const webhookPath = `probe-${randomUUID()}`;

	beforeAll(async () => {
		probe = await createProbeTarball();
		n8n = await startN8n({ packageTarball: probe.tarball });
	});

	afterAll(async () => {
		if (n8n) {
			process.stdout.write(
				`n8n start-up: ${n8n.timings
					.map(
						(t) =>
							`${t.restart ? 'restart' : 'first'} ready ${t.readySeconds.toFixed(1)} s, ` +
							`with owner + API key ${t.totalSeconds.toFixed(1)} s`,
					)
					.join('; ')}\n`,
			);
		}
		await n8n?.stop();
		await probe?.remove();
	});

	const instance = requireStarted('n8n', () => n8n);

	async function callWebhook(payload: unknown): Promise<ProbeReport> {
		const res = await instance().request('POST', `${instance().webhookBaseUrl}/${webhookPath}`, {
			body: payload,
		});
		if (res.status !== 200) {
			throw new Error(
				`webhook answered ${res.status}: ${JSON.stringify(res.body)}\n${instance().logs()}`,
			);
		}
		return res.body as ProbeReport;
	}

	it('installs the package where and how n8n does', () => {
		const { userFolder, installedPackages } = instance();
		const nodesDir = join(userFolder, '.n8n', 'nodes');
		expect(installedPackages).toEqual([
			{
				name: PROBE_PACKAGE,
				version: '0.0.1',
				directory: join(nodesDir, 'node_modules', PROBE_PACKAGE),
			},
		]);
		const ledger = JSON.parse(readFileSync(join(nodesDir, 'package.json'), 'utf8'));
		expect(ledger).toEqual({
			name: 'installed-nodes',
			private: true,
			dependencies: { [PROBE_PACKAGE]: '0.0.1' },
		});
		const installed = JSON.parse(
			readFileSync(join(nodesDir, 'node_modules', PROBE_PACKAGE, 'package.json'), 'utf8'),
		);
		expect(installed.peerDependencies).toBeUndefined();
		expect(installed.devDependencies).toBeUndefined();
		expect(installed.optionalDependencies).toBeUndefined();
		expect(instance().logs()).not.toMatch(/Failed to load package|Skipping package/);
	});

	it('runs the package node from an activated webhook workflow', async () => {
		workflowId = await createActiveWorkflow(
			instance(),
			linearWorkflow('harness smoke', [
				webhookNode(webhookPath),
				{
					id: randomUUID(),
					name: PROBE_NODE_NAME,
					type: PROBE_NODE_TYPE,
					typeVersion: 1,
					parameters: {},
				},
			]),
		);

		const report = await callWebhook({ hello: 'probe' });
		expect(report.zodParsed).toBe('parsed by zod');
		expect(report.input).toMatchObject({ body: { hello: 'probe' } });

		const [execution] = await instance().waitForExecutions(workflowId);
		expect(execution).toMatchObject({ status: 'success', finished: true, mode: 'webhook' });
		const runData = execution.data.resultData.runData;
		expect(runData[PROBE_NODE_NAME][0].data.main[0][0].json).toEqual(report);
	});

	it('resolves zod and n8n-workflow to the copies n8n itself loaded', async () => {
		const { n8nDir, userFolder } = instance();
		const manifest = await projectManifest();
		const runtimeDeps = (manifest.dependencies ?? {}) as Record<string, string>;
		const packageDir = realpathSync(
			join(userFolder, '.n8n', 'nodes', 'node_modules', PROBE_PACKAGE),
		);
		const hostModules = realpathSync(join(n8nDir, 'node_modules'));
		const report = await callWebhook({});
		for (const phase of [report.atLoad, report.atExecute]) {
			// a package that ships its own zod gets it from its node_modules; ours relies on n8n's
			const zodHome = runtimeDeps.zod ? join(packageDir, 'node_modules') : hostModules;
			expect(phase.zod).toMatchObject({
				packageDir: join(zodHome, 'zod'),
				// zod's entry file moved between the versions n8n ships (1.x: dist/cjs/index.js)
				resolved: require.resolve('zod', { paths: [zodHome] }),
				version: JSON.parse(readFileSync(join(zodHome, 'zod', 'package.json'), 'utf8')).version,
				loadedByHostBefore: !runtimeDeps.zod,
			});
			expect(phase.workflow).toMatchObject({
				packageDir: join(hostModules, 'n8n-workflow'),
				resolved: join(hostModules, 'n8n-workflow', 'dist', 'cjs', 'index.js'),
				version: JSON.parse(readFileSync(join(hostModules, 'n8n-workflow', 'package.json'), 'utf8'))
					.version,
				loadedByHostBefore: true,
			});
		}
		expect(report.atExecute.zodV4.resolved).toBeDefined();
		// n8n puts its own module search paths on NODE_PATH at start-up (LoadNodesAndCredentials.init)
		expect(report.nodePath).toContain(hostModules);
		expect(report.modulePaths).not.toContain(hostModules);
		expect(report.nodeVersion.startsWith('v24.')).toBe(true);
	});

	it('creates credentials through the public API', async () => {
		const credential = await instance().createCredential('e2e header', 'httpHeaderAuth', {
			name: 'X-Probe',
			value: 'secret',
		});
		expect(credential).toMatchObject({ name: 'e2e header', type: 'httpHeaderAuth' });
		expect(credential.id).toEqual(expect.any(String));
	});

	it('keeps the package, workflow and API key across a restart', async () => {
		await instance().restart();
		const report = await callWebhook({ after: 'restart' });
		expect(report.input).toMatchObject({ body: { after: 'restart' } });
		const executions = await instance().waitForExecutions(workflowId, { count: 3 });
		expect(executions.every((e) => e.status === 'success')).toBe(true);
		expect(instance().timings.map((t) => t.restart)).toEqual([false, true]);
	});
});
