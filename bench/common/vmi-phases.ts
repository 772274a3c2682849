import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { parseTimestamp } from "./timestamps.js";

// Where a VMI's time went, as its own timestamps tell it: its creation and each phase it went through, in
// seconds since a start the benchmark gives (vm-boot: when `kubectl apply` started; vmi-burst: the VMI's
// creation). The API keeps whole seconds, so each is up to a second early.

/** The phases a VMI goes through on its way to Running, in order. */
export const VMI_PHASES = ["Pending", "Scheduling", "Scheduled", "Running"] as const;
export const CREATED = "created";

export interface PhaseTime {
  phase: string;
  seconds: number;
}

/** The VMI's creation and phase transitions, each once (the first), in seconds since `startWallMs`. */
export function vmiPhaseTimes(vmi: VirtualMachineInstance, startWallMs: number): PhaseTime[] {
  const times: PhaseTime[] = [];
  const created = parseTimestamp(vmi.metadata?.creationTimestamp);
  if (created !== undefined) times.push({ phase: CREATED, seconds: (created - startWallMs) / 1000 });
  for (const stamp of vmi.status?.phaseTransitionTimestamps ?? []) {
    const at = parseTimestamp(stamp.phaseTransitionTimestamp);
    if (!stamp.phase || at === undefined || times.some((t) => t.phase === stamp.phase)) continue;
    times.push({ phase: stamp.phase, seconds: (at - startWallMs) / 1000 });
  }
  const rank = (phase: string): number => {
    const index = [CREATED, ...VMI_PHASES].indexOf(phase);
    return index === -1 ? VMI_PHASES.length + 1 : index;
  };
  return times.sort((a, b) => rank(a.phase) - rank(b.phase) || a.phase.localeCompare(b.phase));
}
