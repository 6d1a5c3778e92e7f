// The package in n8n's editor, as a user sees it: a real n8n 2.41 with the package installed from its
// tarball, the dev example imported with its credential and activated against the sandbox, and Debian's
// Chromium driven by playwright-core. Saves its screenshots to test-results/screenshots/ (ignored by git);
// `npm run screenshots` runs it with CAPTIONING_UPDATE_SCREENSHOTS=1 to refresh README's, in docs/screenshots/.
// Run: bash scripts/run.sh browser (installs chromium and playwright-core when missing). n8n's WEBHOOK_URL is
// http://localhost:<port>/, as a fresh install has it; the last test restarts n8n with http://n8n.lan:5678/.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import {
	captioningHttpRequestNode,
	CREDENTIAL_TYPE as CREDENTIAL,
	createSandboxCredential,
	EXAMPLE_CREDENTIAL_NAME,
	freePort,
	linearWorkflow,
	loadExample,
	type N8nInstance,
	sandboxCredentialData,
	toEditorBody,
	toPublicApiBody,
	useCredential,
} from '../../harness';
import { redactCallbackToken } from '../../nodes/Captioning/transport/webhookEndpoints';
import type { Sandbox } from '../../sandbox/server';
import { createEndpoint, obtainToken } from '../helpers/sandboxClient';
import { launchChromium, watchPage, type Browser, type Page, type PageEvents } from './chromium';
import {
	openInEditor,
	SCREENSHOTS,
	signIn,
	type Stack,
	startStack,
	step as stepOn,
} from './session';

const ICON_PATH = '/icons/n8n-nodes-captioning/dist/nodes/Captioning/';
const TRIGGER = 'Captioning Trigger';
const ACTION = 'Convert to SRT';
const GET_NODE = 'Get Endpoint';
const CREDENTIAL_HTTP_NODE = 'Start Transcription';
// a service on the public internet, never contacted: the trigger refuses before any request
const PUBLIC_SERVICE = 'https://captioning.example.com';
// a name only n8n's network knows, as a LAN or a container network gives it: the trigger registers it
const LAN_WEBHOOK_URL = 'http://n8n.lan:5678';
const OTHER_ENDPOINT = 'https://example.com/hooks/captions';

const node = (name: string): string => `[data-test-id="canvas-node"][data-node-name="${name}"]`;

interface NodeIcon {
	node: string;
	src: string;
	loaded: boolean;
}

/** The <img> icons of the package's nodes on the canvas, and whether each has loaded. */
const CANVAS_ICONS = `[...document.querySelectorAll(
	'[data-test-id="canvas-node"][data-node-type^="n8n-nodes-captioning."] img'
)].map((img) => ({
	node: img.closest('[data-test-id="canvas-node"]').getAttribute('data-node-name'),
	src: img.getAttribute('src'),
	loaded: img.complete && img.naturalWidth > 0,
}))`;

