// e2e test files run side by side on the one cluster, each with its own VMs, so a run takes about as long
// as its slowest files rather than all of them. Every file shares the cluster for its whole run
// (cluster-share.ts, the project's setup file, takes and returns the share); a file that disturbs it for
// everyone (drains a node, restarts a KubeVirt component) trades its share for the cluster alone, with
// takeTheClusterAlone(), right before it does, once its own VMs run; a file that would disturb the other
// files' VMs themselves (a drain) waits for them to end first (takeTheClusterAfterTheOthers()).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { holdFileLock } from "../support/file-lock.js";
import { cluster } from "./harness.js";

/** How long a file may wait for the cluster alone: until every other file running now is done. */
export const CLUSTER_ALONE_WAIT_MS = 1_800_000;

const lockFile = join(cluster.stateDir, "e2e-cluster.lock");
/** Held shared by every file from its start to its end, whatever it does with the cluster lock meanwhile. */
const filesLockFile = join(cluster.stateDir, "e2e-files.lock");
let release: (() => Promise<void>) | undefined;
let releaseFile: (() => Promise<void>) | undefined;
/** Whether `release` lets go of the cluster alone rather than of a share. */
let alone = false;

/** The file's share; it waits while another file has the cluster alone. */
export async function shareTheCluster(): Promise<void> {
  mkdirSync(cluster.stateDir, { recursive: true });
  releaseFile = await holdFileLock(filesLockFile, "shared");
  release = await holdFileLock(lockFile, "shared");
}

/** From here to the end of the file, no other file runs; their VMs are gone (their files ended). */
export async function takeTheClusterAlone(): Promise<void> {
  // Taking it again would let go of it first, and a file waiting for it could come in between.
  if (alone) return;
  await release?.();
  release = undefined;
  release = await holdFileLock(lockFile, "exclusive");
  alone = true;
}

/**
 * For a file whose disruption reaches every VM of a node (a drain evicts them all): waiting for the cluster
 * alone is not enough, since a file that waits for it too has dropped its share while its VMs still run. So
 * this waits until every other file has ended, before the file starts anything, and then has the cluster
 * alone; files that start later wait for it.
 */
export async function takeTheClusterAfterTheOthers(): Promise<void> {
  await leaveTheCluster();
  releaseFile = await holdFileLock(filesLockFile, "exclusive");
  release = await holdFileLock(lockFile, "exclusive");
  alone = true;
}

/** Whatever the file holds, shared or alone. */
export async function leaveTheCluster(): Promise<void> {
  await release?.();
  release = undefined;
  alone = false;
  await releaseFile?.();
  releaseFile = undefined;
}
