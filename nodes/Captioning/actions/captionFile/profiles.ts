// The style guide Check measures against and Fix fixes to: its parameters, and the profile they choose, with custom
// limits read from the editor's seconds into the library's milliseconds.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	CAPTION_PROFILES,
	type CaptionLimits,
	captionProfile,
	DEFAULT_PROFILE_ID,
	FRAME_RATES,
	frameRateLabel,
} from '../../captions';
import { type CaptionProfile, CUSTOM_LIMIT_FIELDS, type LimitField } from '../../captions/profiles';

type CustomLimit = keyof typeof CUSTOM_LIMIT_FIELDS;
const CUSTOM_LIMITS = Object.keys(CUSTOM_LIMIT_FIELDS) as CustomLimit[];

const PROFILE_OPTIONS = [
	...CAPTION_PROFILES.map((profile) => ({
		name: profile.name,
		value: profile.id,
		description: profile.source,
	})),
	{ name: 'Custom', value: 'custom', description: 'The limits you add under Custom Limits' },
].sort((a, b) => a.name.localeCompare(b.name));

/** The style guides that count gaps in frames: they need the video's frame rate. */
const FRAME_COUNTING = CAPTION_PROFILES.filter(
	(profile) => profile.limits.minGapFrames !== undefined,
).map((profile) => profile.id);

const FRAME_RATE_OPTIONS = [
	...FRAME_RATES.map(({ name }) => ({ name: `${name} fps`, value: name })),
	{ name: 'Custom', value: 'custom' },
];

/** The style guide Check measures against and Fix fixes to, or limits of one's own (the editor shows the default guide's numbers). */
export const profileProperties: INodeProperties[] = [
	{
		displayName: 'Style Guide',
		name: 'profile',
		type: 'options',
		options: PROFILE_OPTIONS,
		default: DEFAULT_PROFILE_ID,
		description:
			'Whose limits to apply: line length, lines, reading speed, duration and gaps, as each guide states them',
	},
	{
		displayName: 'Frame Rate',
		name: 'frameRate',
		type: 'options',
		options: FRAME_RATE_OPTIONS,
		default: '24',
		displayOptions: { show: { profile: FRAME_COUNTING } },
		description:
			'The video’s frame rate: this guide counts gaps and durations in frames (2 frames between cues; gaps of half a second or less closed to 2 frames)',
	},
	{
		displayName: 'Custom Frame Rate',
		name: 'customFrameRate',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 240, numberPrecision: 3 },
		default: 24,
		displayOptions: { show: { profile: FRAME_COUNTING, frameRate: ['custom'] } },
		description: 'Frames per second, e.g. 50 or 59.94',
	},
	{
		displayName: 'Custom Limits',
		name: 'customLimits',
		type: 'collection',
		placeholder: 'Add limit',
		default: {},
		displayOptions: { show: { profile: ['custom'] } },
		description: 'A limit not added is not checked. Overlaps and empty cues always are.',
		options: customLimitProperties(),
	},
];

/** A limit as Custom Limits shows it, in the editor's unit; the default guide's number where it sets one. */
function editorDefault(limit: CustomLimit): number | boolean | undefined {
	const { limits } = captionProfile(DEFAULT_PROFILE_ID) as CaptionProfile;
	const field: LimitField = CUSTOM_LIMIT_FIELDS[limit];
	// a guide that counts its gap in frames (Netflix: 2) shows it in seconds at its frame rate, 24 fps unless set
	const frameGap =
		limits.minGapFrames === undefined
			? undefined
			: Math.round((limits.minGapFrames * 1000) / (limits.frameRate ?? 24));
	const value = limit === 'minGapMs' ? (limits.minGapMs ?? frameGap) : limits[limit];
	if (typeof value === 'boolean') return value;
	return value === undefined ? field.fallback : value / (field.scale ?? 1);
}

