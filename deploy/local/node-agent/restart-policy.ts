import type { Pod } from "./k8s-types.js";

// When kubelet starts a container again after it exited: regular containers per the pod's
// restartPolicy; init containers only after a failure, and never under restartPolicy Never.

export type RestartPolicy = "Always" | "OnFailure" | "Never";

export function restartPolicyOf(pod: Pod): RestartPolicy {
  const policy = pod.spec.restartPolicy;
  return policy === "OnFailure" || policy === "Never" ? policy : "Always";
}

export function shouldRestart(policy: RestartPolicy, isInit: boolean, exitCode: number): boolean {
  if (isInit) return exitCode !== 0 && policy !== "Never";
  if (policy === "Always") return true;
  if (policy === "OnFailure") return exitCode !== 0;
  return false;
}

/** kubelet's format.Pod: name_namespace(uid), as in back-off messages. */
export function podDescription(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace ?? "default"}(${pod.metadata.uid})`;
}
