// README's Quick start, followed literally in a real n8n 2.41 with the package installed from its tarball (step 1,
// as n8n installs a community package) and the sandbox as the service: add the trigger from the nodes panel,
// create its credential from the panel, Execute step, the service sends an event, the event shows in the panel.
// It also takes README's picture of a real workflow (docs/screenshots/publish-captions.png with
// `npm run screenshots`). Run: bash scripts/run.sh browser -- test/browser/quickstart.browser.ts
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { loadExample, type N8nInstance, sandboxCredentialData, toEditorBody } from '../../harness';
import type { Sandbox } from '../../sandbox/server';
import { launchChromium, watchPage, type Browser, type Page, type PageEvents } from './chromium';
import {
	openInEditor,
	SCREENSHOTS,
	signIn,
	type Stack,
	startStack,
	step as stepOn,
} from './session';

const TITLE = 'My first transcript';

describe("README's Quick start (real n8n, Chromium)", () => {
	let sandbox: Sandbox | undefined;
	let n8n: N8nInstance | undefined;
	let browser: Browser | undefined;
	let events: PageEvents | undefined;
	let stack: Stack | undefined;

	beforeAll(async () => {
		// step 1, Install: the tarball unpacked into the nodes folder as n8n's community-package install does
		stack = await startStack();
		({ sandbox, n8n } = stack);
		browser = await launchChromium({ viewport: { width: 1440, height: 1000 } });
		browser.page.setDefaultTimeout(45_000);
		// only loopback addresses load: the editor's calls to the internet are blocked (and listed)
		events = await watchPage(browser, () => false);
		await mkdir(SCREENSHOTS, { recursive: true });
	}, 420_000);

	afterAll(async () => {
		if (events?.outsideRequests.length)
			process.stdout.write(`[quickstart] blocked: ${events.outsideRequests.join(', ')}\n`);
		await browser?.close().catch(() => undefined);
		await stack?.stop();
	}, 60_000);

	const page = (): Page => browser!.page;

	const step = (name: string, body: () => Promise<void>) =>
		stepOn(page(), `quickstart-${name}`, body);

	it('signs in', async () => {
		await step('signin', () => signIn(page(), n8n!));
	});

	it('2. adds the trigger: the nodes panel, "Captioning", On transcription transcribed', async () => {
		await step('add-trigger', async () => {
			await openInEditor(page(), n8n!, '/home/workflows');
			// "Build a workflow" on an empty overview, "Create workflow" once there are workflows
			await page()
				.locator('[data-test-id="new-workflow-card"], [data-test-id="add-resource-workflow"]')
				.first()
				.click();
			await page().waitForURL((url) => url.pathname.startsWith('/workflow/'));
			// the empty canvas's "Add first step", or the + beside it
			await page()
				.locator('[data-test-id="canvas-add-button"], [data-test-id="node-creator-plus-button"]')
				.first()
				.click();
			const creator = page().locator('[data-test-id="node-creator"]');
			await page().locator('[data-test-id="node-creator-search-bar"]').fill('Captioning');
			await creator
				.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Captioning$/ })
				.click();
			const trigger = creator.getByText('On transcription transcribed');
			// listed at once from an empty canvas; under a folded "Triggers (2)" from the + of a workflow with nodes
			await trigger
				.waitFor({ timeout: 5_000 })
				.catch(() => creator.getByText(/^Triggers \(2\)/).click());
			await trigger.click();
			const ndv = page().locator('[data-test-id="ndv"]');
			await ndv.locator('[data-test-id="node-parameters"]').waitFor();
			expect(await ndv.locator('[data-test-id="parameter-input-events"]').innerText()).toMatch(
				/Transcription Transcribed/,
			);
		});
	});

	it('3. creates its credential from the panel: five fields, Save, a passed test', async () => {
		await step('credential', async () => {
			const ndv = page().locator('[data-test-id="ndv"]');
			const dialog = page().locator('[data-test-id="credential-edit-dialog"]');
			// n8n 2.41 shows "Connect to Captioning" where a node's credential goes while there is none
			await ndv.getByText('Connect to Captioning').click();
			await dialog.waitFor();
			const values = sandboxCredentialData(sandbox!);
			const fields: Array<[string, string]> = [
				['baseUrl', values.baseUrl],
				['clientId', values.clientId],
				['clientSecret', values.clientSecret],
				['assertion', values.assertion],
				['mediaType', values.mediaType],
			];
			for (const [name, value] of fields) {
				await dialog.locator(`[data-test-id="parameter-input-${name}"] input`).fill(value);
			}
			// Save sits in the dialog's header, beside its name; n8n tests the credential and, when the test
			// passes, closes the dialog (a failed test stays open with the message)
			await page().locator('[data-test-id="credential-save-button"]').click();
			await dialog.waitFor({ state: 'hidden' });
			// the test n8n ran: a token from the assertion, then the read of the webhook endpoints, both answered
			expect(
				sandbox!.requestLog
					.filter((r) => r.path === '/oauth/token' || r.path === '/webhook_endpoints')
					.map((r) => `${r.method} ${r.path} ${r.status}`),
			).toEqual(expect.arrayContaining(['POST /oauth/token 200', 'GET /webhook_endpoints 200']));
			expect(await ndv.locator('[data-test-id="node-credentials-select"] input').inputValue()).toBe(
				'Captioning account',
			);
		});
	});

	it('4. Execute step registers the test URL; 5. the service sends an event, and it shows in the panel', async () => {
		await step('first-event', async () => {
			const ndv = page().locator('[data-test-id="ndv"]');
			const execute = ndv.locator('[data-test-id="node-execute-button"]').first();
			expect(await execute.innerText()).toMatch(/Execute step/);
			await execute.click();
			// registered at the service: the workflow's test URL, with its token
			const deadline = Date.now() + 30_000;
			while (
				![...sandbox!.endpoints.values()].some((e) => e.callbackUri.includes('/webhook-test/'))
			) {
				if (Date.now() > deadline) throw new Error('Execute step registered no test URL');
				await new Promise((resolve) => setTimeout(resolve, 250));
			}
			// what README's curl does
			const res = await fetch(`${sandbox!.url}/_sandbox/transcriptions`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ title: TITLE }),
			});
			expect(res.status).toBe(202);
			await ndv.locator('[data-test-id="output-panel"]').getByText(TITLE).first().waitFor();
			const output = await ndv.locator('[data-test-id="output-panel"]').innerText();
			expect(output).toMatch(/transcription\.transcribed/);
			await page().screenshot({ path: join(SCREENSHOTS, 'quickstart-first-event.png') });
			// done listening: the test URL is removed at the service
			const gone = Date.now() + 30_000;
			while (
				[...sandbox!.endpoints.values()].some((e) => e.callbackUri.includes('/webhook-test/'))
			) {
				if (Date.now() > gone) throw new Error('the test URL stayed registered');
				await new Promise((resolve) => setTimeout(resolve, 250));
			}
		});
	});

	it("takes README's picture of a real workflow: examples/publish-captions.json", async () => {
		await step('hero', async () => {
			const example = loadExample('publish-captions.json');
			const { id } = (await n8n!.rest('POST', '/workflows', toEditorBody(example))) as {
				id: string;
			};
			await openInEditor(page(), n8n!, `/workflow/${id}`);
			for (const node of example.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote')) {
				await page()
					.locator(`[data-test-id="canvas-node"][data-node-name="${node.name}"]`)
					.waitFor();
			}
			await page().locator('[data-test-id="zoom-to-fit"]').click();
			await page().screenshot({
				path: join(SCREENSHOTS, 'publish-captions.png'),
				animations: 'disabled',
			});
		});
	});
});
