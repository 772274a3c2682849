// Last-resort cleanup of the pod's processes: QEMU must never outlive its launcher. Processes are
// found through libvirt's pid files, never by name, and stopped by PID (upstream's monitor does the
// same with a 10 s grace).
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../controller/log.js";
import { findPid, pidStatus } from "./monitor.js";

const QEMU_TERM_TIMEOUT_MS = 10_000;

async function alive(pid: number): Promise<boolean> {
  const { exists, zombie } = await pidStatus(pid);
  return exists && !zombie;
}

/** SIGTERM, then SIGKILL after `timeoutMs` if the process is still there. */
export async function terminate(pid: number, timeoutMs: number): Promise<void> {
  if (!(await alive(pid))) return;
  process.kill(pid, "SIGTERM");
  for (let waited = 0; waited < timeoutMs; waited += 100) {
    if (!(await alive(pid))) return;
    await sleep(100);
  }
  if (await alive(pid)) process.kill(pid, "SIGKILL");
}

/** Stops the domain's QEMU if it still runs, found by libvirt's pid file for that domain only
 * (the same dir holds libvirtd's own driver pid file). */
export async function killLeftoverQemu(pidDir: string, domainName: string, log: Logger): Promise<void> {
  const pid = await findPid(domainName, pidDir).catch(() => 0);
  if (pid === 0 || !(await alive(pid))) return;
  log.info({ pid }, "Killing QEMU gracefully.");
  await terminate(pid, QEMU_TERM_TIMEOUT_MS).catch((error: unknown) =>
    log.error({ err: error, pid }, "could not stop QEMU"),
  );
}

/**
 * Empties the container-disk dir on the way out (upstream virt-launcher-monitor's cleanupContainerDiskDirectory):
 * each containerDisk container's process exits once its socket there is gone, so the pod completes. Only
 * files and sockets go; directories, and anything virt-handler still has mounted (EBUSY), are left alone.
 */
export async function cleanupContainerDiskDirectory(dir: string, log: Logger): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) continue;
    await rm(join(dir, entry.name), { force: true }).catch((error: unknown) => {
      log.warn({ err: error, file: entry.name }, "could not clean up the container disk directory");
    });
  }
}
