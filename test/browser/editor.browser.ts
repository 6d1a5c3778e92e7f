// The package in n8n's editor, as a user sees it: a real n8n 2.41 with the package installed from its
// tarball, the dev example imported with its credential and activated against the sandbox, and Debian's
// Chromium driven by playwright-core. Saves its screenshots to test-results/screenshots/ (ignored by git);
// `npm run screenshots` runs it with CAPTIONING_UPDATE_SCREENSHOTS=1 to refresh README's, in docs/screenshots/.
// Run: bash scripts/run.sh browser (installs chromium and playwright-core when missing).
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import {
	createSandboxCredential,
	EXAMPLE_CREDENTIAL_NAME,
	loadExample,
	type N8nInstance,
	packProject,
	PROJECT_ROOT,
	startN8n,
	toPublicApiBody,
	useCredential,
} from '../../harness';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { launchChromium, watchPage, type Browser, type Page, type PageEvents } from './chromium';

const SCREENSHOTS =
	process.env.CAPTIONING_UPDATE_SCREENSHOTS === '1'
		? join(PROJECT_ROOT, 'docs', 'screenshots')
		: join(PROJECT_ROOT, 'test-results', 'screenshots');
const FAILURES = join(PROJECT_ROOT, 'test-results', 'browser');
const ICON_PATH = '/icons/n8n-nodes-captioning/dist/nodes/Captioning/';
const TRIGGER = 'Captioning Trigger';
const ACTION = 'Convert to SRT';

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
	let tarballDir = '';
	let workflowId = '';

	beforeAll(async () => {
		sandbox = await startSandbox();
		const tarball = await packProject();
		tarballDir = dirname(tarball);
		n8n = await startN8n({ packageTarball: tarball });
		// what `npm run dev` sets up: the credential, then the example linked to it and active
		const credential = await createSandboxCredential(n8n, sandbox, EXAMPLE_CREDENTIAL_NAME);
		const workflow = loadExample('dev-transcription-feed.json');
		useCredential(workflow, 'captioningApi', credential);
		workflowId = (await n8n.createWorkflow(toPublicApiBody(workflow))).id as string;
		await n8n.activateWorkflow(workflowId);

		browser = await launchChromium({ viewport: { width: 1440, height: 1000 } });
		browser.page.setDefaultTimeout(20_000);
		events = await watchPage(browser, (url) => url.includes(ICON_PATH));
		await mkdir(SCREENSHOTS, { recursive: true });
	}, 240_000);

	afterAll(async () => {
		if (events) report(events);
		await browser?.close().catch(() => undefined);
		await n8n?.stop();
		await sandbox?.stop();
		if (tarballDir) await rm(tarballDir, { recursive: true, force: true });
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

	/** Runs a step; when it fails, keeps a screenshot of the page in test-results/browser/. */
	async function step(name: string, body: () => Promise<void>): Promise<void> {
		try {
			await body();
		} catch (error) {
			await mkdir(FAILURES, { recursive: true });
			await page()
				.screenshot({ path: join(FAILURES, `${name}.png`) })
				.catch(() => undefined);
			throw error;
		}
	}

	async function screenshot(file: string): Promise<void> {
		await page().screenshot({ path: join(SCREENSHOTS, file), animations: 'disabled' });
	}

	/** Opens the example workflow and waits for its nodes; closes n8n's "Production Checklist". */
	async function openWorkflow(): Promise<void> {
		await page().goto(`${baseUrl()}/workflow/${workflowId}`);
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
			await page().goto(`${baseUrl()}/signin`);
			await page().locator('[data-test-id="emailOrLdapLoginId"] input').fill(n8n!.owner.email);
			await page().locator('[data-test-id="password"] input').fill(n8n!.owner.password);
			await page().locator('[data-test-id="signin-form"] button').first().click();
			await page().waitForURL((url) => !url.pathname.startsWith('/signin'));
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

			await ndv.getByText('Webhook URLs').click();
			const url = ndv.locator('.webhook-url');
			await ndv.locator('[data-test-id="radio-button-test"]').click();
			const testUrl = (await url.innerText()).trim();
			await ndv.locator('[data-test-id="radio-button-production"]').click();
			await page()
				.locator('[data-test-id="radio-button-production"][aria-checked="true"]')
				.waitFor();
			const productionUrl = (await url.innerText()).trim();
			expect(productionUrl).toMatch(new RegExp(`^${baseUrl()}/webhook/[0-9a-f-]{36}/webhook$`));
			expect(testUrl).toBe(productionUrl.replace('/webhook/', '/webhook-test/'));
			// the URL the editor shows is the one activation registered at the service
			const res = await fetch(`${sandbox!.url}/_sandbox/webhook_endpoints`);
			const { endpoints } = (await res.json()) as {
				endpoints: { callbackUri: string; enabledEvents: string[] }[];
			};
			expect(endpoints).toHaveLength(1);
			expect(endpoints[0].callbackUri.split('?')[0]).toBe(productionUrl);
			expect(endpoints[0].enabledEvents).toEqual([
				'transcription.created',
				'transcription.transcribed',
			]);
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
			expect(text).toMatch(/Actions \(8\)/);
			expect(text).toMatch(/Triggers \(2\)/);
			await screenshot('node-panel-actions.png');
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
		const ours = (text: string) => /captioning/i.test(text);
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
