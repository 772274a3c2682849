// An in-memory apiserver behind the machinery's Transport, for controller unit tests: real clients and
// informers run against it. It keeps resourceVersions, uids, generations, generateName, optimistic
// concurrency, status subresources, finalizers and graceful Pod deletion as the apiserver does, records
// every write, and delivers watch events after the write returns, or holds them back to play a lagging
// cache.
import { isDeepStrictEqual } from "node:util";
import { ApiError } from "../api-error.js";
import type { GroupVersionResource } from "../gvr.js";
import type { KubeObject } from "../object.js";
import type { RestRequest, StreamRequest, Transport } from "../rest.js";
import { applyJsonPatch, JsonPatchTestFailed } from "../../apimachinery/patch/json-patch.js";
import { applyMergePatch } from "../../apimachinery/patch/merge-patch.js";
import type { JsonPatchOp } from "../../apimachinery/patch/patch.js";

interface Address {
  /** `<group>/<resource>`, "" group for core. */
  table: string;
  namespace: string;
  name?: string;
  subresource?: string;
}

interface Watcher {
  table: string;
  namespace: string;
  selector: string | undefined;
  fieldSelector: string | undefined;
  send: (line: unknown) => void;
}

type Stored = KubeObject & { spec?: unknown; status?: unknown };

/** Resources whose status is written only through /status (as their CRDs or built-in types declare). */
const StatusSubresource = new Set([
  "kubevirt.io/virtualmachines",
  "kubevirt.io/virtualmachineinstancereplicasets",
  "kubevirt.io/kubevirts",
  "pool.kubevirt.io/virtualmachinepools",
  "/pods",
  "/services",
  "/nodes",
  "/namespaces",
  "apps/deployments",
  "apps/daemonsets",
  "apps/replicasets",
  "policy/poddisruptionbudgets",
  "apiextensions.k8s.io/customresourcedefinitions",
  "apiregistration.k8s.io/apiservices",
]);

/** The table a resource's objects are kept in: `<group>/<resource>`, as the helpers below take it. */
export function tableOf(gvr: Pick<GroupVersionResource, "group" | "resource">): string {
  return `${gvr.group}/${gvr.resource}`;
}

/** Told synchronously of every stored change: `before` absent on creation, `after` absent on removal. */
export type ChangeObserver = (
  table: string,
  before: KubeObject | undefined,
  after: KubeObject | undefined,
) => void;

function parsePath(path: string): Address {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const rest = parts[0] === "api" ? parts.slice(2) : parts.slice(3);
  const group = parts[0] === "api" ? "" : (parts[1] ?? "");
  let namespace = "";
  if (rest[0] === "namespaces" && rest.length > 2) {
    namespace = rest[1] ?? "";
    rest.splice(0, 2);
  }
  return { table: `${group}/${rest[0] ?? ""}`, namespace, name: rest[1], subresource: rest[2] };
}

/** `a`, `!a`, `a=b` terms joined by commas: what the controllers send. */
function selects(selector: string | undefined, obj: KubeObject): boolean {
  if (!selector) return true;
  const labels = obj.metadata?.labels ?? {};
  return selector.split(",").every((term) => {
    if (term.startsWith("!")) return !(term.slice(1) in labels);
    const [key = "", value] = term.split("=");
    return value === undefined ? key in labels : labels[key] === value;
  });
}

/** `a.b=c` terms joined by commas (`spec.nodeName=node01`): each dotted path must hold that string. */
function selectsFields(selector: string | undefined, obj: KubeObject): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [path = "", value = ""] = term.split("=");
    let node: unknown = obj;
    for (const part of path.split(".")) node = (node as Record<string, unknown> | undefined)?.[part];
    return String(node ?? "") === value;
  });
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A strategic merge patch as the components send them: objects merge key by key, null deletes a key,
 * lists of conditions merge by `type` (their patchMergeKey), element by element as objects do (a member
 * the patch leaves out stays), other lists are replaced. Nulls never get stored: the typed objects a
 * real apiserver decodes the result into have no null members.
 */
function strategicMerge(current: Json, patch: Json): Json {
  const out: Json = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    const existing = out[key];
    if (value === null) delete out[key];
    else if (isObject(value)) out[key] = strategicMerge(isObject(existing) ? existing : {}, value);
    else if (key === "conditions" && Array.isArray(value)) {
      const merged = [...(Array.isArray(existing) ? (existing as Json[]) : [])];
      for (const condition of value as Json[]) {
        const index = merged.findIndex((c) => c.type === condition.type);
        if (index >= 0) merged[index] = strategicMerge(merged[index] ?? {}, condition);
        else merged.push(strategicMerge({}, condition));
      }
      out[key] = merged;
    } else out[key] = structuredClone(value);
  }
  return out;
}

