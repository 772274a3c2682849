// The VMI status virt-handler reports from its launcher: the phase (and when it was first entered), `status.interfaces` (the domain's
// interfaces by alias and MAC, with the pod's addresses and what the guest agent saw), the guest's OS
// and filesystem freeze status from its agent, and the conditions: Synchronized carrying the last sync
// error, AgentConnected / AgentVersionNotSupported, Paused. Written as a merge patch carrying the
// resourceVersion read, so a stale cache fails instead of overwriting newer status.
import { isDeepStrictEqual } from "node:util";
import type {
  VolumeStatus,
  VirtualMachineInstance,
  VirtualMachineInstanceCondition,
  VirtualMachineInstanceGuestOSInfo,
  VirtualMachineInstanceNetworkInterface,
} from "../api/generated/v1.js";
import type { GuestAgentInfo } from "../api/guest-agent-info.js";
import { withLiveMigrationConditions, type MigratabilityContext } from "./migration-conditions.js";
import { hasCondition, removeCondition, syncFailureCondition, timestamp } from "../controller/conditions.js";
import { SyncError } from "../controller/sync-error.js";
import {
  ifacesStatusFromGuestAgent,
  ifacesStatusFromMultus,
  movePrimaryIfaceStatusToFront,
  restorePodIfaceNames,
  restorePrimaryIfaceStatus,
} from "../network/setup/netstat.js";
import { INFO_SOURCE_DOMAIN } from "../network/vmispec/infosource.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { FS_THAWED } from "../virt-launcher/virtwrap/api/domain-object.js";
import { StateChangeReason } from "../virt-launcher/virtwrap/api/domain-status.js";
import { setPhaseTransitionTimestamp } from "../controller/vmi-phase.js";
import { isGuestAgentSupported, isGuestAgentVersionSupported } from "./guestagent.js";
import { calculatePhase } from "./vmi-phase.js";

export type ReportedInterface = VirtualMachineInstanceNetworkInterface;

/** Upstream's reason on the handler's Synchronized=False condition. */
export const SYNC_FAILED_REASON = "Synchronizing with the Domain failed.";

export interface ReportedStatus {
  phase: string;
  phaseTransitionTimestamps?: NonNullable<VirtualMachineInstance["status"]>["phaseTransitionTimestamps"];
  interfaces?: ReportedInterface[];
  conditions: VirtualMachineInstanceCondition[];
  /** Set when the agent reports another OS than the VMI shows. */
  guestOSInfo?: VirtualMachineInstanceGuestOSInfo;
  /** The agent's freeze status; null: thawed, so none is shown; absent: unchanged. */
  fsFreezeStatus?: string | null;
  /** LiveMigration, or BlockMigration when a disk is local to the node. */
  migrationMethod?: string;
  /** Targets and hotplug phases from the domain (./volume-status.ts); absent: unchanged. */
  volumeStatus?: VolumeStatus[];
  /** The launcher's SELinux context; "none" as upstream reports it on a node without SELinux (ours). */
  selinuxContext?: string;
}

/** What the launcher's GetGuestInfo said, asked while the agent is connected, for the supported check. */
export interface GuestAgentReport {
  info: GuestAgentInfo;
  /** The cluster's supportedGuestAgentVersions, for a launcher that lists no commands. */
  supportedVersions: readonly string[];
}

export interface SyncFailure {
  message: string;
  nowMs: number;
}

/** The domain's interfaces, by the alias the VMI gave them and their MAC (upstream ifacesStatusFromDomainInterfaces). */
function interfacesOf(domain: DomainObject): ReportedInterface[] {
  return (domain.spec.devices?.interfaces ?? []).map((iface) => {
    const mac = iface.mac?.mac;
    // The domain carries user aliases decoded (name without `ua-`, userDefined set), as upstream's JSON does.
    const userName = iface.alias?.userDefined ? iface.alias.name : undefined;
    return {
      ...(userName ? { name: userName } : {}),
      ...(mac ? { mac } : {}),
      infoSource: INFO_SOURCE_DOMAIN,
    };
  });
}

/** What the network setup cached of each pod interface, by VMI interface name (upstream's pod interface cache). */
export type PodInterfaceIPs = ReadonlyMap<string, { podIP?: string; podIPs?: string[] }>;

/**
 * Upstream's netstat: the pod network's interfaces report the pod's IPs the setup cached (the guest's own
 * with the bridge binding; with masquerade what the pod is reached at).
 */
