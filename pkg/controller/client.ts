import type { KubeConfig } from "@kubernetes/client-node";
import { z } from "zod";
import { ApiError } from "./api-error.js";
import { apiVersionOf, resourcePath, type GroupVersionResource } from "./gvr.js";
import type { KubeList, KubeObject } from "./object.js";
import { KubeConfigTransport, type QueryParams, type Transport, type TransportObserver } from "./rest.js";

// A small typed client for any group/version/resource (built-in kinds and CRDs alike). Cluster-scoped
// resources take "" as namespace.

export type PatchType = "merge" | "json" | "strategic" | "apply";

const patchContentTypes: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
  /** Only for "apply" patches. */
  force?: boolean;
  signal?: AbortSignal;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  limit?: number;
  continue?: string;
  signal?: AbortSignal;
}

export interface WatchOptions {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  signal?: AbortSignal;
}

export interface DeleteOptions {
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** ["All"]: the apiserver checks the deletion and deletes nothing. */
  dryRun?: string[];
  signal?: AbortSignal;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
export type WatchEvent<T> =
  { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T } | { type: "ERROR"; error: ApiError };

const watchLineSchema = z.object({
  type: z.enum(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]),
  object: z.unknown(),
});

const listSchema = z.looseObject({
  metadata: z
    .looseObject({ resourceVersion: z.string().optional(), continue: z.string().optional() })
    .optional(),
  items: z.array(z.unknown()).nullable(),
});

/** Turns a raw JSON value into T, throwing on anything that is not one. */
export type Decoder<T> = (raw: unknown) => T;

const objectShape = z.looseObject({ metadata: z.looseObject({ name: z.string().optional() }).optional() });

/** Trusts the apiserver's typing but refuses values that are not objects at all. */
export function decodeAsObject<T extends KubeObject>(raw: unknown): T {
  return objectShape.parse(raw) as T;
}

function writeQuery(opts: WriteOptions | undefined): QueryParams {
  return {
    fieldManager: opts?.fieldManager,
    dryRun: opts?.dryRun ? "All" : undefined,
    force: opts?.force,
  };
}

export class ResourceClient<T extends KubeObject> {
  constructor(
    private readonly transport: Transport,
    readonly gvr: GroupVersionResource,
    private readonly decode: Decoder<T> = decodeAsObject,
  ) {}

  private path(namespace: string, name?: string, subresource?: string): string {
    return resourcePath(this.gvr, { namespace, name, subresource });
  }

