// What the controllers tell about an object goes two ways, as upstream's do: a Kubernetes Event on the
// object and a log line carrying the object's kind, namespace, name and uid.
import type { EventType } from "../../../controller/event-types.js";
import type { EventRecorder } from "../../../controller/events.js";
import type { Logger } from "../../../controller/log.js";
import type { KubeObject } from "../../../controller/object.js";

export function objectLogFields(obj: KubeObject): Record<string, string | undefined> {
  const { namespace, name, uid } = obj.metadata ?? {};
  return { kind: obj.kind, namespace, name, uid };
}

export class Reporter {
  constructor(
    private readonly recorder: Pick<EventRecorder, "event">,
    private readonly logger: Logger,
  ) {}

  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    this.recorder.event(obj, type, reason, message);
    const fields = { ...objectLogFields(obj), reason };
    if (type === "Warning") this.logger.warn(fields, message);
    else this.logger.info(fields, message);
  }

  /** A log line about the object, without an event. */
  info(obj: KubeObject, message: string): void {
    this.logger.info(objectLogFields(obj), message);
  }

  error(obj: KubeObject, err: unknown, message: string): void {
    this.logger.error({ ...objectLogFields(obj), err }, message);
  }
}
