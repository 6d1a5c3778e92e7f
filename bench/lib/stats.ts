// Order statistics for the figures: every figure in results.json is a median over repetitions with its spread.

/** Linear interpolation between closest ranks (the R-7 / numpy default). `sorted` must be ascending. */
export function quantile(sorted: readonly number[], q: number): number {
	if (sorted.length === 0) return Number.NaN;
	const position = (sorted.length - 1) * q;
	const lower = Math.floor(position);
	const upper = Math.ceil(position);
	return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

export interface Summary {
	median: number;
	p25: number;
	p75: number;
	min: number;
	max: number;
	/** How many repetitions (or samples) the figure summarises. */
	n: number;
}

export function summarize(values: readonly number[]): Summary {
	const sorted = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
	return {
		median: quantile(sorted, 0.5),
		p25: quantile(sorted, 0.25),
		p75: quantile(sorted, 0.75),
		min: sorted[0] ?? Number.NaN,
		max: sorted[sorted.length - 1] ?? Number.NaN,
		n: sorted.length,
	};
}

/** Percentiles of one run's samples (latencies). */
export function percentiles(samples: readonly number[]): { p50: number; p99: number; max: number } {
	const sorted = [...samples].sort((a, b) => a - b);
	return {
		p50: quantile(sorted, 0.5),
		p99: quantile(sorted, 0.99),
		max: sorted[sorted.length - 1] ?? Number.NaN,
	};
}

/** Rounds for JSON and tables: 3 significant decimals at most, integers stay integers. */
export function round(value: number, digits = 3): number {
	if (!Number.isFinite(value)) return value;
	const factor = 10 ** digits;
	return Math.round(value * factor) / factor;
}

export function roundSummary(summary: Summary, digits = 3): Summary {
	return {
		median: round(summary.median, digits),
		p25: round(summary.p25, digits),
		p75: round(summary.p75, digits),
		min: round(summary.min, digits),
		max: round(summary.max, digits),
		n: summary.n,
	};
}

/**
 * A distribution-free interval for the median of `values` (order statistics and the binomial distribution, as the
 * sign test has it): the widest-confidence pair x(k), x(n+1-k) whose confidence is still at least `confidence`.
 * Undefined below 6 values, where even min–max holds the median with less than 95 %.
 */
export function medianInterval(
	values: readonly number[],
	confidence = 0.95,
): { low: number; high: number; confidence: number } | undefined {
	const sorted = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
	const n = sorted.length;
	// P(Binomial(n, 1/2) < k): the chance the median lies below x(k)
	let below = 0;
	let coefficient = 1;
	let best: { low: number; high: number; confidence: number } | undefined;
	for (let k = 1; k <= Math.floor(n / 2); k++) {
		below += coefficient / 2 ** n;
		coefficient = (coefficient * (n - k + 1)) / k;
		const held = 1 - 2 * below;
		if (held < confidence) break;
		best = { low: sorted[k - 1], high: sorted[n - k], confidence: held };
	}
	return best;
}
