import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { parseTimestamp } from "../common/timestamps.js";
import { vmiPhaseTimes } from "../common/vmi-phases.js";

// What the benchmark knows of each VMI of the burst: when its creation was sent and answered, the latest
// object the watch showed, and when the watch first showed it Scheduled and Running. The figures it
// reports come first from the VMI's own timestamps (status.phaseTransitionTimestamps against
// metadata.creationTimestamp, as upstream's sig-performance job reads them: whole seconds, server-side),
// then from the watch (this process's clock, to the millisecond).

/** The phases whose times the benchmark reports, in the order a VMI goes through them. */
export const TIMED_PHASES = ["Scheduled", "Running"] as const;
export type TimedPhase = (typeof TIMED_PHASES)[number];
const PHASE_ORDER = ["Pending", "Scheduling", "Scheduled", "Running"];
const FINAL_PHASES = new Set(["Failed", "Succeeded"]);

/** Seconds from the VMI's creationTimestamp to its first transition to each timed phase, where it has one. */
export function serverTimes(vmi: VirtualMachineInstance): Partial<Record<TimedPhase, number>> {
  const created = parseTimestamp(vmi.metadata?.creationTimestamp);
  if (created === undefined) return {};
  const times: Partial<Record<TimedPhase, number>> = {};
  for (const { phase, seconds } of vmiPhaseTimes(vmi, created)) {
    if ((TIMED_PHASES as readonly string[]).includes(phase)) times[phase as TimedPhase] = seconds;
  }
  return times;
}

/** The VMI carries a Paused condition (startStrategy Paused: libvirt started the domain paused). */
export const isPaused = (vmi: VirtualMachineInstance | undefined): boolean =>
  (vmi?.status?.conditions ?? []).some((c) => c.type === "Paused" && c.status === "True");

const MAX_WHY = 200;

/** Why a VMI is not Running, as its conditions say (the False ones but LiveMigratable), or undefined. */
export function notRunningWhy(vmi: VirtualMachineInstance | undefined): string | undefined {
  const conditions = (vmi?.status?.conditions ?? []).filter(
    (c) => c.status === "False" && c.type !== "LiveMigratable",
  );
  // Ready=False only repeats the others when there are any.
  const telling = conditions.length > 1 ? conditions.filter((c) => c.type !== "Ready") : conditions;
  const text = telling
    .map((c) => {
      const why = [c.reason, c.message].filter(Boolean).join(": ");
      return `${c.type}=False${why ? ` (${why})` : ""}`;
    })
    .join("; ");
  if (!text) return undefined;
  return text.length > MAX_WHY ? `${text.slice(0, MAX_WHY)}...` : text;
}

interface VmiRecord {
  name: string;
  /** performance.now() when the creation was sent, and when the apiserver answered it. */
  sentMs?: number;
  createdMs?: number;
  createError?: string;
  /** The latest object: the create's answer, then each watch event. */
  last?: VirtualMachineInstance;
  /** When the watch first showed the VMI in each timed phase (or past it). */
  seenMs: Partial<Record<TimedPhase, number>>;
  deleted: boolean;
}

export interface VmiResult {
  name: string;
  /** Why its creation failed; nothing else is known of it then. */
  createError?: string;
  /** The last phase the watch (or the create's answer) showed. */
  phase?: string;
  /** From the VMI's timestamps: seconds from creationTimestamp (whole seconds on both ends). */
  server: Partial<Record<TimedPhase, number>>;
  /** From this process's clock: seconds from sending the creation to the watch showing the phase. */
  watch: Partial<Record<TimedPhase, number>>;
  /** From sending the creation to the apiserver's answer (admission webhooks included). */
  createS?: number;
  reachedRunning: boolean;
  paused: boolean;
  /** For one not Running at the end: what its conditions say, or that the watch saw it deleted. */
  why?: string;
}

export interface Progress {
  sent: number;
  created: number;
  failed: number;
  scheduled: number;
  running: number;
}

export class BurstState {
  private readonly records = new Map<string, VmiRecord>();

  constructor(names: readonly string[]) {
    for (const name of names) this.records.set(name, { name, seenMs: {}, deleted: false });
  }

  get count(): number {
    return this.records.size;
  }

  sent(name: string, atMs: number): void {
    const record = this.records.get(name);
    if (record) record.sentMs = atMs;
  }

  created(name: string, atMs: number, vmi: VirtualMachineInstance): void {
    const record = this.records.get(name);
    if (!record) return;
    record.createdMs = atMs;
    // A watch event may have come before the answer: it is the newer object.
    record.last ??= vmi;
  }

  failed(name: string, error: string): void {
    const record = this.records.get(name);
    if (record) record.createError = error;
  }

  /** A watch event's object (ADDED, MODIFIED); answers whether it is one of the burst's. */
  observe(vmi: VirtualMachineInstance, atMs: number): boolean {
    const record = this.records.get(vmi.metadata?.name ?? "");
    if (!record) return false;
    record.last = vmi;
    const rank = PHASE_ORDER.indexOf(vmi.status?.phase ?? "");
    for (const phase of TIMED_PHASES) {
      if (rank >= PHASE_ORDER.indexOf(phase)) record.seenMs[phase] ??= atMs;
    }
    return true;
  }

  deleted(vmi: VirtualMachineInstance): void {
    const record = this.records.get(vmi.metadata?.name ?? "");
    if (!record) return;
    record.last = vmi;
    record.deleted = true;
  }

  private reachedRunning(record: VmiRecord): boolean {
    return (
      record.seenMs.Running !== undefined ||
      (record.last ? serverTimes(record.last).Running : undefined) !== undefined
    );
  }

  /** Every creation was answered, and every VMI created has reached Running or will not any more. */
  get done(): boolean {
    return [...this.records.values()].every(
      (record) =>
        record.createError !== undefined ||
        (record.createdMs !== undefined &&
          (this.reachedRunning(record) ||
            record.deleted ||
            FINAL_PHASES.has(record.last?.status?.phase ?? ""))),
    );
  }

  progress(): Progress {
    const records = [...this.records.values()];
    const count = (test: (record: VmiRecord) => boolean): number => records.filter(test).length;
    return {
      sent: count((r) => r.sentMs !== undefined),
      created: count((r) => r.createdMs !== undefined),
      failed: count((r) => r.createError !== undefined),
      scheduled: count((r) => r.seenMs.Scheduled !== undefined),
      running: count((r) => this.reachedRunning(r)),
    };
  }

  results(): VmiResult[] {
    return [...this.records.values()].map((record) => {
      const since = (atMs: number | undefined): number | undefined =>
        atMs === undefined || record.sentMs === undefined ? undefined : (atMs - record.sentMs) / 1000;
      const reachedRunning = this.reachedRunning(record);
      const why = reachedRunning
        ? undefined
        : record.deleted
          ? "deleted while the benchmark waited"
          : notRunningWhy(record.last);
      return {
        name: record.name,
        ...(record.createError === undefined ? {} : { createError: record.createError }),
        ...(record.last?.status?.phase ? { phase: record.last.status.phase } : {}),
        server: record.last ? serverTimes(record.last) : {},
        watch: Object.fromEntries(
          TIMED_PHASES.flatMap((p) => {
            const s = since(record.seenMs[p]);
            return s === undefined ? [] : [[p, s]];
          }),
        ),
        ...(since(record.createdMs) === undefined ? {} : { createS: since(record.createdMs)! }),
        reachedRunning,
        paused: isPaused(record.last),
        ...(why === undefined ? {} : { why }),
      };
    });
  }
}
