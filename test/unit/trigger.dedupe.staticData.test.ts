// Where each registration keeps its list of started events in the node's static data (trigger/dedupe/staticData.ts).
import type { IDataObject } from 'n8n-workflow';

import {
	dedupeKey,
	dedupeScope,
	LEGACY_SEEN_FIELD,
	SEEN_FIELDS,
	seenStore,
} from '../../nodes/Captioning/trigger/dedupe/staticData';

describe('registrations and where they keep their list', () => {
	test('n8n runs the test URL in manual mode, the production URL in webhook mode', () => {
		expect(dedupeScope('manual')).toBe('test');
		expect(dedupeScope('webhook')).toBe('production');
		expect(dedupeScope('trigger')).toBe('production');
		expect(dedupeKey('wf', 'n', 'manual')).not.toBe(dedupeKey('wf', 'n', 'webhook'));
	});

	test('seenStore: a field per registration; production takes over an earlier version’s list', () => {
		const staticData: IDataObject = { [LEGACY_SEEN_FIELD]: [['a', 1]], registration: { x: 1 } };
		const production = seenStore(staticData, 'webhook');
		const test = seenStore(staticData, 'manual');
		expect(production.read()).toEqual([['a', 1]]);
		expect(test.read()).toBeUndefined();
		test.write('t');
		expect(staticData[LEGACY_SEEN_FIELD]).toBeDefined();
		production.write('p');
		expect(staticData).toEqual({
			[SEEN_FIELDS.production]: 'p',
			[SEEN_FIELDS.test]: 't',
			registration: { x: 1 },
		});
		expect(production.read()).toBe('p');
	});
});
