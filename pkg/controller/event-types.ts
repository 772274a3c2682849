import type { KubeObject, ObjectMeta } from "./object.js";

// core/v1 Event as written by client-go's event recorder (the API KubeVirt's components use).

export type EventType = "Normal" | "Warning";

export interface EventSource {
  component: string;
  host?: string;
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface CoreEvent extends KubeObject {
  metadata: ObjectMeta & { name: string; namespace: string };
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: EventSource;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: EventType;
  reportingComponent: string;
  reportingInstance: string;
}

/** What a repeated event changes on the existing Event object. */
export interface EventCountPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

/** metav1.Time: RFC 3339 with whole seconds. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

let nameSequence = 0n;

/** `<object name>.<hex nanoseconds>` as client-go names events; a sequence keeps same-millisecond names apart. */
export function eventName(objectName: string, ms: number): string {
  nameSequence = (nameSequence + 1n) % 1_000_000n;
  const nanos = BigInt(Math.floor(ms)) * 1_000_000n + nameSequence;
  return `${objectName}.${nanos.toString(16)}`;
}
