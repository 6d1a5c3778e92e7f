// One jest configuration, a project per suite. `jest` alone (npm test) runs `unit` (the unit, integration and
// sandbox tests) and `bench` (the benchmark's own unit tests), which never start n8n. The others run only when
// named with --selectProjects, as their npm scripts do through scripts/run.sh; each starts a real n8n (harness/):
//   npm test                  unit     test/**/*.test.ts, without test/e2e, test/faults and test/queue;
//                             bench    bench/test/**/*.test.ts
//   npm run test:e2e          e2e      test/e2e/**/*.test.ts (smoke: npm run test:e2e -- test/e2e/smoke)
//   npm run test:faults       faults   test/faults/**/*.test.ts
//   npm run test:benign       benign   test/benign/**/*.suite.ts (its plan.test.ts runs in unit)
//   npm run test:queue        queue    test/queue/**/*.test.ts
//   npm run test:browser      browser  test/browser/**/*.browser.ts (npm run screenshots too)
//   npm test -- --selectProjects bench   bench/test alone: the benchmark's own unit tests

const named = process.argv.some(
	(arg) => arg === '--selectProjects' || arg.startsWith('--selectProjects='),
);

const project = (displayName, roots, testMatch, more = {}) => ({
	displayName,
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots,
	testMatch,
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
		// subsrt-ts (an independent caption parser the tests compare with) ships ES modules only
		'/node_modules/subsrt-ts/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true } }],
	},
	transformIgnorePatterns: ['/node_modules/(?!subsrt-ts/)'],
	...more,
});

// Jest has one testTimeout for all projects: a project that starts n8n sets its own through
// test/helpers/timeout.ts.
const n8nProject = (displayName, roots, testMatch, timeoutMs, slowTestThreshold) =>
	project(displayName, roots, testMatch, {
		globals: { testTimeoutMs: timeoutMs },
		setupFilesAfterEnv: ['<rootDir>/test/helpers/timeout.ts'],
		slowTestThreshold,
	});

const projects = [
	project('unit', ['<rootDir>/test'], ['**/*.test.ts'], {
		testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', '/test/faults/', '/test/queue/'],
	}),
	n8nProject('e2e', ['<rootDir>/test/e2e'], ['**/*.test.ts'], 300_000, 120),
	n8nProject('faults', ['<rootDir>/test/faults'], ['**/*.test.ts'], 300_000, 120),
	n8nProject('benign', ['<rootDir>/test/benign'], ['**/*.suite.ts'], 300_000, 120),
	// Redis, PostgreSQL and n8n in queue mode (main, webhook processes, workers)
	n8nProject('queue', ['<rootDir>/test/queue'], ['**/*.test.ts'], 600_000, 300),
	// n8n's editor in Debian's Chromium, driven by playwright-core
	n8nProject('browser', ['<rootDir>/test/browser'], ['**/*.browser.ts'], 120_000, 180),
	project('bench', ['<rootDir>/bench'], ['**/test/**/*.test.ts']),
];

/** @type {import('jest').Config} */
module.exports = {
	testTimeout: 20_000,
	testSequencer: '<rootDir>/test/helpers/sequencer.js',
	projects: named ? projects : projects.filter((p) => ['unit', 'bench'].includes(p.displayName)),
	// a named project may start n8n: one test file at a time on a 2-core machine
	...(named ? { maxWorkers: 1 } : {}),
};
