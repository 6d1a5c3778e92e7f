// Drives Debian's Chromium with playwright-core. Neither is a dependency of the package: scripts/run.sh's
// `browser` task installs chromium (apt) and playwright-core (into the cache, CAPTIONING_PLAYWRIGHT_DIR) first.
// Only the part of Playwright's API these tests use is typed here.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM_PATH = process.env.CAPTIONING_CHROMIUM ?? '/usr/bin/chromium';

/** What Chromium needs on this offline machine (no GPU, no sandbox as root, nothing that calls home). */
export const CHROMIUM_FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

export interface Locator {
	click(options?: { timeout?: number }): Promise<void>;
	dblclick(options?: { timeout?: number }): Promise<void>;
	fill(value: string): Promise<void>;
	waitFor(options?: {
		state?: 'attached' | 'detached' | 'visible' | 'hidden';
		timeout?: number;
	}): Promise<void>;
	isVisible(): Promise<boolean>;
	innerText(): Promise<string>;
	allInnerTexts(): Promise<string[]>;
	inputValue(): Promise<string>;
	getAttribute(name: string): Promise<string | null>;
	count(): Promise<number>;
	first(): Locator;
	locator(selector: string, options?: { hasText?: string | RegExp }): Locator;
	getByText(text: string | RegExp, options?: { exact?: boolean }): Locator;
	hover(options?: { timeout?: number }): Promise<void>;
}

/** The dialog a file input opens, as Playwright hands it over instead of the system's. */
export interface FileChooser {
	setFiles(files: string | string[]): Promise<void>;
}

export interface ConsoleMessage {
	type(): string;
	text(): string;
	location(): { url: string };
}

export interface Request {
	url(): string;
	method(): string;
	failure(): { errorText: string } | null;
}

export interface Response {
	url(): string;
	status(): number;
	headers(): Record<string, string>;
}

export interface Dialog {
	type(): string;
	accept(): Promise<void>;
}

export interface Route {
	request(): Request;
	continue(): Promise<void>;
	abort(errorCode?: string): Promise<void>;
}

export interface Page {
	goto(url: string, options?: { waitUntil?: 'load' | 'domcontentloaded' }): Promise<unknown>;
	url(): string;
	locator(selector: string, options?: { hasText?: string | RegExp }): Locator;
	getByText(text: string | RegExp, options?: { exact?: boolean }): Locator;
	waitForURL(url: (url: URL) => boolean, options?: { timeout?: number }): Promise<void>;
	screenshot(options: {
		path: string;
		fullPage?: boolean;
		/** 'disabled' finishes CSS transitions first (a chevron caught mid-turn). */
		animations?: 'disabled' | 'allow';
	}): Promise<Buffer>;
	emulateMedia(options: { colorScheme: 'light' | 'dark' }): Promise<void>;
	/** Evaluates a JavaScript expression in the page (a string: the project has no DOM types). */
	evaluate<R>(expression: string): Promise<R>;
	setDefaultTimeout(ms: number): void;
	keyboard: { press(key: string): Promise<void> };
	on(event: 'console', listener: (message: ConsoleMessage) => void): void;
	on(event: 'pageerror', listener: (error: Error) => void): void;
	on(event: 'requestfailed', listener: (request: Request) => void): void;
	on(event: 'response', listener: (response: Response) => void): void;
	on(event: 'dialog', listener: (dialog: Dialog) => void): void;
	waitForEvent(event: 'filechooser', options?: { timeout?: number }): Promise<FileChooser>;
}

export interface BrowserContext {
	pages(): Page[];
	newPage(): Promise<Page>;
	route(url: string, handler: (route: Route) => Promise<void>): Promise<void>;
	close(): Promise<void>;
}

interface PlaywrightCore {
	chromium: {
		launchPersistentContext(
			userDataDir: string,
			options: {
				executablePath: string;
				headless: boolean;
				args: string[];
				viewport: { width: number; height: number };
				colorScheme: 'light' | 'dark';
				timeout: number;
			},
		): Promise<BrowserContext>;
	};
}

