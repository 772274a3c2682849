// An in-memory apiserver plus synced informers for unit tests of the operator: writes go through the
// OperatorClient interface, are recorded in order, bump resourceVersion/generation like the apiserver, and
// reach the stores (and their event handlers) at once.
import { ApiError } from "../../controller/api-error.js";
import type { GroupVersionResource } from "../../controller/gvr.js";
import type { EventHandlers } from "../../controller/informer.js";
import { keyOf, type KubeObject } from "../../controller/object.js";
import type { JsonPatchOp, ListQuery, OperatorClient, Stores, WatchedStore } from "../cluster.js";
import { OPERATOR_RESOURCES, WATCHED_RESOURCES, type OperatorResource } from "../resources.js";
import { isManagedByOperator } from "../util/labels.js";
import { applyJsonPatch, JsonPatchTestFailed } from "../../controller/testing/json-patch.js";

export interface RecordedWrite {
  verb: "create" | "update" | "updateStatus" | "patch" | "delete";
  resource: string;
  key: string;
}

class FakeStore<T extends KubeObject> implements WatchedStore<T> {
  private readonly handlers = new Set<EventHandlers<T>>();

  constructor(
    private readonly objects: Map<string, KubeObject>,
    private readonly selects: (obj: KubeObject) => boolean,
  ) {}

  get(key: string): T | undefined {
    const obj = this.objects.get(key);
    return obj && this.selects(obj) ? (structuredClone(obj) as T) : undefined;
  }

  list(): T[] {
    return [...this.objects.values()].filter(this.selects).map((o) => structuredClone(o) as T);
  }

  addEventHandler(handlers: EventHandlers<T>): () => void {
    this.handlers.add(handlers);
    return () => this.handlers.delete(handlers);
  }

  hasSynced(): boolean {
    return true;
  }

  /** Tells handlers what changed, as an informer filtered by the same selector would. */
  notify(before: KubeObject | undefined, after: KubeObject | undefined): void {
    const was = before !== undefined && this.selects(before);
    const is = after !== undefined && this.selects(after);
    for (const h of this.handlers) {
      if (!was && is) h.add?.(structuredClone(after) as T);
      else if (was && is) h.update?.(structuredClone(before) as T, structuredClone(after) as T);
      else if (was && !is) h.delete?.(structuredClone(before) as T);
    }
  }
}

function matchesSelector(obj: KubeObject, selector: string | undefined): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [key, value] = term.split("=");
    const labels = obj.metadata?.labels ?? {};
    return value === undefined ? key !== undefined && key in labels : labels[key ?? ""] === value;
  });
}

/** Whether a patch changed anything but metadata and status: the apiserver then bumps the generation. */
function specChanged(before: KubeObject, after: KubeObject): boolean {
  const strip = (o: KubeObject) => JSON.stringify({ ...o, metadata: undefined, status: undefined });
  return strip(before) !== strip(after);
}

export class FakeCluster implements OperatorClient {
  readonly writes: RecordedWrite[] = [];
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly storesByResource = new Map<string, FakeStore<KubeObject>>();
  private nextVersion = 1;
  /** What `now` the fake stamps deletionTimestamp with. */
  now = () => new Date().toISOString();
  readonly stores: Stores;

  constructor() {
    const entries: Array<[string, FakeStore<KubeObject>]> = [];
    for (const [name, gvr] of Object.entries(OPERATOR_RESOURCES)) {
      entries.push([name, this.storeFor(gvr, (o) => isManagedByOperator(o.metadata?.labels))]);
    }
    entries.push(["kubevirts", this.storeFor(WATCHED_RESOURCES.kubevirts, () => true)]);
    entries.push([
      "pods",
      this.storeFor(WATCHED_RESOURCES.pods, (o) => isManagedByOperator(o.metadata?.labels)),
    ]);
    this.stores = Object.fromEntries(entries) as unknown as Stores;
  }

  private table(gvr: GroupVersionResource): Map<string, KubeObject> {
    let table = this.objects.get(gvr.resource);
    if (!table) {
      table = new Map();
      this.objects.set(gvr.resource, table);
    }
    return table;
  }

  private storeFor(gvr: GroupVersionResource, selects: (o: KubeObject) => boolean): FakeStore<KubeObject> {
    const store = new FakeStore<KubeObject>(this.table(gvr), selects);
    this.storesByResource.set(gvr.resource, store);
    return store;
  }

  private store(gvr: GroupVersionResource) {
    return this.storesByResource.get(gvr.resource);
  }

  private key(gvr: GroupVersionResource, namespace: string, name: string): string {
    return gvr.namespaced && namespace ? `${namespace}/${name}` : name;
  }

  private record(verb: RecordedWrite["verb"], gvr: GroupVersionResource, key: string): void {
    this.writes.push({ verb, resource: gvr.resource, key });
  }

  /** Puts an object in place without recording a write (test setup, or another controller's doing). */
  seed<T extends KubeObject>(gvr: GroupVersionResource, obj: T): T {
    const table = this.table(gvr);
    const key = keyOf(obj);
    const before = table.get(key);
    const stored = structuredClone(obj);
    stored.metadata = {
      uid: before?.metadata?.uid ?? `uid-${this.nextVersion}`,
      generation: 1,
      ...stored.metadata,
      resourceVersion: String(this.nextVersion++),
    };
    table.set(key, stored);
    this.store(gvr)?.notify(before, stored);
    return structuredClone(stored);
  }

