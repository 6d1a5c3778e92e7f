// What every browser test file shares: where screenshots go, signing in as the owner, and a step that keeps a
// screenshot of the page when it fails.
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { type N8nInstance, packProject, PROJECT_ROOT, startN8n } from '../../harness';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { Page } from './chromium';

/** docs/screenshots/ with `npm run screenshots` (CAPTIONING_UPDATE_SCREENSHOTS=1), else test-results/ (ignored by git). */
export const SCREENSHOTS =
	process.env.CAPTIONING_UPDATE_SCREENSHOTS === '1'
		? join(PROJECT_ROOT, 'docs', 'screenshots')
		: join(PROJECT_ROOT, 'test-results', 'screenshots');

export const FAILURES = join(PROJECT_ROOT, 'test-results', 'browser');

/** The sandbox and a real n8n with the package installed from its tarball, as n8n installs a community package. */
export interface Stack {
	sandbox: Sandbox;
	n8n: N8nInstance;
	/** Stops n8n and the sandbox and removes the tarball. */
	stop(): Promise<void>;
}

export async function startStack(
	options: Pick<NonNullable<Parameters<typeof startN8n>[0]>, 'port' | 'env'> = {},
): Promise<Stack> {
	const sandbox = await startSandbox();
	let tarballDir = '';
	try {
		const tarball = await packProject();
		tarballDir = dirname(tarball);
		const n8n = await startN8n({ ...options, packageTarball: tarball });
		return {
			sandbox,
			n8n,
			async stop() {
				await n8n.stop();
				await sandbox.stop();
				await rm(tarballDir, { recursive: true, force: true });
			},
		};
	} catch (error) {
		await sandbox.stop();
		if (tarballDir) await rm(tarballDir, { recursive: true, force: true });
		throw error;
	}
}

/** Signs in as the harness's owner at /signin. */
export async function signIn(page: Page, n8n: N8nInstance): Promise<void> {
	await page.goto(`${n8n.baseUrl}/signin`);
	await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(n8n.owner.email);
	await page.locator('[data-test-id="password"] input').fill(n8n.owner.password);
	await page.locator('[data-test-id="signin-form"] button').first().click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
}

const ROUTER = `document.querySelector('#app')?.__vue_app__?.config.globalProperties.$router`;
// what a page load closes and a route change may not: dialogs (a credential's), the node panel, the node creator
const OPEN_PANELS =
	'.el-overlay:visible, [data-test-id="ndv"]:visible, [data-test-id="node-creator"]:visible';

/**
 * Opens `path` of n8n's editor as the editor's own links do, through its router: a page load costs 8-20 s of a
 * busy 2-core machine, a route change 2. What a load would close is closed first (Escape), unsaved changes are
 * left ("Leave without saving"). Loads the page when the editor is not open yet, or with `reload` (n8n restarted).
 */
export async function openInEditor(
	page: Page,
	n8n: N8nInstance,
	path: string,
	options: { reload?: boolean } = {},
): Promise<void> {
	const open =
		!options.reload &&
		page.url().startsWith(`${n8n.baseUrl}/`) &&
		(await page.evaluate<boolean>(`Boolean(${ROUTER})`));
	if (!open) {
		await page.goto(`${n8n.baseUrl}${path}`);
		return;
	}
	for (let tries = 0; tries < 5 && (await page.locator(OPEN_PANELS).count()) > 0; tries++) {
		await page.keyboard.press('Escape');
		await delay(300);
	}
	// the page open again, as a load would give it: by way of another route, or the router changes nothing
	if (new URL(page.url()).pathname === new URL(path, n8n.baseUrl).pathname) {
		await routeTo(page, '/home/workflows');
	}
	await routeTo(page, path);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pushes `path` until the editor shows it for half a second (a redirect after signing in may still come). */
async function routeTo(page: Page, path: string): Promise<void> {
	const target = new URL(path, 'http://editor').pathname;
	const at = () => new URL(page.url()).pathname === target;
	const leave = page.getByText('Leave without saving', { exact: true });
	const deadline = Date.now() + 30_000;
	let pushedAt = 0;
	for (;;) {
		if (at()) {
			await delay(500);
			if (at()) return;
		}
		if (Date.now() > deadline) throw new Error(`the editor did not open ${path}`);
		if (await leave.isVisible()) await leave.click();
		else if (Date.now() - pushedAt > 3_000) {
			pushedAt = Date.now();
			await page.evaluate(`void ${ROUTER}.push(${JSON.stringify(path)})`);
		}
		await delay(100);
	}
}

/** Runs a step; when it fails, keeps a screenshot of the page as test-results/browser/<name>.png. */
export async function step(page: Page, name: string, body: () => Promise<void>): Promise<void> {
	try {
		await body();
	} catch (error) {
		await mkdir(FAILURES, { recursive: true });
		await page.screenshot({ path: join(FAILURES, `${name}.png`) }).catch(() => undefined);
		throw error;
	}
}