/** Custom Limits' parameters, one per field of CUSTOM_LIMIT_FIELDS, in the editor's alphabetical order. */
function customLimitProperties(): INodeProperties[] {
	return CUSTOM_LIMITS.map((limit): INodeProperties => {
		const field: LimitField = CUSTOM_LIMIT_FIELDS[limit];
		const value = editorDefault(limit);
		const shown = { displayName: field.displayName, name: field.name };
		const description = field.description === undefined ? {} : { description: field.description };
		if (typeof value === 'boolean') {
			return { ...shown, type: 'boolean', default: value, ...description };
		}
		return {
			...shown,
			type: 'number',
			typeOptions: {
				minValue: field.minValue,
				...(field.precision === undefined ? {} : { numberPrecision: field.precision }),
			},
			default: value,
			...description,
		};
	}).sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** An editor value as the library's limit: empty is not added, seconds become milliseconds. */
function fromEditor(limit: CustomLimit, value: unknown): number | boolean | undefined {
	if (typeof editorDefault(limit) === 'boolean') return value === true ? true : undefined;
	if (value === undefined || value === null || value === '') return undefined;
	const { scale } = CUSTOM_LIMIT_FIELDS[limit] as LimitField;
	return scale === undefined ? Number(value) : Math.round(Number(value) * scale);
}

/** Custom limits from the editor's values (seconds) to the library's (milliseconds); pure, for tests. */
export function customLimits(values: IDataObject): CaptionLimits {
	const limits = CUSTOM_LIMITS.map((limit) => [
		limit,
		fromEditor(limit, values[CUSTOM_LIMIT_FIELDS[limit].name]),
	]);
	return Object.fromEntries(limits.filter(([, value]) => value !== undefined)) as CaptionLimits;
}

/** What limits contradict each other, in words; undefined when they do not. */
export function limitsProblem(limits: CaptionLimits): string | undefined {
	for (const [name, value] of Object.entries(limits)) {
		if (typeof value === 'number' && !(Number.isFinite(value) && value >= 0)) {
			return `${name} must be a number of at least 0, got ${value}`;
		}
	}
	if (
		limits.minDurationMs !== undefined &&
		limits.maxDurationMs !== undefined &&
		limits.minDurationMs > limits.maxDurationMs
	) {
		return 'Min Duration is longer than Max Duration';
	}
	return undefined;
}

export interface ChosenProfile {
	id: string;
	name: string;
	source?: string;
	url?: string;
	/** The frame rate gaps and durations are counted at, as chosen: "23.976". */
	frameRate?: string;
	limits: CaptionLimits;
}

/** The frame rate chosen in the editor, in frames per second: 23.976 is exactly 24000/1001. */
export function chosenFrameRate(choice: string, custom: unknown): number | undefined {
	if (choice === 'custom') {
		const value = Number(custom);
		return Number.isFinite(value) && value > 0 ? value : undefined;
	}
	return FRAME_RATES.find((rate) => rate.name === choice)?.value;
}

/** The chosen style guide and its limits. */
export function readProfile(ctx: IExecuteFunctions, i: number): ChosenProfile {
	const id = ctx.getNodeParameter('profile', i, DEFAULT_PROFILE_ID) as string;
	if (id === 'custom') {
		const limits = customLimits(ctx.getNodeParameter('customLimits', i, {}) as IDataObject);
		const problem = limitsProblem(limits);
		if (problem) {
			throw new NodeOperationError(ctx.getNode(), `The custom limits do not work: ${problem}`, {
				itemIndex: i,
				description: 'Change them under Custom Limits.',
			});
		}
		return { id, name: 'Custom', limits };
	}
	const profile = captionProfile(id);
	if (!profile) {
		throw new NodeOperationError(ctx.getNode(), `The style guide "${id}" is not known`, {
			itemIndex: i,
			description: `Choose one of: ${PROFILE_OPTIONS.map((option) => option.name).join(', ')}.`,
		});
	}
	const { name, source, url } = profile;
	if (!FRAME_COUNTING.includes(id)) return { id, name, source, url, limits: profile.limits };
	const choice = String(ctx.getNodeParameter('frameRate', i, '24'));
	const frameRate = chosenFrameRate(choice, ctx.getNodeParameter('customFrameRate', i, 24));
	if (frameRate === undefined) {
		throw new NodeOperationError(ctx.getNode(), `The frame rate "${choice}" is not a frame rate`, {
			itemIndex: i,
			description: `Choose one of ${FRAME_RATE_OPTIONS.map((option) => option.name).join(', ')}, or a Custom Frame Rate above 0.`,
		});
	}
	return {
		id,
		name,
		source,
		url,
		frameRate: frameRateLabel(frameRate),
		limits: { ...profile.limits, frameRate },
	};
}