describe('the editor (real n8n, Chromium)', () => {
	let sandbox: Sandbox | undefined;
	let n8n: N8nInstance | undefined;
	let browser: Browser | undefined;
	let events: PageEvents | undefined;
	let stack: Stack | undefined;
	let workflowId = '';
	// n8n's WEBHOOK_URL: localhost, as n8n has it without one
	let webhookBase = '';
	// workflows the user builds: Get with its endpoint from the list; a trigger whose service cannot reach n8n;
	// a trigger and an action node as n8n adds them, every parameter at its default; the credential's HTTP Request
	// node
	const built = { get: '', unreachable: '', defaults: '', pinned: '', lan: '', credentialHttp: '' };

	beforeAll(async () => {
		const port = await freePort();
		webhookBase = `http://localhost:${port}`;
		stack = await startStack({ port, env: { WEBHOOK_URL: `${webhookBase}/` } });
		({ sandbox, n8n } = stack);
		// what `npm run dev` sets up: the credential, then the example linked to it and active
		const credential = await createSandboxCredential(n8n, sandbox, EXAMPLE_CREDENTIAL_NAME);
		const workflow = loadExample('dev-transcription-feed.json');
		useCredential(workflow, 'captioningApi', credential);
		workflowId = (await n8n.createWorkflow(toPublicApiBody(workflow))).id as string;
		await n8n.activateWorkflow(workflowId);
		const { access_token } = await obtainToken(sandbox);
		await createEndpoint(sandbox, access_token, OTHER_ENDPOINT, ['transcription.transcribed']);
		const publicService = await n8n.createCredential('Captioning (public service)', CREDENTIAL, {
			...sandboxCredentialData(sandbox),
			baseUrl: PUBLIC_SERVICE,
		});
		built.get = await createBuiltWorkflow('Get an endpoint', [
			{ type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, name: 'Start', parameters: {} },
			{
				type: 'n8n-nodes-captioning.captioning',
				typeVersion: 2,
				name: GET_NODE,
				parameters: { resource: 'webhookEndpoint', operation: 'get' },
				credentials: { [CREDENTIAL]: credential },
			},
		]);
		built.unreachable = await createBuiltWorkflow('Transcripts from a public service', [
			{
				type: 'n8n-nodes-captioning.captioningTrigger',
				typeVersion: 2,
				name: TRIGGER,
				parameters: { events: ['transcription.transcribed'] },
				credentials: { [CREDENTIAL]: publicService },
			},
		]);
		built.lan = await createBuiltWorkflow('Transcripts at n8n.lan', [
			{
				type: 'n8n-nodes-captioning.captioningTrigger',
				typeVersion: 2,
				name: TRIGGER,
				parameters: { events: ['transcription.transcribed'] },
				credentials: { [CREDENTIAL]: credential },
			},
		]);
		// the dev example as the editor saves it after an import: its pinned event, no credential linked
		const example = loadExample('dev-transcription-feed.json');
		built.pinned = (
			await n8n.rest('POST', '/workflows', {
				...toEditorBody(example),
				name: 'Dev example from its file',
			})
		).id as string;
		// the credential's own HTTP Request node as the editor saves it (a shared workflow, a template); the public
		// API refuses `extendsCredential`
		built.credentialHttp = (
			await n8n.rest('POST', '/workflows', {
				...linearWorkflow('Start a transcription', [
					{
						...captioningHttpRequestNode(CREDENTIAL_HTTP_NODE, '', credential, { method: 'POST' }),
						extendsCredential: CREDENTIAL,
					},
				]),
				active: false,
			})
		).id as string;
		built.defaults = await createBuiltWorkflow('New Captioning nodes', [
			{
				type: 'n8n-nodes-captioning.captioningTrigger',
				// the version a new node gets
				typeVersion: 3,
				name: TRIGGER,
				parameters: {},
			},
			{
				type: 'n8n-nodes-captioning.captioning',
				typeVersion: 2,
				name: 'Captioning',
				parameters: {},
			},
		]);

		browser = await launchChromium({ viewport: { width: 1440, height: 1000 } });
		// generous: a busy machine (CI runs other suites beside this one) can take 20 s to draw the editor
		browser.page.setDefaultTimeout(45_000);
		events = await watchPage(browser, (url) => url.includes(ICON_PATH));
		await mkdir(SCREENSHOTS, { recursive: true });
	}, 240_000);

	afterAll(async () => {
		if (events) report(events);
		await browser?.close().catch(() => undefined);
		await stack?.stop();
	}, 60_000);

	const page = (): Page => {
		if (!browser) throw new Error('Chromium did not start');
		return browser.page;
	};
	const baseUrl = (): string => {
		if (!n8n) throw new Error('n8n did not start');
		return n8n.baseUrl;
	};
	const seen = (): PageEvents => {
		if (!events) throw new Error('the page is not watched');
		return events;
	};

	interface BuiltNode {
		type: string;
		typeVersion: number;
		name: string;
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
	}

	/** A workflow of `nodes` in a row, each connected to the next, as the public API creates it. */
	async function createBuiltWorkflow(name: string, nodes: BuiltNode[]): Promise<string> {
		const connections: Record<string, unknown> = {};
		nodes.slice(1).forEach((next, i) => {
			connections[nodes[i].name] = { main: [[{ node: next.name, type: 'main', index: 0 }]] };
		});
		const created = await n8n!.createWorkflow({
			name,
			nodes: nodes.map((n, i) => ({
				...n,
				id: randomUUID(),
				position: [i * 280, 0],
				// the editor gives a webhook node its id; n8n 1.x's public API would not
				...(n.type.endsWith('captioningTrigger') ? { webhookId: randomUUID() } : {}),
			})),
			connections,
			settings: { executionOrder: 'v1' },
		});
		return created.id as string;
	}

	/** The texts of the notices a node's panel shows. */
	async function notices(ndv: ReturnType<Page['locator']>): Promise<string[]> {
		return (await ndv.locator('.notice-content').allInnerTexts()).map((t) => t.trim());
	}

	/** Waits for n8n's toast with `title` and returns its text; closes it. */
	async function toast(title: string, timeout = 45_000): Promise<string> {
		const notification = page().locator('.el-notification', { hasText: title }).first();
		await notification.waitFor({ timeout });
		const text = await notification.innerText();
		await notification
			.locator('.el-notification__closeBtn')
			.click()
			.catch(() => undefined);
		return text;
	}

	/** Runs a step; when it fails, keeps a screenshot of the page in test-results/browser/. */
	const step = (name: string, body: () => Promise<void>) => stepOn(page(), name, body);

	async function screenshot(file: string): Promise<void> {
		await page().screenshot({ path: join(SCREENSHOTS, file), animations: 'disabled' });
	}

	/** Opens the example workflow and waits for its nodes; closes n8n's "Production Checklist". */
	async function openWorkflow(): Promise<void> {
		await openInEditor(page(), n8n!, `/workflow/${workflowId}`);
		await page().locator(node(TRIGGER)).waitFor();
		await page().locator(node(ACTION)).waitFor();
		// shown for a published workflow, a moment after the canvas
		const checklist = page().locator('[data-test-id="suggested-actions-close"]');
		await checklist.waitFor({ timeout: 3_000 }).catch(() => undefined);
		if (await checklist.isVisible()) {
			await checklist.click();
			await checklist.waitFor({ state: 'hidden' });
		}
	}

	/** Opens a workflow built for a test and waits for its nodes; `reload`: the page loaded (n8n restarted). */
	async function openBuilt(
		id: string,
		names: string[],
		options: { reload?: boolean } = {},
	): Promise<void> {
		await openInEditor(page(), n8n!, `/workflow/${id}`, options);
		for (const name of names) await page().locator(node(name)).waitFor();
	}

	async function openNode(name: string) {
		await page().locator(node(name)).dblclick();
		const ndv = page().locator('[data-test-id="ndv"]');
		await ndv.waitFor();
		await ndv.locator('[data-test-id="node-parameters"]').waitFor();
		return ndv;
	}

	/** The icons of the package's nodes on the canvas, once all show `file` and have loaded. */
	async function canvasIcons(file: string): Promise<NodeIcon[]> {
		const deadline = Date.now() + 10_000;
		for (;;) {
			const icons = await page().evaluate<NodeIcon[]>(CANVAS_ICONS);
			const shown = icons.every((icon) => icon.loaded && icon.src === `${ICON_PATH}${file}`);
			if ((icons.length > 0 && shown) || Date.now() > deadline) {
				return icons.sort((a, b) => a.node.localeCompare(b.node));
			}
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
	}

	it('signs in as the owner at /signin', async () => {
		await step('signin', async () => {
			await signIn(page(), n8n!);
			expect(new URL(page().url()).pathname).not.toMatch(/^\/signin/);
		});
	});

	it('shows the example workflow with both Captioning nodes, their icons and subtitles', async () => {
		await step('workflow', async () => {
			await openWorkflow();
			const names = await page().evaluate<string[]>(
				`[...document.querySelectorAll('[data-test-id="canvas-node"]')].map((n) => n.getAttribute('data-node-name'))`,
			);
			expect(names.sort()).toEqual(
				loadExample('dev-transcription-feed.json')
					.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote')
					.map((n) => n.name)
					.sort(),
			);
			expect(await page().locator(node(TRIGGER)).innerText()).toContain(
				'transcription.created, transcription.transcribed',
			);
			expect(await page().locator(node(ACTION)).innerText()).toContain('convert: captionFile');
			expect(await canvasIcons('captioning.svg')).toEqual([
				{ node: TRIGGER, src: `${ICON_PATH}captioning.svg`, loaded: true },
				{ node: ACTION, src: `${ICON_PATH}captioning.svg`, loaded: true },
			]);
			await screenshot('workflow.png');
		});
	});

	it("opens the trigger's panel: credential, Registration, Events and the Webhook URLs", async () => {
		await step('trigger-panel', async () => {
			await openWorkflow();
			const ndv = await openNode(TRIGGER);
			expect(await ndv.locator('[data-test-id="node-credentials-select"] input').inputValue()).toBe(
				EXAMPLE_CREDENTIAL_NAME,
			);
			expect(
				await ndv.locator('[data-test-id="parameter-input-registration"] input').inputValue(),
			).toBe('Automatic (via the API)');
			const events = ndv.locator('[data-test-id="parameter-input-events"]');
			expect(await events.innerText()).toMatch(
				/Transcription Created[\s\S]*Transcription Transcribed/,
			);
			expect(
				await ndv.locator('[data-test-id="parameter-input-downloadFormats"]').innerText(),
			).toContain('WebVTT');

			// the parameters' section (the trigger panel beside it names it too)
			await ndv.locator('[data-test-id="node-parameters"]').getByText('Webhook URLs').click();
			const url = ndv.locator('.webhook-url');
			await ndv.locator('[data-test-id="radio-button-test"]').click();
			const testUrl = (await url.innerText()).trim();
			await ndv.locator('[data-test-id="radio-button-production"]').click();
			await page()
				.locator('[data-test-id="radio-button-production"][aria-checked="true"]')
				.waitFor();
			const productionUrl = (await url.innerText()).trim();
			expect(productionUrl).toMatch(new RegExp(`^${webhookBase}/webhook/[0-9a-f-]{36}/webhook$`));
			// n8n 2.41.1 shows the test URL on the editor's own address, the production URL on WEBHOOK_URL's
			expect(testUrl).toBe(
				productionUrl.replace(`${webhookBase}/webhook/`, `${baseUrl()}/webhook-test/`),
			);
			// the URL the editor shows is the one activation registered at the service
			const res = await fetch(`${sandbox!.url}/_sandbox/webhook_endpoints`);
			const { endpoints } = (await res.json()) as {
				endpoints: { callbackUri: string; enabledEvents: string[] }[];
			};
			const registered = endpoints.filter((e) => e.callbackUri.split('?')[0] === productionUrl);
			expect(registered).toHaveLength(1);
			expect(registered[0].enabledEvents).toEqual([
				'transcription.created',
				'transcription.transcribed',
			]);
			// the trigger's own panel beside the parameters: header, hint, and the help for both URLs
			const panel = ndv.locator('[data-test-id="trigger-header"]').locator('..').locator('..');
			expect(await ndv.locator('[data-test-id="trigger-header"]').innerText()).toBe(
				'Starts the workflow on transcription events',
			);
			expect(await panel.innerText()).toContain(
				'Published: the service sends the selected events to the Production URL (under Webhook URLs)',
			);
			await panel.getByText('When will this node trigger my flow?').click();
			await panel.getByText('N8N_WEBHOOK_URL', { exact: true }).first().waitFor();
			const help = await panel.innerText();
			expect(help).toContain('This workflow is published');
			expect(help).toMatch(/click Execute step: the trigger registers its Test URL/);
			expect(help).toContain('listens for 2 minutes');
			expect(help).toContain(
				"The service must reach these URLs. n8n builds them from N8N_WEBHOOK_URL (in n8n 1.x: WEBHOOK_URL), an environment variable of n8n's process: set it to n8n's public https address",
			);
			await screenshot('trigger-panel.png');
		});
	});

	it('opens the credential dialog: the five fields, and a connection test that passed', async () => {
		await step('credential-dialog', async () => {
			await openWorkflow();
			const ndv = await openNode(TRIGGER);
			await ndv.locator('[data-test-id="credential-edit-button"]').click();
			const dialog = page().locator('[data-test-id="credential-edit-dialog"]');
			await dialog.waitFor();
			await dialog.getByText('Connection tested successfully').waitFor();
			const labels = (await dialog.locator('label').allInnerTexts()).map(
				(label) => label.split('\n')[0],
			);
			expect(labels.slice(0, 5)).toEqual([
				'Base URL *',
				'Client ID *',
				'Client Secret *',
				'Assertion Token *',
				'API Media Type *',
			]);
			const input = (name: string) =>
				dialog.locator(`[data-test-id="parameter-input-${name}"] input`).inputValue();
			expect(await input('baseUrl')).toBe(sandbox!.url);
			expect(await input('clientId')).toBe('sandbox-client-id');
			expect(await input('mediaType')).toBe(sandbox!.mediaType);
			// secrets are never sent back to the browser: n8n shows a placeholder of its own
			expect(await input('clientSecret')).not.toContain('sandbox-client-secret');
			expect(await input('assertion')).not.toContain('sandbox-assertion-token');
			expect(
				await dialog
					.locator('[data-test-id="parameter-input-clientSecret"] input')
					.getAttribute('type'),
			).toBe('password');
			expect(await dialog.innerText()).toContain('Sent as the Accept header on every call.');
			// the dialog's header: the credential's name over its type
			expect(await page().getByText('Captioning API', { exact: true }).first().isVisible()).toBe(
				true,
			);
			await screenshot('credential-dialog.png');
		});
	});

	it("opens the Captioning action's panel: Caption File › Convert, WebVTT to SRT", async () => {
		await step('action-panel', async () => {
			await openWorkflow();
			const ndv = await openNode(ACTION);
			const value = (name: string) =>
				ndv.locator(`[data-test-id="parameter-input-${name}"] input`).first().inputValue();
			expect(await value('resource')).toBe('Caption File');
			expect(await value('operation')).toBe('Convert');
			expect(await value('binaryPropertyName')).toBe('vtt');
			expect(await value('from')).toBe('WebVTT');
			expect(await value('to')).toBe('SRT');
			expect(await value('outputBinaryPropertyName')).toBe('srt');
			const parameters = await ndv.locator('[data-test-id="node-parameters"]').innerText();
			expect(parameters).toContain('Put Output File in Field');
			await screenshot('action-panel.png');
		});
	});

	it('finds the package in the node panel by searching "Captioning"', async () => {
		await step('node-panel', async () => {
			await openWorkflow();
			await page().locator('[data-test-id="node-creator-plus-button"]').click();
			const creator = page().locator('[data-test-id="node-creator"]');
			await creator.waitFor();
			await page().locator('[data-test-id="node-creator-search-bar"]').fill('Captioning');
			const names = creator.locator('[data-test-id="node-creator-item-name"]');
			// the search results replace the category list once they are there
			await creator
				.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Captioning$/ })
				.waitFor();
			// n8n lists the action node and its trigger as one app, under the action node's name
			expect(await names.allInnerTexts()).toEqual(['Captioning']);
			await screenshot('node-panel-search.png');

			await names.first().click();
			await creator.getByText(/^Triggers \(2\)/).click();
			await creator.getByText('On transcription transcribed').waitFor();
			const items = (await names.allInnerTexts()).map((name) => name.trim());
			expect(items).toEqual([
				'Check captions against a style guide',
				'Convert a caption file',
				'Create a caption file from items',
				'Download a caption file',
				'Fix captions to a style guide',
				'Create a webhook endpoint',
				'Delete a webhook endpoint',
				'Get a webhook endpoint',
				'Get many webhook endpoints',
				'On transcription created',
				'On transcription transcribed',
			]);
			const text = await creator.innerText();
			expect(text).toMatch(/^Node details\s+Docs\s+Captioning\s+Installed\b/);
			// no Custom API Call among them: n8n shows its hint for nodes that are no community nodes only
			expect(text).toMatch(/Actions \(9\)/);
			expect(text).toMatch(/Triggers \(2\)/);
			await screenshot('node-panel-actions.png');
		});
	});

	it("lists the service's endpoints under Get › Webhook Endpoint › From List; the one picked is the one got", async () => {
		await step('resource-locator', async () => {
			await openBuilt(built.get, ['Start', GET_NODE]);
			const ndv = await openNode(GET_NODE);
			const locator = ndv.locator('[data-test-id="resource-locator-endpointId"]');
			expect(await locator.locator('[data-test-id="rlc-mode-selector"] input').inputValue()).toBe(
				'From list',
			);
			await locator.locator('[data-test-id="rlc-input"]').click();
			const items = page().locator('[data-test-id="rlc-item"]');
			await items.first().waitFor();
			// every endpoint the sandbox holds, the dev trigger's with its token redacted
			const held = [...sandbox!.endpoints.values()].map((e) => redactCallbackToken(e.callbackUri));
			expect(held).toHaveLength(2);
			expect((await items.allInnerTexts()).map((t) => t.trim()).sort()).toEqual(held.sort());
			expect((await items.allInnerTexts()).join(' ')).not.toMatch(/token=(?!\[redacted\])/);
			await screenshot('resource-locator.png');

			await page().locator('[data-test-id="rlc-search"]').fill('example.com/hooks');
			// the list search runs again with the filter: the trigger's endpoint leaves the list
			await page()
				.locator('[data-test-id="rlc-item"]', { hasText: '/webhook/' })
				.waitFor({ state: 'detached' });
			await items.first().waitFor();
			expect((await items.allInnerTexts()).map((t) => t.trim())).toEqual([OTHER_ENDPOINT]);
			await items.first().click();
			expect(await locator.locator('[data-test-id="rlc-input"]').inputValue()).toBe(OTHER_ENDPOINT);

			await ndv.locator('[data-test-id="node-execute-button"]').first().click();
			await toast('Node executed successfully');
			const [execution] = await n8n!.waitForExecutions(built.get);
			const picked = [...sandbox!.endpoints.values()].find(
				(e) => e.callbackUri === OTHER_ENDPOINT,
			)!;
			const output = execution.data.resultData.runData[GET_NODE][0].data.main[0];
			expect(output.map((item: { json: object }) => item.json)).toEqual([
				expect.objectContaining({ id: picked.id, callback_uri: OTHER_ENDPOINT }),
			]);
		});
	});

	it('refuses a localhost webhook URL for a service elsewhere in one sentence, at publishing and in the node panel', async () => {
		await step('reachability', async () => {
			await openBuilt(built.unreachable, [TRIGGER]);
			const productionUrl = `${webhookBase}/webhook/`;
			await page().locator('[data-test-id="workflow-open-publish-modal-button"]').click();
			const clicked = Date.now();
			await page().locator('[data-test-id="workflow-publish-button"]').click();
			// the refusal is the one error n8n 2.41 does not retry (its other errors: 5 attempts, 1 + 2 + 4 + 8 s apart)
			const published = await toast('Workflow could not be published', 45_000);
			const refusedAfterMs = Date.now() - clicked;
			process.stdout.write(`[browser] the refusal appeared ${refusedAfterMs} ms after Publish\n`);
			expect(published).toContain(`The captioning service cannot reach ${productionUrl}`);
			expect(published).toContain(
				"(localhost is n8n's own machine): set N8N_WEBHOOK_URL (in n8n 1.x: WEBHOOK_URL) to n8n's public https address and restart n8n.",
			);
			expect(refusedAfterMs).toBeLessThan(10_000);

			// "Execute step" in the trigger's panel listens at the test URL, which the service cannot reach either
			const ndv = await openNode(TRIGGER);
			await ndv.locator('[data-test-id="node-execute-button"]').first().click();
			const notice = page()
				.locator('.el-notification', { hasText: 'Problem running workflow' })
				.first();
			await notice.waitFor();
			expect(await notice.innerText()).toContain(
				// n8n 2.41.1 gives a test run the editor's own address, not WEBHOOK_URL's
				`The captioning service cannot reach ${baseUrl()}/webhook-test/`,
			);
			await screenshot('reachability.png');
			await notice.locator('.el-notification__closeBtn').click();
			// what n8n recorded of the activation: failed, for this reason
			const status = await n8n!.rest('GET', `/workflows/${built.unreachable}/publication-status`);
			expect(status).toMatchObject({
				status: 'failed',
				triggers: [
					expect.objectContaining({
						status: 'failed',
						errorMessage: expect.stringContaining("(localhost is n8n's own machine)"),
					}),
				],
			});
		});
	});

	it('runs an example from its pinned event at once: Execute workflow, no service, no credential', async () => {
		await step('pinned-example', async () => {
			await openBuilt(built.pinned, [TRIGGER, ACTION]);
			const requestsBefore = sandbox!.requestLog.length;
			await page().locator('[data-test-id="execute-workflow-button"]').first().click();
			await toast('Workflow executed successfully');
			await screenshot('pinned-example.png');
			const [execution] = await n8n!.waitForExecutions(built.pinned);
			const ran = Object.keys(execution.data.resultData.runData).sort();
			expect(ran).toEqual([TRIGGER, 'Captions Ready?', ACTION, 'Transcript Summary'].sort());
			expect(
				execution.data.resultData.runData['Transcript Summary'][0].data.main[0][0].json,
			).toMatchObject({
				title: 'Quarterly product update',
			});
			expect(sandbox!.requestLog.slice(requestsBefore)).toEqual([]);
		});
	});

	it("shows no notice in a new trigger or action panel but those that apply; n8n's Custom API Call points to the HTTP Request node", async () => {
		await step('notices', async () => {
			await openBuilt(built.defaults, [TRIGGER, 'Captioning']);
			let ndv = await openNode(TRIGGER);
			await ndv.locator('[data-test-id="parameter-input-events"]').waitFor();
			expect(await notices(ndv)).toEqual([]);
			// Manual registration: the one thing to do by hand
			await ndv.locator('[data-test-id="parameter-input-registration"]').click();
			await page()
				.locator('.el-select-dropdown__item:visible', { hasText: 'Manual (in the Dashboard)' })
				.click();
			await ndv.locator('.notice-content').first().waitFor();
			expect(await notices(ndv)).toEqual([
				expect.stringMatching(
					/^Publish the workflow \(n8n 1\.x: activate it\), then paste its Production URL .* the Secret Token of the Captioning Webhook Secret API credential/,
				),
			]);
			await ndv.locator('[data-test-id="ndv-close-button"]').click();

			// Caption File › Download, the action's defaults: signed URLs expire, which every download meets
			ndv = await openNode('Captioning');
			await ndv.locator('[data-test-id="parameter-input-binaryPropertyName"]').waitFor();
			expect(await notices(ndv)).toEqual([
				expect.stringMatching(/^Signed URLs expire soon after the event\./),
			]);
			// the last Resource n8n adds for a node whose credential authenticates requests
			await ndv.locator('[data-test-id="parameter-input-resource"]').click();
			const resources = page().locator('.el-select-dropdown__item:visible');
			await resources.first().waitFor();
			expect((await resources.allInnerTexts()).map((t) => t.split('\n')[0].trim())).toEqual([
				'Caption File',
				'Webhook Endpoint',
				'Custom API Call',
			]);
			await page()
				.locator('.el-select-dropdown__item:visible', { hasText: 'Custom API Call' })
				.click();
			const notice = ndv.locator('[data-test-id="node-parameters-http-notice"]');
			await notice.waitFor();
			expect((await notice.innerText()).trim()).toMatch(/^Use the HTTP Request node .*Captioning/);
			await screenshot('custom-api-call.png');
			await ndv.locator('[data-test-id="ndv-close-button"]').click();
		});
	});

	it("opens the credential's own HTTP Request node: authentication set, a link to the docs, the URL's placeholder the Base URL's", async () => {
		await step('credential-http-request', async () => {
			await openBuilt(built.credentialHttp, [CREDENTIAL_HTTP_NODE]);
			const ndv = await openNode(CREDENTIAL_HTTP_NODE);
			const url = ndv.locator('[data-test-id="parameter-input-url"]');
			await url.waitFor();
			expect(await notices(ndv)).toEqual([
				expect.stringMatching(
					/^Use the Captioning docs to construct your request\. We'll take care of the authentication part if you add a Captioning credential below\./,
				),
				// the HTTP Request node's own
				"You can view the raw requests this node makes in your browser's developer console",
			]);
			expect(await ndv.locator('.notice-content a').getAttribute('href')).toBe(
				'https://github.com/n8n-nodes-captioning/n8n-nodes-captioning/blob/main/docs/credentials.md#in-n8ns-http-request-node',
			);
			expect(await url.locator('input, textarea').first().getAttribute('placeholder')).toBe(
				'https://api.example.com/',
			);
			// Authentication and Credential Type are the credential's, not shown
			expect(await ndv.locator('[data-test-id="parameter-input-authentication"]').count()).toBe(0);
			expect(await ndv.locator('[data-test-id="parameter-input-nodeCredentialType"]').count()).toBe(
				0,
			);
			await ndv.locator('[data-test-id="ndv-close-button"]').click();
		});
	});

	it('shows the dark icons in the dark theme', async () => {
		await step('dark-theme', async () => {
			await openWorkflow();
			// n8n follows the system's theme (its default setting) as it changes
			await page().emulateMedia({ colorScheme: 'dark' });
			try {
				expect(await canvasIcons('captioning.dark.svg')).toEqual([
					{ node: TRIGGER, src: `${ICON_PATH}captioning.dark.svg`, loaded: true },
					{ node: ACTION, src: `${ICON_PATH}captioning.dark.svg`, loaded: true },
				]);
				await screenshot('workflow-dark.png');
			} finally {
				await page().emulateMedia({ colorScheme: 'light' });
			}
		});
	});

	it("loaded both icons as SVG, with no console error from the package's nodes", () => {
		const { watched, consoleErrors, pageErrors, failedRequests } = seen();
		const files = new Set(watched.map((r) => new URL(r.url).pathname));
		expect([...files].sort()).toEqual([
			`${ICON_PATH}captioning.dark.svg`,
			`${ICON_PATH}captioning.svg`,
		]);
		for (const response of watched) {
			expect([response.url, response.status, response.contentType]).toEqual([
				response.url,
				200,
				expect.stringMatching(/^image\/svg\+xml/),
			]);
		}
		// the refusals the reachability test provokes on purpose reach the console as the editor's errors
		const ours = (text: string) =>
			/captioning/i.test(text) && !text.includes('The captioning service cannot reach');
		expect(
			consoleErrors.filter(
				(e) => (ours(e.text) || e.url.includes(ICON_PATH)) && !isBlockedOutside(e.url),
			),
		).toEqual([]);
		expect(pageErrors.filter(ours)).toEqual([]);
		// net::ERR_ABORTED: the page dropped the request itself (it navigated away, or swapped the icon)
		expect(
			failedRequests.filter((r) => r.url.includes(ICON_PATH) && r.error !== 'net::ERR_ABORTED'),
		).toEqual([]);
	});

	it(`publishes with WEBHOOK_URL ${LAN_WEBHOOK_URL}: plain http on a name only n8n's network knows is registered`, async () => {
		await step('lan', async () => {
			await n8n!.restart({ env: { WEBHOOK_URL: `${LAN_WEBHOOK_URL}/` } });
			await openBuilt(built.lan, [TRIGGER], { reload: true });
			await page().locator('[data-test-id="workflow-open-publish-modal-button"]').click();
			await page().locator('[data-test-id="workflow-publish-button"]').click();
			const registered = () =>
				[...sandbox!.endpoints.values()].filter((e) =>
					e.callbackUri.startsWith(`${LAN_WEBHOOK_URL}/webhook/`),
				);
			const deadline = Date.now() + 30_000;
			while (registered().length === 0 && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, 200));
			}
			expect(registered().map((e) => e.callbackUri.split('?')[0])).toEqual([
				expect.stringMatching(new RegExp(`^${LAN_WEBHOOK_URL}/webhook/[0-9a-f-]{36}/webhook$`)),
			]);
			// published, the trigger activated without an error
			const published = async () =>
				(await n8n!.rest('GET', `/workflows/${built.lan}/publication-status`)) as {
					status: string;
					pendingVersionId: string | null;
					triggers: unknown[];
				};
			let status = await published();
			while (status.pendingVersionId !== null && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, 200));
				status = await published();
			}
			expect(status).toMatchObject({
				status: 'published',
				pendingVersionId: null,
				triggers: [expect.objectContaining({ status: 'activated', errorMessage: null })],
			});
		});
	});

	/** Requests this test blocks on purpose: the browser may reach the loopback only. */
	function isBlockedOutside(url: string): boolean {
		return seen().outsideRequests.includes(url);
	}

	/** What else the page reported (n8n's own), for the log. */
	function report(e: PageEvents): void {
		const lines = [
			`console errors: ${e.consoleErrors.length}`,
			...e.consoleErrors.map((c) => `  ${c.text} (${c.url || 'no url'})`),
			`page errors: ${e.pageErrors.length}`,
			...e.pageErrors.map((p) => `  ${p.split('\n')[0]}`),
			`blocked requests to outside the machine: ${e.outsideRequests.length}`,
			...[...new Set(e.outsideRequests)].map((u) => `  ${u}`),
			`answers >= 400: ${e.errorResponses.length}`,
			...e.errorResponses.map((r) => `  ${r.status} ${r.url}`),
		];
		process.stdout.write(`\n[browser] what the page reported:\n${lines.join('\n')}\n`);
	}
});
