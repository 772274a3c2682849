import { availableParallelism, totalmem } from "node:os";

// The machine a benchmark ran on, as its figures are printed with: they depend on it.

/** os.loadavg() as the benchmarks print it: "0.52 0.40 0.31". */
export const formatLoad = (load: readonly number[]): string =>
  load.map((value) => value.toFixed(2)).join(" ");

/** "2 cores, 23.5 GiB memory". */
export function formatMachine(cores: number, memoryBytes: number): string {
  return `${cores} ${cores === 1 ? "core" : "cores"}, ${(memoryBytes / 2 ** 30).toFixed(1)} GiB memory`;
}

export const thisMachine = (): string => formatMachine(availableParallelism(), totalmem());
