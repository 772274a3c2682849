import { listLinks } from "../iproute.js";
import type { IpLink } from "../iproute.js";
import type { NetnsExec } from "../netns-exec.js";
import { IPV4_ARP_IGNORE_ALL, IPV4_FORWARDING, ensureSysctl, routeLocalNetKey } from "../procsys.js";
import { createLink, deleteLink, linkTypeSatisfies } from "./links.js";
import { interfaceFromLink } from "./status.js";
import type { IPAddress, Interface, LinuxStack, Spec } from "./types.js";
import { IfaceStateAbsent, IfaceStateUp } from "./types.js";
import { errorMessage } from "../../../util/error-message.js";

// Applies a desired Spec (upstream nmstate.Apply), one interface after the other in the spec's order.
// Unlike upstream, every step first compares with the link as it is and changes only what differs:
// a second apply of the same spec issues no change, and an apply after a crash finishes the job.

export async function applySpec(exec: NetnsExec, spec: Spec): Promise<void> {
  for (const iface of spec.interfaces) await applyInterface(exec, iface);
  await applyLinuxStack(exec, spec.linuxStack);
}

async function applyInterface(exec: NetnsExec, desired: Interface): Promise<void> {
  const links = await listLinks(exec);
  const existing = findLink(links, desired);
  if (desired.state === IfaceStateAbsent) {
    if (existing) await deleteLink(exec, existing.ifname);
    return;
  }
  let current = existing ? interfaceFromLink(existing) : undefined;
  const macAddress = resolveMacAddress(desired, current, links);
  if (!current) {
    await createLink(exec, desired);
    current = interfaceFromLink(mustFindByName(await listLinks(exec), desired.name));
  }
  const actualType = current.typeName ?? "";
  if (desired.typeName && !linkTypeSatisfies(desired.typeName, actualType)) {
    throw new Error(
      `type collision on link ${desired.name}: actual ${actualType}, requested ${desired.typeName}`,
    );
  }
  try {
    await setupInterface(exec, { ...desired, ...(macAddress ? { macAddress } : {}) }, current);
  } catch (error) {
    throw new Error(`failed to setup link [${desired.name}]: ${errorMessage(error)}`, { cause: error });
  }
}

function findLink(links: readonly IpLink[], desired: Interface): IpLink | undefined {
  if (desired.index !== undefined && desired.index > 0)
    return links.find((link) => link.ifindex === desired.index);
  return links.find((link) => link.ifname === desired.name);
}

function mustFindByName(links: readonly IpLink[], name: string): IpLink {
  const link = links.find((candidate) => candidate.ifname === name);
  if (!link) throw new Error(`link ${name} vanished right after its creation`);
  return link;
}

/**
 * The MAC to set, if any. copy-mac-from is done once, when the link joins its bridge: a bridge then
 * takes the lowest MAC of its ports, so comparing with the bridge's MAC afterwards would chase it.
 */
function resolveMacAddress(
  desired: Interface,
  current: Interface | undefined,
  links: readonly IpLink[],
): string | undefined {
  if (!desired.copyMacFrom) return desired.macAddress;
  if (desired.macAddress) {
    throw new Error(
      `specifying both MAC address and copy-mac-from fields is not supported [${desired.name}]`,
    );
  }
  if (current?.controller !== undefined && current.controller === desired.controller) return undefined;
  const source = links.find((link) => link.ifname === desired.copyMacFrom);
  if (!source?.address) throw new Error(`unable to find mac source link [${desired.name}]`);
  return source.address;
}

async function setupInterface(exec: NetnsExec, desired: Interface, current: Interface): Promise<void> {
  let name = current.name;
  const link = (...args: string[]): Promise<string> =>
    exec.change("ip", ["link", "set", "dev", name, ...args]);
  const rename = desired.name !== current.name;
  const changeMac = desired.macAddress !== undefined && desired.macAddress !== current.macAddress;
  // Renaming and (for most drivers) changing the MAC need the link down.
  const takenDown = (rename || changeMac) && current.state === IfaceStateUp;
  if (takenDown) await link("down");
  if (rename) {
    await link("name", desired.name);
    name = desired.name;
  }
  if (changeMac && desired.macAddress) await link("address", desired.macAddress);
  if (desired.mtu !== undefined && desired.mtu > 0 && desired.mtu !== current.mtu)
    await link("mtu", String(desired.mtu));
  if (desired.controller !== undefined && desired.controller !== (current.controller ?? "")) {
    await (desired.controller === "" ? link("nomaster") : link("master", desired.controller));
  }
  await setupAddresses(exec, name, desired, current);
  if (takenDown || (desired.state === IfaceStateUp && current.state !== IfaceStateUp)) await link("up");
  if (desired.linuxStack?.ip4RouteLocalNet) await ensureSysctl(exec, routeLocalNetKey(name), 1);
  if (desired.linuxStack?.portLearning === false && current.linuxStack?.portLearning !== false) {
    await link("type", "bridge_slave", "learning", "off");
  }
}

/** Leaves exactly the desired addresses; IPv6 link-local ones are the kernel's and stay. */
async function setupAddresses(
  exec: NetnsExec,
  name: string,
  desired: Interface,
  current: Interface,
): Promise<void> {
  const wanted = [...enabledAddresses(desired.ipv4), ...enabledAddresses(desired.ipv6)];
  const present = [...(current.ipv4?.address ?? []), ...(current.ipv6?.address ?? [])].filter(
    (address) => !address.ip.toLowerCase().startsWith("fe80:"),
  );
  const key = (address: IPAddress): string => `${address.ip}/${address.prefixLength}`;
  const wantedKeys = new Set(wanted.map(key));
  const presentKeys = new Set(present.map(key));
  for (const address of present) {
    if (!wantedKeys.has(key(address))) await exec.change("ip", ["addr", "del", key(address), "dev", name]);
  }
  for (const address of wanted) {
    if (!presentKeys.has(key(address))) await exec.change("ip", ["addr", "add", key(address), "dev", name]);
  }
}

function enabledAddresses(ip: Interface["ipv4"]): IPAddress[] {
  return ip?.enabled ? (ip.address ?? []) : [];
}

async function applyLinuxStack(exec: NetnsExec, stack: LinuxStack): Promise<void> {
  if (stack.ipv4.forwarding !== undefined)
    await ensureSysctl(exec, IPV4_FORWARDING, stack.ipv4.forwarding ? 1 : 0);
  if (stack.ipv4.arpIgnore !== undefined) await ensureSysctl(exec, IPV4_ARP_IGNORE_ALL, stack.ipv4.arpIgnore);
}
