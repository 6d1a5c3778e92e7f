// End-to-end suites: each starts a real n8n (harness/), so they run one at a time with long
// timeouts. Run under Node 24: bash scripts/run.sh exec jest -c jest.e2e.config.js
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	// one n8n at a time on a 2-core machine; maxWorkers 1 makes jest run in band
	maxWorkers: 1,
	testTimeout: 300000,
	slowTestThreshold: 120,
};
