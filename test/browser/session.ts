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
