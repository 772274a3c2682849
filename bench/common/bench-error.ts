/** A failure the benchmark explains itself: main prints its message alone, without a stack. */
export class BenchError extends Error {}
