// The VMI phase virt-handler reports from what the launcher says about the domain (upstream vm.go's
// calculateVmPhaseForStatusReason).
import { CreateMigrationTargetAnnotation } from "../util/constants.js";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import { isFinal, VMIPhase as Phase } from "../controller/vmi-phase.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";

/** Unset termination grace period means the default one, which is not zero. */
function vmiHasTerminationGracePeriod(vmi: VirtualMachineInstance): boolean {
  const seconds = vmi.spec.terminationGracePeriodSeconds;
  return seconds === undefined || seconds !== 0;
}

function domainHasGracePeriod(domain: DomainObject): boolean {
  return (domain.spec.metadata?.kubeVirt.gracePeriod?.deletionGracePeriodSeconds ?? 0) !== 0;
}

/** With ACPI and a grace period the guest was asked to shut down first, so being destroyed is a failure. */
function isACPIEnabled(vmi: VirtualMachineInstance, domain: DomainObject): boolean {
  const gracePeriod =
    vmiHasTerminationGracePeriod(vmi) ||
    (vmi.spec.terminationGracePeriodSeconds === undefined && domainHasGracePeriod(domain));
  return gracePeriod && domain.spec.features?.acpi !== undefined;
}

function failedPostCopy(vmi: VirtualMachineInstance): boolean {
  const state = vmi.status?.migrationState;
  return !!state?.failed && state.mode === "PostCopy";
}

/** Upstream vmi.IsMigrationTarget: the VMI is the receiving half of a decentralized migration. */
function isMigrationTargetNode(vmi: VirtualMachineInstance): boolean {
  return vmi.metadata?.annotations?.[CreateMigrationTargetAnnotation] === "true";
}

export interface PhaseInput {
  vmi: VirtualMachineInstance;
  /** Undefined when the launcher has no domain (yet, or any more). */
  domain: DomainObject | undefined;
  /** The launcher stopped answering (its socket is gone or marked unresponsive). */
  launcherUnresponsive: boolean;
}

export function calculatePhase({ vmi, domain, launcherUnresponsive }: PhaseInput): string {
  const current = vmi.status?.phase ?? "";
  if (!domain) {
    // A failed migration's target has no domain; the phase is the source's to report.
    if (vmi.status?.migrationState?.failed && isMigrationTargetNode(vmi)) return current;
    if (current === Phase.Scheduled || current === Phase.Running) {
      return launcherUnresponsive ? Phase.Failed : current;
    }
    return isFinal(vmi) ? current : Phase.Scheduled;
  }
  const { status, reason } = domain.status;
  switch (status) {
    case "Shutoff":
    case "Crashed":
      switch (reason) {
        case "Crashed":
        case "Panicked":
          return Phase.Failed;
        case "Destroyed":
          if (isACPIEnabled(vmi, domain)) return Phase.Failed;
          // A guest that failed a post-copy migration is lost, never succeeded.
          return failedPostCopy(vmi) ? Phase.Failed : Phase.Succeeded;
        case "Shutdown":
        case "Saved":
        case "FromSnapshot":
          return Phase.Succeeded;
        // The guest lives on elsewhere: this node no longer knows its phase.
        case "Migrated":
          return current;
        default:
          return current;
      }
    case "Paused":
      return reason === "PostcopyFailed" ? Phase.Failed : Phase.Running;
    case "Running":
    case "Blocked":
    case "PMSuspended":
      return Phase.Running;
    default:
      return current;
  }
}
