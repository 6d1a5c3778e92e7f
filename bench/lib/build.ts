// Builds the package in a temp copy (never touching the checkout's dist/), packs it as npm would publish it,
// and derives the experimental variant the throughput investigation compares against.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { assertTarballHasN8nEntries, packDirectory } from '../../test/e2e/harness/pack';
import { PROJECT_ROOT } from '../../test/e2e/harness/n8n';

const execFileAsync = promisify(execFile);

/** Name of the experimental package: the trigger only, at typeVersion 2. */
export const VARIANT_PACKAGE = 'n8n-nodes-captioning-v2exp';
export const SHIPPED_TRIGGER_TYPE = 'n8n-nodes-captioning.captioningTrigger';
export const VARIANT_TRIGGER_TYPE = `${VARIANT_PACKAGE}.captioningTrigger`;
export const ACTION_TYPE = 'n8n-nodes-captioning.captioning';

const SOURCES = [
	'package.json',
	'tsconfig.json',
	'tsconfig.build.json',
	'gulpfile.js',
	'README.md',
	'LICENSE',
	'CHANGELOG.md',
	'nodes',
	'credentials',
];

async function run(command: string, args: string[], cwd: string): Promise<void> {
	try {
		await execFileAsync(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
	} catch (error) {
		const { stdout, stderr } = error as { stdout?: string; stderr?: string };
		throw new Error(`\`${command} ${args.join(' ')}\` failed in ${cwd}:\n${stdout}\n${stderr}`);
	}
}

export interface BuiltPackages {
	shipped: string;
	variant: string;
	version: string;
	/** Removes the temp build folders and tarballs. */
	remove(): Promise<void>;
}

/**
 * The same steps as `npm run build` (tsc -p tsconfig.build.json, then the gulp asset copy) in a temp copy of
 * the sources, then `npm pack`. The variant is a copy of that build with two changes only: the package name
 * (so that both install side by side in one n8n) and the trigger's `version: 1` replaced by `version: 2`;
 * it ships the trigger alone and uses the shipped package's credential type.
 */
export async function buildPackages(): Promise<BuiltPackages> {
	const root = await mkdtemp(join(tmpdir(), 'captioning-bench-build-'));
	const buildDir = join(root, 'shipped');
	for (const entry of SOURCES) {
		await cp(join(PROJECT_ROOT, entry), join(buildDir, entry), { recursive: true });
	}
	await symlink(join(PROJECT_ROOT, 'node_modules'), join(buildDir, 'node_modules'), 'dir');
	const bin = join(PROJECT_ROOT, 'node_modules', '.bin');
	await run(join(bin, 'tsc'), ['-p', 'tsconfig.build.json'], buildDir);
	await run(join(bin, 'gulp'), ['build:assets'], buildDir);
	await rm(join(buildDir, 'node_modules'));
	const shipped = await packDirectory(buildDir, root);
	await assertTarballHasN8nEntries(shipped);
	const manifest = JSON.parse(await readFile(join(buildDir, 'package.json'), 'utf8')) as {
		version: string;
	};

	const variantDir = join(root, 'variant');
	await cp(buildDir, variantDir, { recursive: true });
	const variantManifest = JSON.parse(await readFile(join(variantDir, 'package.json'), 'utf8'));
	variantManifest.name = VARIANT_PACKAGE;
	variantManifest.description = 'Benchmark-only variant: the Captioning Trigger at typeVersion 2';
	variantManifest.n8n = {
		n8nNodesApiVersion: 1,
		credentials: [],
		nodes: ['dist/nodes/Captioning/CaptioningTrigger.node.js'],
	};
	await writeFile(join(variantDir, 'package.json'), JSON.stringify(variantManifest, null, 2));
	const triggerFile = join(variantDir, 'dist', 'nodes', 'Captioning', 'CaptioningTrigger.node.js');
	const compiled = await readFile(triggerFile, 'utf8');
	const patched = compiled.replace(/(\n\s+group: \['trigger'\],\n\s+version: )1,/, '$12,');
	if (patched === compiled) {
		throw new Error(`could not find the trigger's "version: 1" in ${triggerFile}`);
	}
	await writeFile(triggerFile, patched);
	const variant = await packDirectory(variantDir, root);

	return {
		shipped,
		variant,
		version: manifest.version,
		remove: () => rm(root, { recursive: true, force: true }),
	};
}
