import type { ContainerStatus } from "./k8s-types.js";

// What the agent remembers about one container of a pod across its instances, and how that memory is
// shown as a core/v1 ContainerStatus: state is the current instance (running, waiting to (re)start, or
// terminated for good) and lastState the instance before it, as kubelet reports them.

export const CONTAINER_ID_SCHEME = "kvts://";
/** The start time runtimes report for an instance that never started. */
export const NEVER_STARTED = "1970-01-01T00:00:00Z";

/** Times as the API writes them: RFC 3339, whole seconds. */
export function apiTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, "Z");
}

export interface Termination {
  /** Which instance exited (its log file is `<attempt>.log`). */
  attempt: number;
  exitCode: number;
  signal?: string;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

export interface Waiting {
  reason: string;
  message?: string;
}

export interface ContainerRecord {
  name: string;
  image: string;
  imageID?: string;
  /** The attempt number of the latest instance started (0 for the first), as kubelet counts restarts. */
  restartCount: number;
  /** Whether any instance has been started (the next start is then a restart). */
  everStarted: boolean;
  running?: { containerID: string; startedAt: string; attempt: number };
  /** The most recent instance that exited. */
  lastExit?: Termination;
  /** The exit before lastExit. */
  previousExit?: Termination;
  /** Why the container is not running now; unset for a container that finished for good. */
  waiting?: Waiting;
}

export interface ProbeState {
  ready: boolean;
  started: boolean;
}

export function newRecord(name: string, image: string): ContainerRecord {
  return { name, image, restartCount: 0, everStarted: false, waiting: { reason: "ContainerCreating" } };
}

/** kubelet's (and the runtimes') reason for an exit: Completed for 0, Error otherwise. */
export function exitReason(exitCode: number): string {
  return exitCode === 0 ? "Completed" : "Error";
}

type ContainerState = NonNullable<ContainerStatus["state"]>;

function terminatedState(t: Termination): ContainerState {
  return {
    terminated: {
      exitCode: t.exitCode,
      reason: t.reason,
      ...(t.message ? { message: t.message } : {}),
      startedAt: t.startedAt,
      finishedAt: t.finishedAt,
      containerID: t.containerID,
    },
  };
}

export type ContainerPhase = "running" | "waiting" | "terminated";

export function phaseOf(record: ContainerRecord): ContainerPhase {
  if (record.running) return "running";
  if (!record.waiting && record.lastExit) return "terminated";
  return "waiting";
}

export function toContainerStatus(record: ContainerRecord, probe: ProbeState): ContainerStatus {
  const phase = phaseOf(record);
  let state: ContainerState;
  let lastState: ContainerState = {};
  if (phase === "running" && record.running) {
    state = { running: { startedAt: record.running.startedAt } };
    if (record.lastExit) lastState = terminatedState(record.lastExit);
  } else if (phase === "terminated" && record.lastExit) {
    state = terminatedState(record.lastExit);
    if (record.previousExit) lastState = terminatedState(record.previousExit);
  } else {
    const waiting = record.waiting ?? { reason: "ContainerCreating" };
    state = { waiting: { reason: waiting.reason, ...(waiting.message ? { message: waiting.message } : {}) } };
    if (record.lastExit) lastState = terminatedState(record.lastExit);
  }
  const containerID = record.running?.containerID ?? record.lastExit?.containerID;
  return {
    name: record.name,
    state,
    lastState,
    ready: probe.ready,
    restartCount: record.restartCount,
    image: record.image,
    imageID: record.imageID ?? "",
    ...(containerID ? { containerID } : {}),
    started: probe.started,
  };
}

/** Records an exit: it becomes lastExit, and the exit before it previousExit. */
export function pushExit(record: ContainerRecord, termination: Termination): void {
  if (record.lastExit) record.previousExit = record.lastExit;
  record.lastExit = termination;
}