/** playwright-core from the folder scripts/env.sh's ensure_playwright exports. */
export function loadPlaywright(): PlaywrightCore {
	const dir = process.env.CAPTIONING_PLAYWRIGHT_DIR;
	if (!dir) {
		throw new Error(
			'CAPTIONING_PLAYWRIGHT_DIR is not set: run the browser test with `bash scripts/run.sh browser`',
		);
	}
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(join(dir, 'playwright-core')) as PlaywrightCore;
}

export interface Browser {
	context: BrowserContext;
	page: Page;
	/** Closes Chromium and removes its profile. Idempotent. */
	close(): Promise<void>;
}

/**
 * Starts Chromium headless on a new, empty profile. Playwright owns the --user-data-dir flag
 * (launchPersistentContext), so the profile is passed to it rather than in `args`.
 */
export async function launchChromium(
	options: { viewport?: { width: number; height: number } } = {},
): Promise<Browser> {
	const playwright = loadPlaywright();
	const profile = await mkdtemp(join(tmpdir(), 'captioning-chromium-'));
	let context: BrowserContext;
	try {
		context = await playwright.chromium.launchPersistentContext(profile, {
			executablePath: CHROMIUM_PATH,
			headless: true,
			args: CHROMIUM_FLAGS,
			viewport: options.viewport ?? { width: 1440, height: 1000 },
			colorScheme: 'light',
			timeout: 60_000,
		});
	} catch (error) {
		await rm(profile, { recursive: true, force: true });
		throw error;
	}
	const page = context.pages()[0] ?? (await context.newPage());
	// "leave this page?" when a test navigates away from a workflow: leave
	page.on('dialog', (dialog) => void dialog.accept().catch(() => undefined));
	let closed = false;
	return {
		context,
		page,
		async close() {
			if (closed) return;
			closed = true;
			try {
				await context.close();
			} finally {
				await rm(profile, { recursive: true, force: true, maxRetries: 3 });
			}
		},
	};
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface PageEvents {
	/** console.error() calls and failed loads the page reported, with the URL they came from. */
	consoleErrors: { text: string; url: string }[];
	/** Uncaught exceptions in the page. */
	pageErrors: string[];
	/** Requests that got no answer (aborted, refused), with the reason. */
	failedRequests: { url: string; error: string }[];
	/** Answers with status >= 400. */
	errorResponses: { url: string; status: number }[];
	/** Every answer whose URL passes `watch`, e.g. the package's icons. */
	watched: { url: string; status: number; contentType: string }[];
	/** Requests to anything but the loopback, which the browser is not allowed to make. */
	outsideRequests: string[];
}

/**
 * Records what the page reports, and blocks every request that would leave the machine (the
 * editor fetches e.g. npm metadata for a community node's details): only loopback addresses load.
 */
export async function watchPage(
	browser: Browser,
	watch: (url: string) => boolean,
): Promise<PageEvents> {
	const events: PageEvents = {
		consoleErrors: [],
		pageErrors: [],
		failedRequests: [],
		errorResponses: [],
		watched: [],
		outsideRequests: [],
	};
	await browser.context.route('**/*', async (route) => {
		const url = route.request().url();
		const { protocol, hostname } = new URL(url);
		if (!/^https?:$/.test(protocol) || LOOPBACK.has(hostname)) return await route.continue();
		events.outsideRequests.push(url);
		await route.abort('blockedbyclient');
	});
	const { page } = browser;
	page.on('console', (message) => {
		if (message.type() === 'error') {
			events.consoleErrors.push({ text: message.text(), url: message.location().url });
		}
	});
	page.on('pageerror', (error) => events.pageErrors.push(String(error.stack ?? error)));
	page.on('requestfailed', (request) => {
		events.failedRequests.push({ url: request.url(), error: request.failure()?.errorText ?? '' });
	});
	page.on('response', (response) => {
		const url = response.url();
		if (response.status() >= 400) events.errorResponses.push({ url, status: response.status() });
		if (watch(url)) {
			events.watched.push({
				url,
				status: response.status(),
				contentType: response.headers()['content-type'] ?? '',
			});
		}
	});
	return events;
}