function withPodInterfaceData(interfaces: ReportedInterface[], podIPs: PodInterfaceIPs): ReportedInterface[] {
  return interfaces.map((iface) => {
    const cached = iface.name === undefined ? undefined : podIPs.get(iface.name);
    return {
      ...iface,
      ...(cached?.podIP ? { ipAddress: cached.podIP, ipAddresses: cached.podIPs ?? [cached.podIP] } : {}),
    };
  });
}

/**
 * Upstream netstat's UpdateStatus: domain, then the pod's cached IPs, then what the guest agent adds; the
 * pod network's entry first, the multus source and the pod interface names virt-controller reported kept.
 */
function interfacesStatus(vmi: VirtualMachineInstance, domain: DomainObject, podIPs: PodInterfaceIPs) {
  const specByName = new Map((vmi.spec.domain.devices.interfaces ?? []).map((iface) => [iface.name, iface]));
  const previous = vmi.status?.interfaces ?? [];
  const fromPod = withPodInterfaceData(interfacesOf(domain), podIPs);
  let statuses = ifacesStatusFromGuestAgent(fromPod, domain.status.interfaces ?? [], specByName);
  const podNetwork = (vmi.spec.networks ?? []).find((network) => network.pod !== undefined);
  if (podNetwork) {
    statuses = restorePrimaryIfaceStatus(statuses, previous, podNetwork.name);
    statuses = movePrimaryIfaceStatusToFront(statuses, podNetwork.name);
  }
  statuses = ifacesStatusFromMultus(statuses, previous, specByName);
  return restorePodIfaceNames(statuses, previous);
}

export function computeStatus(
  vmi: VirtualMachineInstance,
  domain: DomainObject | undefined,
  launcherUnresponsive: boolean,
  failure?: SyncFailure,
  podIPs: PodInterfaceIPs = new Map(),
  nowMs = failure?.nowMs ?? 0,
  guestAgent?: GuestAgentReport,
  /** Absent: LiveMigratable and StorageLiveMigratable are left as they are. */
  migratability?: MigratabilityContext,
): ReportedStatus {
  const phase = calculatePhase({ vmi, domain, launcherUnresponsive });
  const transitions = {
    phase,
    phaseTransitionTimestamps: [...(vmi.status?.phaseTransitionTimestamps ?? [])],
  };
  // The VM controller tells a VMI that failed before it ever ran by these (start failure back-off).
  setPhaseTransitionTimestamp(vmi.status, transitions, nowMs);
  const { phaseTransitionTimestamps } = transitions;
  const synchronized = synchronizedConditions(vmi, failure);
  // Reported once the domain exists: a VMI still waiting for its launcher gets no write for it.
  const migration =
    domain && migratability
      ? withLiveMigrationConditions(synchronized, vmi, migratability)
      : { conditions: synchronized, migrationMethod: undefined };
  const { migrationMethod } = migration;
  const conditions = pausedConditions(
    guestAgentConditions(migration.conditions, vmi, domain, guestAgent, nowMs),
    domain,
    nowMs,
  );
  if (!domain) return { phase, phaseTransitionTimestamps, conditions };
  const guestOSInfo = guestOSInfoOf(vmi, domain);
  const fsFreezeStatus = fsFreezeStatusOf(domain);
  return {
    phase,
    phaseTransitionTimestamps,
    // The migration controller refuses to migrate a VMI without it (upstream updateSELinuxContext).
    selinuxContext: "none",
    interfaces: interfacesStatus(vmi, domain, podIPs),
    conditions,
    ...(migrationMethod ? { migrationMethod } : {}),
    ...(guestOSInfo ? { guestOSInfo } : {}),
    ...(fsFreezeStatus !== undefined ? { fsFreezeStatus } : {}),
  };
}

export const AGENT_CONNECTED_CONDITION = "AgentConnected";
export const AGENT_UNSUPPORTED_CONDITION = "AgentVersionNotSupported";
const GUEST_AGENT_CHANNEL = "org.qemu.guest_agent.0";

/** Whether libvirt reports the guest agent's channel open (an agent answers in the guest). */
export function agentChannelConnected(domain: DomainObject | undefined): boolean {
  return (domain?.spec.devices?.channels ?? []).some(
    (channel) => channel.target?.name === GUEST_AGENT_CHANNEL && channel.target.state === "connected",
  );
}

/**
 * Upstream's updateGuestAgentConditions: AgentConnected while the channel is connected (set once, with a
 * probe time), and AgentVersionNotSupported when the agent lacks what KubeVirt needs.
 */
