// What `npm pack` ships is what a user installs: only the compiled nodes and credential, their icons and codex
// files, and the package's own documents. No sources, tests, sandbox, scripts or source maps. And what a
// maintainer gets from a fresh clone with nothing built: `npm pack` (and so `npm publish`) builds first.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import {
	assertTarballHasN8nEntries,
	listTarball,
	packDirectory,
	packProject,
	PROJECT_ROOT,
	projectManifest,
} from '../../harness';

const execFileAsync = promisify(execFile);

const ALLOWED = [
	/^package\.json$/,
	/^README\.md$/,
	/^LICENSE$/,
	/^CHANGELOG\.md$/,
	/^dist\/(nodes|credentials)\/.+\.js$/,
	/^dist\/nodes\/Captioning\/captioning(\.dark)?\.svg$/,
	/^dist\/nodes\/Captioning\/Captioning(Trigger)?\.node\.json$/,
];

let tarball: string;
let files: string[];

beforeAll(async () => {
	tarball = await packProject();
	files = (await listTarball(tarball))
		.map((f) => f.replace(/^package\//, ''))
		.filter((f) => !f.endsWith('/'));
});

afterAll(async () => {
	if (tarball) await rm(dirname(tarball), { recursive: true, force: true });
});

test('the tarball holds only what a user needs', () => {
	expect(files.filter((file) => !ALLOWED.some((pattern) => pattern.test(file)))).toEqual([]);
	expect(files.some((f) => /\.(ts|map)$/.test(f))).toBe(false);
});

test('every file the n8n block names is in it, with both icons and both codex files', async () => {
	const n8n = (await projectManifest()).n8n as { nodes: string[]; credentials: string[] };
	expect(files).toEqual(expect.arrayContaining([...n8n.nodes, ...n8n.credentials]));
	expect(files).toEqual(expect.arrayContaining([...SHIPPED_ASSETS, 'README.md', 'LICENSE']));
});

test('the manifest has no runtime dependencies and peers only on n8n-workflow', async () => {
	const manifest = await projectManifest();
	expect(manifest.dependencies).toBeUndefined();
	expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
	expect(manifest.keywords).toContain('n8n-community-node-package');
});

const SHIPPED_ASSETS = [
	'dist/nodes/Captioning/captioning.svg',
	'dist/nodes/Captioning/captioning.dark.svg',
	'dist/nodes/Captioning/Captioning.node.json',
	'dist/nodes/Captioning/CaptioningTrigger.node.json',
];

// a clone has what is committed: run it after committing what it should see
test('a fresh clone, with no dist/ and no node_modules, packs the built nodes, icons and codex', async () => {
	const work = await mkdtemp(join(tmpdir(), 'captioning-fresh-clone-'));
	try {
		const clone = join(work, 'clone');
		// CI checks the repository out as another user than the one running the tests (git: "dubious ownership")
		const gitConfig = join(work, 'gitconfig');
		await writeFile(gitConfig, '[safe]\n\tdirectory = *\n');
		await execFileAsync('git', ['clone', '--quiet', PROJECT_ROOT, clone], {
			env: { ...process.env, GIT_CONFIG_GLOBAL: gitConfig },
		});
		expect([existsSync(join(clone, 'dist')), existsSync(join(clone, 'node_modules'))]).toEqual([
			false,
			false,
		]);
		const packed = await packDirectory(clone, work);
		await assertTarballHasN8nEntries(packed);
		const shipped = await listTarball(packed);
		expect(shipped).toEqual(expect.arrayContaining(SHIPPED_ASSETS));
		expect(shipped.filter((f) => f.endsWith('.js')).sort()).toEqual(
			files.filter((f) => f.endsWith('.js')).sort(),
		);
	} finally {
		await rm(work, { recursive: true, force: true });
	}
}, 600_000);

test('npm publish from a folder stops before packing unless RELEASE_MODE is set: releases come from CI', async () => {
	const refused = await execFileAsync('npm', ['run', '--silent', 'prepublishOnly'], {
		cwd: PROJECT_ROOT,
		env: { ...process.env, RELEASE_MODE: '' },
	}).catch((error: { code?: number; stderr?: string }) => error);
	expect(refused).toMatchObject({
		code: 1,
		stderr: expect.stringContaining('push a v* tag (docs/development.md, Releasing)'),
	});
	await expect(
		execFileAsync('npm', ['run', '--silent', 'prepublishOnly'], {
			cwd: PROJECT_ROOT,
			env: { ...process.env, RELEASE_MODE: 'true' },
		}),
	).resolves.toBeDefined();
});
