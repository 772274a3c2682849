import type { z } from "zod";
import type { Transport } from "../../../pkg/controller/rest.js";
import { isConflict, isForbidden, isNotFound } from "../../../pkg/controller/api-error.js";
import {
  configMapSchema,
  leaseSchema,
  nodeSchema,
  persistentVolumeClaimSchema,
  persistentVolumeSchema,
  podSchema,
  secretSchema,
  tokenRequestSchema,
  versionSchema,
  type ConfigMap,
  type Lease,
  type Node,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
  type Secret,
  type TokenRequestResult,
} from "./k8s-types.js";
import type { ObjectSource } from "./env.js";

// Every apiserver call the node agent makes, named for what it does. The agent's logic depends on this
// interface only, so unit tests use an in-memory fake and the real one is a thin layer over a Transport.

export interface PodList {
  items: Pod[];
  resourceVersion: string;
}

export interface WatchEvent {
  type: string;
  object: unknown;
}

export interface KubeClient {
  serverVersion(): Promise<string>;
  getNode(name: string): Promise<Node | undefined>;
  createNode(node: object): Promise<Node>;
  /** Strategic-merge patch of the Node object (spec and metadata). */
  patchNode(name: string, patch: object): Promise<Node>;
  patchNodeStatus(name: string, patch: object): Promise<Node>;
  getLease(namespace: string, name: string): Promise<Lease | undefined>;
  createLease(namespace: string, lease: object): Promise<Lease>;
  /** PUT with the resourceVersion inside `lease`: fails with a conflict if someone else wrote it. */
  replaceLease(namespace: string, name: string, lease: object): Promise<Lease>;
  listPods(fieldSelector: string): Promise<PodList>;
  /** Streams watch events until the server closes the watch or the signal aborts it. */
  watchPods(
    fieldSelector: string,
    resourceVersion: string,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void>;
  getPod(namespace: string, name: string): Promise<Pod | undefined>;
  patchPodStatus(namespace: string, name: string, patch: object): Promise<Pod>;
  /** Deletes with grace period 0 and the UID as precondition, as kubelet does once a pod's containers are gone. */
  deletePodNow(namespace: string, name: string, uid: string): Promise<void>;
  getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  getPersistentVolumeClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
  getPersistentVolume(name: string): Promise<PersistentVolume | undefined>;
  listPersistentVolumes(labelSelector: string): Promise<PersistentVolume[]>;
  createPersistentVolume(pv: object): Promise<PersistentVolume>;
  /**
   * Deletes the PV if it is still the version given (UID and resourceVersion preconditions): "deleted"
   * (it may linger while a finalizer holds it), "gone" (nothing by that name), or "changed" (someone
   * wrote it since; nothing deleted).
   */
  deletePersistentVolume(
    name: string,
    preconditions: { uid: string; resourceVersion?: string },
  ): Promise<"deleted" | "gone" | "changed">;
  requestServiceAccountToken(
    namespace: string,
    serviceAccount: string,
    request: object,
  ): Promise<TokenRequestResult>;
  createEvent(namespace: string, event: object): Promise<void>;
}

const STRATEGIC = "application/strategic-merge-patch+json";

async function orUndefined<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export class RestKubeClient implements KubeClient {
  constructor(private readonly transport: Transport) {}

  private async call<S extends z.ZodType>(
    schema: S,
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<z.infer<S>> {
    const answer = await this.transport.request({
      method,
      path,
      ...(body !== undefined ? { body } : {}),
      ...(contentType ? { contentType } : {}),
    });
    return schema.parse(answer);
  }

  async serverVersion(): Promise<string> {
    return (await this.call(versionSchema, "GET", "/version")).gitVersion;
  }

  getNode(name: string): Promise<Node | undefined> {
    return orUndefined(this.call(nodeSchema, "GET", `/api/v1/nodes/${name}`));
  }

  createNode(node: object): Promise<Node> {
    return this.call(nodeSchema, "POST", "/api/v1/nodes", node);
  }

  patchNode(name: string, patch: object): Promise<Node> {
    return this.call(nodeSchema, "PATCH", `/api/v1/nodes/${name}`, patch, STRATEGIC);
  }

  patchNodeStatus(name: string, patch: object): Promise<Node> {
    return this.call(nodeSchema, "PATCH", `/api/v1/nodes/${name}/status`, patch, STRATEGIC);
  }

  getLease(namespace: string, name: string): Promise<Lease | undefined> {
    return orUndefined(this.call(leaseSchema, "GET", leasePath(namespace, name)));
  }

  createLease(namespace: string, lease: object): Promise<Lease> {
    return this.call(leaseSchema, "POST", leasePath(namespace), lease);
  }

  replaceLease(namespace: string, name: string, lease: object): Promise<Lease> {
    return this.call(leaseSchema, "PUT", leasePath(namespace, name), lease);
  }

  async listPods(fieldSelector: string): Promise<PodList> {
    const answer = await this.transport.request({
      method: "GET",
      path: "/api/v1/pods",
      query: { fieldSelector },
    });
    const list = answer as { items?: unknown[]; metadata?: { resourceVersion?: string } };
    return {
      items: (list.items ?? []).map((item) => podSchema.parse(item)),
      resourceVersion: list.metadata?.resourceVersion ?? "",
    };
  }

  watchPods(
    fieldSelector: string,
    resourceVersion: string,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    return this.transport.stream(
      {
        path: "/api/v1/pods",
        query: { watch: true, fieldSelector, resourceVersion, allowWatchBookmarks: true },
        signal,
      },
      (line) => {
        const event = line as Partial<WatchEvent>;
        if (typeof event.type === "string") onEvent({ type: event.type, object: event.object });
      },
    );
  }

  getPod(namespace: string, name: string): Promise<Pod | undefined> {
    return orUndefined(this.call(podSchema, "GET", `/api/v1/namespaces/${namespace}/pods/${name}`));
  }

  patchPodStatus(namespace: string, name: string, patch: object): Promise<Pod> {
    return this.call(
      podSchema,
      "PATCH",
      `/api/v1/namespaces/${namespace}/pods/${name}/status`,
      patch,
      STRATEGIC,
    );
  }

  async deletePodNow(namespace: string, name: string, uid: string): Promise<void> {
    const path = `/api/v1/namespaces/${namespace}/pods/${name}`;
    // The UID precondition travels in the body; until the transport frames DELETE bodies (it sends no
    // Content-Length, so the apiserver never sees them) the grace period also goes in the query and the
    // UID is checked here first.
    // For a pod already gone the Node authorizer answers 403, not 404: the node has no relationship with
    // it any more. Either way there is nothing left to delete.
    const current = await this.getPod(namespace, name).catch((err: unknown) => {
      if (isForbidden(err)) return undefined;
      throw err;
    });
    if (!current || current.metadata.uid !== uid) return;
    const options = {
      kind: "DeleteOptions",
      apiVersion: "v1",
      gracePeriodSeconds: 0,
      preconditions: { uid },
    };
    try {
      await this.transport.request({
        method: "DELETE",
        path,
        query: { gracePeriodSeconds: 0 },
        body: options,
      });
    } catch (err) {
      // Gone already, or the name now belongs to a newer pod (the UID precondition failed): nothing to do.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
    return orUndefined(
      this.call(configMapSchema, "GET", `/api/v1/namespaces/${namespace}/configmaps/${name}`),
    );
  }

  getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    return orUndefined(this.call(secretSchema, "GET", `/api/v1/namespaces/${namespace}/secrets/${name}`));
  }

  getPersistentVolumeClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined> {
    return orUndefined(
      this.call(
        persistentVolumeClaimSchema,
        "GET",
        `/api/v1/namespaces/${namespace}/persistentvolumeclaims/${name}`,
      ),
    );
  }

  getPersistentVolume(name: string): Promise<PersistentVolume | undefined> {
    return orUndefined(this.call(persistentVolumeSchema, "GET", `/api/v1/persistentvolumes/${name}`));
  }

  async listPersistentVolumes(labelSelector: string): Promise<PersistentVolume[]> {
    const answer = await this.transport.request({
      method: "GET",
      path: "/api/v1/persistentvolumes",
      query: { labelSelector },
    });
    return ((answer as { items?: unknown[] }).items ?? []).map((item) => persistentVolumeSchema.parse(item));
  }

  createPersistentVolume(pv: object): Promise<PersistentVolume> {
    return this.call(persistentVolumeSchema, "POST", "/api/v1/persistentvolumes", pv);
  }

  async deletePersistentVolume(
    name: string,
    preconditions: { uid: string; resourceVersion?: string },
  ): Promise<"deleted" | "gone" | "changed"> {
    try {
      await this.transport.request({
        method: "DELETE",
        path: `/api/v1/persistentvolumes/${name}`,
        body: { kind: "DeleteOptions", apiVersion: "v1", preconditions },
      });
      return "deleted";
    } catch (err) {
      if (isNotFound(err)) return "gone";
      if (isConflict(err)) return "changed";
      throw err;
    }
  }

  requestServiceAccountToken(
    namespace: string,
    serviceAccount: string,
    request: object,
  ): Promise<TokenRequestResult> {
    const path = `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`;
    return this.call(tokenRequestSchema, "POST", path, request);
  }

  async createEvent(namespace: string, event: object): Promise<void> {
    await this.transport.request({
      method: "POST",
      path: `/api/v1/namespaces/${namespace}/events`,
      body: event,
    });
  }
}

function leasePath(namespace: string, name?: string): string {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
  return name ? `${base}/${name}` : base;
}

/** The objects pods refer to (env sources, volumes), read through `client`. */
export function objectSource(client: KubeClient): ObjectSource {
  return {
    configMap: (namespace, name) => client.getConfigMap(namespace, name),
    secret: (namespace, name) => client.getSecret(namespace, name),
    persistentVolumeClaim: (namespace, name) => client.getPersistentVolumeClaim(namespace, name),
    persistentVolume: (name) => client.getPersistentVolume(name),
  };
}
