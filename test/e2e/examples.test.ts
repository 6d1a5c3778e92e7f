// Every workflow in examples/ imported into one real n8n with this package installed from its tarball,
// checked against the node types n8n has, and run end to end against the sandbox, so that none goes
// stale. Only 127.0.0.1 is contacted: the chat webhook and the OpenAI API are local stand-ins.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';

import {
	createSandboxCredential,
	EXAMPLE_CREDENTIAL_NAME,
	EXAMPLE_TRIGGER_NAME,
	EXAMPLES_DIR,
	type ExampleWorkflow,
	type ExecutionSummary,
	findNode,
	listExampleFiles,
	loadExample,
	type N8nInstance,
	packProject,
	pinnedEvent,
	type PinnedItem,
	setAssignment,
	startN8n,
	toEditorBody,
	toPublicApiBody,
	useCredential,
} from '../../harness';
import { longText } from '../../sandbox/longTranscript';
import { endpointItem } from '../helpers/savedOutputs';
import { savedWorkflows } from '../helpers/savedWorkflows';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { requireStarted } from '../helpers/suite';

const PACKAGE = 'n8n-nodes-captioning';
// `CAPTIONING_UPDATE_PINNED=1 npm run test:e2e -- test/e2e/examples.test.ts` pins a new live event on every example
const UPDATE_PINNED = process.env.CAPTIONING_UPDATE_PINNED === '1';
// where the pinned event's signed URLs point instead of the sandbox that issued them (they have expired anyway)
const PINNED_FILES_ORIGIN = 'https://files.example.com';
const CORE_PREFIXES = ['n8n-nodes-base.', '@n8n/n8n-nodes-langchain.'];

interface CapturedRequest {
	method: string;
	url: string;
	headers: IncomingMessage['headers'];
	body: string;
}

/** A loopback HTTP server that records what it is sent and answers with `respond`. */
async function startCapture(
	respond: (req: CapturedRequest) => { status: number; body: unknown } = () => ({
		status: 200,
		body: 'ok',
	}),
): Promise<{ url: string; requests: CapturedRequest[]; stop: () => Promise<void> }> {
	const requests: CapturedRequest[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const captured = {
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
			};
			requests.push(captured);
			let answer: { status: number; body: unknown };
			try {
				answer = respond(captured);
			} catch (error) {
				answer = { status: 500, body: { error: { message: String(error) } } };
			}
			const { status, body } = answer;
			const text = typeof body === 'string' ? body : JSON.stringify(body);
			res.writeHead(status, {
				'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
			});
			res.end(text);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		stop: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

interface ChatRequest {
	messages: { role: string; content: string | null; tool_call_id?: string }[];
	tools?: {
		type: string;
		function: { name: string; description?: string; parameters?: { properties?: object } };
	}[];
	stream?: boolean;
}

/** The lines of transcript chunks a Captioning tool with Tool Output: Simplified Text answered with. */
function chunkLinesOf(toolContent: string | null): string[] {
	const items = JSON.parse(toolContent || 'null') as { text?: string }[] | null;
	return items?.[0]?.text?.split('\n') ?? [];
}

/** `[00:05:00.300 → …] text` → `05:00`: a chunk's start as the example asks the model to cite it. */
function citedStart(line: string): string {
	const [, hours, minutes, seconds] = /^\[(\d\d):(\d\d):(\d\d)\.\d{3} → /.exec(line) ?? [];
	return `${String(Number(hours) * 60 + Number(minutes)).padStart(2, '0')}:${seconds}`;
}

/** What the stand-in model answers once it has read the chunks: their count, cited starts and opening words. */
function chunkSummary(lines: string[]): string {
	const opening = lines[0]
		?.replace(/^\[[^\]]*\] /, '')
		.split(' ')
		.slice(0, 4)
		.join(' ');
	return `Chapters at ${lines.map(citedStart).join(', ')} (${lines.length} chunks); opens with "${opening}"`;
}

/**
 * Answers OpenAI chat completions as a model that first calls the captions tool and then summarises
 * what the tool returned, so that the agent example runs offline and shows the tool's output reached
 * the model.
 */
function fakeOpenAi(req: CapturedRequest): { status: number; body: unknown } {
	if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
		return { status: 404, body: { error: { message: `no route ${req.method} ${req.url}` } } };
	}
	const chat = JSON.parse(req.body) as ChatRequest;
	const toolResult = chat.messages.find((m) => m.role === 'tool');
	let message: Record<string, unknown>;
	if (!toolResult) {
		const tool = chat.tools?.find((t) => /caption/i.test(t.function.name));
		if (!tool) return { status: 400, body: { error: { message: 'no captions tool offered' } } };
		const args = Object.fromEntries(
			Object.keys(tool.function.parameters?.properties ?? {}).map((key) => [key, '']),
		);
		message = {
			role: 'assistant',
			content: null,
			tool_calls: [
				{
					id: 'call_captions',
					type: 'function',
					function: { name: tool.function.name, arguments: JSON.stringify(args) },
				},
			],
		};
	} else {
		message = { role: 'assistant', content: chunkSummary(chunkLinesOf(toolResult.content)) };
	}
	return {
		status: 200,
		body: {
			id: `chatcmpl-${Date.now()}`,
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model: 'gpt-4o-mini',
			choices: [
				{
					index: 0,
					message,
					finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop',
				},
			],
			usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
		},
	};
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RunData = Record<string, any[]>;

const runDataOf = (execution: ExecutionSummary): RunData => execution.data.resultData.runData;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function outputOf(execution: ExecutionSummary, nodeName: string): any[] {
	const runs = runDataOf(execution)[nodeName];
	if (!runs) {
		throw new Error(
			`${nodeName} did not run in execution ${execution.id}; ran: ${Object.keys(runDataOf(execution)).join(', ')}`,
		);
	}
	return runs[0].data.main[0];
}

/** The structure of a value without its data: object keys (sorted) and the types of what they hold. */
function shapeOf(value: unknown): unknown {
	if (Array.isArray(value)) return value.length ? [shapeOf(value[0])] : [];
	if (value === null) return 'null';
	if (typeof value !== 'object') return typeof value;
	return Object.fromEntries(
		Object.keys(value)
			.sort()
			.map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]),
	);
}

