// The Captioning Trigger's panel in the editor (triggerPanel): n8n 2.41.1 and 1.123.81 show its texts as they are,
// the help as HTML. It says where the URLs are, why the service must reach them, WEBHOOK_URL, and how long the
// test URL listens (TEST_WEBHOOK_TIMEOUT: 2 minutes in both versions), in n8n 2.x words.
import type { TriggerPanelDefinition } from 'n8n-workflow';

import { CaptioningTrigger } from '../../nodes/Captioning/CaptioningTrigger.node';

// every version shows the same panel
const { description } = new CaptioningTrigger().getNodeType(3);
const panel = description.triggerPanel as TriggerPanelDefinition;
const help = panel.executionsHelp as { active: string; inactive: string };
const hint = panel.activationHint as { active: string; inactive: string };

describe('triggerPanel', () => {
	test('its own header, instead of the generic "Pull in events from Captioning"', () => {
		expect(panel.header).toBe('Starts the workflow on transcription events');
	});

	test('the same panel at every typeVersion', () => {
		for (const version of [1, 2]) {
			expect(new CaptioningTrigger().getNodeType(version).description.triggerPanel).toEqual(panel);
		}
	});

	test.each(['inactive', 'active'] as const)(
		'the %s help covers both URLs and N8N_WEBHOOK_URL (WEBHOOK_URL in 1.x)',
		(state) => {
			const text = help[state];
			expect(text).toContain('<b>Execute step</b>');
			expect(text).toContain('<b>Test URL</b>');
			expect(text).toContain('listens for 2 minutes');
			expect(text).toContain('<b>Production URL</b>');
			expect(text).toContain('<a data-key="executions">executions list</a>');
			expect(text).toContain('<code>N8N_WEBHOOK_URL</code> (in n8n 1.x: <code>WEBHOOK_URL</code>)');
			expect(text).toContain("n8n's public https address");
		},
	);

	test('publishing, in n8n 2.x words, with the 1.x word once', () => {
		expect(help.inactive).toContain('publish it (in n8n 1.x: set it Active)');
		expect(help.active).toContain('This workflow is published');
		expect(hint.inactive).toMatch(/^Publish the workflow to register its Production URL/);
		expect(hint.inactive).toContain('N8N_WEBHOOK_URL (in n8n 1.x: WEBHOOK_URL)');
		expect(hint.active).toMatch(/^Published: /);
	});

	test('no n8n 1.x words in the panel or the options', () => {
		const options = description.properties.find((p) => p.name === 'options');
		const texts = JSON.stringify([panel, options]);
		expect(texts).not.toMatch(/Activate the workflow|Listen for test event/);
	});
});
