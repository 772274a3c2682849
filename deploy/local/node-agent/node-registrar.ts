import { isAlreadyExists } from "../../../pkg/controller/api-error.js";
import type { KubeClient } from "./kube-client.js";
import type { Node } from "./k8s-types.js";
import {
  newNodeObject,
  nodeConditions,
  nodeLabels,
  nodeStatus,
  type ExtendedResources,
  type HostFacts,
  type NodeCondition,
  type NodeIdentity,
} from "./node-object.js";
import type { Logger } from "./logger.js";
import { apiTime } from "./container-record.js";

// Registers the Node and keeps its status current, the way kubelet does: status is computed every
// 10 s but written only when something other than heartbeat times changed, or every 5 minutes, since
// liveness is carried by the Lease.

export const STATUS_UPDATE_PERIOD_MS = 10_000;
export const STATUS_REPORT_PERIOD_MS = 5 * 60_000;

export interface NodeRegistrarOptions {
  identity: NodeIdentity;
  hostFacts: () => HostFacts;
  extendedResources: () => ExtendedResources;
  now?: () => Date;
}

function withoutHeartbeats(status: Record<string, unknown>): string {
  const conditions = (status.conditions as NodeCondition[]).map(({ type, status: s, reason, message }) => ({
    type,
    s,
    reason,
    message,
  }));
  return JSON.stringify({ ...status, conditions });
}

export class NodeRegistrar {
  private lastReported: { fingerprint: string; at: number } | undefined;
  private conditions: NodeCondition[] = [];
  private readonly now: () => Date;

  constructor(
    private readonly client: KubeClient,
    private readonly options: NodeRegistrarOptions,
    private readonly log: Logger,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  get name(): string {
    return this.options.identity.name;
  }

  /** Creates the Node, or brings an existing one's labels and pod CIDR in line; then reports status. */
  async register(): Promise<Node> {
    const { identity } = this.options;
    const host = this.options.hostFacts();
    let node: Node;
    try {
      node = await this.client.createNode(newNodeObject(identity, host));
      this.log.info({ node: identity.name }, "registered node");
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      node = await this.reconcileExisting(identity, host);
    }
    this.conditions = (node.status?.conditions ?? []) as NodeCondition[];
    await this.syncStatus(true);
    return node;
  }

  private async reconcileExisting(identity: NodeIdentity, host: HostFacts): Promise<Node> {
    const existing = await this.client.getNode(identity.name);
    if (!existing) throw new Error(`node ${identity.name} vanished during registration`);
    let node = await this.client.patchNode(identity.name, {
      metadata: { labels: nodeLabels(identity, host) },
    });
    // The pod CIDR can be set once; a node registered without one gets ours if the apiserver lets us.
    const current = existing.spec?.podCIDR;
    if (current && current !== identity.podCIDR) {
      this.log.warn({ existing: current, wanted: identity.podCIDR }, "node keeps its earlier pod CIDR");
    } else if (!current) {
      const spec = { podCIDR: identity.podCIDR, podCIDRs: [identity.podCIDR] };
      node = await this.client.patchNode(identity.name, { spec }).catch((err: unknown) => {
        this.log.warn({ err }, "could not set the node's pod CIDR");
        return node;
      });
    }
    return node;
  }

  /** Computes the status and writes it when it changed, when `force` is set, or when the report period passed. */
  async syncStatus(force = false): Promise<boolean> {
    const now = this.now();
    const conditions = nodeConditions(this.conditions, apiTime(now));
    const status = nodeStatus(
      this.options.identity,
      this.options.hostFacts(),
      conditions,
      this.options.extendedResources(),
    );
    const fingerprint = withoutHeartbeats(status);
    const due =
      force ||
      !this.lastReported ||
      this.lastReported.fingerprint !== fingerprint ||
      now.getTime() - this.lastReported.at >= STATUS_REPORT_PERIOD_MS;
    if (!due) return false;
    await this.client.patchNodeStatus(this.options.identity.name, { status });
    this.conditions = conditions;
    this.lastReported = { fingerprint, at: now.getTime() };
    return true;
  }

  /** Runs the status loop until the signal aborts; errors are logged and retried on the next tick. */
  run(signal: AbortSignal): void {
    const tick = (): void => {
      this.syncStatus().catch((err: unknown) => this.log.error({ err }, "node status update failed"));
    };
    const timer = setInterval(tick, STATUS_UPDATE_PERIOD_MS);
    signal.addEventListener("abort", () => clearInterval(timer), { once: true });
  }
}
