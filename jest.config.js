/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// end-to-end, faults and queue suites start a real n8n and run from their own npm scripts
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', '/test/faults/', '/test/queue/'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 20000,
};
