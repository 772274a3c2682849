import type { PodIfaceCacheData } from "../../cache/podinterface.js";
import { listLinks } from "../../driver/iproute.js";
import type { NetnsExec } from "../../driver/netns-exec.js";
import { DUMMY_FALLBACK_TYPE, deleteLink } from "../../driver/nmstate/links.js";
import { applySpec } from "../../driver/nmstate/spec.js";
import type { Interface, LinuxStack } from "../../driver/nmstate/types.js";
import { IfaceStateAbsent, TypeDummy } from "../../driver/nmstate/types.js";
import { ensureRoutes } from "../../driver/routes.js";
import { generateBridgeName } from "../../link/names.js";
import { restoredPodLinkSpec } from "./bridge.js";
import { removeMasqueradeNat } from "./masquerade/masquerade.js";
import type { InterfacePlan } from "./plan.js";

// Undoes the setup of one interface. Upstream never needs this (the pod's namespace dies with the
// pod); here it lets tests and an aborted start leave the namespace as CNI made it. Each step checks
// first, so a repeated teardown is harmless.

export async function teardownInterface(
  exec: NetnsExec,
  plan: InterfacePlan,
  cached: PodIfaceCacheData | undefined,
): Promise<void> {
  const absent = (name: string): Interface => ({ name, state: IfaceStateAbsent });
  const bridgeName = generateBridgeName(plan.podIfaceName);
  if (plan.binding === "masquerade") await removeMasqueradeNat(exec);
  await applySpec(exec, { interfaces: [absent(plan.tapName)], linuxStack: { ipv4: {} } });

  const discovered = cached?.discovered;
  if (plan.binding === "bridge" && discovered) {
    await deletePlaceholder(exec, plan.podIfaceName, discovered.index);
    await applySpec(exec, { interfaces: [restoredPodLinkSpec(discovered)], linuxStack: { ipv4: {} } });
    await ensureRoutes(exec, discovered.routes);
  }
  await applySpec(exec, { interfaces: [absent(bridgeName)], linuxStack: restoredLinuxStack(cached) });
}

/** Deletes the link holding the pod interface's name unless it is the pod interface itself. */
async function deletePlaceholder(exec: NetnsExec, podIfaceName: string, podLinkIndex: number): Promise<void> {
  const link = (await listLinks(exec)).find((candidate) => candidate.ifname === podIfaceName);
  const kind = link?.linkinfo?.info_kind;
  if (!link || link.ifindex === podLinkIndex) return;
  if (kind !== TypeDummy && kind !== DUMMY_FALLBACK_TYPE) {
    throw new Error(`refusing to delete ${podIfaceName}: a ${kind ?? "plain"} link KubeVirt did not create`);
  }
  await deleteLink(exec, podIfaceName);
}

function restoredLinuxStack(cached: PodIfaceCacheData | undefined): LinuxStack {
  const before = cached?.linuxStackBefore;
  return { ipv4: before ? { arpIgnore: before.arpIgnore, forwarding: before.forwarding } : {} };
}
