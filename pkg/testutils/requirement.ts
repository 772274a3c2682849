// The gate of tests that need something of the machine: a tool, root, a kernel feature. Away from CI a
// missing one skips the test with the reason printed; under CI=true (as CI runs `.ci/run`) it fails the
// file instead, since `make test` installs what the tests need and a skip there hides a missing install step.

/** Whether the tests named `what` can run; `unavailable` says why not, or is undefined when they can. */
export function runnable(what: string, unavailable: string | undefined): boolean {
  if (unavailable === undefined) return true;
  if (process.env.CI === "true") {
    throw new Error(
      `${what} cannot run: ${unavailable} (under CI=true a missing tool is a failure, not a skip)`,
    );
  }
  console.warn(`skipping ${what}: ${unavailable}`);
  return false;
}

/** The reason for `runnable` when the tests need root. */
export const unlessRoot = (): string | undefined => (process.getuid?.() === 0 ? undefined : "needs root");
