// The browser test: n8n's editor in Debian's Chromium, driven by playwright-core, against a real n8n with
// the package installed (harness/). Its files end in .browser.ts so that `npm test` (jest.config.js,
// *.test.ts) never picks them up. Run: bash scripts/run.sh browser
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/browser'],
	testMatch: ['**/*.browser.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	maxWorkers: 1,
	testTimeout: 120000,
	slowTestThreshold: 180,
};