const withoutStatus = (obj: Stored): unknown => ({ ...obj, metadata: undefined, status: undefined });

export class FakeApiServer implements Transport {
  /** `VERB <resource>[/<subresource>] <namespace>/<name>` for every write, in order. */
  readonly writes: string[] = [];
  /** Bodies of the writes, in the same order. */
  readonly writeBodies: unknown[] = [];
  private readonly tables = new Map<string, Map<string, Stored>>();
  private readonly watchers = new Set<Watcher>();
  private readonly observers = new Set<ChangeObserver>();
  private held: Array<() => void> | undefined;
  private inFlight = 0;
  private version = 1;
  private names = 0;
  /** The time stamped on creations and deletions, and TokenRequest expirations are counted from. */
  now = (): number => Date.parse("2026-01-01T00:00:00Z");
  /** What GET /version answers. */
  gitVersion = "v1.34.4";
  /** API groups nobody serves (CDI's on a cluster without it): kube-apiserver's plain-text 404. */
  readonly unservedGroups = new Set<string>();
  /** Answer deletions with Success but keep the object (an apiserver that lags or refuses). */
  ignoreDeletes = false;
  private tokens = 0;

  private table(name: string): Map<string, Stored> {
    let table = this.tables.get(name);
    if (!table) this.tables.set(name, (table = new Map()));
    return table;
  }

  private key(namespace: string, name: string): string {
    return namespace ? `${namespace}/${name}` : name;
  }

  private stamp(): string {
    return new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
  }

  // Test helpers

  /** Registers a synchronous observer: a stand-in cache that must follow every write at once. */
  observe(observer: ChangeObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Puts an object in place as another party would (no write recorded); returns it as stored. */
  seed<T extends KubeObject>(table: string, obj: T): T {
    return this.store(table, structuredClone(obj) as Stored, true) as T;
  }

  get<T extends KubeObject>(table: string, namespace: string, name: string): T | undefined {
    const obj = this.table(table).get(this.key(namespace, name));
    return obj && (structuredClone(obj) as T);
  }

  list<T extends KubeObject>(table: string): T[] {
    return [...this.table(table).values()].map((obj) => structuredClone(obj) as T);
  }

  /** Changes an object as another component would (virt-handler, the kubelet): no write is recorded. */
  mutate<T extends KubeObject>(table: string, namespace: string, name: string, change: (obj: T) => void): T {
    const current = this.get<T>(table, namespace, name);
    if (!current) throw new Error(`${table} ${namespace}/${name} does not exist`);
    change(current);
    return this.store(table, current as Stored, false) as T;
  }

  /** Removes an object for good (a Pod whose containers ended after a graceful delete). */
  remove(table: string, namespace: string, name: string): void {
    const key = this.key(namespace, name);
    const obj = this.table(table).get(key);
    if (!obj) return;
    this.table(table).delete(key);
    this.tell(table, obj, undefined);
    this.notify(table, "DELETED", obj);
  }

  /** Queues watch events until `release()`: the informers' caches fall behind. */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const pending = this.held ?? [];
    this.held = undefined;
    for (const deliver of pending) this.deliverLater(deliver);
  }

  takeWrites(): string[] {
    this.writeBodies.splice(0);
    return this.writes.splice(0);
  }

  // Transport

  async request(req: RestRequest): Promise<unknown> {
    if (req.path === "/version") return { major: "1", minor: "34", gitVersion: this.gitVersion };
    const group = /^\/apis\/([^/]+)\//.exec(req.path)?.[1];
    if (group && this.unservedGroups.has(group)) {
      throw ApiError.fromResponse(404, "404 page not found", `${req.method} ${req.path}`);
    }
    const address = parsePath(req.path);
    switch (req.method) {
      case "GET":
        return address.name
          ? this.getOne(address)
          : this.listAll(address, str(req.query?.["labelSelector"]), str(req.query?.["fieldSelector"]));
      case "POST":
        if (address.subresource === "token") return this.requestToken(address, req.body);
        return this.create(address, req.body);
      case "PUT":
        return this.update(address, req.body);
      case "PATCH":
        return this.patch(address, req.contentType ?? "", req.body);
      case "DELETE":
        return this.delete(address, req.query?.["gracePeriodSeconds"] === 0, req.body);
    }
  }

