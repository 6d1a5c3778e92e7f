// What every route of the sandbox shares: the error it throws, reading a bounded body, and writing an answer.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

export const JSON_API = 'application/vnd.api+json; charset=utf-8';
export const JSON_TYPE = 'application/json; charset=utf-8';

export class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly pointer?: string,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

/** An answer decided by a pure function, written by `sendAnswer`; no body means an empty one. */
export interface Answer {
	status: number;
	body?: unknown;
	contentType?: string;
	headers?: Record<string, string>;
}

/** A refusal whose whole answer a pure function decided (not a JSON:API error document of the sandbox's own). */
export class AnswerError extends Error {
	constructor(readonly answer: Answer) {
		super(`HTTP ${answer.status}`);
	}
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				reject(new HttpError(413, 'payload_too_large', 'The request body exceeds 1 MiB.'));
				req.destroy();
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

export function send(
	res: ServerResponse,
	status: number,
	body: unknown,
	contentType = JSON_API,
	headers: Record<string, string> = {},
) {
	const text =
		body === undefined || Buffer.isBuffer(body) || typeof body === 'string'
			? (body ?? '')
			: JSON.stringify(body);
	// an empty 201 says "no body" with Content-Length: 0 rather than an empty chunked stream; 204 has no length
	res.writeHead(status, {
		...headers,
		...(text.length ? { 'content-type': contentType } : {}),
		...(status === 204 ? {} : { 'content-length': Buffer.byteLength(text) }),
	});
	res.end(text);
}

export function sendAnswer(res: ServerResponse, answer: Answer) {
	send(res, answer.status, answer.body, answer.contentType, answer.headers);
}

export function jsonApiError(error: HttpError) {
	return {
		errors: [
			{
				status: String(error.status),
				code: error.code,
				title: error.code.replace(/_/g, ' '),
				detail: error.message,
				...(error.pointer ? { source: { pointer: error.pointer } } : {}),
			},
		],
	};
}
