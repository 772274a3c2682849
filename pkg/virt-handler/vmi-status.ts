// The VMI status virt-handler reports from its launcher: the phase (and when it was first entered),
// `status.interfaces` (the domain's
// interfaces by alias and MAC, with the addresses the launcher saw) and the Synchronized condition
// carrying the last sync error. Written as a merge patch carrying the resourceVersion read, so a stale
// cache fails instead of overwriting newer status.
import type { VirtualMachineInstance, VirtualMachineInstanceCondition } from "../api/generated/v1.js";
import { hasCondition, removeCondition, syncFailureCondition, timestamp } from "../controller/conditions.js";
import { SyncError } from "../controller/sync-error.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { StateChangeReason } from "../virt-launcher/virtwrap/api/domain-status.js";
import { setPhaseTransitionTimestamp } from "../controller/vmi-phase.js";
import { fsFreezeStatus } from "./fsfreeze-status.js";
import { calculatePhase } from "./vmi-phase.js";

/** Upstream's InfoSourceDomain: the entry comes from the domain, not the guest agent. */
export const INFO_SOURCE_DOMAIN = "domain";

export interface ReportedInterface {
  name?: string;
  podInterfaceName?: string;
  mac?: string;
  ipAddress?: string;
  ipAddresses?: string[];
  interfaceName?: string;
  infoSource: string;
}

/** Upstream's reason on the handler's Synchronized=False condition. */
export const SYNC_FAILED_REASON = "Synchronizing with the Domain failed.";

export interface ReportedStatus {
  phase: string;
  phaseTransitionTimestamps?: NonNullable<VirtualMachineInstance["status"]>["phaseTransitionTimestamps"];
  interfaces?: ReportedInterface[];
  conditions: VirtualMachineInstanceCondition[];
  /** status.fsFreezeStatus; undefined: the field is absent. */
  fsFreezeStatus?: string;
}

export interface SyncFailure {
  message: string;
  nowMs: number;
}

function interfacesOf(domain: DomainObject): ReportedInterface[] {
  const observed = domain.status.interfaces ?? [];
  return (domain.spec.devices?.interfaces ?? []).map((iface) => {
    const mac = iface.mac?.mac;
    // The domain carries user aliases decoded (name without `ua-`, userDefined set), as upstream's JSON does.
    const userName = iface.alias?.userDefined ? iface.alias.name : undefined;
    const seen = observed.find((o) => mac !== undefined && o.mac.toLowerCase() === mac.toLowerCase());
    const ips = seen?.ips?.length ? seen.ips : seen?.ip ? [seen.ip] : [];
    return {
      ...(userName ? { name: userName } : {}),
      ...(mac ? { mac } : {}),
      ...(ips[0] ? { ipAddress: ips[0], ipAddresses: ips } : {}),
      ...(seen?.interfaceName ? { interfaceName: seen.interfaceName } : {}),
      infoSource: INFO_SOURCE_DOMAIN,
    };
  });
}

/** What the network setup cached of each pod interface, by VMI interface name (upstream's pod interface cache). */
export type PodInterfaceIPs = ReadonlyMap<string, { podIP?: string; podIPs?: string[] }>;

/**
 * Upstream's netstat: the pod network's interfaces report the pod's IPs the setup cached (the guest's own
 * with the bridge binding; with masquerade what the pod is reached at), and keep the pod interface name
 * virt-controller recorded.
 */
function withPodInterfaceData(
  interfaces: ReportedInterface[],
  vmi: VirtualMachineInstance,
  podIPs: PodInterfaceIPs,
): ReportedInterface[] {
  const previous = new Map((vmi.status?.interfaces ?? []).map((iface) => [iface.name, iface]));
  return interfaces.map((iface) => {
    const cached = iface.name === undefined ? undefined : podIPs.get(iface.name);
    const podInterfaceName = previous.get(iface.name)?.podInterfaceName;
    return {
      ...iface,
      ...(cached?.podIP ? { ipAddress: cached.podIP, ipAddresses: cached.podIPs ?? [cached.podIP] } : {}),
      ...(podInterfaceName ? { podInterfaceName } : {}),
    };
  });
}

