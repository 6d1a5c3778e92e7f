// The faults suite (issue 8): hostile deliveries, token faults, secret scan and activation cycles
// against one real n8n. Run under Node 24: bash scripts/run.sh exec jest -c jest.faults.config.js
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/faults'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	maxWorkers: 1,
	testTimeout: 300000,
	slowTestThreshold: 120,
};
