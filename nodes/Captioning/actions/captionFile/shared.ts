import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { type DownloadedFile, fetchSignedFile } from '../../shared/download';

/** Downloads a signed caption file, or throws what the file server said as a NodeApiError. */
export async function downloadOrThrow(
	ctx: IExecuteFunctions,
	url: string,
	format: string,
	title: unknown,
	itemIndex: number,
): Promise<DownloadedFile> {
	if (!/^https?:\/\//i.test(url)) {
		throw new NodeOperationError(ctx.getNode(), 'The URL must start with http:// or https://', {
			itemIndex,
		});
	}
	const outcome = await fetchSignedFile((o) => ctx.helpers.httpRequest(o), url, format, title);
	if (outcome.ok) return outcome.file;
	throw new NodeApiError(
		ctx.getNode(),
		{ status: outcome.status ?? null },
		{
			message: outcome.message,
			httpCode: outcome.status ? String(outcome.status) : undefined,
			itemIndex,
		},
	);
}
