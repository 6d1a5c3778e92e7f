// A delivery as the service sends it (contract 2.3): a transcription event whose callback URI carries TOKEN.
export const TID = '7d1b3c1e-2f4a-4b7c-9d0e-1a2b3c4d5e6f';
export const TOKEN = 'OXjuL-jpuzW4d_3GRoJCUSMXzhQephRp';

export function sampleEvent(overrides: { eventType?: string; id?: string } = {}) {
	return {
		data: {
			id: overrides.id ?? 'e3a1c2d4-5b6f-4a7b-8c9d-0e1f2a3b4c5d',
			type: 'webhook_event',
			attributes: {
				created_at: '2026-11-22T10:00:00.123Z',
				event_type: overrides.eventType ?? 'transcription.transcribed',
				uri: `https://n8n.example.com/webhook/abc/webhook?token=${TOKEN}`,
			},
			relationships: { subject: { data: { id: TID, type: 'transcription' } } },
		},
		included: [
			{
				id: TID,
				type: 'transcription',
				attributes: {
					title: 'Board meeting',
					duration: 61.5,
					average_confidence: 0.912345678,
					media: { url: 'https://files.example.com/media.wav?signature=x' },
					transcriptions: [
						{ format: 'google_stt', url: 'https://files.example.com/a.json?signature=x' },
						{ format: 'vtt', url: 'https://files.example.com/a.vtt?signature=x' },
						{ format: 'srt', url: 'https://files.example.com/a.srt?signature=x' },
					],
				},
			},
		],
	};
}
