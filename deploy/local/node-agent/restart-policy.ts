import type { Container, Pod } from "./k8s-types.js";

// When kubelet starts a container again after it exited: regular containers per the pod's
// restartPolicy; init containers only after a failure, and never under restartPolicy Never; sidecars
// (init containers with their own restartPolicy Always) whatever the pod's policy and exit code.

export type RestartPolicy = "Always" | "OnFailure" | "Never";

/** regular: spec.containers; init: run to completion in order; sidecar: a restartable init container. */
export type ContainerKind = "regular" | "init" | "sidecar";

export function restartPolicyOf(pod: Pod): RestartPolicy {
  const policy = pod.spec.restartPolicy;
  return policy === "OnFailure" || policy === "Never" ? policy : "Always";
}

/** Kubernetes' sidecar containers: an init container whose own restartPolicy is Always. */
export function isRestartableInit(container: Pick<Container, "restartPolicy">): boolean {
  return container.restartPolicy === "Always";
}

export function containerKind(pod: Pod, name: string): ContainerKind {
  const init = (pod.spec.initContainers ?? []).find((c) => c.name === name);
  if (!init) return "regular";
  return isRestartableInit(init) ? "sidecar" : "init";
}

export function shouldRestart(policy: RestartPolicy, kind: ContainerKind, exitCode: number): boolean {
  if (kind === "sidecar") return true;
  if (kind === "init") return exitCode !== 0 && policy !== "Never";
  if (policy === "Always") return true;
  if (policy === "OnFailure") return exitCode !== 0;
  return false;
}

/** kubelet's format.Pod: name_namespace(uid), as in back-off messages. */
export function podDescription(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace ?? "default"}(${pod.metadata.uid})`;
}
