import { phaseOf, type ContainerRecord, type Termination } from "./container-record.js";

// Which instance's log `kubectl logs` reads, by kubelet's rules (validateContainerLogStatus): the running
// instance, else the last one that exited; with `previous`, the instance shown as lastState. A container
// that never ran answers with kubelet's "is waiting to start" messages.

export class LogUnavailableError extends Error {}

function lastState(record: ContainerRecord): Termination | undefined {
  return phaseOf(record) === "terminated" ? record.previousExit : record.lastExit;
}

/** The attempt number whose `<attempt>.log` holds the requested logs. */
export function logAttempt(record: ContainerRecord, previous: boolean, podName: string): number {
  const who = `container "${record.name}" in pod "${podName}"`;
  if (previous) {
    const last = lastState(record);
    if (!last) throw new LogUnavailableError(`previous terminated ${who} not found`);
    return last.attempt;
  }
  if (record.running) return record.running.attempt;
  if (record.lastExit) return record.lastExit.attempt;
  const reason = record.waiting?.reason;
  switch (reason) {
    case "ErrImagePull":
      throw new LogUnavailableError(`${who} is waiting to start: image can't be pulled`);
    case "ImagePullBackOff":
      throw new LogUnavailableError(`${who} is waiting to start: trying and failing to pull image`);
    case undefined:
      throw new LogUnavailableError(`${who} is waiting to start - no logs yet`);
    default:
      throw new LogUnavailableError(`${who} is waiting to start: ${reason}`);
  }
}