export function computeStatus(
  vmi: VirtualMachineInstance,
  domain: DomainObject | undefined,
  launcherUnresponsive: boolean,
  failure?: SyncFailure,
  podIPs: PodInterfaceIPs = new Map(),
  nowMs = failure?.nowMs ?? 0,
): ReportedStatus {
  const phase = calculatePhase({ vmi, domain, launcherUnresponsive });
  const transitions = {
    phase,
    phaseTransitionTimestamps: [...(vmi.status?.phaseTransitionTimestamps ?? [])],
  };
  // The VM controller tells a VMI that failed before it ever ran by these (start failure back-off).
  setPhaseTransitionTimestamp(vmi.status, transitions, nowMs);
  const conditions = pausedConditions(synchronizedConditions(vmi, failure), domain, nowMs);
  const frozen = fsFreezeStatus(vmi.status?.fsFreezeStatus, domain);
  const reported = {
    phase,
    phaseTransitionTimestamps: transitions.phaseTransitionTimestamps,
    conditions,
    ...(frozen ? { fsFreezeStatus: frozen } : {}),
  };
  if (!domain) return reported;
  return { ...reported, interfaces: withPodInterfaceData(interfacesOf(domain), vmi, podIPs) };
}

/** The VMI's conditions with Synchronized set from the failure, or removed after a clean sync. */
function synchronizedConditions(
  vmi: VirtualMachineInstance,
  failure: SyncFailure | undefined,
): VirtualMachineInstanceCondition[] {
  const status = { conditions: [...(vmi.status?.conditions ?? [])] };
  const error = failure && new SyncError(failure.message, SYNC_FAILED_REASON);
  syncFailureCondition(status, error, failure?.nowMs ?? 0);
  return status.conditions;
}

export const PAUSED_CONDITION = "Paused";

/** Upstream's calculatePausedCondition: the Paused condition a paused domain's reason calls for, if any. */
export function pausedCondition(reason: string, nowMs: number): VirtualMachineInstanceCondition | undefined {
  const at = timestamp(nowMs);
  const paused = (why: string, message: string): VirtualMachineInstanceCondition => ({
    type: PAUSED_CONDITION,
    status: "True",
    lastProbeTime: at,
    lastTransitionTime: at,
    reason: why,
    message,
  });
  if (reason === StateChangeReason.User) return paused("PausedByUser", "VMI was paused by user");
  if (reason === StateChangeReason.PausedIOError)
    return paused("PausedIOError", "VMI was paused, low-level IO error detected");
  // A pause by the migration monitor needs a migration in progress; any other reason gets no condition.
  return undefined;
}

/** Upstream's updatePausedConditions: set once the domain is paused, dropped once it is not. */
function pausedConditions(
  conditions: VirtualMachineInstanceCondition[],
  domain: DomainObject | undefined,
  nowMs: number,
): VirtualMachineInstanceCondition[] {
  const status = { conditions };
  if (domain?.status.status === "Paused") {
    if (hasCondition(status, PAUSED_CONDITION)) return conditions;
    const condition = pausedCondition(domain.status.reason, nowMs);
    return condition ? [...conditions, condition] : conditions;
  }
  removeCondition(status, PAUSED_CONDITION);
  return status.conditions;
}

/** The merge patch that brings the VMI's status to `desired`, or undefined when nothing changed. */
export function statusPatch(vmi: VirtualMachineInstance, desired: ReportedStatus): object | undefined {
  const status: Record<string, unknown> = {};
  if (vmi.status?.phase !== desired.phase) status["phase"] = desired.phase;
  const transitions = desired.phaseTransitionTimestamps ?? [];
  if (JSON.stringify(vmi.status?.phaseTransitionTimestamps ?? []) !== JSON.stringify(transitions)) {
    status["phaseTransitionTimestamps"] = transitions;
  }
  if (
    desired.interfaces &&
    JSON.stringify(vmi.status?.interfaces ?? []) !== JSON.stringify(desired.interfaces)
  ) {
    status["interfaces"] = desired.interfaces;
  }
  if (JSON.stringify(vmi.status?.conditions ?? []) !== JSON.stringify(desired.conditions)) {
    status["conditions"] = desired.conditions;
  }
  // A merge patch removes the field with null.
  if (vmi.status?.fsFreezeStatus !== desired.fsFreezeStatus)
    status["fsFreezeStatus"] = desired.fsFreezeStatus ?? null;
  if (Object.keys(status).length === 0) return undefined;
  return { metadata: { resourceVersion: vmi.metadata?.resourceVersion }, status };
}
