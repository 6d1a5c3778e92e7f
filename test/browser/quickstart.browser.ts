// README's Quick start, both paths, followed literally in a real n8n 2.41 and Chromium.
// With the service: the package installed from its tarball (step 1, as n8n installs a community package) and the
// sandbox standing in for the service: add the trigger from the nodes panel (On transcription created), create its
// credential from the panel, Execute step, the service sends transcription.created, the event shows in the panel;
// then "No service yet?": the pinned example imported from its file and executed, with no request to any service.
// With the local sandbox: `npm run dev` as README gives it, its printed address and login, README's curl, the two
// executions under the workflow's Executions, and Ctrl-C.
// It also takes README's pictures (docs/screenshots/ with `npm run screenshots`).
// Run: bash scripts/run.sh browser -- test/browser/quickstart.browser.ts
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import {
	freePort,
	loadExample,
	type N8nInstance,
	PROJECT_ROOT,
	sandboxCredentialData,
	toEditorBody,
} from '../../harness';
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

const PINNED_EXAMPLE = 'dev-transcription-feed.json';
const TITLE = 'My first transcript';

/** README.md's text, and the sections of its Quick start the steps below follow. */
async function readme(): Promise<{ service: string; sandbox: string }> {
	const text = await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8');
	const section = (heading: string) => {
		const start = text.indexOf(`### ${heading}\n`);
		if (start < 0) throw new Error(`README has no "### ${heading}" section`);
		const end = text.slice(start + 4).search(/\n##+ /);
		return text.slice(start, end < 0 ? undefined : start + 4 + end);
	};
	return { service: section('With the service'), sandbox: section('With the local sandbox') };
}

/** Whether README's text says `words`, wherever it wraps its lines. */
const says = (text: string, words: string) =>
	expect(text.replace(/\s+/g, ' ')).toContain(words.replace(/\s+/g, ' '));

/** The shell commands of a section's ```sh blocks, a continued line joined to the one before. */
function commands(section: string): string[] {
	return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
		block[1]
			.replace(/\\\n\s*/g, '')
			.split('\n')
			.map((line) => line.trim())
			.filter(Boolean),
	);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function newBrowserPage(): Promise<Browser> {
	return launchChromium({ viewport: { width: 1440, height: 1000 } });
}

describe("README's Quick start with the service (real n8n, Chromium)", () => {
	let sandbox: Sandbox | undefined;
	let n8n: N8nInstance | undefined;
	let browser: Browser | undefined;
	let events: PageEvents | undefined;
	let stack: Stack | undefined;
	let section = '';

	beforeAll(async () => {
		section = (await readme()).service;
		// step 1, Install: the tarball unpacked into the nodes folder as n8n's community-package install does
		stack = await startStack();
		({ sandbox, n8n } = stack);
		browser = await newBrowserPage();
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

	it('2. adds the trigger: the nodes panel, "Captioning", On transcription created', async () => {
		says(section, 'choose **On transcription created** under its triggers');
		says(section, '*Events: Transcription Created*');
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
			const trigger = creator.getByText('On transcription created');
			// listed at once from an empty canvas; under a folded "Triggers (2)" from the + of a workflow with nodes
			await trigger
				.waitFor({ timeout: 5_000 })
				.catch(() => creator.getByText(/^Triggers \(2\)/).click());
			await trigger.click();
			const ndv = page().locator('[data-test-id="ndv"]');
			await ndv.locator('[data-test-id="node-parameters"]').waitFor();
			const selected = await ndv.locator('[data-test-id="parameter-input-events"]').innerText();
			expect(selected).toMatch(/Transcription Created/);
			expect(selected).not.toMatch(/Transcription Transcribed/);
		});
	});

	it('3. creates its credential from the panel: five fields, Save, a passed test', async () => {
		says(section, '**Connect to Captioning** opens the **Captioning API** dialog');
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

	it('4. Execute step registers the test URL; 5. a transcription starts, and transcription.created shows in the panel', async () => {
		says(section, 'The service sends `transcription.created` at once, and it shows in the panel');
		await step('first-event', async () => {
			const ndv = page().locator('[data-test-id="ndv"]');
			const execute = ndv.locator('[data-test-id="node-execute-button"]').first();
			expect(await execute.innerText()).toMatch(/Execute step/);
			await execute.click();
			// registered at the service: the workflow's test URL, with its token, for the one event chosen
			const deadline = Date.now() + 30_000;
			const testEndpoint = () =>
				[...sandbox!.endpoints.values()].find((e) => e.callbackUri.includes('/webhook-test/'));
			while (!testEndpoint()) {
				if (Date.now() > deadline) throw new Error('Execute step registered no test URL');
				await delay(250);
			}
			expect(testEndpoint()!.enabledEvents).toEqual(['transcription.created']);
			// the service starts a transcription (the sandbox's control route stands in for an upload)
			const res = await fetch(`${sandbox!.url}/_sandbox/transcriptions`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ title: TITLE }),
			});
			expect(res.status).toBe(202);
			await ndv.locator('[data-test-id="output-panel"]').getByText(TITLE).first().waitFor();
			const output = await ndv.locator('[data-test-id="output-panel"]').innerText();
			expect(output).toMatch(/transcription\.created/);
			await page().screenshot({ path: join(SCREENSHOTS, 'quickstart-first-event.png') });
			// done listening: the test URL is removed at the service
			const gone = Date.now() + 30_000;
			while (testEndpoint()) {
				if (Date.now() > gone) throw new Error('the test URL stayed registered');
				await delay(250);
			}
		});
	});

	it('No service yet? The pinned example, imported from its file in a new workflow, runs on Execute workflow', async () => {
		says(section, `[\`examples/${PINNED_EXAMPLE}\`](examples/${PINNED_EXAMPLE})`);
		says(section, 'in its **⋯** menu choose *Import → From file*');
		await step('pinned-example', async () => {
			await openInEditor(page(), n8n!, '/home/workflows');
			await page().locator('[data-test-id="add-resource-workflow"]').first().click();
			await page().waitForURL((url) => url.pathname.startsWith('/workflow/'));
			// the workflow's ⋯ menu: Import › From file (n8n 1.x: Import from File…) opens the file dialog
			await page().locator('[data-test-id="workflow-menu"]').first().click();
			await page().getByText('Import', { exact: true }).first().hover();
			const chooser = page().waitForEvent('filechooser');
			await page().getByText('From file', { exact: true }).first().click();
			await (await chooser).setFiles(join(PROJECT_ROOT, 'examples', PINNED_EXAMPLE));
			const example = loadExample(PINNED_EXAMPLE);
			const shown = example.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
			for (const node of shown) {
				await page()
					.locator(`[data-test-id="canvas-node"][data-node-name="${node.name}"]`)
					.waitFor();
			}
			const requestsBefore = sandbox!.requestLog.length;
			await page().locator('[data-test-id="execute-workflow-button"]').first().click();
			await page()
				.locator('.el-notification', { hasText: 'Workflow executed successfully' })
				.first()
				.waitFor();
			// the steps after the trigger ran on its pinned event, and no service was asked anything
			const id = /\/workflow\/([^/?]+)/.exec(page().url())?.[1];
			expect(id).toBeTruthy();
			const [execution] = await n8n!.waitForExecutions(id!);
			expect(Object.keys(execution.data.resultData.runData).sort()).toEqual(
				['Captioning Trigger', 'Captions Ready?', 'Convert to SRT', 'Transcript Summary'].sort(),
			);
			expect(sandbox!.requestLog.slice(requestsBefore)).toEqual([]);
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

describe("README's Quick start with the local sandbox: npm run dev, the curl (real n8n, Chromium)", () => {
	let dev: ChildProcess | undefined;
	let devExit: Promise<number | null> | undefined;
	let output = '';
	let userFolder = '';
	let browser: Browser | undefined;
	let section = '';
	let sandboxPort = 0;

	/** What `npm run dev` printed, without its colours. */
	const printed = () =>
		output.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');

	beforeAll(async () => {
		section = (await readme()).sandbox;
		userFolder = await mkdtemp(join(tmpdir(), 'captioning-quickstart-dev-'));
		const port = await freePort();
		sandboxPort = await freePort();
		// README's command in the clone (this checkout), on free ports and a folder of its own: the machine's
		// 5678 and 5680 may be taken, and the dev folder in the cache is a developer's
		expect(commands(section)).toContain('npm run dev');
		dev = spawn(
			'npm',
			[
				'run',
				'dev',
				'--',
				'--port',
				String(port),
				'--sandbox-port',
				String(sandboxPort),
				'--quiet',
			],
			{
				cwd: PROJECT_ROOT,
				env: { ...process.env, CAPTIONING_DEV_USER_FOLDER: userFolder },
				// its own process group, as a terminal's: Ctrl-C (SIGINT) reaches every process of it
				detached: true,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		devExit = new Promise((resolve) => dev!.on('exit', (code) => resolve(code)));
		dev.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
		dev.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
		const deadline = Date.now() + 840_000;
		while (!printed().includes('Ctrl-C stops n8n and the sandbox.')) {
			if (dev.exitCode !== null || Date.now() > deadline) {
				throw new Error(`npm run dev did not get ready:\n${printed().slice(-3000)}`);
			}
			await delay(1000);
		}
		browser = await newBrowserPage();
		browser.page.setDefaultTimeout(45_000);
		await watchPage(browser, () => false);
	}, 900_000);

	afterAll(async () => {
		await browser?.close().catch(() => undefined);
		if (dev?.pid && dev.exitCode === null) {
			try {
				process.kill(-dev.pid, 'SIGKILL');
			} catch {
				// gone already
			}
		}
		if (userFolder) await rm(userFolder, { recursive: true, force: true });
	}, 60_000);

	const page = (): Page => browser!.page;
	const step = (name: string, body: () => Promise<void>) =>
		stepOn(page(), `quickstart-dev-${name}`, body);

	it("prints the editor's address and README's login; the address signs in to the published workflow", async () => {
		const login = /`([^`]+@[^`]+)` \/ `([^`]+)`/.exec(section);
		expect(login).not.toBeNull();
		const [, email, password] = login!;
		expect(printed()).toMatch(new RegExp(`login\\s+${email.replace(/\./g, '\\.')} / ${password}`));
		const address = /n8n editor\s+(http\S+)/.exec(printed())?.[1];
		expect(address).toBeTruthy();
		const name = /The workflow \*([^*]+)\* is published/.exec(section)?.[1].replace(/\s+/g, ' ');
		expect(printed()).toContain(`workflow    "${name}" (active`);
		await step('signin', async () => {
			await page().goto(address!);
			await page().waitForURL((url) => url.pathname.startsWith('/signin'));
			await page().locator('[data-test-id="emailOrLdapLoginId"] input').fill(email);
			await page().locator('[data-test-id="password"] input').fill(password);
			await page().locator('[data-test-id="signin-form"] button').first().click();
			await page().waitForURL((url) => url.pathname === new URL(address!).pathname);
			await page()
				.locator('[data-test-id="canvas-node"][data-node-name="Captioning Trigger"]')
				.waitFor();
		});
	});

	it("README's curl (the one npm run dev prints) gives two executions under the workflow's Executions", async () => {
		const curl = commands(section).find((c) => c.startsWith('curl '));
		expect(curl).toBeTruthy();
		// README's port is npm run dev's default; this run listens on another
		const sent = curl!.replace('http://127.0.0.1:5680/', `http://127.0.0.1:${sandboxPort}/`);
		expect(printed()).toContain(sent);
		const { stdout } = await promisify(execFile)('sh', ['-c', sent]);
		// the sandbox's answer: the transcription exists, and its events are on their way
		expect(JSON.parse(stdout)).toMatchObject({ status: 'created' });
		await step('executions', async () => {
			await page().getByText('Executions', { exact: true }).first().click();
			await page().waitForURL((url) => url.pathname.endsWith('/executions'));
			const cards = page().locator('.execution-card');
			const deadline = Date.now() + 120_000;
			while ((await cards.count()) < 2) {
				if (Date.now() > deadline) {
					throw new Error(`${await cards.count()} execution(s) listed, not 2`);
				}
				await delay(1000);
			}
		});
	});

	it('Ctrl-C stops n8n and the sandbox', async () => {
		process.kill(-dev!.pid!, 'SIGINT');
		let timer: NodeJS.Timeout | undefined;
		const code = await Promise.race([
			devExit!,
			new Promise((resolve) => (timer = setTimeout(() => resolve('still running'), 60_000))),
		]);
		clearTimeout(timer);
		expect(code).not.toBe('still running');
		await expect(fetch(`http://127.0.0.1:${sandboxPort}/`)).rejects.toThrow();
	}, 90_000);
});