/** The caption files an example's trigger downloads (Options → Download Caption Files). */
function downloadFormatsOf(workflow: ExampleWorkflow): string[] {
	const options = findNode(workflow, EXAMPLE_TRIGGER_NAME).parameters.options as
		| { downloadFormats?: string[] }
		| undefined;
	return options?.downloadFormats ?? [];
}

/** A copy of an object without some of its keys. */
function without<T extends Record<string, unknown>>(value: T, ...keys: string[]): Partial<T> {
	return Object.fromEntries(
		Object.entries(value).filter(([key]) => !keys.includes(key)),
	) as Partial<T>;
}

const decoded = (item: PinnedItem, key: string) =>
	Buffer.from(item.binary?.[key]?.data ?? '', 'base64').toString('utf8');

interface VttCue {
	startTime: string;
	endTime: string;
	startMs: number;
	endMs: number;
	text: string;
}

const clockMs = (time: string) => {
	const [h, m, s] = time.split(':').map(Number);
	return Math.round(((h * 60 + m) * 60 + s) * 1000);
};

/** The cues of a WebVTT file, read here with a regular expression rather than with the package's parser. */
function vttCues(vtt: string): VttCue[] {
	const cues: VttCue[] = [];
	for (const block of vtt.split(/\r?\n\r?\n/)) {
		const match = /^(\d\d:\d\d:\d\d\.\d{3}) --> (\d\d:\d\d:\d\d\.\d{3})[^\n]*\n([\s\S]*)/m.exec(
			block,
		);
		if (!match) continue;
		const [, startTime, endTime, text] = match;
		const lines = text.split(/\r?\n/).map((line) => line.trim());
		const [startMs, endMs] = [clockMs(startTime), clockMs(endTime)];
		cues.push({ startTime, endTime, startMs, endMs, text: lines.filter(Boolean).join(' ') });
	}
	return cues;
}

/**
 * The lines the AI example's Read Captions should give the agent for a WebVTT file: its cues gathered into
 * chunks that span at most `minutes` each, one `[start → end] text` line per chunk.
 */
function expectedChunkLines(vtt: string, minutes: number): string[] {
	const chunks: VttCue[][] = [];
	for (const cue of vttCues(vtt)) {
		const current = chunks.at(-1);
		if (current && cue.endMs - current[0].startMs <= minutes * 60_000) current.push(cue);
		else chunks.push([cue]);
	}
	return chunks.map(
		(cues) =>
			`[${cues[0].startTime} → ${cues.at(-1)!.endTime}] ${cues.map((cue) => cue.text).join(' ')}`,
	);
}

/** What the translation example's stand-in does to a text: each vowel doubled, accented (written again here). */
const pseudoTranslated = (text: string) =>
	text.replace(/[aeiouAEIOU]/g, (vowel) => {
		const lower = vowel.toLowerCase();
		const accents: Record<string, string> = { a: 'àá', e: 'éè', i: 'íì', o: 'óò', u: 'úù' };
		const pair = accents[lower];
		return vowel === lower ? pair : `${pair[0].toUpperCase()}${pair[1]}`;
	});

/**
 * The translation example with a step that reads its translated WebVTT file back as text (n8n keeps an execution's
 * files on disk, not in its data): Extract From File after Translated WebVTT, beside Check Translation.
 */
function withTranslatedText(workflow: ExampleWorkflow): ExampleWorkflow {
	workflow.nodes.push({
		id: 'c3e9a1f7-6d2b-4b8e-8f10-7a5c2e9d4b11',
		name: 'Translated Text',
		type: 'n8n-nodes-base.extractFromFile',
		typeVersion: 1.1,
		position: [1200, 200],
		parameters: { operation: 'text', binaryPropertyName: 'vtt', destinationKey: 'vtt', options: {} },
	} as unknown as ExampleWorkflow['nodes'][number]);
	workflow.connections['Translated WebVTT'].main[0].push({
		node: 'Translated Text',
		type: 'main',
		index: 0,
	});
	return workflow;
}

/**
 * Checks the translation example's run: Translated WebVTT has every cue of the source WebVTT at its times, its text
 * the stand-in translation of the source's, and Check Translation measured that file.
 */
function expectTranslated(execution: ExecutionSummary, sourceVtt: string): void {
	const [file] = outputOf(execution, 'Translated WebVTT');
	expect(file.binary.vtt).toMatchObject({ fileName: 'translated-captions.vtt', mimeType: 'text/vtt' });
	const written = vttCues(String(outputOf(execution, 'Translated Text')[0].json.vtt));
	const source = vttCues(sourceVtt);
	expect(source.length).toBeGreaterThan(1);
	expect(written.map((cue) => [cue.startTime, cue.endTime])).toEqual(
		source.map((cue) => [cue.startTime, cue.endTime]),
	);
	expect(written.map((cue) => cue.text)).toEqual(source.map((cue) => pseudoTranslated(cue.text)));
	expect(file.json).toMatchObject({ format: 'vtt', cues: source.length });
	const [checked] = outputOf(execution, 'Check Translation');
	expect(checked.json.check).toMatchObject({ cues: source.length, format: 'vtt' });
}