  object<T extends KubeObject>(gvr: GroupVersionResource, key: string): T | undefined {
    const obj = this.table(gvr).get(key);
    return obj && (structuredClone(obj) as T);
  }

  all(gvr: GroupVersionResource): KubeObject[] {
    return [...this.table(gvr).values()].map((o) => structuredClone(o));
  }

  async get<T extends KubeObject>(gvr: GroupVersionResource, namespace: string, name: string) {
    return this.object<T>(gvr, this.key(gvr, namespace, name));
  }

  async list<T extends KubeObject>(gvr: GroupVersionResource, namespace: string, query: ListQuery = {}) {
    return this.all(gvr).filter(
      (o) => (!namespace || o.metadata?.namespace === namespace) && matchesSelector(o, query.labelSelector),
    ) as T[];
  }

  async create<T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T> {
    const named = structuredClone(obj);
    if (!named.metadata?.name && named.metadata?.generateName) {
      named.metadata = { ...named.metadata, name: `${named.metadata.generateName}${this.nextVersion}` };
    }
    const key = keyOf(named);
    if (this.table(gvr).has(key))
      throw new ApiError(409, "AlreadyExists", `${gvr.resource} "${key}" already exists`);
    this.record("create", gvr, key);
    return this.seed(gvr, named);
  }

  private replaceStored<T extends KubeObject>(
    gvr: GroupVersionResource,
    key: string,
    next: T,
    bump: boolean,
  ): T {
    const table = this.table(gvr);
    const before = table.get(key);
    if (!before) throw new ApiError(404, "NotFound", `${gvr.resource} "${key}" not found`);
    const stored = structuredClone(next);
    const generation = (before.metadata?.generation ?? 1) + (bump ? 1 : 0);
    stored.metadata = { ...stored.metadata, generation, resourceVersion: String(this.nextVersion++) };
    const finalizers = stored.metadata.finalizers ?? [];
    if (stored.metadata.deletionTimestamp && finalizers.length === 0) {
      table.delete(key);
      this.store(gvr)?.notify(before, undefined);
      return stored;
    }
    table.set(key, stored);
    this.store(gvr)?.notify(before, stored);
    return structuredClone(stored);
  }

  async update<T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T> {
    const key = keyOf(obj);
    const before = this.table(gvr).get(key);
    if (
      before &&
      obj.metadata?.resourceVersion &&
      obj.metadata.resourceVersion !== before.metadata?.resourceVersion
    ) {
      throw new ApiError(409, "Conflict", "the object has been modified");
    }
    this.record("update", gvr, key);
    const next = { ...structuredClone(obj), status: (before as { status?: unknown } | undefined)?.status };
    return this.replaceStored(gvr, key, next as T, before !== undefined && specChanged(before, next));
  }

  async updateStatus<T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T> {
    const key = keyOf(obj);
    const before = this.table(gvr).get(key);
    if (!before) throw new ApiError(404, "NotFound", `${gvr.resource} "${key}" not found`);
    this.record("updateStatus", gvr, key);
    const next: KubeObject = {
      ...structuredClone(before),
      status: (obj as { status?: unknown }).status,
    } as KubeObject;
    return this.replaceStored(gvr, key, next, false) as T;
  }

  async patch<T extends KubeObject>(
    gvr: GroupVersionResource,
    namespace: string,
    name: string,
    ops: JsonPatchOp[],
  ) {
    const key = this.key(gvr, namespace, name);
    const before = this.table(gvr).get(key);
    if (!before) throw new ApiError(404, "NotFound", `${gvr.resource} "${key}" not found`);
    let next: KubeObject;
    try {
      next = applyJsonPatch(before, ops);
    } catch (err) {
      if (err instanceof JsonPatchTestFailed) throw new ApiError(422, "Invalid", err.message);
      throw err;
    }
    this.record("patch", gvr, key);
    return this.replaceStored(gvr, key, next, specChanged(before, next)) as T;
  }

  async delete(gvr: GroupVersionResource, namespace: string, name: string): Promise<void> {
    const key = this.key(gvr, namespace, name);
    const before = this.table(gvr).get(key);
    if (!before) return;
    this.record("delete", gvr, key);
    if ((before.metadata?.finalizers ?? []).length === 0) {
      this.table(gvr).delete(key);
      this.store(gvr)?.notify(before, undefined);
      return;
    }
    const next = structuredClone(before) as KubeObject & { status?: Record<string, unknown> };
    next.metadata = { ...next.metadata, deletionTimestamp: this.now() };
    if (gvr.resource === "customresourcedefinitions") {
      // The apiserver removes the custom resources, then reports it on the CRD.
      next.status = {
        ...next.status,
        conditions: [{ type: "Terminating", status: "False", reason: "InstanceDeletionCompleted" }],
      };
    }
    this.replaceStored(gvr, key, next, false);
  }

  /** Writes since the last call, as `verb resource key` lines. */
  takeWrites(): string[] {
    return this.writes.splice(0).map((w) => `${w.verb} ${w.resource} ${w.key}`);
  }
}

export function resourceNamed(name: OperatorResource): GroupVersionResource {
  return OPERATOR_RESOURCES[name];
}
