// The benign suite (issue 13): valid but unusual deliveries, each answered 2xx and executed exactly once,
// with and without downloads, against one real n8n. Run under Node 24:
// bash scripts/run.sh exec jest -c jest.benign.config.js --runInBand
// Its file is named *.suite.ts so that `npm test` (jest.config.js, **/*.test.ts) never starts n8n for it;
// the generator's own unit test (test/benign/plan.test.ts) runs there.
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/benign'],
	testMatch: ['**/*.suite.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	maxWorkers: 1,
	testTimeout: 300000,
	slowTestThreshold: 120,
};
