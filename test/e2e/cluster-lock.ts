// e2e test files run side by side on the one cluster, each with its own VMs, so a run takes about as long
// as its slowest files rather than all of them. Every file shares the cluster for its whole run
// (cluster-share.ts, the project's setup file, takes and returns the share); a file that disturbs it for
// everyone (drains a node, restarts a KubeVirt component) trades its share for the cluster alone, with
// takeTheClusterAlone(), right before it does, once its own VMs run.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { holdFileLock } from "../support/file-lock.js";
import { cluster } from "./harness.js";

/** How long a file may wait for the cluster alone: until every other file running now is done. */
export const CLUSTER_ALONE_WAIT_MS = 1_800_000;

const lockFile = join(cluster.stateDir, "e2e-cluster.lock");
let release: (() => Promise<void>) | undefined;

/** The file's share; it waits while another file has the cluster alone. */
export async function shareTheCluster(): Promise<void> {
  mkdirSync(cluster.stateDir, { recursive: true });
  release = await holdFileLock(lockFile, "shared");
}

/** From here to the end of the file, no other file runs; their VMs are gone (their files ended). */
export async function takeTheClusterAlone(): Promise<void> {
  await release?.();
  release = undefined;
  release = await holdFileLock(lockFile, "exclusive");
}

/** Whatever the file holds, shared or alone. */
export async function leaveTheCluster(): Promise<void> {
  await release?.();
  release = undefined;
}
