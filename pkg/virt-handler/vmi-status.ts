// The VMI status virt-handler reports from its launcher: the phase and `status.interfaces` (the domain's
// interfaces by alias and MAC, with the addresses the launcher saw). Written as a merge patch carrying
// the resourceVersion read, so a stale cache fails instead of overwriting newer status.
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { DomainObject } from "../virt-launcher/virtwrap/domain-object.js";
import { calculatePhase } from "./vmi-phase.js";

/** Upstream's alias prefix for user-defined devices: `ua-<name>`. */
const USER_ALIAS_PREFIX = "ua-";
/** Upstream's InfoSourceDomain: the entry comes from the domain, not the guest agent. */
export const INFO_SOURCE_DOMAIN = "domain";

export interface ReportedInterface {
  name?: string;
  mac?: string;
  ipAddress?: string;
  ipAddresses?: string[];
  interfaceName?: string;
  infoSource: string;
}

export interface ReportedStatus {
  phase: string;
  interfaces?: ReportedInterface[];
}

function interfacesOf(domain: DomainObject): ReportedInterface[] {
  const observed = domain.status.interfaces ?? [];
  return (domain.spec.devices?.interfaces ?? []).map((iface) => {
    const mac = iface.mac?.mac;
    const alias = iface.alias?.name ?? "";
    const seen = observed.find((o) => mac !== undefined && o.mac.toLowerCase() === mac.toLowerCase());
    const ips = seen?.ips?.length ? seen.ips : seen?.ip ? [seen.ip] : [];
    return {
      ...(alias.startsWith(USER_ALIAS_PREFIX) ? { name: alias.slice(USER_ALIAS_PREFIX.length) } : {}),
      ...(mac ? { mac } : {}),
      ...(ips[0] ? { ipAddress: ips[0], ipAddresses: ips } : {}),
      ...(seen?.interfaceName ? { interfaceName: seen.interfaceName } : {}),
      infoSource: INFO_SOURCE_DOMAIN,
    };
  });
}

export function computeStatus(
  vmi: VirtualMachineInstance,
  domain: DomainObject | undefined,
  launcherUnresponsive: boolean,
): ReportedStatus {
  const phase = calculatePhase({ vmi, domain, launcherUnresponsive });
  return domain ? { phase, interfaces: interfacesOf(domain) } : { phase };
}

/** The merge patch that brings the VMI's status to `desired`, or undefined when nothing changed. */
export function statusPatch(vmi: VirtualMachineInstance, desired: ReportedStatus): object | undefined {
  const status: Record<string, unknown> = {};
  if (vmi.status?.phase !== desired.phase) status["phase"] = desired.phase;
  if (
    desired.interfaces &&
    JSON.stringify(vmi.status?.interfaces ?? []) !== JSON.stringify(desired.interfaces)
  ) {
    status["interfaces"] = desired.interfaces;
  }
  if (Object.keys(status).length === 0) return undefined;
  return { metadata: { resourceVersion: vmi.metadata?.resourceVersion }, status };
}
