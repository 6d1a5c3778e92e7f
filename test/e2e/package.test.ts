// What `npm pack` ships is what a user installs: only the compiled nodes and credential, their icons and codex
// files, and the package's own documents. No sources, tests, sandbox, scripts or source maps.
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { listTarball, packProject, projectManifest } from '../../harness';

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
	expect(files).toEqual(
		expect.arrayContaining([
			'dist/nodes/Captioning/captioning.svg',
			'dist/nodes/Captioning/captioning.dark.svg',
			'dist/nodes/Captioning/Captioning.node.json',
			'dist/nodes/Captioning/CaptioningTrigger.node.json',
			'README.md',
			'LICENSE',
		]),
	);
});

test('the manifest has no runtime dependencies and peers only on n8n-workflow', async () => {
	const manifest = await projectManifest();
	expect(manifest.dependencies).toBeUndefined();
	expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
	expect(manifest.keywords).toContain('n8n-community-node-package');
});
