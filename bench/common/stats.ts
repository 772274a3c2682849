// A benchmark's figures over its runs or requests: min / median / max for a few runs (percentiles of
// five runs would only name the max), nearest-rank percentiles for many samples.

export interface Spread {
  count: number;
  min: number;
  median: number;
  max: number;
}

/** Undefined when there is nothing to summarize (every run lacked this figure). */
export function spread(values: readonly number[]): Spread | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { count: sorted.length, min: sorted[0]!, median, max: sorted.at(-1)! };
}

/**
 * The nearest-rank `p`th percentile (0 < p ≤ 100) of `sorted` (ascending): the smallest value that at
 * least p % of the samples do not exceed, always one that was measured. Undefined without samples.
 */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (!(p > 0 && p <= 100)) throw new RangeError(`a percentile is in (0, 100], not ${p}`);
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
