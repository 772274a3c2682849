// Setup file of the `e2e` project: test files run side by side on the one cluster, each with its own VMs,
// so a run takes about as long as its slowest files rather than all of them. A file that disturbs the
// cluster for everyone (drains a node, restarts a KubeVirt component) has it alone: every file holds one
// lock for its whole run, shared or, for the files listed here, exclusive.
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { holdFileLock, type LockShare } from "../support/file-lock.js";
import { cluster } from "./harness.js";

/** Files that change what other files rely on while they run. */
export const DISRUPTIVE_FILES: readonly string[] = [
  "drain.test.ts", // cordons and drains a node
  "faults.test.ts", // restarts virt-controller and virt-api
  "handler-restart.test.ts", // restarts a node's virt-handler
];

export const shareOf = (testPath: string): LockShare =>
  DISRUPTIVE_FILES.includes(basename(testPath)) ? "exclusive" : "shared";

const testPath = expect.getState().testPath ?? "";
let release: (() => Promise<void>) | undefined;

beforeAll(async () => {
  mkdirSync(cluster.stateDir, { recursive: true });
  release = await holdFileLock(join(cluster.stateDir, "e2e-cluster.lock"), shareOf(testPath));
  // An exclusive file waits for every shared one running, and those for it: an hour is no deadline here.
}, 3_600_000);

afterAll(async () => {
  await release?.();
});
