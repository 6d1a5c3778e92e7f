// The claims' key per registration, and the lists earlier versions kept in the static data
// (trigger/dedupe/staticData.ts).
import type { IDataObject } from 'n8n-workflow';

import {
	dedupeKey,
	dedupeScope,
	dropEventLists,
} from '../../nodes/Captioning/trigger/dedupe/staticData';

describe('registrations, and the lists earlier versions kept', () => {
	test('n8n runs the test URL in manual mode, the production URL in webhook mode', () => {
		expect(dedupeScope('manual')).toBe('test');
		expect(dedupeScope('webhook')).toBe('production');
		expect(dedupeScope('trigger')).toBe('production');
		expect(dedupeKey('wf', 'n', 'manual')).not.toBe(dedupeKey('wf', 'n', 'webhook'));
	});

	test('dropEventLists: the three lists go, the registration and the route stay', () => {
		const staticData: IDataObject = {
			seenEvents: [['a', 1]],
			recentEvents: 'p'.repeat(15),
			recentTestEvents: 't'.repeat(15),
			registration: { x: 1 },
			tokenRouteFor: 'acc',
		};
		dropEventLists(staticData);
		expect(staticData).toEqual({ registration: { x: 1 }, tokenRouteFor: 'acc' });
		// nothing to drop: nothing touched (a delete on n8n's proxy marks the static data changed)
		const clean = new Proxy({} as IDataObject, {
			deleteProperty: () => {
				throw new Error('deleted');
			},
		});
		expect(() => dropEventLists(clean)).not.toThrow();
	});
});
