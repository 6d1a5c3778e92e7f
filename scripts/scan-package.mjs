// n8n's own gate for community packages (@n8n/scan-community-package), run on the tarball this project packs.
// The published CLI downloads from the registry by name; its analyzePackage() scans an unpacked folder, which is
// what the CLI does after downloading: npm pack → unpack → analyzePackage. Run by `npm run lint` after its build.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { analyzePackage } from '@n8n/scan-community-package/scanner/scanner.mjs';

if (!existsSync('dist'))
	throw new Error('no dist/ to scan: run it through `npm run lint`, which builds first');

const work = mkdtempSync(join(tmpdir(), 'captioning-scan-'));
try {
	const [{ filename, files }] = JSON.parse(
		// dist/ as `npm run lint` has just built it: prepack would build it a second time
		execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
			encoding: 'utf8',
		}),
	);
	const packageDir = join(work, 'package');
	execFileSync('tar', ['-xzf', join(work, filename), '-C', work]);
	const result = await analyzePackage(packageDir);
	if (!result.passed) {
		console.error(`@n8n/scan-community-package: ${filename} FAILED: ${result.message}`);
		if (result.details) console.error(result.details);
		process.exitCode = 1;
	} else {
		console.log(
			`@n8n/scan-community-package: ${filename} (${files.length} files) passed all checks`,
		);
	}
} finally {
	rmSync(work, { recursive: true, force: true });
}
