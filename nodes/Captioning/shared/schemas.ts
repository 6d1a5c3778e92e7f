// What the service sends, as zod schemas (contract sections 2.1, 2.3 and 2.4). The inferred types are the only
// types the rest of the package uses for these payloads. Unknown extra fields pass through.
import { z } from 'zod';

import { EVENT_TYPES } from './constants';

/** Section 2.1. */
export const tokenResponseSchema = z
	.object({
		access_token: z.string().min(1),
		token_type: z.string().refine((value) => value.toLowerCase() === 'bearer', {
			message: 'must be "Bearer"',
		}),
		expires_in: z.number().int().positive().optional(),
		refresh_token: z.string().min(1).optional(),
		scope: z.string().optional(),
		created_at: z.number().int().optional(),
	})
	.passthrough();
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** OAuth 2.0 error body (RFC 6749 section 5.2), as the token endpoint answers a refused grant. */
export const oauthErrorSchema = z
	.object({ error: z.string(), error_description: z.string().optional() })
	.passthrough();

/** JSON:API error document, as the API answers a refused call. */
export const jsonApiErrorSchema = z
	.object({
		errors: z
			.array(
				z
					.object({
						status: z.string().optional(),
						code: z.string().optional(),
						title: z.string().optional(),
						detail: z.string().optional(),
					})
					.passthrough(),
			)
			.min(1),
	})
	.passthrough();

/** Section 2.4: `transcriptions[]` of a transcription. Formats beyond vtt and google_stt are kept. */
export const captionFileSchema = z
	.object({ format: z.string().min(1), url: z.string().url() })
	.passthrough();
export type CaptionFileRef = z.infer<typeof captionFileSchema>;

/** Section 2.4. Only id and type are certain for transcription.created; the rest is filled in on completion. */
export const transcriptionResourceSchema = z
	.object({
		id: z.string().min(1),
		type: z.literal('transcription'),
		attributes: z
			.object({
				title: z.string().nullish(),
				duration: z.number().nullish(),
				average_confidence: z.number().min(0).max(1).nullish(),
				media: z.object({ url: z.string().url().nullish() }).passthrough().nullish(),
				transcriptions: z.array(captionFileSchema).nullish(),
			})
			.passthrough()
			.default({}),
	})
	.passthrough();
export type TranscriptionResource = z.infer<typeof transcriptionResourceSchema>;

/** Section 2.3. */
export const webhookEventSchema = z
	.object({
		data: z
			.object({
				id: z.string().min(1).max(200),
				type: z.literal('webhook_event'),
				attributes: z
					.object({
						created_at: z.string().datetime({ offset: true }),
						event_type: z.string().min(1).max(200),
						uri: z.string().optional(),
					})
					.passthrough(),
				relationships: z
					.object({
						subject: z.object({
							data: z.object({ id: z.string().min(1), type: z.string().min(1) }).passthrough(),
						}),
					})
					.passthrough(),
			})
			.passthrough(),
		// other resource types may be included one day: keep them, validate the transcriptions
		included: z.array(z.object({ id: z.string(), type: z.string() }).passthrough()).default([]),
	})
	.passthrough();
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

export const knownEventTypeSchema = z.enum(EVENT_TYPES);

/** The webhook endpoint resource (2.2); the JSON:API envelope is an assumption (ASSUMPTIONS.md). */
export const webhookEndpointSchema = z
	.object({
		id: z.string().min(1),
		type: z.string().optional(),
		attributes: z
			.object({
				callback_uri: z.string(),
				enabled_events: z.array(z.string()),
			})
			.passthrough(),
	})
	.passthrough();
export type WebhookEndpointResource = z.infer<typeof webhookEndpointSchema>;

export const webhookEndpointDocumentSchema = z
	.object({ data: webhookEndpointSchema })
	.passthrough();
export const webhookEndpointListSchema = z
	.object({ data: z.array(webhookEndpointSchema) })
	.passthrough();

/** Turns zod issues into one line that names the paths, never the values (which may be secrets). */
export function describeIssues(error: z.ZodError, limit = 5): string {
	const parts = error.issues.slice(0, limit).map((issue) => {
		const path = issue.path.length ? issue.path.join('.') : '(root)';
		return `${path}: ${issue.message}`;
	});
	const more = error.issues.length > limit ? ` (+${error.issues.length - limit} more)` : '';
	return parts.join('; ') + more;
}
