import type { VirtualMachineInstanceMigration } from "../../pkg/api/generated/v1.js";
import { MigrationPhase } from "../../pkg/virt-controller/watch/migration/vmim.js";

// The API's timestamps (metav1.Time: RFC 3339, whole seconds) as the benchmark reads them.

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch; undefined when absent or not RFC 3339 (Date.parse alone takes far more). */
export function parseTimestamp(value: string | null | undefined): number | undefined {
  if (!value || !RFC3339.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function secondsBetween(
  start: string | null | undefined,
  end: string | null | undefined,
): number | undefined {
  const from = parseTimestamp(start);
  const to = parseTimestamp(end);
  return from === undefined || to === undefined ? undefined : (to - from) / 1000;
}

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
