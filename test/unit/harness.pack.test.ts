// The key under which packProject() keeps a tarball: everything a build and `npm pack` read, and nothing else.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { packInputsHash } from '../../harness/pack';

let root: string;
const write = (path: string, text: string): void => {
	mkdirSync(dirname(join(root, path)), { recursive: true });
	writeFileSync(join(root, path), text);
};

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), 'captioning-pack-inputs-'));
	write('package.json', '{"name":"p","version":"1.0.0"}');
	write('package-lock.json', '{}');
	write('README.md', '# p');
	write('nodes/A/A.node.ts', 'export {}');
	write('credentials/A.credentials.ts', 'export {}');
	write('test/unit/a.test.ts', 'test');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('packInputsHash', () => {
	test('changes with a node, a credential, the README, the manifest or the lock', () => {
		const before = packInputsHash(root);
		for (const [path, text] of [
			['nodes/A/A.node.ts', 'export const a = 1;'],
			['nodes/A/a.svg', '<svg/>'],
			['credentials/A.credentials.ts', 'export const b = 1;'],
			['README.md', '# p, again'],
			['package.json', '{"name":"p","version":"1.0.1"}'],
			['package-lock.json', '{"lockfileVersion":3}'],
		]) {
			const previous = packInputsHash(root);
			write(path, text);
			expect([path, packInputsHash(root)]).not.toEqual([path, previous]);
		}
		expect(packInputsHash(root)).not.toBe(before);
	});

	test('stays the same for tests, docs and anything else the tarball does not hold', () => {
		const before = packInputsHash(root);
		write('test/unit/a.test.ts', 'test again');
		write('docs/design.md', '# design');
		write('sandbox/server.ts', 'export {}');
		expect(packInputsHash(root)).toBe(before);
	});

	test('a file moved to another path is another input', () => {
		const before = packInputsHash(root);
		rmSync(join(root, 'nodes/A/A.node.ts'));
		write('nodes/B/A.node.ts', 'export {}');
		expect(packInputsHash(root)).not.toBe(before);
	});
});
