export const CREDENTIAL_TYPE = 'captioningApi';

export const EVENT_TYPES = ['transcription.created', 'transcription.transcribed'] as const;

export const EVENT_OPTIONS = [
	{
		name: 'Transcription Created',
		value: 'transcription.created',
		description: 'A transcription object was created; its caption files are not ready yet',
	},
	{
		name: 'Transcription Transcribed',
		value: 'transcription.transcribed',
		description: 'A transcription finished; its caption files (VTT, Google STT) are ready',
	},
];
