import type { ContainerStatus, Pod, PodCondition } from "./k8s-types.js";
import { podConditions, podPhase } from "./pod-status.js";

// The status object the agent patches onto a pod: phase and conditions from the container statuses,
// addresses, start time, and the reason and message of an admission failure.

export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed";

export interface StatusInput {
  pod: Pod;
  initContainerStatuses: ContainerStatus[];
  containerStatuses: ContainerStatus[];
  /** The pod is being deleted and its containers were stopped: no more restarts. */
  podIsTerminal: boolean;
  rejected?: { reason: string; message: string };
  sandboxReady: boolean;
  nodeIP: string;
  podIPs: string[];
  startTime?: string;
  now: string;
}

export const isTerminalPhase = (phase: string | undefined): phase is "Succeeded" | "Failed" =>
  phase === "Succeeded" || phase === "Failed";

/**
 * The status goes out as a strategic merge patch, which merges each condition into the stored one of its
 * type: a reason or message the condition no longer has must be sent as null to go (kubelet's two-way
 * patch does the same), or a Ready=True would keep the ContainersNotReady it had before.
 */
function clearingAbsentMembers(condition: PodCondition): Record<string, unknown> {
  return { ...condition, reason: condition.reason ?? null, message: condition.message ?? null };
}

export function buildPodStatus(input: StatusInput): { phase: PodPhase; status: Record<string, unknown> } {
  const { pod, initContainerStatuses, containerStatuses } = input;
  const all = [...initContainerStatuses, ...containerStatuses];
  let phase: PodPhase = podPhase(pod, all, input.podIsTerminal);
  // Pods never leave a terminal phase.
  const apiPhase = pod.status?.phase;
  if (isTerminalPhase(apiPhase)) phase = apiPhase;
  if (input.rejected) phase = "Failed";
  const status: Record<string, unknown> = {
    phase,
    conditions: podConditions(pod, all, phase, input.sandboxReady, input.now).map(clearingAbsentMembers),
    hostIP: input.nodeIP,
    hostIPs: [{ ip: input.nodeIP }],
    ...(input.podIPs[0] ? { podIP: input.podIPs[0], podIPs: input.podIPs.map((ip) => ({ ip })) } : {}),
    ...(input.startTime ? { startTime: input.startTime } : {}),
    ...(initContainerStatuses.length > 0 ? { initContainerStatuses } : {}),
    containerStatuses,
    ...(input.rejected ? { reason: input.rejected.reason, message: input.rejected.message } : {}),
  };
  return { phase, status };
}
