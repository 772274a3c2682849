import type { Clock, Logger } from "../../controller/index.js";
import { NodeSchedulableLabel, VirtHandlerHeartbeat } from "../../util/constants.js";

// The node heartbeat, as upstream's virt-handler sends it: a strategic-merge patch on its own Node that sets
// `kubevirt.io/schedulable` (true only once the device plugins are up), the CPU manager labels, the node
// labeller's labels (machine types, CPU models and features, the host model; upstream's labeller patches
// them on its own) and the `kubevirt.io/heartbeat` annotation. virt-controller's node controller reads
// the annotation to tell a live handler from a dead one. On shutdown the node is labelled unschedulable.

export const NODE_SCHEDULABLE_LABEL = NodeSchedulableLabel;
export const HEARTBEAT_ANNOTATION = VirtHandlerHeartbeat;
export const DEPRECATED_CPU_MANAGER_LABEL = "cpumanager";
export const CPU_MANAGER_LABEL = "kubevirt.io/cpumanager";

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 60_000;
/** Upstream's JitterUntil factor: each wait is the interval plus up to 1.2 times the interval. */
const JITTER_FACTOR = 1.2;

export interface NodeMetadataPatch {
  metadata: { labels: Record<string, string>; annotations: Record<string, string> };
}

/** The one write the heartbeat makes; main adapts the Kubernetes client to it. */
export type NodePatcher = (nodeName: string, patch: NodeMetadataPatch) => Promise<void>;

export interface HeartbeatInput {
  schedulable: boolean;
  nowMs: number;
  cpuManagerEnabled: boolean;
  /** The node labeller's labels, found once at start. */
  labellerLabels: Record<string, string>;
}

/** RFC3339 with second precision, the way metav1.Time marshals. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function heartbeatPatch(input: HeartbeatInput): NodeMetadataPatch {
  return {
    metadata: {
      labels: {
        [NODE_SCHEDULABLE_LABEL]: String(input.schedulable),
        [DEPRECATED_CPU_MANAGER_LABEL]: String(input.cpuManagerEnabled),
        [CPU_MANAGER_LABEL]: String(input.cpuManagerEnabled),
        ...input.labellerLabels,
      },
      annotations: { [HEARTBEAT_ANNOTATION]: rfc3339(input.nowMs) },
    },
  };
}

export interface HeartbeatOptions {
  host: string;
  patchNode: NodePatcher;
  /** True once every device plugin registered with the kubelet (upstream's DeviceController.Initialized). */
  devicesReady: () => boolean;
  /** The node labeller's labels as they are now. */
  labellerLabels: () => Record<string, string>;
  clock: Clock;
  logger: Logger;
  cpuManagerEnabled?: () => boolean;
  random?: () => number;
  devicePluginPollMs?: number;
  devicePluginWaitMs?: number;
}

export class Heartbeat {
  constructor(private readonly opts: HeartbeatOptions) {}

  /** Sends one heartbeat; a failure is logged and retried at the next beat, as upstream does. */
  async beat(): Promise<boolean> {
    return this.send(this.opts.devicesReady());
  }

  /** Beats until the signal aborts, then labels the node unschedulable. */
  async run(intervalMs: number, signal: AbortSignal): Promise<void> {
    await this.beat();
    await this.waitForDevicePlugins(signal);
    while (!signal.aborted) {
      await this.beat();
      const random = this.opts.random ?? Math.random;
      await this.opts.clock.sleep(intervalMs + random() * JITTER_FACTOR * intervalMs, signal);
    }
    await this.labelNodeUnschedulable();
  }

  /** Called on shutdown so that no new VMI is scheduled to a node whose handler is gone. */
  async labelNodeUnschedulable(attempts = 4): Promise<void> {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (await this.send(false)) return;
      if (attempt < attempts) await this.opts.clock.sleep(10 * 5 ** (attempt - 1));
    }
    this.opts.logger.warn({ node: this.opts.host }, `Failed to set node ${this.opts.host} unschedulable`);
  }

  // Poll the device manager so the second beat can already say schedulable=true.
  private async waitForDevicePlugins(signal: AbortSignal): Promise<void> {
    const pollMs = this.opts.devicePluginPollMs ?? 1_000;
    const deadline = this.opts.clock.now() + (this.opts.devicePluginWaitMs ?? 10_000);
    while (!signal.aborted && !this.opts.devicesReady() && this.opts.clock.now() < deadline) {
      await this.opts.clock.sleep(pollMs, signal);
    }
  }

  private async send(schedulable: boolean): Promise<boolean> {
    const patch = heartbeatPatch({
      schedulable,
      nowMs: this.opts.clock.now(),
      cpuManagerEnabled: this.opts.cpuManagerEnabled?.() ?? false,
      labellerLabels: this.opts.labellerLabels(),
    });
    try {
      await this.opts.patchNode(this.opts.host, patch);
      this.opts.logger.debug({ node: this.opts.host, schedulable }, "Heartbeat sent");
      return true;
    } catch (error) {
      this.opts.logger.error({ node: this.opts.host, err: error }, `Can't patch node ${this.opts.host}`);
      return false;
    }
  }
}
