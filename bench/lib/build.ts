// Builds the package in a temp copy (never touching the checkout's dist/), packs it as npm would publish it, and
// packs the floor (bench/lib/floor.ts) beside it.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	assertTarballHasN8nEntries,
	buildSources,
	packDirectory,
	PROJECT_ROOT,
} from '../../harness';
import { type CopiedDescription, writeFloorPackage } from './floor';

export const SHIPPED_TRIGGER_TYPE = 'n8n-nodes-captioning.captioningTrigger';
export const ACTION_TYPE = 'n8n-nodes-captioning.captioning';
const TRIGGER_FILE = join('dist', 'nodes', 'Captioning', 'CaptioningTrigger.node.js');

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

/** The typeVersions the built trigger declares, and the one n8n gives a new node. */
export interface TriggerVersions {
	versions: number[];
	defaultVersion: number;
}

/** A node description's versions: n8n's rule, `defaultVersion` or else the highest listed. */
export function triggerVersions(description: {
	version: number | number[];
	defaultVersion?: number;
}): TriggerVersions {
	const versions = Array.isArray(description.version)
		? [...description.version]
		: [description.version];
	return { versions, defaultVersion: description.defaultVersion ?? Math.max(...versions) };
}

interface LoadedDescription {
	version: number | number[];
	defaultVersion?: number;
	properties: unknown;
}

/** A node class as n8n loads it: one description, or a versioned type with one per typeVersion. */
export type LoadedNodeType =
	| { description: LoadedDescription }
	| {
			description: { defaultVersion?: number };
			nodeVersions: Record<string, { description: LoadedDescription }>;
	  };

/**
 * The description n8n gives a new node of this type (a versioned type's, at its default version), listing every
 * typeVersion the type has, as one description would.
 */
export function newNodeDescription(type: LoadedNodeType): LoadedDescription {
	if (!('nodeVersions' in type)) return type.description;
	const versions = Object.keys(type.nodeVersions).map(Number);
	const defaultVersion = type.description.defaultVersion ?? Math.max(...versions);
	return {
		...type.nodeVersions[defaultVersion].description,
		version: versions,
		defaultVersion,
	};
}

/**
 * Benchmark-only preview of what the trigger's typeVersion 2 will ship as: `version: 1` becomes
 * `version: [1, 2], defaultVersion: 2` in the compiled node, nothing else. Throws when the pattern is missing.
 */
export function previewVersion2(compiled: string): string {
	const patched = compiled.replace(
		/(\n(\s+)group: \['trigger'\],\n\s+)version: 1,/,
		'$1version: [1, 2],\n$2defaultVersion: 2,',
	);
	if (patched === compiled) {
		throw new Error(
			`--preview-v2: no "version: 1" in the compiled ${TRIGGER_FILE}; if the trigger ships ` +
				'typeVersion 2 already, run without --preview-v2',
		);
	}
	return patched;
}

export interface BuiltPackages {
	/** The package as `npm pack` makes it. */
	shipped: string;
	/** The floor's tarball. */
	floor: string;
	version: string;
	trigger: TriggerVersions & { preview: boolean };
	/** Removes the temp build folders and tarballs. */
	remove(): Promise<void>;
}

/**
 * The same steps as `npm run build` (tsc -p tsconfig.build.json, then the gulp asset copy) in a temp copy of
 * the sources, then `npm pack`; and the floor package. `previewV2` patches the temp build's trigger as
 * previewVersion2 does (for a package that does not ship typeVersion 2 yet).
 */
export async function buildPackages(options: { previewV2?: boolean } = {}): Promise<BuiltPackages> {
	const root = await mkdtemp(join(tmpdir(), 'captioning-bench-build-'));
	try {
		const buildDir = join(root, 'shipped');
		for (const entry of SOURCES) {
			await cp(join(PROJECT_ROOT, entry), join(buildDir, entry), { recursive: true });
		}
		const triggerFile = join(buildDir, TRIGGER_FILE);
		let trigger: TriggerVersions = { versions: [], defaultVersion: 0 };
		let copied: CopiedDescription | undefined;
		await buildSources(buildDir, async () => {
			if (options.previewV2) {
				await writeFile(triggerFile, previewVersion2(await readFile(triggerFile, 'utf8')));
			}
			const { CaptioningTrigger } = createRequire(join(buildDir, 'package.json'))(triggerFile) as {
				CaptioningTrigger: new () => LoadedNodeType;
			};
			const description = newNodeDescription(new CaptioningTrigger());
			trigger = triggerVersions(description);
			copied = {
				properties: description.properties,
				version: description.version,
				defaultVersion: description.defaultVersion,
			};
		});
		// built above: the package's prepack (a build of the whole project) is not for this copy
		const shipped = await packDirectory(buildDir, root, { ignoreScripts: true });
		await assertTarballHasN8nEntries(shipped);
		const manifest = JSON.parse(await readFile(join(buildDir, 'package.json'), 'utf8')) as {
			version: string;
		};

		const floorDir = join(root, 'floor');
		await mkdir(floorDir);
		await writeFloorPackage(floorDir, manifest.version, copied);
		const floor = await packDirectory(floorDir, root);
		await assertTarballHasN8nEntries(floor);

		return {
			shipped,
			floor,
			version: manifest.version,
			trigger: { ...trigger, preview: options.previewV2 === true },
			remove: () => rm(root, { recursive: true, force: true }),
		};
	} catch (error) {
		await rm(root, { recursive: true, force: true });
		throw error;
	}
}