  async stream(req: StreamRequest, onLine: (value: unknown) => void): Promise<void> {
    const address = parsePath(req.path);
    const watcher: Watcher = {
      table: address.table,
      namespace: address.namespace,
      selector: str(req.query?.["labelSelector"]),
      fieldSelector: str(req.query?.["fieldSelector"]),
      send: onLine,
    };
    this.watchers.add(watcher);
    await new Promise<void>((resolve) => {
      if (req.signal?.aborted) return resolve();
      req.signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    this.watchers.delete(watcher);
  }

  /** Resolves once some informer watches the table. */
  async untilWatching(table: string): Promise<void> {
    while (![...this.watchers].some((watcher) => watcher.table === table)) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  private notFound(address: Address): ApiError {
    return new ApiError(404, "NotFound", `${address.table.split("/")[1]} "${address.name ?? ""}" not found`);
  }

  private getOne(address: Address): Stored {
    const obj = this.table(address.table).get(this.key(address.namespace, address.name ?? ""));
    if (!obj) throw this.notFound(address);
    return structuredClone(obj);
  }

  private listAll(address: Address, selector?: string, fieldSelector?: string): unknown {
    const items = [...this.table(address.table).values()].filter(
      (obj) =>
        (!address.namespace || obj.metadata?.namespace === address.namespace) &&
        selects(selector, obj) &&
        selectsFields(fieldSelector, obj),
    );
    return { metadata: { resourceVersion: String(this.version) }, items: structuredClone(items) };
  }

  private record(verb: string, address: Address, namespace: string, name: string, body: unknown): void {
    const resource = address.table.split("/")[1] ?? "";
    const target = address.subresource ? `${resource}/${address.subresource}` : resource;
    this.writes.push(`${verb} ${target} ${this.key(namespace, name)}`);
    this.writeBodies.push(structuredClone(body));
  }

  private create(address: Address, body: unknown): Stored {
    const obj = structuredClone(body) as Stored;
    const metadata = (obj.metadata ??= {});
    metadata.namespace ??= address.namespace || undefined;
    if (!metadata.name && metadata.generateName)
      metadata.name = `${metadata.generateName}${(++this.names).toString(36).padStart(5, "x")}`;
    const key = this.key(metadata.namespace ?? "", metadata.name ?? "");
    if (this.table(address.table).has(key)) {
      throw new ApiError(
        409,
        "AlreadyExists",
        `${address.table.split("/")[1]} "${metadata.name}" already exists`,
      );
    }
    this.record("create", address, metadata.namespace ?? "", metadata.name ?? "", body);
    return this.store(address.table, obj, true);
  }

  private update(address: Address, body: unknown): Stored {
    const incoming = structuredClone(body) as Stored;
    const current = this.getOne(address);
    const sent = incoming.metadata?.resourceVersion;
    if (sent && sent !== current.metadata?.resourceVersion) {
      throw new ApiError(
        409,
        "Conflict",
        "the object has been modified; please apply your changes to the latest version and try again",
      );
    }
    this.record("update", address, address.namespace, address.name ?? "", body);
    return this.store(address.table, this.merged(address, current, incoming), false);
  }

  /** What a write may change: only status through /status; everything but status where /status exists. */
  private merged(address: Address, current: Stored, incoming: Stored): Stored {
    if (address.subresource === "status") return { ...current, status: incoming.status };
    if (StatusSubresource.has(address.table)) return { ...incoming, status: current.status };
    return incoming;
  }

  private patch(address: Address, contentType: string, body: unknown): Stored {
    const current = this.getOne(address);
    let next: Stored;
    if (contentType.includes("json-patch")) {
      try {
        next = applyJsonPatch(current, body as JsonPatchOp[]);
      } catch (err) {
        const message =
          err instanceof JsonPatchTestFailed
            ? "the server rejected our request due to an error in our request"
            : String(err);
        throw new ApiError(422, "Invalid", message);
      }
    } else if (contentType.includes("strategic")) {
      next = strategicMerge(current as Json, body as Json) as Stored;
    } else {
      next = applyMergePatch(current, body) as Stored;
    }
    // A uid in the patch is a precondition, as the apiserver's update path checks it.
    const uid = next.metadata?.uid;
    if (uid !== current.metadata?.uid) {
      throw new ApiError(
        409,
        "Conflict",
        `Precondition failed: UID in precondition: ${uid ?? ""}, UID in object meta: ${current.metadata?.uid ?? ""}`,
      );
    }
    this.record("patch", address, address.namespace, address.name ?? "", body);
    return this.store(address.table, this.merged(address, current, next), false);
  }

  /**
   * Objects with finalizers, and Pods bound to a node (unless deleted with grace period 0), get a
   * deletionTimestamp; others go at once. A UID precondition that does not match is a Conflict.
   */
  private delete(address: Address, immediately: boolean, body: unknown): unknown {
    const current = this.getOne(address);
    const options = (body ?? {}) as { gracePeriodSeconds?: number; preconditions?: { uid?: string } };
    const uid = options.preconditions?.uid;
    if (uid !== undefined && uid !== current.metadata?.uid) {
      throw new ApiError(409, "Conflict", `Precondition failed: UID in precondition: ${uid}`);
    }
    this.record("delete", address, address.namespace, address.name ?? "", body);
    if (this.ignoreDeletes) return { kind: "Status", status: "Success" };
    const graceful =
      address.table === "/pods" &&
      !immediately &&
      options.gracePeriodSeconds !== 0 &&
      (current.spec as { nodeName?: string } | undefined)?.nodeName;
    if ((current.metadata?.finalizers?.length ?? 0) === 0 && !graceful) {
      this.remove(address.table, address.namespace, address.name ?? "");
      return { kind: "Status", status: "Success" };
    }
    if (!current.metadata?.deletionTimestamp) {
      const terminating: Stored = {
        ...current,
        metadata: { ...current.metadata, deletionTimestamp: this.stamp() },
      };
      if (address.table === "apiextensions.k8s.io/customresourcedefinitions") {
        // The apiserver removes the CRD's custom resources, then says so on the CRD.
        terminating.status = {
          ...(current.status as Record<string, unknown> | undefined),
          conditions: [{ type: "Terminating", status: "False", reason: "InstanceDeletionCompleted" }],
        };
      }
      this.store(address.table, terminating, false);
    }
    return { kind: "Status", status: "Success" };
  }

  /** A TokenRequest for a ServiceAccount: a fresh token valid for the requested seconds from now(). */
  private requestToken(address: Address, body: unknown): unknown {
    this.record("create", address, address.namespace, address.name ?? "", body);
    const spec = (body as { spec?: { expirationSeconds?: number } } | undefined)?.spec;
    const seconds = spec?.expirationSeconds ?? 3600;
    return {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec,
      status: {
        token: `token-${address.name ?? ""}-${++this.tokens}`,
        expirationTimestamp: new Date(this.now() + seconds * 1000).toISOString(),
      },
    };
  }

  /** Saves a version: bumps resourceVersion (and generation on spec changes); drops a finalized deletion. */
  private store(table: string, obj: Stored, created: boolean): Stored {
    const key = this.key(obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
    const before = this.table(table).get(key);
    const metadata = (obj.metadata ??= {});
    metadata.resourceVersion = String(++this.version);
    if (created || !before) {
      metadata.uid ??= `uid-${metadata.name ?? ""}-${this.version}`;
      metadata.creationTimestamp ??= this.stamp();
      metadata.generation ??= 1;
    } else {
      metadata.uid = before.metadata?.uid;
      metadata.creationTimestamp = before.metadata?.creationTimestamp;
      const specChanged = !isDeepStrictEqual(withoutStatus(before), withoutStatus(obj));
      metadata.generation = (before.metadata?.generation ?? 1) + (specChanged ? 1 : 0);
    }
    if (metadata.deletionTimestamp && (metadata.finalizers?.length ?? 0) === 0 && !(table === "/pods")) {
      this.remove(table, metadata.namespace ?? "", metadata.name ?? "");
      return structuredClone(obj);
    }
    this.table(table).set(key, obj);
    this.tell(table, before, obj);
    this.notify(table, before ? "MODIFIED" : "ADDED", obj);
    return structuredClone(obj);
  }

  private tell(table: string, before: Stored | undefined, after: Stored | undefined): void {
    for (const observer of this.observers) {
      observer(table, before && structuredClone(before), after && structuredClone(after));
    }
  }

  private notify(table: string, type: "ADDED" | "MODIFIED" | "DELETED", obj: Stored): void {
    const snapshot = structuredClone(obj);
    const deliver = () => {
      for (const watcher of this.watchers) {
        if (watcher.table !== table) continue;
        if (watcher.namespace && watcher.namespace !== snapshot.metadata?.namespace) continue;
        if (!selects(watcher.selector, snapshot)) continue;
        if (!selectsFields(watcher.fieldSelector, snapshot)) continue;
        watcher.send({ type, object: snapshot });
      }
    };
    if (this.held) this.held.push(deliver);
    else this.deliverLater(deliver);
  }

  /** Like a real watch, events arrive after the write's response, not during it. */
  private deliverLater(deliver: () => void): void {
    this.inFlight++;
    setImmediate(() => {
      this.inFlight--;
      deliver();
    });
  }

  /** Resolves once every event sent so far (and not held) has reached the informers. */
  async settle(): Promise<void> {
    while (this.inFlight > 0) await new Promise((resolve) => setImmediate(resolve));
  }
}
