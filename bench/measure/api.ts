// Items 2 and 3: the action node's API traffic, counted at the sandbox. Each repetition uses a fresh sandbox,
// credential and workflow, so that no token, pacing state or rate-limit window carries over.
import { randomUUID } from 'node:crypto';

import type { ExecutionSummary, N8nInstance } from '../../harness';
import { type SandboxOptions, startSandbox, type Sandbox } from '../../sandbox/server';
import { postOnce } from '../lib/load';
import {
	ACTION_NODE_NAME,
	actionWorkflow,
	createCaptioningCredential,
	deactivate,
	newestExecutionId,
	waitForFinished,
} from '../lib/n8n';

interface Prepared {
	sandbox: Sandbox;
	workflowId: string;
	url: string;
	/** Starts one execution with `items` input items. */
	start(items: number): Promise<void>;
	done(): Promise<void>;
}

async function prepare(
	n8n: N8nInstance,
	sandboxOptions: SandboxOptions,
	parameters: Record<string, unknown>,
): Promise<Prepared> {
	const sandbox = await startSandbox(sandboxOptions);
	const credentialId = await createCaptioningCredential(n8n, sandbox, `bench ${randomUUID()}`);
	const path = `bench-api-${randomUUID()}`;
	const workflow = await n8n.createWorkflow(
		actionWorkflow({ name: `bench: ${path}`, path, credentialId, parameters }),
	);
	await n8n.activateWorkflow(workflow.id);
	const url = `${n8n.webhookBaseUrl}/${path}`;
	return {
		sandbox,
		workflowId: workflow.id,
		url,
		async start(items) {
			const body = JSON.stringify({ items: Array.from({ length: items }, (_, i) => ({ i })) });
			const answer = await postOnce(url, body);
			if (answer.status !== 200)
				throw new Error(`webhook answered ${answer.status}: ${answer.text}`);
		},
		async done() {
			await deactivate(n8n, workflow.id);
			await sandbox.stop();
		},
	};
}

const tokenRequests = (sandbox: Sandbox) =>
	sandbox.requestLog.filter((r) => r.path === '/oauth/token').length;

export interface TokenEconomyRun {
	mode: 'sequential' | 'concurrent';
	executions: number;
	itemsPerExecution: number;
	apiCalls: number;
	tokenRequests: number;
	tokenRequestsPer1000Calls: number;
	/** API answers with 401 (a token the service refused). */
	unauthorized: number;
	failedExecutions: number;
}

/**
 * Item 2: `executions` runs of Webhook -> Split Out -> Captioning (Webhook Endpoint: Get Many) with
 * `itemsPerExecution` items each, all within one access-token lifetime (the sandbox's default 2 h).
 * `sequential`: each execution starts after the previous finished; `concurrent`: all start at once.
 */
export async function measureTokenEconomy(
	n8n: N8nInstance,
	options: { mode: 'sequential' | 'concurrent'; executions: number; itemsPerExecution: number },
): Promise<TokenEconomyRun> {
	const prepared = await prepare(
		n8n,
		{ rateLimit: null },
		{ resource: 'webhookEndpoint', operation: 'getAll', returnAll: true },
	);
	try {
		const before = await newestExecutionId(n8n);
		let finished: ExecutionSummary[] = [];
		if (options.mode === 'sequential') {
			for (let i = 1; i <= options.executions; i++) {
				await prepared.start(options.itemsPerExecution);
				finished = await waitForFinished(n8n, prepared.workflowId, before, i);
			}
		} else {
			await Promise.all(
				Array.from({ length: options.executions }, () => prepared.start(options.itemsPerExecution)),
			);
			finished = await waitForFinished(n8n, prepared.workflowId, before, options.executions);
		}
		const { sandbox } = prepared;
		const apiCalls = sandbox.stats.apiRequests;
		const tokens = tokenRequests(sandbox);
		return {
			mode: options.mode,
			executions: finished.length,
			itemsPerExecution: options.itemsPerExecution,
			apiCalls,
			tokenRequests: tokens,
			tokenRequestsPer1000Calls: apiCalls ? (tokens / apiCalls) * 1000 : Number.NaN,
			unauthorized: sandbox.requestLog.filter(
				(r) => r.path.startsWith('/webhook_endpoints') && r.status === 401,
			).length,
			failedExecutions: finished.filter((e) => e.status !== 'success').length,
		};
	} finally {
		await prepared.done();
	}
}

export interface RateLimitRun {
	n: number;
	ratePerSecond: number;
	announced: boolean;
	/** The Captioning node's own execution time (first call to last answer). */
	seconds: number;
	idealSeconds: number;
	/** seconds ÷ (N/R). */
	ratio: number;
	created: number;
	failures: number;
	rateLimited: number;
	executionStatus: string;
}

/** Item 3: one execution creates N webhook endpoints against a sandbox limited to R requests per second. */
export async function measureRateLimit(
	n8n: N8nInstance,
	options: { n: number; ratePerSecond: number; announced: boolean },
): Promise<RateLimitRun> {
	const prepared = await prepare(
		n8n,
		{
			rateLimit: { limit: options.ratePerSecond, windowMs: 1000 },
			announceRateLimit: options.announced,
		},
		{
			resource: 'webhookEndpoint',
			operation: 'create',
			callbackUri: 'http://127.0.0.1:9/bench-rate-limit',
			events: ['transcription.created', 'transcription.transcribed'],
		},
	);
	try {
		const before = await newestExecutionId(n8n);
		await prepared.start(options.n);
		const idealSeconds = options.n / options.ratePerSecond;
		const [execution] = await waitForFinished(n8n, prepared.workflowId, before, 1, {
			includeData: true,
			timeoutMs: (idealSeconds * 3 + 90) * 1000,
		});
		const run = execution.data?.resultData?.runData?.[ACTION_NODE_NAME]?.[0];
		const seconds = Number(run?.executionTime ?? Number.NaN) / 1000;
		const created = prepared.sandbox.endpoints.size;
		return {
			n: options.n,
			ratePerSecond: options.ratePerSecond,
			announced: options.announced,
			seconds,
			idealSeconds,
			ratio: seconds / idealSeconds,
			created,
			failures: options.n - created,
			rateLimited: prepared.sandbox.stats.rateLimited,
			executionStatus: execution.status,
		};
	} finally {
		await prepared.done();
	}
}
