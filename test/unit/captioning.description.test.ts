// The Captioning node's versions as n8n-workflow's own NodeHelpers read its description (what the editor and n8n's
// loader call): a new node is version 2, a saved one keeps 1 with 0.1.0's parameters and defaults, and the AI
// tool's bounds are version 2's.
import { type INode, type INodeParameters, NodeHelpers } from 'n8n-workflow';

import { Captioning } from '../../nodes/Captioning/Captioning.node';

const { description } = new Captioning();
// n8n names a node's tool variant `<name>Tool` and reads '@tool' from that name
const tool = { ...description, name: `${description.name}Tool` };

const node = (typeVersion: number, parameters: INodeParameters): INode => ({
	id: 'n1',
	name: 'Captioning',
	type: 'n8n-nodes-captioning.captioning',
	typeVersion,
	position: [0, 0],
	parameters,
});

/** The names of the parameters the editor shows for `parameters` at `typeVersion`. */
function shown(typeVersion: number, parameters: INodeParameters, of = description): string[] {
	const values = NodeHelpers.getNodeParameters(
		of.properties,
		parameters,
		true,
		false,
		node(typeVersion, parameters),
		of,
	)!;
	return of.properties
		.filter((p) => NodeHelpers.displayParameter(values, p, node(typeVersion, values), of))
		.map((p) => p.name);
}

test('versions 1 and 2, with no defaultVersion: a new node gets the last one, and n8n adds its Custom API Call', () => {
	// the editor: defaultVersion ?? version.slice(-1)[0]; n8n's loader adds Custom API Call to a node whose
	// defaultVersion is absent or equals its version (load-nodes-and-credentials.ts), which an array never does
	expect(description.version).toEqual([1, 2]);
	expect(description.defaultVersion).toBeUndefined();
});

test('a node saved by 0.1.0 with nothing but defaults is still Caption File → Download, at both versions', () => {
	for (const typeVersion of [1, 2]) {
		const values = NodeHelpers.getNodeParameters(
			description.properties,
			{},
			true,
			false,
			node(typeVersion, {}),
			description,
		)!;
		expect([typeVersion, values.resource, values.operation]).toEqual([
			typeVersion,
			'captionFile',
			'download',
		]);
	}
});

test("Tool Output and Max Output Characters are a version 2 tool's; version 1 answers with its items, as 0.1.0", () => {
	const convert = { operation: 'convert', to: 'segments' };
	expect(shown(2, convert, tool)).toEqual(expect.arrayContaining(['toolOutput', 'toolMaxChars']));
	expect(shown(1, convert, tool)).not.toEqual(expect.arrayContaining(['toolOutput']));
	expect(shown(1, convert, tool)).not.toEqual(expect.arrayContaining(['toolMaxChars']));
	expect(shown(2, convert)).not.toEqual(expect.arrayContaining(['toolOutput']));
});

test('every parameter 0.1.0 had is shown at version 1 where it was', () => {
	// 0.1.0's Convert: Input, Input Binary Field, From, To, Put Output File in Field, Options
	expect(shown(1, { operation: 'convert' })).toEqual(
		expect.arrayContaining([
			'resource',
			'operation',
			'inputSource',
			'binaryPropertyName',
			'from',
			'to',
			'outputBinaryPropertyName',
			'options',
		]),
	);
	// 0.1.0's Download: Source, Format, Put Output File in Field
	expect(shown(1, {})).toEqual(expect.arrayContaining(['source', 'format', 'binaryPropertyName']));
});
