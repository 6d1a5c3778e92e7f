// The queue-mode suite (test/queue): Redis, PostgreSQL and n8n 2.41.1 in queue mode (main, webhook
// process, two workers) on 127.0.0.1, one run at a time with long timeouts.
// Run under Node 24: bash scripts/run.sh exec jest -c jest.queue.config.js
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	maxWorkers: 1,
	testTimeout: 600000,
	slowTestThreshold: 300,
};
