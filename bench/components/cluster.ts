import { BenchError } from "../common/bench-error.js";
import {
  START_CLUSTER_HINT,
  kubectlJson,
  lastLine,
  missingClusterFile,
  type KubectlOptions,
} from "../common/kubectl.js";
import { COMPONENTS, componentPods, type ComponentPod, type Lease, type Pod } from "./pods.js";

// The reads the benchmark makes through kubectl (get only): KubeVirt's pods and leader leases.

const NAMESPACE = "kubevirt";

export async function findComponentPods(k: KubectlOptions): Promise<ComponentPod[]> {
  const missing = await missingClusterFile(k);
  if (missing) throw new BenchError(`the cluster is not up: ${missing}; ${START_CLUSTER_HINT}`);
  let pods: { items?: Pod[] };
  let leases: { items?: Lease[] };
  try {
    const selector = `kubevirt.io in (${COMPONENTS.join(",")})`;
    pods = (await kubectlJson(k, ["-n", NAMESPACE, "get", "pods", "-l", selector])) as { items?: Pod[] };
    leases = (await kubectlJson(k, ["-n", NAMESPACE, "get", "leases.coordination.k8s.io"])) as {
      items?: Lease[];
    };
  } catch (error) {
    throw new BenchError(`reading KubeVirt's pods: ${lastLine(error)}; ${START_CLUSTER_HINT}`);
  }
  return componentPods(pods.items ?? [], leases.items ?? []);
}
