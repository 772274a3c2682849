// The launcher's view of its domain (upstream api.Domain): which VMI it belongs to, the libvirt
// definition, and the observed state. This is what GetDomain answers and what domain events carry.
import type { DomainSpec, KubeVirtMetadata } from "./schema.js";
import type { LifeCycle, StateChangeReason } from "./domain-status.js";

/** Upstream api.GracePeriodMetadata, kept by the launcher and reported with the domain. */
export interface GracePeriodMetadata {
  deletionGracePeriodSeconds: number;
  /** RFC 3339; set when a graceful shutdown was signalled. */
  deletionTimestamp?: string;
  markedForGracefulShutdown?: boolean;
}

/** Upstream v1.MigrationAbortStatus. */
export const MigrationAbortStatus = {
  Succeeded: "Succeeded",
  Failed: "Failed",
  InProgress: "Aborting",
} as const;

/** Upstream v1.MigrationMode. */
export const MigrationMode = {
  PreCopy: "PreCopy",
  PostCopy: "PostCopy",
  Paused: "Paused",
} as const;

/**
 * Upstream api.MigrationMetadata: one migration attempt as this launcher saw it, reported with the
 * domain so that virt-handler can follow it (started, ended, failed and why, aborted or not).
 * A migration without a failure whose end timestamp is set has completed.
 */
export interface MigrationMetadata {
  uid?: string;
  /** RFC 3339. */
  startTimestamp?: string;
  /** RFC 3339; set once the outcome is known. */
  endTimestamp?: string;
  failed?: boolean;
  failureReason?: string;
  /** "", or a MigrationAbortStatus. */
  abortStatus?: string;
  /** A MigrationMode. */
  mode?: string;
}

export interface LauncherKubeVirtMetadata extends KubeVirtMetadata {
  gracePeriod?: GracePeriodMetadata;
  migration?: MigrationMetadata;
}

export interface InterfaceStatus {
  mac: string;
  ip: string;
  ips?: string[];
  interfaceName: string;
}

/** Upstream api.GuestOSInfo: what the guest agent says about the guest's operating system. */
export interface GuestOSInfo {
  name: string;
  kernelRelease: string;
  version: string;
  prettyName: string;
  versionId: string;
  kernelVersion: string;
  machine: string;
  id: string;
}

/** Upstream api.FSThawed / api.FSFrozen, the guest agent's guest-fsfreeze-status answers. */
export const FS_THAWED = "thawed";
export const FS_FROZEN = "frozen";

export interface DomainStatus {
  status: LifeCycle | "";
  reason: StateChangeReason | "";
  /** The guest's interfaces as the guest agent reports them. */
  interfaces?: InterfaceStatus[];
  osInfo?: GuestOSInfo;
  /** Upstream api.FSFreeze's Status: "", "thawed" or "frozen". */
  fsFreezeStatus?: string;
}

export interface DomainObjectMeta {
  name: string;
  namespace: string;
  uid?: string;
  /** RFC 3339; set once the domain is gone from libvirt (the final event). */
  deletionTimestamp?: string;
}

export interface DomainObject {
  objectMeta: DomainObjectMeta;
  spec: Omit<DomainSpec, "metadata"> & { metadata?: { kubeVirt: LauncherKubeVirtMetadata } };
  status: DomainStatus;
}

/** Upstream SplitVMINamespaceKey: "<namespace>_<name>", "default" when there is no "_". */
export function splitVMINamespaceKey(domainName: string): { namespace: string; name: string } {
  const separator = domainName.indexOf("_");
  if (separator < 0) return { namespace: "default", name: domainName };
  return { namespace: domainName.slice(0, separator), name: domainName.slice(separator + 1) };
}