  private nameOf(obj: T): { namespace: string; name: string } {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`${this.gvr.resource}: object has no metadata.name`);
    return { namespace: obj.metadata?.namespace ?? "", name };
  }

  // List responses omit apiVersion/kind on their items; restore them so items look like fetched objects.
  private withTypeMeta(item: unknown): unknown {
    const kind = this.gvr.kind;
    if (!kind || typeof item !== "object" || item === null || "kind" in item) return item;
    return { apiVersion: apiVersionOf(this.gvr), kind, ...item };
  }

  async get(namespace: string, name: string, signal?: AbortSignal): Promise<T> {
    return this.decode(
      await this.transport.request({ method: "GET", path: this.path(namespace, name), signal }),
    );
  }

  /** One page of a list; `namespace` "" lists across all namespaces. */
  async list(namespace: string, opts: ListOptions = {}): Promise<KubeList<T>> {
    const { signal, ...query } = opts;
    const raw = listSchema.parse(
      await this.transport.request({
        method: "GET",
        path: this.path(namespace),
        query: { ...query },
        signal,
      }),
    );
    return {
      metadata: raw.metadata ?? {},
      items: (raw.items ?? []).map((item) => this.decode(this.withTypeMeta(item))),
    };
  }

  /** Every page of a list (client-go's pager), returning the resourceVersion of the first page's snapshot. */
  async listAll(namespace: string, opts: Omit<ListOptions, "continue"> = {}): Promise<KubeList<T>> {
    const items: T[] = [];
    let page = await this.list(namespace, { limit: 500, ...opts });
    const resourceVersion = page.metadata?.resourceVersion;
    items.push(...page.items);
    while (page.metadata?.continue) {
      page = await this.list(namespace, {
        ...opts,
        limit: opts.limit ?? 500,
        continue: page.metadata.continue,
      });
      items.push(...page.items);
    }
    return { metadata: { resourceVersion }, items };
  }

  async create(obj: T, opts?: WriteOptions): Promise<T> {
    const namespace = obj.metadata?.namespace ?? "";
    const raw = await this.transport.request({
      method: "POST",
      path: this.path(namespace),
      query: writeQuery(opts),
      body: obj,
      signal: opts?.signal,
    });
    return this.decode(raw);
  }

  /** PUT: fails with a Conflict when obj's resourceVersion is stale. */
  async update(obj: T, opts?: WriteOptions): Promise<T> {
    return this.put(obj, undefined, opts);
  }

  async updateStatus(obj: T, opts?: WriteOptions): Promise<T> {
    return this.put(obj, "status", opts);
  }

  private async put(obj: T, subresource: string | undefined, opts?: WriteOptions): Promise<T> {
    const { namespace, name } = this.nameOf(obj);
    const raw = await this.transport.request({
      method: "PUT",
      path: this.path(namespace, name, subresource),
      query: writeQuery(opts),
      body: obj,
      signal: opts?.signal,
    });
    return this.decode(raw);
  }

  async patch(
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    opts?: WriteOptions,
  ): Promise<T> {
    return this.sendPatch(namespace, name, undefined, type, patch, opts);
  }

  async patchStatus(
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    opts?: WriteOptions,
  ): Promise<T> {
    return this.sendPatch(namespace, name, "status", type, patch, opts);
  }

  private async sendPatch(
    namespace: string,
    name: string,
    subresource: string | undefined,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions | undefined,
  ): Promise<T> {
    const raw = await this.transport.request({
      method: "PATCH",
      path: this.path(namespace, name, subresource),
      query: writeQuery(opts),
      body: patch,
      contentType: patchContentTypes[type],
      signal: opts?.signal,
    });
    return this.decode(raw);
  }

  async delete(namespace: string, name: string, opts: DeleteOptions = {}): Promise<void> {
    const { signal, ...options } = opts;
    await this.transport.request({
      method: "DELETE",
      path: this.path(namespace, name),
      body: { apiVersion: "v1", kind: "DeleteOptions", ...options },
      signal,
    });
  }

  /**
   * Streams watch events until the server closes the watch or the signal aborts it. A line that does
   * not decode ends the watch with that error, so the caller relists instead of silently missing it.
   */
  async watch(namespace: string, opts: WatchOptions, onEvent: (event: WatchEvent<T>) => void): Promise<void> {
    const { signal, ...query } = opts;
    const local = new AbortController();
    let failure: unknown;
    const onLine = (line: unknown): void => {
      if (failure !== undefined) return;
      try {
        const { type, object } = watchLineSchema.parse(line);
        onEvent(
          type === "ERROR"
            ? { type, error: ApiError.fromWatchStatus(object) }
            : { type, object: this.decode(object) },
        );
      } catch (err) {
        failure = err;
        local.abort();
      }
    };
    await this.transport.stream(
      {
        path: this.path(namespace),
        query: { ...query, watch: true },
        signal: signal ? AbortSignal.any([signal, local.signal]) : local.signal,
      },
      onLine,
    );
    if (failure !== undefined) throw failure;
  }
}

export class KubeClient {
  constructor(readonly transport: Transport) {}

  /** `observer` sees every request (the component's rest client metrics). */
  static fromKubeConfig(kubeConfig: KubeConfig, observer?: TransportObserver): KubeClient {
    return new KubeClient(new KubeConfigTransport(kubeConfig, observer));
  }

  resource<T extends KubeObject>(gvr: GroupVersionResource, decode?: Decoder<T>): ResourceClient<T> {
    return new ResourceClient<T>(this.transport, gvr, decode);
  }
}
