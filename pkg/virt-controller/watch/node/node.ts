// The node controller (upstream's watch/node): virt-handler beats on its Node (`kubevirt.io/heartbeat`,
// pkg/virt-handler/heartbeat). When a node's beat is older than the timeout, or the Node is gone, the node
// is labelled unschedulable for VMs, and every Scheduled or Running VMI there whose launcher Pod is no
// longer alive is moved to Failed with reason NodeUnresponsive, so that its VM's run strategy can start
// it again elsewhere. VMIs whose launcher still runs are left alone: the guest may well be fine.
import type { Pod } from "../../../api/core/v1/pod.js";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import { systemClock, type Clock } from "../../../controller/clock.js";
import type { KubeClient } from "../../../controller/client.js";
import type { EventRecorder } from "../../../controller/events.js";
import { coreGVR } from "../../../controller/gvr.js";
import type { Informer } from "../../../controller/informer.js";
import { defaultLogger, type Logger } from "../../../controller/log.js";
import { controllerRefOf, keyOf, type KubeObject } from "../../../controller/object.js";
import { daemonSetsGVR, virtualMachineInstancesGVR, type StoredVMI } from "../../../controller/resources.js";
import { isRunning, isScheduled } from "../../../controller/vmi-phase.js";
import { WorkQueue, type SyncResult } from "../../../controller/workqueue.js";
import {
  AppLabel,
  NodeNameLabel,
  NodeSchedulableLabel,
  VirtHandlerHeartbeat,
} from "../../../util/constants.js";

export const NodeUnresponsiveReason = "NodeUnresponsive";
/** Upstream's fixed heartbeat timeout and recheck interval (virt-controller's --node-heartbeat-timeout is ours). */
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 5 * 60_000;
export const DEFAULT_RECHECK_INTERVAL_MS = 60_000;

/**
 * A silent node is noticed at the first recheck after its timeout, so up to one interval late. Upstream's
 * interval is a fifth of its timeout: a shorter timeout keeps that ratio, so that a 60 s timeout is noticed
 * within 72 s rather than 120 s; a longer one keeps upstream's minute.
 */
export function recheckIntervalFor(heartbeatTimeoutMs: number): number {
  const ratio = DEFAULT_RECHECK_INTERVAL_MS / DEFAULT_HEARTBEAT_TIMEOUT_MS;
  return Math.min(DEFAULT_RECHECK_INTERVAL_MS, heartbeatTimeoutMs * ratio);
}

/** What this controller reads of a Node: its labels and annotations. */
export type Node = KubeObject;

interface DaemonSet extends KubeObject {
  status?: { desiredNumberScheduled?: number; currentNumberScheduled?: number; numberReady?: number };
}

/**
 * Whether the node's handler stopped beating: a missing Node counts as unresponsive, a Node that never
 * carried the annotation does not (its handler may still be starting). A malformed beat throws.
 */
export function isNodeUnresponsive(node: Node | undefined, timeoutMs: number, nowMs: number): boolean {
  if (!node) return true;
  const beat = node.metadata?.annotations?.[VirtHandlerHeartbeat];
  if (beat === undefined) return false;
  const beatMs = Date.parse(beat);
  if (Number.isNaN(beatMs) || !/^\d{4}-\d\d-\d\dT/.test(beat)) {
    throw new Error(
      `parsing time "${beat}" as RFC3339: cannot parse the heartbeat of node ${node.metadata?.name ?? ""}`,
    );
  }
  return beatMs < nowMs - timeoutMs;
}

const controlledByVMI = (pod: Pod): boolean => controllerRefOf(pod)?.kind === "VirtualMachineInstance";

/** Launcher Pods that may still run a guest: not finished, and not every container terminated. */
export function aliveLauncherPods(pods: readonly Pod[]): Pod[] {
  return pods.filter((pod) => {
    if (!controlledByVMI(pod)) return false;
    const statuses = pod.status?.containerStatuses ?? [];
    const allTerminated = statuses.length > 0 && statuses.every((status) => status.state?.terminated);
    const phase = pod.status?.phase;
    return !allTerminated && phase !== "Failed" && phase !== "Succeeded";
  });
}

/** The VMIs no alive launcher Pod belongs to (matched by controller UID within the namespace). */
export function vmisWithoutAlivePods(
  vmis: readonly VirtualMachineInstance[],
  alivePods: readonly Pod[],
): VirtualMachineInstance[] {
  const owners = new Set(
    alivePods.map((pod) => `${pod.metadata?.namespace ?? ""}/${controllerRefOf(pod)?.uid ?? ""}`),
  );
  return vmis.filter((vmi) => !owners.has(`${vmi.metadata?.namespace ?? ""}/${vmi.metadata?.uid ?? ""}`));
}

export interface NodeControllerDeps {
  client: KubeClient;
  nodes: Informer<Node>;
  vmis: Informer<StoredVMI>;
  /** Pods labelled kubevirt.io: launchers and handlers. */
  pods: Informer<Pod>;
  recorder: Pick<EventRecorder, "event">;
  clock?: Pick<Clock, "now">;
  logger?: Logger;
  heartbeatTimeoutMs?: number;
  recheckIntervalMs?: number;
}

export class NodeController {
  readonly queue: WorkQueue<string>;
  private readonly clock: Pick<Clock, "now">;
  private readonly logger: Logger;
  private readonly heartbeatTimeoutMs: number;
  private readonly recheckIntervalMs: number;

