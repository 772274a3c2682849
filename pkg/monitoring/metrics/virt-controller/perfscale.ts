// How long VMIs take between phases (upstream perfscale_metrics.go), observed when the VMI informer sees a
// phase change: from the previous phase, from creation, and from deletion to a final phase.
import { Histogram, type Registry } from "prom-client";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { PHASE_TRANSITION_TIME_BUCKETS, secondsBetween } from "./transition-time.js";

type VMI = Pick<VirtualMachineInstance, "metadata" | "status">;

const FINAL_PHASES = new Set(["Succeeded", "Failed"]);

const phaseOf = (vmi: VMI): string => vmi.status?.phase ?? "";

/** When `vmi` entered `phase`, by the first matching entry of its phase transition timestamps. */
function enteredAt(vmi: VMI, phase: string): string | undefined {
  return vmi.status?.phaseTransitionTimestamps?.find((entry) => entry.phase === phase)
    ?.phaseTransitionTimestamp;
}

/** Seconds from the old phase (its creation when it had none) to the new one. */
export function transitionSeconds(oldVMI: VMI, newVMI: VMI): number | undefined {
  const from =
    phaseOf(oldVMI) === "" ? newVMI.metadata?.creationTimestamp : enteredAt(newVMI, phaseOf(oldVMI));
  return secondsBetween(from, enteredAt(newVMI, phaseOf(newVMI)));
}

export function secondsFromCreation(newVMI: VMI): number | undefined {
  return secondsBetween(newVMI.metadata?.creationTimestamp, enteredAt(newVMI, phaseOf(newVMI)));
}

/** Seconds from the deletion to the new phase; as upstream, from creation when the old VMI had no phase. */
export function secondsFromDeletion(oldVMI: VMI, newVMI: VMI): number | undefined {
  const from =
    phaseOf(oldVMI) === "" ? newVMI.metadata?.creationTimestamp : newVMI.metadata?.deletionTimestamp;
  return secondsBetween(from, enteredAt(newVMI, phaseOf(newVMI)));
}

export class PerfScaleMetrics {
  private readonly transition: Histogram<"phase" | "last_phase">;
  private readonly fromCreation: Histogram<"phase">;
  private readonly fromDeletion: Histogram<"phase">;

  constructor(registry: Registry) {
    this.transition = new Histogram({
      name: "kubevirt_vmi_phase_transition_time_seconds",
      help: "Histogram of VM phase transitions duration between different phases in seconds.",
      labelNames: ["phase", "last_phase"],
      buckets: PHASE_TRANSITION_TIME_BUCKETS,
      registers: [registry],
    });
    this.fromCreation = new Histogram({
      name: "kubevirt_vmi_phase_transition_time_from_creation_seconds",
      help: "Histogram of VM phase transitions duration from creation time in seconds.",
      labelNames: ["phase"],
      buckets: PHASE_TRANSITION_TIME_BUCKETS,
      registers: [registry],
    });
    this.fromDeletion = new Histogram({
      name: "kubevirt_vmi_phase_transition_time_from_deletion_seconds",
      help: "Histogram of VM phase transitions duration from deletion time in seconds.",
      labelNames: ["phase"],
      buckets: PHASE_TRANSITION_TIME_BUCKETS,
      registers: [registry],
    });
  }

  /** The VMI informer's update: observes only a change of phase whose timestamps are known. */
  vmiUpdated(oldVMI: VMI, newVMI: VMI): void {
    const phase = phaseOf(newVMI);
    const lastPhase = phaseOf(oldVMI);
    if (phase === lastPhase) return;
    const sinceLast = transitionSeconds(oldVMI, newVMI);
    if (sinceLast !== undefined) this.transition.observe({ phase, last_phase: lastPhase }, sinceLast);
    const sinceCreation = secondsFromCreation(newVMI);
    if (sinceCreation !== undefined) this.fromCreation.observe({ phase }, sinceCreation);
    // A user deleting the VM: the time until its VMI reached a final phase.
    if (newVMI.metadata?.deletionTimestamp && FINAL_PHASES.has(phase)) {
      const sinceDeletion = secondsFromDeletion(oldVMI, newVMI);
      if (sinceDeletion !== undefined) this.fromDeletion.observe({ phase }, sinceDeletion);
    }
  }
}
