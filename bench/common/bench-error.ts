/** A failure the benchmark explains itself: main prints its message alone, without a stack. */
export class BenchError extends Error {}

/** Runs a benchmark's main: a BenchError prints its message alone, anything else "<name>: <message>"; exit 1. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    console.error(error instanceof BenchError ? message : `${name}: ${message}`);
    process.exitCode = 1;
  });
}
