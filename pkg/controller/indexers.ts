import type { Selector } from "./label-selector.js";
import { controllerRefOf, keyOf, type KubeObject } from "./object.js";

// A thread-of-control-free port of client-go's cache.Indexer: objects keyed namespace/name, plus named
// indices (index value -> keys) kept up to date on every write, so lookups cost O(matching objects).

export type IndexFunc<T> = (obj: T) => readonly string[];
export type Indexers<T> = Record<string, IndexFunc<T>>;

export const NamespaceIndex = "namespace";
export const NodeIndex = "node";
export const ControllerUIDIndex = "controllerUID";

export const byNamespace: IndexFunc<KubeObject> = (obj) => [obj.metadata?.namespace ?? ""];

/** The UID of the controlling owner (the ownerReference with controller: true), if any. */
export const byControllerUID: IndexFunc<KubeObject> = (obj) => {
  const uid = controllerRefOf(obj)?.uid;
  return uid ? [uid] : [];
};

/** Index by the string at a path of fields, e.g. ["status", "nodeName"]; absent or empty values are not indexed. */
export function byField<T>(...path: readonly string[]): IndexFunc<T> {
  return (obj) => {
    let value: unknown = obj;
    for (const field of path) {
      if (typeof value !== "object" || value === null) return [];
      value = (value as Record<string, unknown>)[field];
    }
    return typeof value === "string" && value !== "" ? [value] : [];
  };
}

/** A VMI's node lives in status.nodeName; a Pod's in spec.nodeName. */
export const vmiByNode = byField<KubeObject>("status", "nodeName");
export const podByNode = byField<KubeObject>("spec", "nodeName");

type Index = Map<string, Set<string>>;

function addTo(index: Index, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, (keys = new Set()));
  keys.add(key);
}

function removeFrom(index: Index, value: string, key: string): void {
  const keys = index.get(value);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) index.delete(value);
}

const labelPair = (key: string, value: string): string => `${key}=${value}`;

export class IndexedStore<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers: Indexers<T>;
  private readonly indices = new Map<string, Index>();
  // Always maintained: "key=value" -> keys, and label key -> keys, for selector lookups.
  private readonly labelPairs: Index = new Map();
  private readonly labelKeys: Index = new Map();
  private readonly indexedValues = new Map<string, Array<[Index, string]>>();

  constructor(indexers: Indexers<T> = {}) {
    this.indexers = { [NamespaceIndex]: byNamespace, ...indexers };
    for (const name of Object.keys(this.indexers)) this.indices.set(name, new Map());
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  list(): T[] {
    return [...this.items.values()];
  }

  /** Inserts or replaces; returns the previous object under the same key. */
  upsert(obj: T): T | undefined {
    const key = keyOf(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key);
    this.items.set(key, obj);
    this.index(key, obj);
    return old;
  }

  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key);
    this.items.delete(key);
    return old;
  }

  indexNames(): string[] {
    return [...this.indices.keys()];
  }

  /** Keys whose index function yielded `value`; throws for an index that was never declared. */
  indexKeys(indexName: string, value: string): string[] {
    return [...(this.requireIndex(indexName).get(value) ?? [])];
  }

  byIndex(indexName: string, value: string): T[] {
    return this.resolve(this.requireIndex(indexName).get(value) ?? []);
  }

  /** Objects whose labels match, optionally within one namespace, starting from the narrowest index. */
  bySelector(selector: Selector, namespace?: string): T[] {
    if (selector.selectsNothing) return [];
    const candidates = this.narrowestCandidates(selector, namespace);
    return this.resolve(candidates).filter(
      (obj) =>
        (namespace === undefined || (obj.metadata?.namespace ?? "") === namespace) &&
        selector.matches(obj.metadata?.labels),
    );
  }

  private narrowestCandidates(selector: Selector, namespace: string | undefined): Iterable<string> {
    let best: Set<string> | undefined =
      namespace === undefined ? undefined : (this.indices.get(NamespaceIndex)?.get(namespace) ?? new Set());
    for (const req of selector.requirements) {
      let keys: Set<string> | undefined;
      if (req.operator === "=" || req.operator === "In") {
        keys = new Set(req.values.flatMap((v) => [...(this.labelPairs.get(labelPair(req.key, v)) ?? [])]));
      } else if (req.operator === "Exists") {
        keys = this.labelKeys.get(req.key) ?? new Set();
      }
      if (keys && (best === undefined || keys.size < best.size)) best = keys;
    }
    return best ?? this.items.keys();
  }

  private resolve(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const key of keys) {
      const obj = this.items.get(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  private requireIndex(indexName: string): Index {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`index "${indexName}" does not exist`);
    return index;
  }

  private index(key: string, obj: T): void {
    const entries: Array<[Index, string]> = [];
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.requireIndex(name);
      for (const value of fn(obj)) entries.push([index, value]);
    }
    for (const [k, v] of Object.entries(obj.metadata?.labels ?? {})) {
      entries.push([this.labelPairs, labelPair(k, v)], [this.labelKeys, k]);
    }
    for (const [index, value] of entries) addTo(index, value, key);
    this.indexedValues.set(key, entries);
  }

  // Removes what was recorded at insert time, so a caller mutating a cached object cannot corrupt indices.
  private unindex(key: string): void {
    for (const [index, value] of this.indexedValues.get(key) ?? []) removeFrom(index, value, key);
    this.indexedValues.delete(key);
  }
}
