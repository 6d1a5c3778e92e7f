// Convert's and Fix's options as editor parameters, each built from its one statement (captions/options.ts).
import type { INodeProperties } from 'n8n-workflow';

import { CONVERT_OPTION_FIELDS, type EditorOptionName, optionBounds } from '../../captions';

/**
 * An option as an editor parameter, from its one statement (captions/options.ts): name, default and description
 * from its field, type and least value from its schema (in the editor's unit: seconds where it counts ms).
 */
export function optionProperty(
	key: EditorOptionName,
	more: Partial<INodeProperties> = {},
): INodeProperties {
	const field = CONVERT_OPTION_FIELDS[key];
	const bounds = optionBounds(key);
	const scale = 'scale' in field ? field.scale : 1;
	return {
		displayName: field.displayName,
		name: field.name,
		type: bounds.type,
		default: field.default,
		...(bounds.minValue === undefined
			? {}
			: {
					typeOptions: {
						minValue: bounds.minValue / scale,
						...(bounds.integer ? {} : { numberPrecision: 1 }),
					},
				}),
		...('description' in field ? { description: field.description } : {}),
		...('hint' in field ? { hint: field.hint } : {}),
		...('placeholder' in field ? { placeholder: field.placeholder } : {}),
		...more,
	};
}

/** Convert's and Fix's option to name speakers where a format has no markup for them (captions/options.ts). */
export const includeVoiceOption: INodeProperties = optionProperty('includeVoice');
