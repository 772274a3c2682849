// What virt-handler does with one VMI on its node in one sync (upstream vm.go's execute paths, without
// migration): hand the VMI to its launcher, ask the guest to shut down, or kill the domain once the
// grace period the launcher recorded has run out. Pure, so the table of situations is tested directly.
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { isFinal, VMIPhase as Phase } from "../controller/vmi-phase.js";
import { isBeingDeleted } from "../controller/object.js";

export type SyncAction =
  /** Nothing to do for now. */
  | { kind: "none" }
  /** The VMI wants to run but its launcher's socket is not there yet. */
  | { kind: "wait-for-launcher" }
  | { kind: "sync" }
  | { kind: "shutdown" }
  | { kind: "kill" };

export interface SyncInput {
  /** The VMI from the cache; undefined once it is deleted. */
  vmi: VirtualMachineInstance | undefined;
  domain: DomainObject | undefined;
  launcherReachable: boolean;
  nowMs: number;
}

const STOPPED_DOMAIN_STATES: readonly string[] = ["Shutoff", "Crashed"];

function domainAlive(domain: DomainObject | undefined): domain is DomainObject {
  return (
    domain !== undefined &&
    !domain.objectMeta.deletionTimestamp &&
    !STOPPED_DOMAIN_STATES.includes(domain.status.status)
  );
}

/** The launcher stamps the start of a graceful shutdown into the domain's metadata. */
export function gracePeriodExpired(domain: DomainObject, nowMs: number): boolean {
  const grace = domain.spec.metadata?.kubeVirt.gracePeriod;
  if (!grace?.deletionTimestamp) return false;
  return nowMs >= Date.parse(grace.deletionTimestamp) + grace.deletionGracePeriodSeconds * 1000;
}

function shouldStop(vmi: VirtualMachineInstance | undefined): boolean {
  return vmi === undefined || isBeingDeleted(vmi) || isFinal(vmi);
}

export function decideAction({ vmi, domain, launcherReachable, nowMs }: SyncInput): SyncAction {
  if (shouldStop(vmi)) {
    if (!domainAlive(domain) || !launcherReachable) return { kind: "none" };
    return gracePeriodExpired(domain, nowMs) ? { kind: "kill" } : { kind: "shutdown" };
  }
  const phase = vmi?.status?.phase;
  if (phase !== Phase.Scheduled && phase !== Phase.Running) return { kind: "none" };
  return launcherReachable ? { kind: "sync" } : { kind: "wait-for-launcher" };
}
