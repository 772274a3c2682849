// The host side of the control plane's network: a dummy (or port-less bridge) link holding the apiserver's advertise
// address (reachable from pod netns through the node bridges, never bound on the outside
// interface) and IPv4 forwarding, whose previous value is saved so `down` can put it back.
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { mustRun, runCommand } from "./run-command.js";
import { topology } from "./topology.js";

const IP_FORWARD = "/proc/sys/net/ipv4/ip_forward";
const savedForwardingFile = (stateDir: string) => join(stateDir, "ip_forward.previous");

export async function linkExists(name: string): Promise<boolean> {
  return (await runCommand("ip", ["link", "show", "dev", name])).code === 0;
}

export async function ensureControlPlaneLink(): Promise<void> {
  const link = topology.controlPlaneLink;
  if (!(await linkExists(link))) {
    // Kernels built without the dummy driver (no modules here) still have bridges; a bridge without
    // ports holds a local address just as well.
    const dummy = await runCommand("ip", ["link", "add", link, "type", "dummy"]);
    if (dummy.code !== 0) await mustRun("ip", ["link", "add", link, "type", "bridge"]);
  }
  await mustRun("ip", ["addr", "replace", `${topology.advertiseAddress}/32`, "dev", link]);
  await mustRun("ip", ["link", "set", link, "up"]);
}

export async function removeControlPlaneLink(): Promise<void> {
  if (await linkExists(topology.controlPlaneLink)) {
    await mustRun("ip", ["link", "del", topology.controlPlaneLink]);
  }
}

/** Turns forwarding on; the first call of a cluster's life records the value found. */
export async function enableForwarding(stateDir: string): Promise<void> {
  const saved = savedForwardingFile(stateDir);
  if (!existsSync(saved)) await writeFile(saved, (await readFile(IP_FORWARD, "utf8")).trim());
  await writeFile(IP_FORWARD, "1");
}

/** Puts back the value `enableForwarding` recorded; does nothing when none was recorded. */
export async function restoreForwarding(stateDir: string): Promise<void> {
  const saved = savedForwardingFile(stateDir);
  if (!existsSync(saved)) return;
  const previous = (await readFile(saved, "utf8")).trim();
  if (previous === "0" || previous === "1") await writeFile(IP_FORWARD, previous);
  await rm(saved, { force: true });
}
