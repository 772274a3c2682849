import { randomBytes } from "node:crypto";
import type { KubeClient } from "./kube-client.js";
import type { Pod } from "./k8s-types.js";
import type { Logger } from "./logger.js";
import { apiTime } from "./container-record.js";

// core/v1 Events about pods, as kubelet posts them (source component "kubelet", the node as host), so
// `kubectl describe pod` tells what happened; the same for other objects the agent acts on (the
// local-block recycler's PersistentVolumes) under their own component. Identical events within ten
// minutes are posted once, a stand-in for client-go's event aggregation.

const REPEAT_WINDOW_MS = 10 * 60_000;

export type EventType = "Normal" | "Warning";

export interface EventRecorder {
  record(pod: Pod, type: EventType, reason: string, message: string, fieldPath?: string): void;
}

/** The object an event is about; a cluster-scoped one (a PersistentVolume) has no namespace. */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  namespace?: string;
  fieldPath?: string;
}

export class KubeEventRecorder implements EventRecorder {
  private readonly recent = new Map<string, number>();

  constructor(
    private readonly client: KubeClient,
    private readonly nodeName: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    /** The event's source component: kubelet for pod events. */
    private readonly component = "kubelet",
  ) {}

  record(pod: Pod, type: EventType, reason: string, message: string, fieldPath?: string): void {
    this.recordFor(
      {
        apiVersion: "v1",
        kind: "Pod",
        namespace: pod.metadata.namespace ?? "default",
        name: pod.metadata.name,
        uid: pod.metadata.uid,
        ...(fieldPath ? { fieldPath } : {}),
      },
      type,
      reason,
      message,
    );
  }

  /**
   * An event about any object. Events about cluster-scoped objects go to the "default" namespace, as
   * client-go's recorder puts them.
   */
  recordFor(involved: InvolvedObject, type: EventType, reason: string, message: string): void {
    const key = `${involved.uid}\u0000${reason}\u0000${message}\u0000${involved.fieldPath ?? ""}`;
    const now = this.now();
    const last = this.recent.get(key);
    if (last !== undefined && now - last < REPEAT_WINDOW_MS) return;
    this.recent.set(key, now);
    if (this.recent.size > 5000) this.recent.clear();
    const namespace = involved.namespace ?? "default";
    const timestamp = apiTime(new Date(now));
    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${involved.name}.${randomBytes(8).toString("hex")}`, namespace },
      involvedObject: involved,
      reason,
      message,
      type,
      source: { component: this.component, host: this.nodeName },
      reportingComponent: this.component,
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
