import { readFileSync, statfsSync } from "node:fs";
import os from "node:os";
import type { HostFacts, NodeSize } from "./node-object.js";

// Reads the host facts a Node reports. Each simulated node shares the one real host, so the facts are
// the host's; the disk is measured on the node's own state directory, and cpu, memory and pods are the
// size the cluster declares for the node (measuring them would give every node the whole machine).

function readTrimmed(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

function prettyOsName(): string {
  const release = readTrimmed("/etc/os-release");
  const match = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(release);
  return match?.[1] ?? "Linux";
}

export function readHostFacts(stateDir: string, size: NodeSize): HostFacts {
  const fs = statfsSync(stateDir);
  return {
    size,
    diskBytes: fs.blocks * fs.bsize,
    machineID: readTrimmed("/etc/machine-id"),
    bootID: readTrimmed("/proc/sys/kernel/random/boot_id"),
    systemUUID: readTrimmed("/sys/class/dmi/id/product_uuid"),
    kernelVersion: os.release(),
    osImage: prettyOsName(),
    arch: process.arch,
  };
}
