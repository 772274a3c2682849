// notify.proto's messages as the proto loader produces them, and the Notify method table.

export interface DomainEventRequest {
  domainJSON: Buffer;
  statusJSON: Buffer;
  eventType: string;
}

export interface K8sEventRequest {
  eventJSON: Buffer;
}

export interface Response {
  success: boolean;
  message: string;
}

export interface NotifyMethods {
  HandleDomainEvent: { request: DomainEventRequest; response: Response };
  HandleK8sEvent: { request: K8sEventRequest; response: Response };
}

export interface NotifyInfoMethods {
  Info: { request: Record<string, never>; response: { supportedNotifyVersions: number[] } };
}

/** Watch event types, as upstream's watch.EventType spells them. */
export const WatchEventType = {
  Added: "ADDED",
  Modified: "MODIFIED",
  Deleted: "DELETED",
  Error: "ERROR",
} as const;
export type WatchEventType = (typeof WatchEventType)[keyof typeof WatchEventType];
