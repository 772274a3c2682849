import { CommandError } from "../netns-exec.js";
import type { NetnsExec } from "../netns-exec.js";
import type { Interface } from "./types.js";
import { TypeBridge, TypeDummy, TypeTap } from "./types.js";

// Creating and deleting links with iproute2 (upstream nmstate createInterface/deleteInterface and
// virt-chroot's create-tap).

/**
 * Some kernels are built without the dummy driver (this project's CI machines among them). The bridge
 * binding's placeholder only has to hold the pod's MAC and addresses while down, which an empty,
 * down bridge does as well; it is used when the kernel does not know "dummy".
 */
export const DUMMY_FALLBACK_TYPE = TypeBridge;

/** Whether a link of `actualType` fulfils a request for `requestedType`. */
export function linkTypeSatisfies(requestedType: string, actualType: string): boolean {
  return requestedType === actualType || (requestedType === TypeDummy && actualType === DUMMY_FALLBACK_TYPE);
}

export async function createLink(exec: NetnsExec, iface: Interface): Promise<void> {
  switch (iface.typeName) {
    case TypeBridge:
      await exec.change("ip", ["link", "add", iface.name, "type", TypeBridge]);
      return;
    case TypeDummy:
      await createDummy(exec, iface.name);
      return;
    case TypeTap:
      await createTap(exec, iface);
      return;
    default:
      throw new Error(`unsupported interface type [${iface.name}]: "${iface.typeName ?? ""}"`);
  }
}

async function createDummy(exec: NetnsExec, name: string): Promise<void> {
  try {
    await exec.change("ip", ["link", "add", name, "type", TypeDummy]);
  } catch (error) {
    if (!(error instanceof CommandError && error.stderr.includes("Unknown device type"))) throw error;
    await exec.change("ip", ["link", "add", name, "type", DUMMY_FALLBACK_TYPE]);
  }
}

/** A persistent tap owned by the launcher's user, so that an unprivileged QEMU can open it; vnet_hdr
 * as upstream's default tap flags, multi_queue only when more than one queue is asked for. */
async function createTap(exec: NetnsExec, iface: Interface): Promise<void> {
  const tap = iface.tap ?? { queues: 0, uid: 0, gid: 0 };
  const args = ["tuntap", "add", "dev", iface.name, "mode", "tap"];
  args.push("user", String(tap.uid), "group", String(tap.gid), "vnet_hdr");
  if (tap.queues > 1) args.push("multi_queue");
  await exec.change("ip", args);
  if (iface.mtu !== undefined)
    await exec.change("ip", ["link", "set", "dev", iface.name, "mtu", String(iface.mtu)]);
}

export async function deleteLink(exec: NetnsExec, name: string): Promise<void> {
  await exec.change("ip", ["link", "del", "dev", name]);
}
