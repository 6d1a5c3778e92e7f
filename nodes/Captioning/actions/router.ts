import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CUSTOM_API_CALL } from '../shared/constants';
import { settle } from '../shared/settle';
import * as captionFile from './captionFile';
import * as webhookEndpoint from './webhookEndpoint';

type ItemOperation = (
	this: IExecuteFunctions,
	i: number,
	item: INodeExecutionData,
) => Promise<INodeExecutionData[]>;

/** An operation that reads every input item at once and answers with items of its own (Create From Items). */
interface AllItemsOperation {
	forAllItems: (
		this: IExecuteFunctions,
		items: INodeExecutionData[],
	) => Promise<INodeExecutionData[]>;
}

type Operation = ItemOperation | AllItemsOperation;

const operations: Record<string, Record<string, Operation>> = {
	webhookEndpoint: {
		create: webhookEndpoint.create.execute,
		delete: webhookEndpoint.delete.execute,
		get: webhookEndpoint.get.execute,
		getAll: webhookEndpoint.getAll.execute,
	},
	captionFile: {
		check: captionFile.check.execute,
		convert: captionFile.convert.execute,
		download: captionFile.download.execute,
		fix: captionFile.fix.execute,
		fromItems: { forAllItems: captionFile.fromItems.execute },
	},
};

/** What an error of the run becomes: an item under Continue On Fail, else the error with its item. */
function failed(
	ctx: IExecuteFunctions,
	error: unknown,
	i: number,
	pairedItem: INodeExecutionData['pairedItem'],
): INodeExecutionData {
	if (ctx.continueOnFail()) return { json: { error: (error as Error).message }, pairedItem };
	// an n8n error already carries its item index; anything unexpected gains it
	if (error instanceof NodeApiError || error instanceof NodeOperationError) throw error;
	throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
}

/** One item at a time: requests stay within the rate limit and share one token. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const returnData: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		const resource = this.getNodeParameter('resource', i) as string;
		// no Operation is shown under n8n's Custom API Call resource
		const operation =
			resource === CUSTOM_API_CALL ? resource : (this.getNodeParameter('operation', i) as string);
		if (operation === CUSTOM_API_CALL) {
			throw new NodeOperationError(
				this.getNode(),
				'A Custom API Call runs in an HTTP Request node',
				{
					itemIndex: i,
					description:
						'Add an HTTP Request node with Authentication: Predefined Credential Type, Credential Type: Captioning API, and the full URL of the call: the credential adds the token and the Accept header.',
				},
			);
		}
		const run = operations[resource]?.[operation];
		if (!run) {
			throw new NodeOperationError(
				this.getNode(),
				`The operation "${operation}" of "${resource}" is not known`,
				{
					itemIndex: i,
				},
			);
		}
		if (typeof run !== 'function') {
			// all the items at once: the first item's parameters choose for the run
			const outcome = await settle(run.forAllItems.call(this, items));
			if (outcome.ok) return [outcome.value];
			const pairedItem = items.map((_, index) => ({ item: index }));
			return [[failed(this, outcome.error, 0, pairedItem)]];
		}
		const outcome = await settle(run.call(this, i, items[i]));
		if (outcome.ok) {
			returnData.push(...outcome.value);
			continue;
		}
		returnData.push(failed(this, outcome.error, i, { item: i }));
	}
	return [returnData];
}
