// What the service sends, as zod schemas (contract sections 2.1, 2.2 and 2.3). The inferred types are the only
// types the rest of the package uses for these payloads. Unknown extra fields pass through.
import { z } from 'zod';

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

/** Longer ids are not the service's: the per-process memory of started events keeps 10,000 of them. */
const MAX_EVENT_ID_LENGTH = 200;

/**
 * Section 2.3, read liberally: a refused delivery is retried five times and then lost, so only what the
 * trigger needs is required, the event id (de-duplication). The event type decides whether the event is
 * wanted, and is read only when it is a string. Everything else (2.3, 2.4) passes as it came.
 */
export const webhookEventHeadSchema = z
	.object({
		data: z
			.object({
				// JSON:API ids are strings; a service that numbers its events sends integers, which are as
				// unambiguous while they are exact (safe integers): both become the same string id
				id: z.preprocess(
					(id) => (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? String(id) : id),
					z.string().min(1).max(MAX_EVENT_ID_LENGTH),
				),
				attributes: z
					.object({ event_type: z.string().optional().catch(undefined) })
					.passthrough()
					.optional()
					.catch(undefined),
			})
			.passthrough(),
	})
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
