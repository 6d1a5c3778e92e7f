// The faults suite (issues 8 and 13): hostile deliveries and their unusual but valid twins, token
// faults, activation cycles and a secret scan against one real n8n. Run: bash scripts/run.sh faults
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
