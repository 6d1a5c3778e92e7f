// The n8n harness the suites, the dev stack (scripts/dev.ts) and the benchmark (bench/) share: one import
// for all of it.
export * from './credentials';
export * from './examples';
export * from './install';
export * from './n8n';
export * from './pack';
export * from './process';
export * from './releases';
export * from './rest';
export * from './workflows';
