import type { ApiError } from "./api-error.js";
import type { ResourceClient } from "./client.js";
import type { KubeObject } from "./object.js";

// What an informer consumes: a consistent list plus a watch from its resourceVersion. Production reads the
// apiserver through ResourceClient; unit tests inject testing/fake-list-watch.ts.

export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

export type SourceEvent<T> =
  { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T } | { type: "ERROR"; error: ApiError };

export interface ListWatchSource<T> {
  list(signal: AbortSignal): Promise<ListResult<T>>;
  /** Streams events after `resourceVersion`; resolves when the watch ends, rejects when it fails. */
  watch(
    resourceVersion: string,
    signal: AbortSignal,
    onEvent: (event: SourceEvent<T>) => void,
  ): Promise<void>;
}

export interface SourceScope {
  /** "" or absent: all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

// client-go's reflector spreads watch timeouts over [5, 10) minutes so watchers do not reconnect in lockstep.
const minWatchTimeoutSeconds = 300;

export function resourceSource<T extends KubeObject>(
  client: ResourceClient<T>,
  scope: SourceScope = {},
): ListWatchSource<T> {
  const namespace = scope.namespace ?? "";
  const selectors = {
    ...(scope.labelSelector ? { labelSelector: scope.labelSelector } : {}),
    ...(scope.fieldSelector ? { fieldSelector: scope.fieldSelector } : {}),
  };
  return {
    async list(signal) {
      const list = await client.listAll(namespace, { ...selectors, signal });
      return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? "" };
    },
    watch(resourceVersion, signal, onEvent) {
      const timeoutSeconds = Math.floor(minWatchTimeoutSeconds * (1 + Math.random()));
      return client.watch(
        namespace,
        { ...selectors, resourceVersion, timeoutSeconds, allowWatchBookmarks: true, signal },
        onEvent,
      );
    },
  };
}
