// A throwaway community package, written to a temp dir and packed on the fly: one node that reports
// how `require('zod')` and `require('n8n-workflow')` resolve inside n8n. Its dependency sections are
// copied from the repository's package.json, so it is installed the way our package would be.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packDirectory, projectManifest } from '../../../harness';

export const PROBE_PACKAGE = 'n8n-nodes-captioning-probe';
export const PROBE_NODE_TYPE = `${PROBE_PACKAGE}.resolutionProbe`;
export const PROBE_NODE_NAME = 'Resolution Probe';

export interface ModuleResolution {
	request: string;
	resolved?: string;
	packageDir?: string;
	version?: string;
	/** Whether n8n itself had already loaded that very file, i.e. the package shares n8n's instance. */
	loadedByHostBefore?: boolean;
	error?: string;
}

export interface ProbeReport {
	atLoad: { zod: ModuleResolution; workflow: ModuleResolution };
	atExecute: { zod: ModuleResolution; workflow: ModuleResolution; zodV4: ModuleResolution };
	zodParsed: string;
	workflowApiVersion: unknown;
	nodePath: string[];
	modulePaths: string[];
	nodeVersion: string;
	input: unknown;
}

const NODE_SOURCE = `'use strict';
const fs = require('node:fs');
const path = require('node:path');

function resolution(request) {
	let resolved;
	try {
		resolved = require.resolve(request);
	} catch (error) {
		return { request, error: String(error && error.message) };
	}
	const loadedByHostBefore = Object.prototype.hasOwnProperty.call(require.cache, resolved);
	const name = request.startsWith('@') ? request.split('/').slice(0, 2).join('/') : request.split('/')[0];
	let dir = path.dirname(resolved);
	while (dir !== path.dirname(dir)) {
		const file = path.join(dir, 'package.json');
		if (fs.existsSync(file)) {
			const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
			if (manifest.name === name) {
				return { request, resolved, packageDir: dir, version: manifest.version, loadedByHostBefore };
			}
		}
		dir = path.dirname(dir);
	}
	return { request, resolved, loadedByHostBefore };
}

// before this file requires them itself, so that loadedByHostBefore tells about n8n
const atLoad = { zod: resolution('zod'), workflow: resolution('n8n-workflow') };
const { NodeConnectionTypes } = require('n8n-workflow');

class ResolutionProbe {
	constructor() {
		this.description = {
			displayName: ${JSON.stringify(PROBE_NODE_NAME)},
			name: 'resolutionProbe',
			group: ['transform'],
			version: 1,
			description: 'Reports how zod and n8n-workflow resolve for a community package',
			defaults: { name: ${JSON.stringify(PROBE_NODE_NAME)} },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		};
	}

	async execute() {
		const atExecute = {
			zod: resolution('zod'),
			workflow: resolution('n8n-workflow'),
			zodV4: resolution('zod/v4'),
		};
		const { z } = require('zod');
		const zodParsed = z.object({ caption: z.string() }).parse({ caption: 'parsed by zod' }).caption;
		const input = this.getInputData()[0];
		return [[{
			json: {
				atLoad,
				atExecute,
				zodParsed,
				workflowApiVersion: require('n8n-workflow').N8N_NODES_API_VERSION,
				nodePath: (process.env.NODE_PATH || '').split(path.delimiter).filter(Boolean),
				modulePaths: module.paths,
				nodeVersion: process.version,
				input: input ? input.json : null,
			},
		}]];
	}
}

module.exports = { ResolutionProbe };
`;

export interface ProbeTarball {
	tarball: string;
	/** Deletes the temp dir holding the package sources and the tarball. */
	remove(): Promise<void>;
}

/** Writes the probe package to a temp dir and packs it there. */
export async function createProbeTarball(): Promise<ProbeTarball> {
	const root = await mkdtemp(join(tmpdir(), 'captioning-probe-'));
	const dir = join(root, PROBE_PACKAGE);
	const nodeDir = join(dir, 'dist', 'nodes', 'ResolutionProbe');
	await mkdir(nodeDir, { recursive: true });
	const project = await projectManifest();
	const manifest: Record<string, unknown> = {
		name: PROBE_PACKAGE,
		version: '0.0.1',
		description: 'Throwaway package for the e2e harness smoke test',
		keywords: ['n8n-community-node-package'],
		license: 'MIT',
		main: 'index.js',
		files: ['dist'],
		n8n: {
			n8nNodesApiVersion: 1,
			credentials: [],
			nodes: ['dist/nodes/ResolutionProbe/ResolutionProbe.node.js'],
		},
	};
	for (const section of [
		'dependencies',
		'peerDependencies',
		'devDependencies',
		'optionalDependencies',
	]) {
		if (project[section] !== undefined) manifest[section] = project[section];
	}
	await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n', 'utf8');
	await writeFile(join(nodeDir, 'ResolutionProbe.node.js'), NODE_SOURCE, 'utf8');
	return {
		tarball: await packDirectory(dir, root),
		remove: () => rm(root, { recursive: true, force: true }),
	};
}
