// The local cluster's control-plane node, marked the way kubeadm's mark-control-plane phase (and kind)
// marks it: the role label with an empty value and, unlike kubeadm, no taint, so workloads that prefer or
// require control-plane nodes (KubeVirt's virt-operator, virt-api, virt-controller) schedule there while
// everything else may too. The admin identity sets it: NodeRestriction forbids a node to give itself a
// node-role label.
import type { AdminClient } from "./apiserver-client.js";
import { topology } from "./topology.js";

export const CONTROL_PLANE_ROLE_LABEL = "node-role.kubernetes.io/control-plane";

/** node01, as the first node of a kind/kubeadm cluster. */
export const controlPlaneNode: string = topology.nodes[0].name;

/** The labels each node carries beyond the ones its agent reports. */
export function roleLabels(node: string): Record<string, string> {
  return node === controlPlaneNode ? { [CONTROL_PLANE_ROLE_LABEL]: "" } : {};
}

/** Patches the role labels onto every node; idempotent. */
export async function labelNodeRoles(client: AdminClient): Promise<void> {
  for (const { name } of topology.nodes) {
    const labels = roleLabels(name);
    if (Object.keys(labels).length === 0) continue;
    const result = await client.patch(`/api/v1/nodes/${name}`, { metadata: { labels } });
    if (result.status !== 200) {
      throw new Error(`labelling node ${name} failed: HTTP ${result.status} ${result.body.slice(0, 300)}`);
    }
  }
}