/** The minutes per chunk the AI example's Read Captions is set to. */
const chunkMinutesOf = (workflow: ExampleWorkflow) =>
	Number(findNode(workflow, 'Read Captions').parameters.chunkMinutes);

/** The chunk lines the agent's tool call returned, from the stand-in model's second request. */
function toolCallLines(calls: ChatRequest[]): string[] {
	expect(calls).toHaveLength(2);
	const toolMessage = calls[1].messages.find((m) => m.role === 'tool');
	// nothing but the text: no `truncated`, so the agent read the whole transcript
	expect(Object.keys(JSON.parse(toolMessage!.content!)[0])).toEqual(['text']);
	return chunkLinesOf(toolMessage!.content);
}

/**
 * The item an example pins, from the trigger's live output for a sandbox event: the JSON with the sandbox's
 * origin replaced, and each file the example's trigger downloads inline (n8n keeps a live one on disk).
 */
function pinnedFromLive(
	live: { json: Record<string, unknown>; binary?: Record<string, Record<string, unknown>> },
	sandboxOrigin: string,
	files: Record<string, string>,
	formats: string[],
): PinnedItem {
	const json = JSON.parse(JSON.stringify(live.json).replaceAll(sandboxOrigin, PINNED_FILES_ORIGIN));
	if (formats.length === 0) {
		delete json.transcript;
		return { json };
	}
	const binary: NonNullable<PinnedItem['binary']> = {};
	for (const format of formats) {
		// n8n's reference to the file on disk goes: the pinned file carries its data inline
		const meta = without(live.binary?.[format] ?? {}, 'id', 'data');
		if (!meta.mimeType) throw new Error(`the live trigger item has no ${format} file`);
		binary[format] = {
			...(meta as { mimeType: string }),
			data: Buffer.from(files[format]).toString('base64'),
		};
	}
	return { json, binary };
}

/** Writes an example back, formatted as the repository formats it (prettier, from node_modules/.bin). */
async function writeExample(file: string, workflow: ExampleWorkflow): Promise<void> {
	const path = join(EXAMPLES_DIR, file);
	await writeFile(path, `${JSON.stringify(workflow, null, '\t')}\n`);
	await promisify(execFile)('prettier', ['--write', path]);
}

const isExpression = (value: unknown) => typeof value === 'string' && value.startsWith('=');

/**
 * What the editor would flag or silently drop: missing required parameters, parameters the node no
 * longer has (renamed ones), and option values it no longer offers, here and one collection deep.
 */
function parameterProblems(node: INode, description: INodeTypeDescription): string[] {
	const problems: string[] = [];
	const given = node.parameters as INodeParameters;
	const resolved =
		NodeHelpers.getNodeParameters(description.properties, given, true, false, node, description) ??
		{};
	const issues = NodeHelpers.getNodeParametersIssues(
		description.properties,
		{ ...node, parameters: resolved },
		description,
	);
	if (issues) problems.push(JSON.stringify(issues));
	for (const key of Object.keys(given)) {
		if (!(key in resolved)) problems.push(`"${key}" is not a parameter of this node (any more)`);
	}
	const checkOptions = (property: INodeProperties, value: unknown, path: string) => {
		if (property.type !== 'options' && property.type !== 'multiOptions') return;
		if (isExpression(value) || property.typeOptions?.loadOptionsMethod) return;
		const allowed = (property.options ?? []).map((o) => (o as { value?: unknown }).value);
		for (const v of Array.isArray(value) ? value : [value]) {
			if (!allowed.includes(v))
				problems.push(`${path}: ${JSON.stringify(v)} is not one of ${allowed}`);
		}
	};
	for (const property of description.properties) {
		if (!(property.name in given)) continue;
		if (!NodeHelpers.displayParameter(resolved, property, node, description)) continue;
		const value = given[property.name];
		checkOptions(property, value, property.name);
		if (property.type === 'collection' && value && typeof value === 'object') {
			for (const [subKey, subValue] of Object.entries(value)) {
				const sub = (property.options as INodeProperties[] | undefined)?.find(
					(o) => o.name === subKey,
				);
				if (!sub) problems.push(`${property.name}.${subKey} is not an option of this node`);
				else checkOptions(sub, subValue, `${property.name}.${subKey}`);
			}
		}
	}
	return problems;
}

