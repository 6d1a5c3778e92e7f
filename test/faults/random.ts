// The faults and benign suites' seeded draws, from fast-check's generator: `fc.sample` with a seed gives the same
// stream on every run, so the same seed (printed by each suite, set by CAPTIONING_FAULTS_SEED or
// CAPTIONING_BENIGN_SEED) gives the same deliveries. Only the helpers the plans read draws through are ours.
import fc from 'fast-check';

/**
 * Uniform 32-bit integers: `noBias`, because a property's bias towards small and edge values would skew a plan's
 * proportions; `noHistory`, because a suite draws hundreds of thousands of them.
 */
const UNIFORM_UINT32 = fc.infiniteStream(
	fc.noBias(fc.integer({ min: -0x80000000, max: 0x7fffffff })),
	{ noHistory: true },
);

export class Rng {
	private readonly draws: Iterator<number>;

	constructor(seed: number) {
		const [stream] = fc.sample(UNIFORM_UINT32, { seed: seed | 0, numRuns: 1 });
		this.draws = stream[Symbol.iterator]();
	}

	/** Uniform in [0, 1). */
	next(): number {
		return (this.draws.next().value + 0x80000000) / 0x100000000;
	}

	/** Integer in [min, max]. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	chance(p: number): boolean {
		return this.next() < p;
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)];
	}

	/** `count` distinct items. */
	sample<T>(items: readonly T[], count: number): T[] {
		return this.shuffle([...items]).slice(0, count);
	}

	shuffle<T>(items: T[]): T[] {
		for (let i = items.length - 1; i > 0; i--) {
			const j = Math.floor(this.next() * (i + 1));
			[items[i], items[j]] = [items[j], items[i]];
		}
		return items;
	}

	string(
		length: number,
		alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_',
	): string {
		let out = '';
		for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
		return out;
	}

	/** A version-4-shaped UUID from this generator (deterministic, unlike crypto.randomUUID). */
	uuid(): string {
		const hex = this.string(32, '0123456789abcdef');
		return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
	}
}
