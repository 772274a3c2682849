import type { VirtualMachineInstanceMigration } from "../../pkg/api/generated/v1.js";
import { MigrationPhase } from "../../pkg/virt-controller/watch/migration/vmim.js";
import { secondsBetween } from "../common/timestamps.js";

// A migration's phases and their times, from the API's timestamps.

export interface PhaseTime {
  phase: string;
  /** Since the migration object was created. */
  seconds: number;
}

/** The migration's phases in the order the controller goes through them (unknown ones last). */
const PHASE_ORDER: readonly string[] = Object.values(MigrationPhase).filter((phase) => phase !== "");

export function comparePhases(a: string, b: string): number {
  const rank = (phase: string): number => {
    const index = PHASE_ORDER.indexOf(phase);
    return index === -1 ? PHASE_ORDER.length : index;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** status.phaseTransitionTimestamps as offsets from metadata.creationTimestamp, in phase order. */
export function phaseOffsets(vmim: VirtualMachineInstanceMigration): PhaseTime[] {
  const created = vmim.metadata?.creationTimestamp;
  const times: PhaseTime[] = [];
  for (const stamp of vmim.status?.phaseTransitionTimestamps ?? []) {
    const seconds = secondsBetween(created, stamp.phaseTransitionTimestamp);
    if (stamp.phase && seconds !== undefined) times.push({ phase: stamp.phase, seconds });
  }
  return times.sort((a, b) => comparePhases(a.phase, b.phase));
}