describe('examples/ (real n8n)', () => {
	let n8n: N8nInstance | undefined;
	let sandbox: Sandbox | undefined;
	let chat: Awaited<ReturnType<typeof startCapture>> | undefined;
	let openAi: Awaited<ReturnType<typeof startCapture>> | undefined;
	let tarballDir = '';
	let filesDir = '';
	let credentialId = '';
	const imported = new Map<string, { id: string; nodes: INode[] }>();

	beforeAll(async () => {
		sandbox = await startSandbox({ transcribeAfterMs: 300 });
		chat = await startCapture();
		openAi = await startCapture(fakeOpenAi);
		filesDir = await mkdtemp(join(tmpdir(), 'captioning-examples-files-'));
		const tarball = await packProject();
		tarballDir = dirname(tarball);
		n8n = await startN8n({
			packageTarball: tarball,
			// what the store-vtt-and-srt example may write to (n8n's default is ~/.n8n-files)
			env: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir },
		});
		const credential = await createSandboxCredential(n8n, sandbox, EXAMPLE_CREDENTIAL_NAME);
		credentialId = credential.id;
	});

	afterAll(async () => {
		await n8n?.stop();
		await sandbox?.stop();
		await chat?.stop();
		await openAi?.stop();
		if (filesDir) await rm(filesDir, { recursive: true, force: true });
		if (tarballDir) await rm(tarballDir, { recursive: true, force: true });
	});

	const instance = requireStarted('n8n', () => n8n);
	const service = requireStarted('the sandbox', () => sandbox);

	/** What the dev banner tells a user to run: the sandbox's control API over HTTP. */
	async function simulateTranscription(title: string, text?: string): Promise<string> {
		const res = await fetch(`${service().url}/_sandbox/transcriptions`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ title, text }),
		});
		expect(res.status).toBe(202);
		return ((await res.json()) as { id: string }).id;
	}

	async function importExample(file: string, workflow: ExampleWorkflow) {
		const created = await instance().createWorkflow(toPublicApiBody(workflow));
		imported.set(file, created);
		return created as { id: string; nodes: INode[] };
	}

	/** Activates, runs `body`, and deactivates even when it fails: no trigger outlives its test. */
	async function whileActive(workflowId: string, body: () => Promise<void>): Promise<void> {
		await instance().activateWorkflow(workflowId);
		try {
			await body();
		} finally {
			await instance().deactivateWorkflow(workflowId);
		}
	}

	let openAiCredential: Promise<{ id: string; name: string }> | undefined;

	/** What a user does for the model: an OpenAI credential; "OpenAI account" links it on import. */
	function ensureOpenAiCredential() {
		openAiCredential ??= instance().createCredential('OpenAI account', 'openAiApi', {
			apiKey: 'sk-local-test',
			url: `${openAi!.url}/v1`,
			header: false,
		});
		return openAiCredential;
	}

	let nodeTypes: INodeTypeDescription[] | undefined;

	/** From /types/nodes.json, as the editor sees them: with the tool variants n8n generates. */
	async function nodeTypeDescription(type: string, version: number) {
		if (!nodeTypes) {
			const res = await instance().requestAsOwner('GET', '/types/nodes.json');
			expect(res.status).toBe(200);
			nodeTypes = res.body as INodeTypeDescription[];
		}
		return nodeTypes.find(
			(d) =>
				d.name === type && (Array.isArray(d.version) ? d.version : [d.version]).includes(version),
		);
	}

	it('has the seven examples, each using the package and otherwise only core nodes', () => {
		const files = listExampleFiles();
		expect(files).toEqual([
			'captions-to-slack.json',
			'dev-transcription-feed.json',
			// runs end to end in the queue suite (test/queue), which has the PostgreSQL it needs
			'exactly-once-queue-mode.json',
			// runs from its pinned event in test/e2e/captions.e2e.test.ts
			'publish-captions.json',
			'store-vtt-and-srt.json',
			'summarise-with-ai-agent.json',
			'translate-captions.json',
		]);
		for (const file of files) {
			const workflow = loadExample(file);
			const types = workflow.nodes.map((n) => n.type);
			expect(types.some((t) => t.startsWith(`${PACKAGE}.`))).toBe(true);
			for (const type of types) {
				const core = CORE_PREFIXES.some((prefix) => type.startsWith(prefix));
				expect([file, type, core || type.startsWith(`${PACKAGE}.`)]).toEqual([file, type, true]);
			}
			expect(new Set(workflow.nodes.map((n) => n.name)).size).toBe(workflow.nodes.length);
			for (const [from, outputs] of Object.entries(workflow.connections)) {
				findNode(workflow, from);
				for (const targets of Object.values(outputs).flat(2)) findNode(workflow, targets.node);
			}
			for (const node of workflow.nodes) {
				// the captioning credential is linked on import by this name (examples/README.md)
				const reference = node.credentials?.captioningApi;
				if (reference) expect(reference.name).toBe(EXAMPLE_CREDENTIAL_NAME);
				// n8n derives a unique webhook path from the workflow id when there is no webhookId
				expect(node.webhookId).toBeUndefined();
			}
			// one transcribed event pinned on the trigger, with the files its trigger downloads, and nothing secret
			expect(Object.keys(workflow.pinData ?? {})).toEqual([EXAMPLE_TRIGGER_NAME]);
			const event = pinnedEvent(workflow);
			expect([file, event.json.eventType]).toEqual([file, 'transcription.transcribed']);
			expect([file, Object.keys(event.binary ?? {})]).toEqual([file, downloadFormatsOf(workflow)]);
			for (const format of Object.keys(event.binary ?? {})) {
				expect(decoded(event, format)).toMatch(/^WEBVTT/);
			}
			const text = JSON.stringify(event);
			expect([file, /token|127\.0\.0\.1|localhost/i.test(text)]).toEqual([file, false]);
		}
	});

	it('imports every example through the public API, linking the credential by its name', async () => {
		for (const file of listExampleFiles()) {
			const workflow = loadExample(file);
			const created = await importExample(file, workflow);
			for (const node of created.nodes) {
				if (node.credentials?.captioningApi) {
					expect([file, node.name, node.credentials.captioningApi]).toEqual([
						file,
						node.name,
						{ id: credentialId, name: EXAMPLE_CREDENTIAL_NAME },
					]);
				}
			}
			const stored = await instance().api('GET', `/workflows/${created.id}`);
			expect(stored.nodes.map((n: INode) => n.name).sort()).toEqual(
				workflow.nodes.map((n) => n.name).sort(),
			);
		}
	});

	it('imports the workflows 0.1.0 saved (test/fixtures/saved-0.1.0): their Captioning nodes stay version 1', async () => {
		for (const [file, workflow] of Object.entries(savedWorkflows())) {
			const created = await importExample(`saved-0.1.0/${file}`, workflow);
			const ours = created.nodes.filter((n) => n.type.startsWith(`${PACKAGE}.`));
			expect([file, ours.map((n) => n.typeVersion)]).toEqual([file, ours.map(() => 1)]);
		}
	});

	it('uses only node types and versions this n8n has, with valid parameters', async () => {
		const problems: string[] = [];
		for (const [file, { nodes }] of imported) {
			for (const node of nodes) {
				const description = await nodeTypeDescription(node.type, node.typeVersion);
				const found = description
					? parameterProblems(node, description)
					: [`n8n has no ${node.type} version ${node.typeVersion}`];
				problems.push(...found.map((problem) => `${file} › ${node.name}: ${problem}`));
			}
		}
		expect(problems).toEqual([]);
	});

	it('runs a workflow 0.1.0 saved as it ran then: the endpoint as a JSON:API resource, read by its expressions', async () => {
		const { id } = imported.get('saved-0.1.0/webhook-endpoints.json')!;
		await whileActive(id, async () => {
			const res = await instance().request(
				'POST',
				`${instance().webhookBaseUrl}/saved-0-1-0-endpoints`,
				{ body: {} },
			);
			expect(res.status).toBe(200);
			const [execution] = await instance().waitForExecutions(id);
			expect(execution.status).toBe('success');
			const [created] = outputOf(execution, 'Create Endpoint');
			const endpointId = created.json.id as string;
			const resource = endpointItem(
				{
					id: endpointId,
					clientId: '',
					callbackUri: 'https://example.com/hooks/captions',
					enabledEvents: ['transcription.created', 'transcription.transcribed'],
					createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown as string,
				},
				service().url,
				{ typeVersion: 1 },
			);
			expect(created.json).toEqual(resource);
			expect(outputOf(execution, 'Get Endpoint')[0].json).toEqual(created.json);
			expect(outputOf(execution, 'List Endpoints').map((i) => i.json)).toContainEqual(created.json);
			// the Edit Fields node after it reads 0.1.0's members
			expect(outputOf(execution, 'Callback URI')[0].json).toEqual({
				id: endpointId,
				callbackUri: 'https://example.com/hooks/captions',
				events: 'transcription.created, transcription.transcribed',
			});
			expect(outputOf(execution, 'Delete Endpoint')[0].json).toEqual({
				id: endpointId,
				deleted: true,
			});
		});
	});

	it('gives the AI agent example a valid Captioning tool node', async () => {
		const { nodes } = imported.get('summarise-with-ai-agent.json')!;
		const tool = nodes.find((n) => n.type === `${PACKAGE}.captioningTool`);
		expect(tool).toMatchObject({
			name: 'Read Captions',
			parameters: {
				resource: 'captionFile',
				operation: 'convert',
				// the captions the trigger downloaded, as text: a pinned event's signed URL has expired
				inputSource: 'text',
				content: "={{ $('Captions as Text').item.json.captions }}",
				to: 'chunks',
				chunkBy: 'minutes',
				chunkMinutes: 5,
				toolOutput: 'simplified',
			},
		});
		const description = await nodeTypeDescription(tool!.type, tool!.typeVersion);
		// n8n generates the tool variant of a usableAsTool node: an ai_tool output and a description
		expect(description).toMatchObject({
			name: `${PACKAGE}.captioningTool`,
			outputs: ['ai_tool'],
		});
		expect(description!.properties.map((p) => p.name)).toEqual(
			expect.arrayContaining(['toolDescription', 'resource', 'operation']),
		);
		const example = loadExample('summarise-with-ai-agent.json');
		expect(example.connections['Read Captions']).toEqual({
			ai_tool: [[{ node: 'Summarise Transcript', type: 'ai_tool', index: 0 }]],
		});
	});

	// the trigger's output for a transcribed event as n8n ran it: what the pinned events must look like
	let liveTranscribed: {
		json: Record<string, unknown>;
		binary?: Record<string, Record<string, unknown>>;
	};

	it('runs the dev example for both events', async () => {
		const { id } = imported.get('dev-transcription-feed.json')!;
		const text = 'Hello and welcome. This is the dev example, end to end.';
		await whileActive(id, async () => {
			const transcriptionId = await simulateTranscription('Dev example', text);
			const executions = await instance().waitForExecutions(id, { count: 2 });
			expect(executions.map((e) => e.status)).toEqual(['success', 'success']);
			const byEvent = new Map(
				executions.map((e) => [outputOf(e, 'Captioning Trigger')[0].json.eventType, e]),
			);

			const created = byEvent.get('transcription.created')!;
			expect(outputOf(created, 'Waiting for Captions')[0].json).toMatchObject({
				transcriptionId,
				title: 'Dev example',
			});
			expect(runDataOf(created)['Convert to SRT']).toBeUndefined();

			const transcribed = byEvent.get('transcription.transcribed')!;
			liveTranscribed = outputOf(transcribed, EXAMPLE_TRIGGER_NAME)[0];
			const [summary] = outputOf(transcribed, 'Transcript Summary');
			expect(summary.json).toEqual({
				title: 'Dev example',
				durationSeconds: expect.any(Number),
				confidencePercent: expect.any(Number),
				wordCount: text.split(/\s+/).length,
				transcript: text,
			});
			expect(summary.json.confidencePercent).toBeGreaterThan(50);
			const [converted] = outputOf(transcribed, 'Convert to SRT');
			expect(converted.binary.vtt).toMatchObject({ fileName: 'dev-example.vtt' });
			expect(converted.binary.srt).toMatchObject({
				fileName: 'dev-example.srt',
				mimeType: expect.stringMatching(/^application\/x-subrip/),
			});
		});
	});

	(UPDATE_PINNED ? it : it.skip)(
		'pins a new live event on every example (CAPTIONING_UPDATE_PINNED=1)',
		async () => {
			const { id } = imported.get('dev-transcription-feed.json')!;
			let live: typeof liveTranscribed | undefined;
			let transcriptionId = '';
			await whileActive(id, async () => {
				const before = (await instance().waitForExecutions(id, { count: 0 })).length;
				transcriptionId = await simulateTranscription('Quarterly product update');
				const executions = await instance().waitForExecutions(id, { count: before + 2 });
				live = executions
					.map((e) => outputOf(e, EXAMPLE_TRIGGER_NAME)[0])
					.find((item) => item.json.transcriptionId === transcriptionId && item.binary);
			});
			const files = Object.fromEntries(
				Object.entries(service().transcriptions.get(transcriptionId)!.files).map(([f, v]) => [
					f,
					v.content,
				]),
			);
			for (const file of listExampleFiles()) {
				const workflow = loadExample(file);
				const item = pinnedFromLive(live!, service().url, files, downloadFormatsOf(workflow));
				await writeExample(file, { ...workflow, pinData: { [EXAMPLE_TRIGGER_NAME]: [item] } });
			}
		},
	);

	it('pins events in the shape the trigger outputs today', () => {
		const liveShape = shapeOf(liveTranscribed.json) as Record<string, unknown>;
		// the transcript comes with the downloaded files only
		const withoutDownloads = without(liveShape, 'transcript');
		for (const file of listExampleFiles()) {
			const workflow = loadExample(file);
			const event = pinnedEvent(workflow);
			const formats = downloadFormatsOf(workflow);
			expect([file, shapeOf(event.json)]).toEqual([
				file,
				formats.length ? liveShape : withoutDownloads,
			]);
			for (const format of formats) {
				// n8n 2.x also records `bytes`, which 1.x leaves out and does not need
				const meta = without(liveTranscribed.binary![format], 'id', 'data');
				expect([file, format, Object.keys(event.binary![format])]).toEqual([
					file,
					format,
					expect.arrayContaining([...Object.keys(meta), 'data']),
				]);
				expect(event.binary![format].mimeType).toBe(meta.mimeType);
			}
		}
	});

	it('runs captions-to-slack, posting the message to the configured webhook URL', async () => {
		const workflow = loadExample('captions-to-slack.json');
		setAssignment(workflow, 'Settings', 'chatWebhookUrl', `${chat!.url}/services/T1/B2/secret`);
		setAssignment(workflow, 'Settings', 'maxTranscriptChars', 40);
		const { id } = await importExample('captions-to-slack.json (configured)', workflow);
		const text = 'Revenue grew <fast> & steadily. Next quarter looks even better for everyone.';
		await whileActive(id, async () => {
			await simulateTranscription('Q3 <Product> & roadmap', text);
			const [execution] = await instance().waitForExecutions(id);
			expect(execution.status).toBe('success');
			// the trigger subscribed to transcription.transcribed only: one event, one execution
			const { data } = await instance().api('GET', `/executions?workflowId=${id}`);
			expect(data).toHaveLength(1);
		});
		expect(chat!.requests).toHaveLength(1);
		const [post] = chat!.requests;
		expect(post).toMatchObject({ method: 'POST', url: '/services/T1/B2/secret' });
		expect(post.headers['content-type']).toMatch(/^application\/json/);
		const message = JSON.parse(post.body) as { text: string };
		expect(Object.keys(message)).toEqual(['text']);
		const [headline, quote, ...rest] = message.text.split('\n');
		expect(headline).toMatch(
			/^:memo: \*Q3 &lt;Product&gt; &amp; roadmap\* is transcribed \(0:\d\d, \d+% confidence\)$/,
		);
		expect(quote).toBe('>Revenue grew &lt;fast&gt; &amp; steadily. Next…');
		expect(rest).toEqual([]);
	});

	it('runs store-vtt-and-srt, writing both files to the configured folder', async () => {
		const workflow = loadExample('store-vtt-and-srt.json');
		setAssignment(workflow, 'Settings', 'outputFolder', filesDir);
		const { id } = await importExample('store-vtt-and-srt.json (configured)', workflow);
		const text =
			'First sentence of the stored captions. A second sentence follows it. And a third one ends it.';
		let transcriptionId = '';
		await whileActive(id, async () => {
			transcriptionId = await simulateTranscription('Stored: Captions & Co', text);
			const [execution] = await instance().waitForExecutions(id);
			expect(execution.status).toBe('success');
			expect(outputOf(execution, 'Write SRT File')[0].json.fileName).toBe(
				join(filesDir, `stored-captions-co-${transcriptionId.slice(0, 8)}.srt`),
			);
		});
		const base = `stored-captions-co-${transcriptionId.slice(0, 8)}`;
		expect((await readdir(filesDir)).sort()).toEqual([`${base}.srt`, `${base}.vtt`]);
		const vtt = await readFile(join(filesDir, `${base}.vtt`), 'utf8');
		const srt = await readFile(join(filesDir, `${base}.srt`), 'utf8');
		expect(vtt).toBe(service().transcriptions.get(transcriptionId)!.files.vtt.content);
		const vttCues = vtt.match(/^\d\d:\d\d:\d\d\.\d{3} --> /gm) ?? [];
		const srtCues = srt.match(/^\d+\r?\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\r?$/gm) ?? [];
		expect(srtCues.length).toBeGreaterThan(0);
		expect(srtCues).toHaveLength(vttCues.length);
		expect(srt.replace(/\s+/g, ' ')).toContain('A second sentence follows it.');
	});

	it('runs translate-captions, writing the translated WebVTT at the times of the service’s', async () => {
		const workflow = withTranslatedText(loadExample('translate-captions.json'));
		const { id } = await importExample('translate-captions.json (read back)', workflow);
		await whileActive(id, async () => {
			const transcriptionId = await simulateTranscription(
				'Translated: captions',
				'The captions are translated now. Every cue keeps its time on screen, and the lines break again where they should.',
			);
			const [execution] = await instance().waitForExecutions(id);
			expect([execution.status, execution.data.resultData.error?.message]).toEqual([
				'success',
				undefined,
			]);
			expectTranslated(execution, service().transcriptions.get(transcriptionId)!.files.vtt.content);
		});
	});

	it('runs summarise-with-ai-agent against a local OpenAI stand-in, the tool reading the transcript in chunks', async () => {
		await ensureOpenAiCredential();
		const workflow = loadExample('summarise-with-ai-agent.json');
		const { id, nodes } = await importExample(
			'summarise-with-ai-agent.json (with a model)',
			workflow,
		);
		expect(nodes.find((n) => n.name === 'OpenAI Chat Model')!.credentials!.openAiApi.name).toBe(
			'OpenAI account',
		);
		// about 11 minutes of speech: three chunks of at most 5 minutes
		const text = longText(1100, 'ai-example');
		let transcriptionId = '';
		let execution: ExecutionSummary | undefined;
		await whileActive(id, async () => {
			transcriptionId = await simulateTranscription('Launch review', text);
			[execution] = await instance().waitForExecutions(id);
		});
		expect(execution!.status).toBe('success');
		expect(runDataOf(execution!)['Read Captions']).toHaveLength(1);
		const transcription = service().transcriptions.get(transcriptionId)!;
		const expected = expectedChunkLines(transcription.files.vtt.content, chunkMinutesOf(workflow));
		expect(expected).toHaveLength(3);
		const calls = openAi!.requests.map((r) => JSON.parse(r.body) as ChatRequest);
		const prompt = JSON.stringify(calls[0].messages);
		const minutes = Math.round(transcription.durationSeconds / 60);
		expect(prompt).toContain(`Summarise \\"Launch review\\" (about ${minutes} min`);
		// the captions reach the model through the tool only, not as a file attached to the prompt
		expect(prompt).not.toContain('WEBVTT');
		// the model is told to cite the chunks' start times, by the system message and the tool's description
		expect(calls[0].messages.find((m) => m.role === 'system')!.content).toMatch(
			/start time.*mm:ss/,
		);
		const tool = calls[0].tools!.find((t) => /caption/i.test(t.function.name))!;
		expect(tool.function.description).toMatch(/start time as mm:ss/);
		// the tool's answer: the sandbox's captions as one timed line per chunk, every word in order
		const lines = toolCallLines(calls);
		expect(lines).toEqual(expected);
		expect(lines.map((line) => line.replace(/^\[[^\]]*\] /, '')).join(' ')).toBe(text);
		expect(outputOf(execution!, 'Summary')[0].json).toEqual({
			title: 'Launch review',
			transcriptionId,
			summary: chunkSummary(expected),
		});
	});

	describe('from the pinned event alone, as a user opening an example without a service runs it', () => {
		let requestsBefore = 0;

		beforeAll(() => {
			requestsBefore = service().requestLog.length;
		});

		/** Saves the example as the editor does (pinned data kept) and runs it from its trigger: "Execute workflow". */
		async function runPinned(workflow: ExampleWorkflow): Promise<ExecutionSummary> {
			useCredential(workflow, 'captioningApi', { id: credentialId, name: EXAMPLE_CREDENTIAL_NAME });
			const created = await instance().rest('POST', '/workflows', {
				...toEditorBody(workflow),
				name: `${workflow.name} (pinned)`,
			});
			// n8n 2.x runs what it saved; 1.x runs workflowData
			await instance().rest('POST', `/workflows/${created.id}/run`, {
				workflowData: created,
				triggerToStartFrom: { name: EXAMPLE_TRIGGER_NAME },
			});
			const [execution] = await instance().waitForExecutions(created.id);
			// the error's message, if any, says which node failed and why
			expect([execution.mode, execution.status, execution.data.resultData.error?.message]).toEqual([
				'manual',
				'success',
				undefined,
			]);
			expect(outputOf(execution, EXAMPLE_TRIGGER_NAME)[0].json).toEqual(pinnedEvent(workflow).json);
			return execution;
		}

		it('dev-transcription-feed: Captions Ready?, Convert to SRT from the pinned WebVTT, Transcript Summary', async () => {
			const workflow = loadExample('dev-transcription-feed.json');
			const event = pinnedEvent(workflow);
			const execution = await runPinned(workflow);
			const transcript = String(event.json.transcript);
			expect(outputOf(execution, 'Transcript Summary')[0].json).toEqual({
				title: event.json.title,
				durationSeconds: Math.round(Number(event.json.duration)),
				confidencePercent: Math.round(Number(event.json.averageConfidence) * 100),
				wordCount: transcript.split(/\s+/).length,
				transcript,
			});
			const [converted] = outputOf(execution, 'Convert to SRT');
			expect(converted.binary.srt).toMatchObject({
				fileName: 'quarterly-product-update.srt',
				mimeType: expect.stringMatching(/^application\/x-subrip/),
			});
			expect(runDataOf(execution)['Waiting for Captions']).toBeUndefined();
		});

		it('captions-to-slack: Settings and Build Message, Post to Slack to a local stand-in for Slack', async () => {
			const workflow = loadExample('captions-to-slack.json');
			setAssignment(workflow, 'Settings', 'chatWebhookUrl', `${chat!.url}/services/pinned`);
			const before = chat!.requests.length;
			const event = pinnedEvent(workflow);
			await runPinned(workflow);
			const posts = chat!.requests.slice(before);
			expect(posts.map((p) => p.url)).toEqual(['/services/pinned']);
			const [headline, quote] = (JSON.parse(posts[0].body) as { text: string }).text.split('\n');
			expect(headline).toMatch(
				new RegExp(
					`^:memo: \\*${String(event.json.title)}\\* is transcribed \\(0:\\d\\d, \\d+% confidence\\)$`,
				),
			);
			expect(quote).toBe(`>${String(event.json.transcript)}`);
		});

		it('store-vtt-and-srt: the pinned WebVTT and its SRT written to the configured folder', async () => {
			const workflow = loadExample('store-vtt-and-srt.json');
			const folder = await mkdtemp(join(filesDir, 'pinned-'));
			setAssignment(workflow, 'Settings', 'outputFolder', folder);
			const event = pinnedEvent(workflow);
			await runPinned(workflow);
			const base = `quarterly-product-update-${String(event.json.transcriptionId).slice(0, 8)}`;
			expect((await readdir(folder)).sort()).toEqual([`${base}.srt`, `${base}.vtt`]);
			expect(await readFile(join(folder, `${base}.vtt`), 'utf8')).toBe(decoded(event, 'vtt'));
			const srt = await readFile(join(folder, `${base}.srt`), 'utf8');
			expect(srt).toMatch(/^1\r?\n00:00:00,300 --> /);
		});

		it('summarise-with-ai-agent: the agent and its Captioning tool reading the pinned captions, with a local stand-in for OpenAI', async () => {
			const workflow = loadExample('summarise-with-ai-agent.json');
			useCredential(workflow, 'openAiApi', await ensureOpenAiCredential());
			const event = pinnedEvent(workflow);
			// as it is: the tool reads the pinned WebVTT file (Captions as Text), not the signed URL, long expired
			const before = openAi!.requests.length;
			const execution = await runPinned(workflow);
			const calls = openAi!.requests.slice(before).map((r) => JSON.parse(r.body) as ChatRequest);
			// the pinned recording is shorter than a chunk: one line, from its first cue to its last
			const expected = expectedChunkLines(decoded(event, 'vtt'), chunkMinutesOf(workflow));
			expect(expected).toHaveLength(1);
			const lines = toolCallLines(calls);
			expect(lines).toEqual(expected);
			expect(lines[0].replace(/^\[[^\]]*\] /, '')).toBe(event.json.transcript);
			expect(outputOf(execution, 'Summary')[0].json).toEqual({
				title: event.json.title,
				transcriptionId: event.json.transcriptionId,
				summary: chunkSummary(expected),
			});
		});

		it('exactly-once-queue-mode: First Delivery? and Post Event, with the claim in PostgreSQL stood in for', async () => {
			const workflow = loadExample('exactly-once-queue-mode.json');
			// the claim needs PostgreSQL (test/queue runs it for real): here a first claim, as a Set node
			Object.assign(findNode(workflow, 'Claim Event'), {
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				credentials: undefined,
				parameters: {
					assignments: {
						assignments: [
							{ id: 'e1', name: 'eventId', value: '={{ $json.eventId }}', type: 'string' },
							{ id: 'e2', name: 'firstDelivery', value: true, type: 'boolean' },
						],
					},
					options: {},
				},
			});
			setAssignment(workflow, 'Settings', 'notifyUrl', `${chat!.url}/notify`);
			const before = chat!.requests.length;
			const event = pinnedEvent(workflow);
			const execution = await runPinned(workflow);
			const posts = chat!.requests.slice(before);
			expect(posts.map((p) => p.url)).toEqual(['/notify']);
			expect(JSON.parse(posts[0].body)).toEqual({
				eventId: event.json.eventId,
				eventType: 'transcription.transcribed',
				transcriptionId: event.json.transcriptionId,
				title: event.json.title,
				executionId: execution.id,
			});
		});

		it('translate-captions: segments, the stand-in translation, Create From Items and Check from the pinned WebVTT', async () => {
			const workflow = withTranslatedText(loadExample('translate-captions.json'));
			const event = pinnedEvent(workflow);
			const execution = await runPinned(workflow);
			expectTranslated(execution, decoded(event, 'vtt'));
		});

		it('called the service for none of it: the pinned event stood in for the service', () => {
			expect(service().requestLog.slice(requestsBefore)).toEqual([]);
		});
	});

	it('leaves no webhook endpoint registered once the examples are deactivated', async () => {
		const res = await fetch(`${service().url}/_sandbox/webhook_endpoints`);
		expect(((await res.json()) as { endpoints: unknown[] }).endpoints).toEqual([]);
	});
});
