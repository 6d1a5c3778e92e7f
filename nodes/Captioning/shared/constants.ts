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

/**
 * The value of the Custom API Call n8n adds to a node's Resource and Operation lists when its credential
 * authenticates requests (packages/cli/src/load-nodes-and-credentials.ts, injectCustomApiCallOptions).
 */
export const CUSTOM_API_CALL = '__CUSTOM_API_CALL__';
