// Stand-ins for integration tests that run the operator in-process against a real apiserver, where no
// kubelet runs its pods: a Node that keeps reporting Ready (tainted, so nothing else lands on it) to bind
// pods to, pods made Running and Ready by writing their status as a kubelet would, so Endpoints and
// workload controllers see them.
import type { KubeClient } from "../../controller/client.js";
import { coreGVR } from "../../controller/gvr.js";
import { formatMicroTime } from "../../controller/lease-lock.js";
import type { KubeObject } from "../../controller/object.js";
import type { Pod } from "../resource/generate/components/k8s-types.js";

export const STAND_IN_TAINT = "kubevirt-ts/stand-in";
const HEARTBEAT_MS = 10_000;

function readyStatus(pod: Pod, podIP: string | undefined) {
  const now = new Date().toISOString();
  return {
    phase: "Running",
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({
      type,
      status: "True",
      lastTransitionTime: now,
    })),
    containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      ready: true,
      started: true,
      restartCount: 0,
      image: c.image ?? "",
      imageID: "",
      state: { running: { startedAt: now } },
    })),
  };
}

/** Writes a Running, Ready status onto a pod, as its kubelet would. */
export async function markPodReady(client: KubeClient, pod: Pod, podIP?: string): Promise<void> {
  await client
    .resource<Pod>(coreGVR.pods)
    .patchStatus(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "", "merge", {
      status: readyStatus(pod, podIP),
    });
}

export class StandInNode {
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: KubeClient,
    readonly name: string,
  ) {}

  async create(): Promise<void> {
    await this.client.resource(coreGVR.nodes).create({
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: this.name, labels: { [STAND_IN_TAINT]: "true" } },
      spec: {
        unschedulable: true,
        taints: [
          { key: STAND_IN_TAINT, effect: "NoSchedule" },
          { key: STAND_IN_TAINT, effect: "NoExecute" },
        ],
      },
    } as KubeObject);
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat().catch(() => undefined), HEARTBEAT_MS);
  }

  /** Node status and Lease heartbeat, so the node lifecycle controller keeps the node Ready. */
  private async beat(): Promise<void> {
    const now = new Date().toISOString();
    await this.client.resource(coreGVR.nodes).patchStatus("", this.name, "merge", {
      status: {
        conditions: [
          {
            type: "Ready",
            status: "True",
            reason: "KubeletReady",
            message: "stand-in",
            lastHeartbeatTime: now,
            lastTransitionTime: now,
          },
        ],
      },
    });
    const leases = this.client.resource(coreGVR.leases);
    const spec = {
      holderIdentity: this.name,
      leaseDurationSeconds: 40,
      renewTime: formatMicroTime(Date.now()),
    };
    try {
      await leases.patch("kube-node-lease", this.name, "merge", { spec });
    } catch {
      await leases.create({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: this.name, namespace: "kube-node-lease" },
        spec,
      } as KubeObject);
    }
  }

  /** Creates a pod bound to this node and reports it Running and Ready with `podIP`. */
  async runPod(pod: Pod, podIP: string): Promise<Pod> {
    const bound: Pod = {
      ...pod,
      spec: {
        ...pod.spec,
        nodeName: this.name,
        tolerations: [...(pod.spec?.tolerations ?? []), { key: STAND_IN_TAINT, operator: "Exists" }],
      },
    };
    const created = await this.client.resource<Pod>(coreGVR.pods).create(bound);
    await markPodReady(this.client, created, podIP);
    return created;
  }

  async delete(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.client
      .resource(coreGVR.nodes)
      .delete("", this.name)
      .catch(() => undefined);
    await this.client
      .resource(coreGVR.leases)
      .delete("kube-node-lease", this.name)
      .catch(() => undefined);
  }
}
