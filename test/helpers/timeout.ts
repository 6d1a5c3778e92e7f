// The test timeout of the jest project this file is set up in (jest.config.js `globals.testTimeoutMs`): jest's
// own testTimeout is one for every project, and the projects that start n8n need minutes.
jest.setTimeout((globalThis as { testTimeoutMs?: number }).testTimeoutMs ?? 20_000);
