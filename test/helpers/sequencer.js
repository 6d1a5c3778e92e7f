// Jest starts the test files it knows to be slowest first, from the durations of earlier runs in its cache; a
// fresh clone (CI) has none and goes by file size, which would start package.test.ts (a fresh clone's npm ci and
// build, 2-3 minutes, in a small file) last and leave one worker alone with it at the end.
const Sequencer = require('@jest/test-sequencer').default;

const SLOW_FIRST = ['test/e2e/package.test.ts'];

class SlowFirst extends Sequencer {
	async sort(tests) {
		const sorted = await super.sort(tests);
		const rank = (test) => {
			const index = SLOW_FIRST.findIndex((file) => test.path.endsWith(file));
			return index === -1 ? SLOW_FIRST.length : index;
		};
		// Array.prototype.sort is stable: the rest keep Jest's order
		return [...sorted].sort((a, b) => rank(a) - rank(b));
	}
}

module.exports = SlowFirst;
