import type { Container, ContainerStatus, Pod, PodCondition } from "./k8s-types.js";
import { isRestartableInit } from "./restart-policy.js";

// Pod phase and the kubelet-owned pod conditions, computed from container statuses by kubelet's rules
// (getPhase and the status generators): pure functions, table-tested.

type Phase = "Pending" | "Running" | "Succeeded" | "Failed";

const byName = (statuses: readonly ContainerStatus[], name: string) => statuses.find((s) => s.name === name);

/** A sidecar counts as initialized once it runs and its startup probe (if any) passed. */
const sidecarStarted = (status: ContainerStatus | undefined): boolean =>
  Boolean(status?.state?.running && status.started);

/**
 * kubelet's getPhase. Sidecars (restartable init containers) hold the pod Pending until they have
 * started, as long as no main container has; after that only the main containers decide the phase, so
 * a pod whose main containers completed ends even while its sidecars still run (they are stopped then).
 */
export function podPhase(pod: Pod, statuses: readonly ContainerStatus[], podIsTerminal: boolean): Phase {
  const restartPolicy = pod.spec.restartPolicy ?? "Always";
  let pendingInitialization = 0;
  let failedInitialization = 0;
  for (const container of pod.spec.initContainers ?? []) {
    const status = byName(statuses, container.name);
    if (isRestartableInit(container)) {
      if (!sidecarStarted(status)) pendingInitialization++;
      continue;
    }
    const state = status?.state;
    if (state?.terminated) {
      if (state.terminated.exitCode !== 0) failedInitialization++;
    } else if (state?.waiting && status?.lastState?.terminated) {
      if (status.lastState.terminated.exitCode !== 0) failedInitialization++;
    } else {
      pendingInitialization++;
    }
  }

  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const container of pod.spec.containers) {
    const status = byName(statuses, container.name);
    const state = status?.state;
    if (state?.running) running++;
    else if (state?.terminated) {
      stopped++;
      if (state.terminated.exitCode === 0) succeeded++;
    } else if (state?.waiting) {
      if (status?.lastState?.terminated) stopped++;
      else waiting++;
    } else unknown++;
  }

  if (failedInitialization > 0 && restartPolicy === "Never") return "Failed";
  if ((pendingInitialization > 0 && !anyRegularContainerStarted(pod, statuses)) || waiting > 0)
    return "Pending";
  if (running > 0 && unknown === 0) return "Running";
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (podIsTerminal) return stopped === succeeded ? "Succeeded" : "Failed";
    if (restartPolicy === "Always") return "Running";
    if (stopped === succeeded) return "Succeeded";
    if (restartPolicy === "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}

function anyRegularContainerStarted(pod: Pod, statuses: readonly ContainerStatus[]): boolean {
  return pod.spec.containers.some((c) => {
    const state = byName(statuses, c.name)?.state;
    return Boolean(state?.running || state?.terminated);
  });
}

type ConditionCore = { type: string; status: "True" | "False"; reason?: string; message?: string };

const goList = (names: string[]): string => `[${names.join(" ")}]`;

function containersReady(pod: Pod, statuses: readonly ContainerStatus[], phase: Phase): ConditionCore {
  const unknown: string[] = [];
  const unready: string[] = [];
  // Sidecars must be ready too, and kubelet lists them first.
  const sidecars: Container[] = (pod.spec.initContainers ?? []).filter(isRestartableInit);
  for (const c of [...sidecars, ...pod.spec.containers]) {
    const status = byName(statuses, c.name);
    if (!status) unknown.push(c.name);
    else if (!status.ready) unready.push(c.name);
  }
  if (phase === "Succeeded" && unknown.length === 0) {
    return { type: "ContainersReady", status: "False", reason: "PodCompleted" };
  }
  if (phase === "Failed") return { type: "ContainersReady", status: "False", reason: "PodFailed" };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length > 0) {
    return {
      type: "ContainersReady",
      status: "False",
      reason: "ContainersNotReady",
      message: messages.join(", "),
    };
  }
  return { type: "ContainersReady", status: "True" };
}

function podReady(pod: Pod, ready: ConditionCore, existing: readonly PodCondition[]): ConditionCore {
  if (ready.status !== "True") return { ...ready, type: "Ready" };
  const messages: string[] = [];
  for (const gate of pod.spec.readinessGates ?? []) {
    const condition = existing.find((c) => c.type === gate.conditionType);
    if (!condition) {
      messages.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    } else if (condition.status !== "True") {
      messages.push(
        `the status of pod readiness gate "${gate.conditionType}" is not "True", but ${condition.status}`,
      );
    }
  }
  if (messages.length > 0) {
    return { type: "Ready", status: "False", reason: "ReadinessGatesNotReady", message: messages.join(", ") };
  }
  return { type: "Ready", status: "True" };
}

function initialized(pod: Pod, statuses: readonly ContainerStatus[], phase: Phase): ConditionCore {
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of pod.spec.initContainers ?? []) {
    const status = byName(statuses, c.name);
    const complete = isRestartableInit(c) ? sidecarStarted(status) : status?.ready;
    if (!status) unknown.push(c.name);
    else if (!complete) incomplete.push(c.name);
  }
  if (phase === "Succeeded" && unknown.length === 0) {
    return { type: "Initialized", status: "True", reason: "PodCompleted" };
  }
  if (anyRegularContainerStarted(pod, statuses)) return { type: "Initialized", status: "True" };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length > 0) messages.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (messages.length > 0) {
    return {
      type: "Initialized",
      status: "False",
      reason: "ContainersNotInitialized",
      message: messages.join(", "),
    };
  }
  return { type: "Initialized", status: "True" };
}

/** The condition types kubelet owns; others (PodScheduled, readiness gates, DisruptionTarget) are kept. */
export const KUBELET_CONDITIONS = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"];

/**
 * kubelet's pod conditions, in its order, followed by the conditions others own. A condition keeps its
 * lastTransitionTime while its status is unchanged.
 */
export function podConditions(
  pod: Pod,
  statuses: readonly ContainerStatus[],
  phase: Phase,
  sandboxReady: boolean,
  now: string,
): PodCondition[] {
  const existing = pod.status?.conditions ?? [];
  const ready = containersReady(pod, statuses, phase);
  const computed: ConditionCore[] = [
    { type: "PodReadyToStartContainers", status: sandboxReady ? "True" : "False" },
    initialized(pod, statuses, phase),
    podReady(pod, ready, existing),
    ready,
  ];
  const stamped = computed.map((c): PodCondition => {
    const before = existing.find((e) => e.type === c.type);
    const since = before?.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : now;
    return { ...c, lastProbeTime: null, lastTransitionTime: since };
  });
  return [...stamped, ...existing.filter((c) => !KUBELET_CONDITIONS.includes(c.type))];
}
