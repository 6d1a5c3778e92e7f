// What every browser test file shares: where screenshots go, signing in as the owner, and a step that keeps a
// screenshot of the page when it fails.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { type N8nInstance, PROJECT_ROOT } from '../../harness';
import type { Page } from './chromium';

/** docs/screenshots/ with `npm run screenshots` (CAPTIONING_UPDATE_SCREENSHOTS=1), else test-results/ (ignored by git). */
export const SCREENSHOTS =
	process.env.CAPTIONING_UPDATE_SCREENSHOTS === '1'
		? join(PROJECT_ROOT, 'docs', 'screenshots')
		: join(PROJECT_ROOT, 'test-results', 'screenshots');

export const FAILURES = join(PROJECT_ROOT, 'test-results', 'browser');

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
