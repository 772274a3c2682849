import { randomBytes } from "node:crypto";
import type { KubeClient } from "./kube-client.js";
import type { Pod } from "./k8s-types.js";
import type { Logger } from "./logger.js";
import { apiTime } from "./container-record.js";

// core/v1 Events about pods, as kubelet posts them (source component "kubelet", the node as host), so
// `kubectl describe pod` tells what happened. Identical events within ten minutes are posted once,
// a stand-in for client-go's event aggregation.

const REPEAT_WINDOW_MS = 10 * 60_000;

export type EventType = "Normal" | "Warning";

export interface EventRecorder {
  record(pod: Pod, type: EventType, reason: string, message: string, fieldPath?: string): void;
}

export class KubeEventRecorder implements EventRecorder {
  private readonly recent = new Map<string, number>();

  constructor(
    private readonly client: KubeClient,
    private readonly nodeName: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  record(pod: Pod, type: EventType, reason: string, message: string, fieldPath?: string): void {
    const key = `${pod.metadata.uid}\u0000${reason}\u0000${message}\u0000${fieldPath ?? ""}`;
    const now = this.now();
    const last = this.recent.get(key);
    if (last !== undefined && now - last < REPEAT_WINDOW_MS) return;
    this.recent.set(key, now);
    if (this.recent.size > 5000) this.recent.clear();
    const namespace = pod.metadata.namespace ?? "default";
    const timestamp = apiTime(new Date(now));
    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${pod.metadata.name}.${randomBytes(8).toString("hex")}`, namespace },
      involvedObject: {
        apiVersion: "v1",
        kind: "Pod",
        namespace,
        name: pod.metadata.name,
        uid: pod.metadata.uid,
        ...(fieldPath ? { fieldPath } : {}),
      },
      reason,
      message,
      type,
      source: { component: "kubelet", host: this.nodeName },
      reportingComponent: "kubelet",
      reportingInstance: this.nodeName,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
    };
    this.client
      .createEvent(namespace, event)
      .catch((err: unknown) => this.log.debug({ err, reason }, "event not posted"));
  }
}

/** The field path kubelet puts on container events, e.g. spec.containers{compute}. */
export function containerFieldPath(pod: Pod, container: string): string {
  const isInit = (pod.spec.initContainers ?? []).some((c) => c.name === container);
  return `spec.${isInit ? "initContainers" : "containers"}{${container}}`;
}
