// The VMI phase virt-handler reports from what the launcher says about the domain (upstream vm.go's
// calculateVmPhaseForStatusReason), without migrations: those come with the migration issue.
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
          return isACPIEnabled(vmi, domain) ? Phase.Failed : Phase.Succeeded;
        case "Shutdown":
        case "Saved":
        case "FromSnapshot":
          return Phase.Succeeded;
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
