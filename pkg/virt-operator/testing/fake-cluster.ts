// The operator's unit-test cluster: pkg/controller's in-memory apiserver behind the real OperatorClient
// (KubeOperatorClient over a KubeClient), with stores that follow every write at once, as synced
// informers filtered by the operator's labels would. Writes are recorded in order.
import { KubeClient } from "../../controller/client.js";
import type { GroupVersionResource } from "../../controller/gvr.js";
import type { EventHandlers } from "../../controller/informer.js";
import type { KubeObject } from "../../controller/object.js";
import { FakeApiServer, tableOf } from "../../controller/testing/fake-apiserver.js";
import {
  type CommonInstancetypeStores,
  KubeOperatorClient,
  type JsonPatchOp,
  type ListQuery,
  type OperatorClient,
  type Stores,
  type WatchedStore,
} from "../cluster.js";
import {
  COMMON_INSTANCETYPE_RESOURCES,
  OPERATOR_RESOURCES,
  WATCHED_RESOURCES,
  type OperatorResource,
} from "../resources.js";
import { isManagedByOperator } from "../util/labels.js";

class FakeStore<T extends KubeObject> implements WatchedStore<T> {
  private readonly handlers = new Set<EventHandlers<T>>();

  constructor(
    private readonly api: FakeApiServer,
    private readonly table: string,
    private readonly selects: (obj: KubeObject) => boolean,
  ) {}

  get(key: string): T | undefined {
    const [namespace, name] = splitKey(key);
    const obj = this.api.get<T>(this.table, namespace, name);
    return obj && this.selects(obj) ? obj : undefined;
  }

  list(): T[] {
    return this.api.list<T>(this.table).filter(this.selects);
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

/** `namespace/name`, or `name` for cluster-scoped objects. */
function splitKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return slash < 0 ? ["", key] : [key.slice(0, slash), key.slice(slash + 1)];
}

export class FakeCluster implements OperatorClient {
  readonly api = new FakeApiServer();
  private readonly client = new KubeOperatorClient(new KubeClient(this.api));
  readonly stores: Stores;
  readonly commonInstancetypeStores: CommonInstancetypeStores;

  constructor() {
    const stores = new Map<string, FakeStore<KubeObject>>();
    const entries: Array<[string, FakeStore<KubeObject>]> = [];
    const storeFor = (name: string, gvr: GroupVersionResource, selects: (o: KubeObject) => boolean) => {
      const store = new FakeStore<KubeObject>(this.api, tableOf(gvr), selects);
      stores.set(tableOf(gvr), store);
      entries.push([name, store]);
      return store;
    };
    const managed = (o: KubeObject) => isManagedByOperator(o.metadata?.labels);
    for (const [name, gvr] of Object.entries(OPERATOR_RESOURCES)) storeFor(name, gvr, managed);
    storeFor("kubevirts", WATCHED_RESOURCES.kubevirts, () => true);
    storeFor("pods", WATCHED_RESOURCES.pods, managed);
    this.stores = Object.fromEntries(entries) as unknown as Stores;
    // Unfiltered, as upstream's informers of these kinds.
    const { clusterInstancetypes, clusterPreferences } = COMMON_INSTANCETYPE_RESOURCES;
    this.commonInstancetypeStores = {
      clusterInstancetypes: storeFor("clusterInstancetypes", clusterInstancetypes, () => true),
      clusterPreferences: storeFor("clusterPreferences", clusterPreferences, () => true),
    };
    this.api.observe((table, before, after) => stores.get(table)?.notify(before, after));
  }

  /** Puts an object in place without recording a write (test setup, or another controller's doing). */
  seed<T extends KubeObject>(gvr: GroupVersionResource, obj: T): T {
    return this.api.seed(tableOf(gvr), obj);
  }

  object<T extends KubeObject>(gvr: GroupVersionResource, key: string): T | undefined {
    const [namespace, name] = splitKey(key);
    return this.api.get<T>(tableOf(gvr), gvr.namespaced ? namespace : "", name);
  }

  all(gvr: GroupVersionResource): KubeObject[] {
    return this.api.list(tableOf(gvr));
  }

  get<T extends KubeObject>(gvr: GroupVersionResource, namespace: string, name: string) {
    return this.client.get<T>(gvr, namespace, name);
  }

  list<T extends KubeObject>(gvr: GroupVersionResource, namespace: string, query: ListQuery = {}) {
    return this.client.list<T>(gvr, namespace, query);
  }

  create<T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T> {
    return this.client.create(gvr, obj);
  }

  update<T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T> {
    return this.client.update(gvr, obj);
  }

  updateStatus<T extends KubeObject>(gvr: GroupVersionResource, obj: T): Promise<T> {
    return this.client.updateStatus(gvr, obj);
  }

  patch<T extends KubeObject>(
    gvr: GroupVersionResource,
    namespace: string,
    name: string,
    ops: JsonPatchOp[],
  ) {
    return this.client.patch<T>(gvr, namespace, name, ops);
  }

  delete(gvr: GroupVersionResource, namespace: string, name: string): Promise<void> {
    return this.client.delete(gvr, namespace, name);
  }

  /** Writes since the last call, as `verb resource key` lines (a write to /status is `updateStatus`). */
  takeWrites(): string[] {
    return this.api.takeWrites().map((write) => write.replace(/^update (\S+)\/status /, "updateStatus $1 "));
  }
}

export function resourceNamed(name: OperatorResource): GroupVersionResource {
  return OPERATOR_RESOURCES[name];
}