function guestAgentConditions(
  conditions: VirtualMachineInstanceCondition[],
  vmi: VirtualMachineInstance,
  domain: DomainObject | undefined,
  guestAgent: GuestAgentReport | undefined,
  nowMs: number,
): VirtualMachineInstanceCondition[] {
  const status = { conditions };
  const probed = (type: string, reason?: string): VirtualMachineInstanceCondition => ({
    type,
    status: "True",
    lastProbeTime: timestamp(nowMs),
    // upstream leaves it at Go's zero time, which encodes as null
    lastTransitionTime: null,
    ...(reason ? { reason } : {}),
  });
  if (!agentChannelConnected(domain)) {
    removeCondition(status, AGENT_CONNECTED_CONDITION);
    return status.conditions;
  }
  if (!hasCondition(status, AGENT_CONNECTED_CONDITION))
    status.conditions.push(probed(AGENT_CONNECTED_CONDITION));
  if (!guestAgent) return status.conditions;
  const commands = guestAgent.info.supportedCommands ?? [];
  // A launcher of an older version may list no commands: then the agent's version decides.
  const { supported, reason } =
    commands.length > 0
      ? isGuestAgentSupported(vmi, commands)
      : isGuestAgentVersionSupported(guestAgent.info.guestAgentVersion ?? "", guestAgent.supportedVersions);
  if (supported) removeCondition(status, AGENT_UNSUPPORTED_CONDITION);
  else if (!hasCondition(status, AGENT_UNSUPPORTED_CONDITION))
    status.conditions.push(probed(AGENT_UNSUPPORTED_CONDITION, reason));
  return status.conditions;
}

/** Upstream's updateGuestInfoFromDomain: taken over once the agent names an OS other than the one shown. */
function guestOSInfoOf(
  vmi: VirtualMachineInstance,
  domain: DomainObject,
): VirtualMachineInstanceGuestOSInfo | undefined {
  const os = domain.status.osInfo;
  if (!os || os.name === "" || vmi.status?.guestOSInfo?.name === os.name) return undefined;
  const fields: VirtualMachineInstanceGuestOSInfo = {
    name: os.name,
    kernelRelease: os.kernelRelease,
    version: os.version,
    prettyName: os.prettyName,
    versionId: os.versionId,
    kernelVersion: os.kernelVersion,
    machine: os.machine,
    id: os.id,
  };
  // omitempty: Go leaves empty fields out
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ""));
}

/** Upstream's updateFSFreezeStatus: nothing reported leaves it, thawed clears it, anything else is shown. */
function fsFreezeStatusOf(domain: DomainObject): string | null | undefined {
  const reported = domain.status.fsFreezeStatus;
  if (!reported) return undefined;
  return reported === FS_THAWED ? null : reported;
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
  // Compared by value: the apiserver sends the stored keys in its own (sorted) order.
  if (vmi.status?.phase !== desired.phase) status["phase"] = desired.phase;
  const transitions = desired.phaseTransitionTimestamps ?? [];
  if (!isDeepStrictEqual(vmi.status?.phaseTransitionTimestamps ?? [], transitions)) {
    status["phaseTransitionTimestamps"] = transitions;
  }
  if (desired.interfaces && !isDeepStrictEqual(vmi.status?.interfaces ?? [], desired.interfaces)) {
    status["interfaces"] = desired.interfaces;
  }
  if (!isDeepStrictEqual(vmi.status?.conditions ?? [], desired.conditions)) {
    status["conditions"] = desired.conditions;
  }
  if (desired.volumeStatus && !isDeepStrictEqual(vmi.status?.volumeStatus ?? [], desired.volumeStatus)) {
    status["volumeStatus"] = desired.volumeStatus;
  }
  if (desired.migrationMethod && vmi.status?.migrationMethod !== desired.migrationMethod)
    status["migrationMethod"] = desired.migrationMethod;
  if (desired.guestOSInfo && !isDeepStrictEqual(vmi.status?.guestOSInfo ?? {}, desired.guestOSInfo)) {
    status["guestOSInfo"] = desired.guestOSInfo;
  }
  if (desired.selinuxContext && vmi.status?.selinuxContext !== desired.selinuxContext)
    status["selinuxContext"] = desired.selinuxContext;
  const frozen = vmi.status?.fsFreezeStatus;
  if (desired.fsFreezeStatus === null && frozen) status["fsFreezeStatus"] = null;
  if (desired.fsFreezeStatus && desired.fsFreezeStatus !== frozen)
    status["fsFreezeStatus"] = desired.fsFreezeStatus;
  if (Object.keys(status).length === 0) return undefined;
  return { metadata: { resourceVersion: vmi.metadata?.resourceVersion }, status };
}
