// The floor: the cheapest webhook trigger a community package can ship. Written and packed in the benchmark's
// temp dir only (never part of this repository's package), installed into n8n like any community package.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const FLOOR_PACKAGE = 'n8n-nodes-bench-floor';
export const FLOOR_TRIGGER_TYPE = `${FLOOR_PACKAGE}.floorTrigger`;
/** The credential type `floorCred` carries: the Captioning Trigger's, installed beside it. */
export const FLOOR_CREDENTIAL_TYPE = 'captioningApi';
/** Its best typeVersion: at 2, n8n evaluates no expression for the request (webhook-helpers parseRequestBody). */
export const FLOOR_BEST_VERSION = 2;
/**
 * A bisection's floor: the same node with the Captioning Trigger's properties (and typeVersions) in its
 * description, so that n8n resolves ours' description for it as for ours, and nothing else of ours.
 */
export const FLOOR_DESC_TRIGGER_TYPE = `${FLOOR_PACKAGE}.floorDescTrigger`;

/** The floor's one property: an empty `options` collection, as ours has. */
const FLOOR_PROPERTIES = [
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [{ displayName: 'Unused', name: 'unused', type: 'boolean', default: false }],
	},
];

/**
 * A floor node's source. Plain CommonJS, no dependency: answers through n8n, emits the parsed body, evaluates
 * nothing. Why its `options` and its optional credential look as they do: docs/development.md, "The benchmark".
 */
function nodeSource(node: {
	className: string;
	name: string;
	displayName: string;
	version: unknown;
	defaultVersion: unknown;
	properties: unknown;
}): string {
	return `'use strict';
Object.defineProperty(exports, '__esModule', { value: true });
exports.${node.className} = void 0;
class ${node.className} {
	constructor() {
		this.description = {
			displayName: ${JSON.stringify(node.displayName)},
			name: ${JSON.stringify(node.name)},
			group: ['trigger'],
			version: ${JSON.stringify(node.version)},
			defaultVersion: ${JSON.stringify(node.defaultVersion)},
			description: 'Benchmark only: answers through n8n, emits the body as one item, does nothing else',
			defaults: { name: 'Floor Trigger' },
			inputs: [],
			outputs: ['main'],
			credentials: [{ name: '${FLOOR_CREDENTIAL_TYPE}', required: false }],
			webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
			properties: ${JSON.stringify(node.properties)},
		};
	}
	async webhook() {
		return { workflowData: [[{ json: this.getBodyData() }]] };
	}
}
exports.${node.className} = ${node.className};
`;
}

/** What the bisection floor copies from the Captioning Trigger's description. */
export interface CopiedDescription {
	properties: unknown;
	version: unknown;
	defaultVersion: unknown;
}

/** Writes the floor package's sources into `directory` (then `npm pack` it). */
export async function writeFloorPackage(
	directory: string,
	version: string,
	copied?: CopiedDescription,
): Promise<void> {
	const nodeDir = join(directory, 'dist', 'nodes', 'FloorTrigger');
	await mkdir(nodeDir, { recursive: true });
	await writeFile(
		join(nodeDir, 'FloorTrigger.node.js'),
		nodeSource({
			className: 'FloorTrigger',
			name: 'floorTrigger',
			displayName: 'Floor Trigger',
			version: [1, 2],
			defaultVersion: FLOOR_BEST_VERSION,
			properties: FLOOR_PROPERTIES,
		}),
	);
	const nodes = ['dist/nodes/FloorTrigger/FloorTrigger.node.js'];
	if (copied) {
		const descDir = join(directory, 'dist', 'nodes', 'FloorDescTrigger');
		await mkdir(descDir, { recursive: true });
		await writeFile(
			join(descDir, 'FloorDescTrigger.node.js'),
			nodeSource({
				className: 'FloorDescTrigger',
				name: 'floorDescTrigger',
				displayName: 'Floor Trigger, Captioning Trigger description',
				...copied,
			}),
		);
		nodes.push('dist/nodes/FloorDescTrigger/FloorDescTrigger.node.js');
	}
	const manifest = {
		name: FLOOR_PACKAGE,
		version,
		description:
			'Benchmark-only: the cheapest community webhook trigger, the floor for the Captioning Trigger',
		license: 'MIT',
		keywords: ['n8n-community-node-package'],
		files: ['dist'],
		n8n: {
			n8nNodesApiVersion: 1,
			credentials: [],
			nodes,
		},
	};
	await writeFile(join(directory, 'package.json'), JSON.stringify(manifest, null, 2));
}
