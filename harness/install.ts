// The n8n the harness runs and what it runs with it: the cached install scripts/env.sh makes (its version
// decides the settings that differ between n8n lines), and community packages installed on disk exactly as
// n8n's CommunityPackagesService installs them, into a user folder no other node_modules can leak into.
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const N8N_VERSION = process.env.CAPTIONING_N8N_VERSION ?? '2.41.1';

/** What differs between the n8n lines the harness starts, decided from the version alone. */
export interface N8nProfile {
	major: number;
	/** N8N_DISABLED_MODULES: 2.x has an MCP registry module that calls home; 1.x rejects the name. */
	disabledModules: string | undefined;
	/**
	 * N8N_DEFAULT_BINARY_DATA_MODE: filesystem, 2.x's default, on 1.x as well (1.x keeps binary data in the
	 * execution unless told otherwise), so that stored files have an id and stream from disk.
	 */
	binaryDataMode: string | undefined;
}

export function n8nProfile(version: string = N8N_VERSION): N8nProfile {
	const major = Number(version.split('.')[0]);
	if (!Number.isInteger(major) || major < 1) {
		throw new Error(`CAPTIONING_N8N_VERSION=${version} is not an n8n version (e.g. 2.41.1)`);
	}
	return {
		major,
		disabledModules: major >= 2 ? 'mcp-registry' : undefined,
		binaryDataMode: major >= 2 ? undefined : 'filesystem',
	};
}

export const PROJECT_ROOT = resolve(__dirname, '..');
/** n8n's default (N8N_COMMUNITY_PACKAGES_REGISTRY); n8n passes it to every npm command it runs. */
export const N8N_DEFAULT_REGISTRY = 'https://registry.npmjs.org';

export interface InstalledPackage {
	name: string;
	version: string;
	/** <user folder>/.n8n/nodes/node_modules/<name> */
	directory: string;
}

// ---------------------------------------------------------------------------------------------------
// Locating n8n

/** The cached n8n install: CAPTIONING_N8N_DIR, or the folder scripts/env.sh's ensure_n8n fills. */
export function resolveN8nDir(): string {
	const explicit = process.env.CAPTIONING_N8N_DIR;
	if (explicit) {
		if (!existsSync(n8nBin(explicit))) {
			throw new Error(
				`CAPTIONING_N8N_DIR=${explicit} has no ${relative(explicit, n8nBin(explicit))}`,
			);
		}
		return explicit;
	}
	const cache =
		process.env.CAPTIONING_CACHE ??
		join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'n8n-nodes-captioning');
	const dir = join(cache, `n8n-${N8N_VERSION}`);
	if (!existsSync(join(dir, '.complete'))) {
		throw new Error(
			`n8n ${N8N_VERSION} is not installed at ${dir} (no .complete marker). Install it once ` +
				`(5-8 minutes, ~3 GB) from the repo root with:\n  bash -c 'source scripts/env.sh && ensure_n8n'`,
		);
	}
	return dir;
}

export function n8nBin(n8nDir: string): string {
	return join(n8nDir, 'node_modules', 'n8n', 'bin', 'n8n');
}

export function assertNode24(): void {
	const major = Number(process.versions.node.split('.')[0]);
	if (major < 24) {
		throw new Error(
			`the harness runs n8n ${N8N_VERSION} on Node 24 but the tests run on ${process.version}: ` +
				'run them through their npm scripts (`npm run test:e2e`, which runs scripts/run.sh)',
		);
	}
}

// ---------------------------------------------------------------------------------------------------
// Installing a community package as n8n does

interface NodesLedger {
	name: string;
	private: boolean;
	dependencies: Record<string, string>;
}

async function readLedger(path: string): Promise<NodesLedger | null> {
	try {
		const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<NodesLedger>;
		return parsed.dependencies ? (parsed as NodesLedger) : null;
	} catch {
		return null;
	}
}

/**
 * Installs an `npm pack` tarball into `<userFolder>/.n8n/nodes` as n8n's CommunityPackagesService does, for
 * n8n to load at start-up; the steps it mirrors and the one it leaves out: docs/development.md, "The harness".
 */
export async function installCommunityPackage(
	userFolder: string,
	tarballPath: string,
	options: { registry?: string } = {},
): Promise<InstalledPackage> {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const ledgerPath = join(nodesDir, 'package.json');
	await mkdir(nodesDir, { recursive: true });
	// what CommunityPackagesService.ensurePackageJson writes on a fresh instance (no DB rows yet)
	const ledger = (await readLedger(ledgerPath)) ?? {
		name: 'installed-nodes',
		private: true,
		dependencies: {},
	};

	const tarball = resolve(tarballPath);
	const { stdout: manifestText } = await execFileAsync('tar', [
		'-xzOf',
		tarball,
		'package/package.json',
	]);
	const manifest = JSON.parse(manifestText) as { name?: string; version?: string };
	const name = manifest.name ?? '';
	if (!/^(@[a-z0-9][a-z0-9\-._]*\/)?n8n-nodes-[a-z0-9\-._]*$/.test(name)) {
		throw new Error(
			`${tarball}: n8n only loads packages named n8n-nodes-* or @scope/n8n-nodes-*, not "${name}"`,
		);
	}
	const nodeModules = join(nodesDir, 'node_modules');
	const packageDir = join(nodeModules, name);
	if (relative(nodeModules, packageDir).split(sep).join('/') !== name) {
		throw new Error(`invalid package name ${name}`);
	}
	await rm(packageDir, { recursive: true, force: true });
	await mkdir(packageDir, { recursive: true });
	await execFileAsync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], {
		cwd: nodesDir,
	});

	const packageJsonPath = join(packageDir, 'package.json');
	const packageJson = JSON.parse(await readFile(packageJsonPath, 'utf8')) as Record<
		string,
		unknown
	>;
	for (const section of ['devDependencies', 'peerDependencies', 'optionalDependencies']) {
		delete packageJson[section];
	}
	await writeFile(packageJsonPath, JSON.stringify(packageJson, null, 2), 'utf8');

	const registry = (options.registry ?? N8N_DEFAULT_REGISTRY).replace(/\/+$/, '');
	try {
		await execFileAsync(
			'npm',
			[
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
				`--registry=${registry}`,
			],
			{ cwd: packageDir, maxBuffer: 16 * 1024 * 1024 },
		);
	} catch (error) {
		const { stdout, stderr } = error as { stdout?: string; stderr?: string };
		throw new Error(`npm install in ${packageDir} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
	}

	const version = String(packageJson.version ?? '');
	ledger.dependencies[name] = version;
	await writeFile(ledgerPath, JSON.stringify(ledger, null, 2), 'utf8');
	return { name, version, directory: packageDir };
}

// A node_modules folder above the user folder would be searched before n8n's NODE_PATH when a
// community package requires a module, and the tests would pass on resolutions a real install lacks.
export function assertIsolatedFolder(userFolder: string): void {
	const root = realpathSync(PROJECT_ROOT);
	let dir = realpathSync(userFolder);
	if (dir === root || dir.startsWith(root + sep)) {
		throw new Error(`the n8n user folder ${dir} must not be inside the project (${root})`);
	}
	const candidates = [join(dir, '.n8n', 'node_modules')];
	for (;;) {
		candidates.push(join(dir, 'node_modules'));
		const parent = dirname(dir);
		if (parent === dir) break;
		dir = parent;
	}
	const found = candidates.find((candidate) => existsSync(candidate));
	if (found) {
		throw new Error(
			`${found} exists above the n8n user folder ${userFolder}: community packages would resolve ` +
				'modules from it. Use a temp dir without one (TMPDIR).',
		);
	}
}