  constructor(private readonly deps: NodeControllerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? defaultLogger;
    this.heartbeatTimeoutMs = deps.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
    this.recheckIntervalMs = deps.recheckIntervalMs ?? recheckIntervalFor(this.heartbeatTimeoutMs);
    this.queue = new WorkQueue<string>({ name: "virt-controller-node", logger: this.logger });
    deps.nodes.addEventHandler({
      add: (node) => this.queue.add(keyOf(node)),
      update: (_old, node) => this.queue.add(keyOf(node)),
      delete: (node) => this.queue.add(keyOf(node)),
    });
    // A VMI on a node wakes that node: a deleted Node's VMIs are found this way too.
    const enqueueNodeOf = (vmi: StoredVMI) => {
      const node = vmi.status?.nodeName;
      if (node) this.queue.add(node);
    };
    deps.vmis.addEventHandler({ add: enqueueNodeOf, update: (_old, vmi) => enqueueNodeOf(vmi) });
  }

  async run(workers: number, signal: AbortSignal): Promise<void> {
    this.logger.info("Starting node controller.");
    await this.queue.run(workers, (key) => this.execute(key), signal);
    this.logger.info("Stopping node controller.");
  }

  /** One node; throws to retry with backoff, and rechecks an existing node every interval. */
  async execute(key: string): Promise<SyncResult> {
    const node = this.deps.nodes.get(key);
    let unresponsive: boolean;
    try {
      unresponsive = isNodeUnresponsive(node, this.heartbeatTimeoutMs, this.clock.now());
    } catch (err) {
      this.logger.error({ node: key, err }, "Failed to determine if node is responsive, will not reenqueue");
      return undefined;
    }
    if (unresponsive) {
      if (node && node.metadata?.labels?.[NodeSchedulableLabel] === "true") await this.markUnresponsive(node);
      await this.failStuckVMIs(key, node);
    }
    return node ? { requeueAfter: this.recheckIntervalMs } : undefined;
  }

  private async markUnresponsive(node: Node): Promise<void> {
    this.deps.recorder.event(
      node,
      "Normal",
      NodeUnresponsiveReason,
      "virt-handler is not responsive, marking node as unresponsive",
    );
    const name = node.metadata?.name ?? "";
    try {
      await this.deps.client
        .resource(coreGVR.nodes)
        .patch("", name, "strategic", { metadata: { labels: { [NodeSchedulableLabel]: "false" } } });
    } catch (err) {
      throw new Error(`failed to mark node ${name} as unschedulable: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  /** Upstream's ActiveVirtualMachinesOnNode: by the node label, Scheduled or Running. */
  private activeVMIsOn(nodeName: string): StoredVMI[] {
    return this.deps.vmis
      .list()
      .filter(
        (vmi) => vmi.metadata?.labels?.[NodeNameLabel] === nodeName && (isRunning(vmi) || isScheduled(vmi)),
      );
  }

  private async failStuckVMIs(nodeName: string, node: Node | undefined): Promise<void> {
    const vmis = this.activeVMIsOn(nodeName);
    if (vmis.length === 0) return;
    const podsOnNode = this.deps.pods.list().filter((pod) => pod.spec?.nodeName === nodeName);
    if (node) await this.reportOrphans(node, podsOnNode);
    const errors: string[] = [];
    for (const vmi of vmisWithoutAlivePods(vmis, aliveLauncherPods(podsOnNode))) {
      this.deps.recorder.event(
        vmi,
        "Normal",
        NodeUnresponsiveReason,
        `virt-handler on node ${vmi.status?.nodeName ?? ""} is not responsive, marking VMI as failed`,
      );
      const namespace = vmi.metadata?.namespace ?? "";
      const name = vmi.metadata?.name ?? "";
      try {
        await this.deps.client
          .resource<VirtualMachineInstance>(virtualMachineInstancesGVR)
          .patch(namespace, name, "json", [
            { op: "replace", path: "/status/phase", value: "Failed" },
            { op: "add", path: "/status/reason", value: NodeUnresponsiveReason },
          ]);
      } catch (err) {
        errors.push(
          `failed to move vmi ${name} in namespace ${namespace} to final state: ${(err as Error).message}`,
        );
      }
    }
    if (errors.length > 0) throw new Error(errors.join("; "));
  }

  /** A node without a handler Pod while the DaemonSet is fully rolled out holds orphaned VMIs. */
  private async reportOrphans(node: Node, podsOnNode: readonly Pod[]): Promise<void> {
    if (podsOnNode.some((pod) => pod.metadata?.labels?.[AppLabel] === "virt-handler")) return;
    const list = await this.deps.client
      .resource<DaemonSet>(daemonSetsGVR)
      .list("", { labelSelector: `${AppLabel}=virt-handler` });
    if (list.items.length !== 1) throw new Error("should only be running one virt-handler DaemonSet");
    const status = list.items[0]?.status;
    const desired = status?.desiredNumberScheduled ?? 0;
    // Upstream's test: a rollout still in progress on both counts is not the time to report.
    if (desired !== (status?.currentNumberScheduled ?? 0) && desired !== (status?.numberReady ?? 0)) return;
    this.deps.recorder.event(
      node,
      "Warning",
      NodeUnresponsiveReason,
      "virt-handler is not present, there are orphaned vmis on this node. Run virt-handler on this node to migrate or remove them.",
    );
  }
}
