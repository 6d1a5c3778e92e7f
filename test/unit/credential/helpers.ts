// The values the credential's unit tests share: secrets that must never appear in what they check.
import {
	type CaptioningCredentials,
	readCredentials,
} from '../../../nodes/Captioning/tokens/values';

export const SECRET = 'cs-very-secret-123';
export const ASSERTION = 'as-very-secret-456';

export const input = {
	baseUrl: 'https://api.example.com/',
	clientId: 'client-1',
	clientSecret: SECRET,
	assertion: ASSERTION,
	mediaType: 'application/vnd.acme.v1',
};
export const creds: CaptioningCredentials = readCredentials(input);
