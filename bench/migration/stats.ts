// min / median / max of a benchmark's runs: few runs, so no percentiles that would only name the max.

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
