// When an installed workload counts as ready (upstream's util/readycheck.go): its controller reports ready
// replicas, and running, ready pods of it carry this install's version annotations, so a rollout of a new
// version is only ready once the new pods are.
import type { KubeVirtCR as KubeVirt } from "../cluster.js";
import type { ObjectStore } from "../cluster.js";
import type { DaemonSet, Deployment, Pod } from "../resource/generate/components/k8s-types.js";
import { keyOf } from "../../controller/object.js";
import {
  INSTALL_STRATEGY_IDENTIFIER_ANNOTATION,
  INSTALL_STRATEGY_REGISTRY_ANNOTATION,
  INSTALL_STRATEGY_VERSION_ANNOTATION,
} from "./labels.js";

export function podIsUpToDate(pod: Pod, kv: KubeVirt): boolean {
  const annotations = pod.metadata?.annotations;
  if (!annotations) return false;
  return (
    annotations[INSTALL_STRATEGY_VERSION_ANNOTATION] === kv.status?.targetKubeVirtVersion &&
    annotations[INSTALL_STRATEGY_REGISTRY_ANNOTATION] === kv.status?.targetKubeVirtRegistry &&
    annotations[INSTALL_STRATEGY_IDENTIFIER_ANNOTATION] === kv.status?.targetDeploymentID
  );
}

export function podIsReady(pod: Pod): boolean {
  if (pod.status?.phase !== "Running") return false;
  return (pod.status.containerStatuses ?? []).every((status) => status.ready);
}

/** Ready pods of the workload (by name prefix); undefined when one of them runs an outdated install. */
function readyUpToDatePods(kv: KubeVirt, workloadName: string, pods: ObjectStore<Pod>): number | undefined {
  let ready = 0;
  for (const pod of pods.list()) {
    if (pod.status?.phase !== "Running" || !(pod.metadata?.name ?? "").includes(workloadName)) continue;
    if (!podIsUpToDate(pod, kv)) return undefined;
    if (podIsReady(pod)) ready++;
  }
  return ready;
}

export function deploymentIsReady(
  kv: KubeVirt,
  deployment: Deployment,
  deployments: ObjectStore<Deployment>,
  pods: ObjectStore<Pod>,
): boolean {
  const cached = deployments.get(keyOf(deployment));
  if (!cached) return false;
  if (!cached.status?.replicas || !cached.status.readyReplicas) return false;
  return (readyUpToDatePods(kv, cached.metadata?.name ?? "", pods) ?? 0) > 0;
}

export function daemonSetIsReady(
  kv: KubeVirt,
  daemonSet: DaemonSet,
  daemonSets: ObjectStore<DaemonSet>,
  pods: ObjectStore<Pod>,
): boolean {
  const cached = daemonSets.get(keyOf(daemonSet));
  if (!cached) return false;
  const desired = cached.status?.desiredNumberScheduled ?? 0;
  if (desired === 0 || desired !== cached.status?.numberReady) return false;
  const ready = readyUpToDatePods(kv, cached.metadata?.name ?? "", pods) ?? 0;
  // Misscheduled but up-to-date pods are not evicted; they do not make the install less available.
  return ready > 0 && ready >= desired;
}
