// The guest agent's part of `status.interfaces` (upstream pkg/network/setup/netstat.go
// ifacesStatusFromGuestAgent): an interface the agent reports with a MAC the domain has gets the
// agent's interface name and addresses (addresses already known win per family, as long as the agent
// reports some of that family), and its source becomes "domain, guest-agent"; an interface only the
// guest has is listed on its own, "guest-agent", at most ten of them.
import { isIPv4, isIPv6 } from "node:net";
import type { Interface, VirtualMachineInstanceNetworkInterface } from "../../api/generated/v1.js";
import type { InterfaceStatus } from "../../virt-launcher/virtwrap/api/domain-object.js";
import {
  addInfoSource,
  containsInfoSource,
  INFO_SOURCE_DOMAIN_AND_GA,
  INFO_SOURCE_GUEST_AGENT,
  INFO_SOURCE_MULTUS_STATUS,
} from "../vmispec/infosource.js";

const GUEST_ONLY_INTERFACE_LIMIT = 10;

function splitIPsByFamily(ips: readonly string[]): [string[], string[]] {
  return [ips.filter((ip) => isIPv4(ip)), ips.filter((ip) => isIPv6(ip))];
}

/** Go's netip IsLinkLocalUnicast: 169.254.0.0/16 and fe80::/10; what does not parse counts as one too. */
function isLinkLocalOrInvalid(ip: string): boolean {
  const address = ip.split("%", 1)[0] ?? "";
  if (isIPv4(address)) return address.startsWith("169.254.");
  if (!isIPv6(address)) return true;
  return /^fe[89ab][0-9a-f]:/i.test(address);
}

/** The MAC as the domain and the agent both write it can differ in case only. */
const sameMAC = (a: string | undefined, b: string): boolean =>
  a !== undefined && a.toLowerCase() === b.toLowerCase();

function withGuestAgentData(
  status: VirtualMachineInstanceNetworkInterface,
  agent: InterfaceStatus,
  ips: readonly string[],
): VirtualMachineInstanceNetworkInterface {
  const [knownV4, knownV6] = splitIPsByFamily(status.ipAddresses ?? []);
  const [agentV4, agentV6] = splitIPsByFamily(ips);
  // Known addresses stay unless the agent reports none of that family (the guest is not reachable by it).
  const v4 = knownV4.length === 0 || agentV4.length === 0 ? agentV4 : knownV4;
  const v6 = knownV6.length === 0 || agentV6.length === 0 ? agentV6 : knownV6;
  const all = [...v4, ...v6];
  const { ipAddress: _ip, ipAddresses: _ips, interfaceName: _name, ...rest } = status;
  return {
    ...rest,
    ...(agent.interfaceName ? { interfaceName: agent.interfaceName } : {}),
    ...(all.length > 0 ? { ipAddress: all[0], ipAddresses: all } : {}),
    // An entry without an interface name came from an old launcher's merge: its source stays as it was.
    ...(agent.interfaceName ? { infoSource: INFO_SOURCE_DOMAIN_AND_GA } : {}),
  };
}

export function ifacesStatusFromGuestAgent(
  statuses: readonly VirtualMachineInstanceNetworkInterface[],
  agentInterfaces: readonly InterfaceStatus[],
  specByName: ReadonlyMap<string, Interface>,
): VirtualMachineInstanceNetworkInterface[] {
  const result = [...statuses];
  let guestOnly = 0;
  for (const agent of agentInterfaces) {
    const index = result.findIndex((status) => sameMAC(status.mac, agent.mac));
    const known = index < 0 ? undefined : result[index];
    if (known) {
      // Behind masquerade the guest's link-local addresses are not reachable from the pod network.
      const masquerade = specByName.get(known.name ?? "")?.masquerade !== undefined;
      const ips = masquerade
        ? (agent.ips ?? []).filter((ip) => !isLinkLocalOrInvalid(ip))
        : (agent.ips ?? []);
      result[index] = withGuestAgentData(known, agent, ips);
      continue;
    }
    if (guestOnly >= GUEST_ONLY_INTERFACE_LIMIT) continue;
    guestOnly++;
    result.push({
      ...(agent.mac ? { mac: agent.mac } : {}),
      ...(agent.ip ? { ipAddress: agent.ip } : {}),
      ...(agent.ips?.length ? { ipAddresses: agent.ips } : {}),
      ...(agent.interfaceName ? { interfaceName: agent.interfaceName } : {}),
      infoSource: INFO_SOURCE_GUEST_AGENT,
    });
  }
  return result;
}

// The rest of upstream's NetStat.UpdateStatus, after the domain, pod cache and guest agent parts.

type IfaceStatus = VirtualMachineInstanceNetworkInterface;

/** A pod network interface the domain no longer shows (being hot-unplugged, say) keeps a bare entry. */
export function restorePrimaryIfaceStatus(
  statuses: readonly IfaceStatus[],
  previous: readonly IfaceStatus[],
  primaryNetworkName: string,
): IfaceStatus[] {
  if (statuses.some((status) => status.name === primaryNetworkName)) return [...statuses];
  const before = previous.find((status) => status.name === primaryNetworkName);
  return before ? [{ name: before.name }, ...statuses] : [...statuses];
}

export function movePrimaryIfaceStatusToFront(
  statuses: readonly IfaceStatus[],
  primaryNetworkName: string,
): IfaceStatus[] {
  const index = statuses.findIndex((status) => status.name === primaryNetworkName);
  if (index <= 0) return [...statuses];
  return [statuses[index]!, ...statuses.slice(0, index), ...statuses.slice(index + 1)];
}

/**
 * Interfaces virt-controller saw in multus' network-status keep that source; one the domain does not
 * show (yet) is still listed, as long as the spec has it.
 */
export function ifacesStatusFromMultus(
  statuses: readonly IfaceStatus[],
  previous: readonly IfaceStatus[],
  specByName: ReadonlyMap<string, Interface>,
): IfaceStatus[] {
  const result = [...statuses];
  const fromMultus = previous.filter((status) =>
    containsInfoSource(status.infoSource, INFO_SOURCE_MULTUS_STATUS),
  );
  for (const { name = "" } of fromMultus) {
    const index = result.findIndex((status) => status.name === name);
    const known = index < 0 ? undefined : result[index];
    if (known) {
      result[index] = { ...known, infoSource: addInfoSource(known.infoSource, INFO_SOURCE_MULTUS_STATUS) };
    } else if (specByName.has(name)) {
      result.push({ name, infoSource: INFO_SOURCE_MULTUS_STATUS });
    }
  }
  return result;
}

/** The pod interface names are virt-controller's to report: each named entry keeps its last one. */
export function restorePodIfaceNames(
  statuses: readonly IfaceStatus[],
  previous: readonly IfaceStatus[],
): IfaceStatus[] {
  const reported = new Map(
    previous.filter((status) => status.name).map((status) => [status.name, status.podInterfaceName]),
  );
  return statuses.map((status) => {
    if (!status.name) return status;
    const { podInterfaceName: _ours, ...rest } = status;
    const podInterfaceName = reported.get(status.name);
    return podInterfaceName ? { ...rest, podInterfaceName } : rest;
  });
}
