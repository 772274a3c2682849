import { ApiError } from "../../../pkg/controller/api-error.js";
import type { KubeClient, PodList, WatchEvent } from "./kube-client.js";
import {
  configMapSchema,
  leaseSchema,
  nodeSchema,
  podSchema,
  secretSchema,
  type ConfigMap,
  type Lease,
  type Node,
  type Pod,
  type Secret,
  type TokenRequestResult,
} from "./k8s-types.js";

// An in-memory apiserver for unit tests: keeps objects, bumps resourceVersions, answers with the same
// errors a real server gives (NotFound, AlreadyExists, Conflict), and records every write for assertions.

export interface RecordedCall {
  verb: string;
  target: string;
  body?: unknown;
}

type Json = Record<string, unknown>;

/** Merges objects key by key and replaces arrays; close enough to a strategic merge for the tests' patches. */
export function mergePatch(target: Json, patch: Json): Json {
  const out: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    if (value === null) delete out[key];
    else if (isPlainObject(value) && isPlainObject(current)) out[key] = mergePatch(current, value);
    else out[key] = structuredClone(value);
  }
  return out;
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const notFound = (what: string): ApiError => new ApiError(404, "NotFound", `${what} not found`);

export class FakeKubeClient implements KubeClient {
  readonly calls: RecordedCall[] = [];
  readonly nodes = new Map<string, Json>();
  readonly leases = new Map<string, Json>();
  readonly pods = new Map<string, Json>();
  readonly configMaps = new Map<string, ConfigMap>();
  readonly secrets = new Map<string, Secret>();
  readonly events: Json[] = [];
  version = "v1.34.1";
  /** Pretend deletions succeed but keep the pod (a lagging or refusing apiserver). */
  ignoreDeletes = false;
  /** The time TokenRequest expirations are computed from. */
  clock: () => number = Date.now;
  private revision = 1;
  private tokenCounter = 0;
  private watchers: ((event: WatchEvent) => void)[] = [];

  private bump(obj: Json): Json {
    const metadata = (obj.metadata ?? {}) as Json;
    this.revision += 1;
    return { ...obj, metadata: { ...metadata, resourceVersion: String(this.revision) } };
  }

  private record(verb: string, target: string, body?: unknown): void {
    this.calls.push({ verb, target, ...(body !== undefined ? { body: structuredClone(body) } : {}) });
  }

  writes(verb: string, target?: string): RecordedCall[] {
    return this.calls.filter((c) => c.verb === verb && (target === undefined || c.target === target));
  }

  async serverVersion(): Promise<string> {
    return this.version;
  }

  async getNode(name: string): Promise<Node | undefined> {
    const node = this.nodes.get(name);
    return node ? nodeSchema.parse(node) : undefined;
  }

  async createNode(node: object): Promise<Node> {
    const name = String(((node as Json).metadata as Json).name);
    this.record("create", `node/${name}`, node);
    if (this.nodes.has(name)) throw new ApiError(409, "AlreadyExists", `nodes "${name}" already exists`);
    const stored = this.bump(
      mergePatch(node as Json, {
        metadata: { ...(node as { metadata: Json }).metadata, uid: `uid-${name}` },
      }),
    );
    this.nodes.set(name, stored);
    return nodeSchema.parse(stored);
  }

  async patchNode(name: string, patch: object): Promise<Node> {
    this.record("patch", `node/${name}`, patch);
    const node = this.nodes.get(name);
    if (!node) throw notFound(`nodes "${name}"`);
    const stored = this.bump(mergePatch(node, patch as Json));
    this.nodes.set(name, stored);
    return nodeSchema.parse(stored);
  }

  async patchNodeStatus(name: string, patch: object): Promise<Node> {
    this.record("patch-status", `node/${name}`, patch);
    const node = this.nodes.get(name);
    if (!node) throw notFound(`nodes "${name}"`);
    const stored = this.bump(mergePatch(node, { status: (patch as Json).status }));
    this.nodes.set(name, stored);
    return nodeSchema.parse(stored);
  }

  async getLease(namespace: string, name: string): Promise<Lease | undefined> {
    const lease = this.leases.get(`${namespace}/${name}`);
    return lease ? leaseSchema.parse(lease) : undefined;
  }

  async createLease(namespace: string, lease: object): Promise<Lease> {
    const name = String(((lease as Json).metadata as Json).name);
    this.record("create", `lease/${namespace}/${name}`, lease);
    if (this.leases.has(`${namespace}/${name}`)) throw new ApiError(409, "AlreadyExists", "lease exists");
    const stored = this.bump(mergePatch(lease as Json, { metadata: { uid: `lease-${name}` } }));
    this.leases.set(`${namespace}/${name}`, stored);
    return leaseSchema.parse(stored);
  }

  async replaceLease(namespace: string, name: string, lease: object): Promise<Lease> {
    this.record("update", `lease/${namespace}/${name}`, lease);
    const current = this.leases.get(`${namespace}/${name}`);
    if (!current) throw notFound(`leases "${name}"`);
    const wanted = ((lease as Json).metadata as Json).resourceVersion;
    if (wanted !== (current.metadata as Json).resourceVersion) {
      throw new ApiError(409, "Conflict", "the object has been modified");
    }
    const stored = this.bump(
      mergePatch(lease as Json, { metadata: { uid: (current.metadata as Json).uid } }),
    );
    this.leases.set(`${namespace}/${name}`, stored);
    return leaseSchema.parse(stored);
  }

  /** Stores a pod as the scheduler would have written it, and tells watchers. */
  putPod(pod: Json): Pod {
    const key = `${(pod.metadata as Json).namespace}/${(pod.metadata as Json).name}`;
    const existed = this.pods.has(key);
    const stored = this.bump(pod);
    this.pods.set(key, stored);
    this.emit({ type: existed ? "MODIFIED" : "ADDED", object: stored });
    return podSchema.parse(stored);
  }

  private emit(event: WatchEvent): void {
    for (const watcher of this.watchers) watcher(event);
  }

  async listPods(_fieldSelector: string): Promise<PodList> {
    return {
      items: [...this.pods.values()].map((p) => podSchema.parse(p)),
      resourceVersion: String(this.revision),
    };
  }

  watchPods(
    _fieldSelector: string,
    _resourceVersion: string,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    this.watchers.push(onEvent);
    return new Promise((resolve) => {
      signal.addEventListener(
        "abort",
        () => {
          this.watchers = this.watchers.filter((w) => w !== onEvent);
          resolve();
        },
        { once: true },
      );
    });
  }

  async getPod(namespace: string, name: string): Promise<Pod | undefined> {
    const pod = this.pods.get(`${namespace}/${name}`);
    return pod ? podSchema.parse(pod) : undefined;
  }

  async patchPodStatus(namespace: string, name: string, patch: object): Promise<Pod> {
    this.record("patch-status", `pod/${namespace}/${name}`, patch);
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw notFound(`pods "${name}"`);
    const stored = this.bump(mergePatch(pod, { status: (patch as Json).status }));
    this.pods.set(`${namespace}/${name}`, stored);
    this.emit({ type: "MODIFIED", object: stored });
    return podSchema.parse(stored);
  }

  async deletePodNow(namespace: string, name: string, uid: string): Promise<void> {
    this.record("delete", `pod/${namespace}/${name}`, { uid });
    if (this.ignoreDeletes) return;
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod || (pod.metadata as Json).uid !== uid) return;
    this.pods.delete(`${namespace}/${name}`);
    this.emit({ type: "DELETED", object: pod });
  }

  async getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
    const cm = this.configMaps.get(`${namespace}/${name}`);
    return cm ? configMapSchema.parse(cm) : undefined;
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    const secret = this.secrets.get(`${namespace}/${name}`);
    return secret ? secretSchema.parse(secret) : undefined;
  }

  addConfigMap(namespace: string, name: string, data: Record<string, string>): void {
    this.configMaps.set(`${namespace}/${name}`, { metadata: { name, namespace, uid: `cm-${name}` }, data });
  }

  /** Stores a Secret; `data` is given in clear text and kept base64-encoded as the apiserver serves it. */
  addSecret(namespace: string, name: string, data: Record<string, string>): void {
    const encoded = Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
    );
    this.secrets.set(`${namespace}/${name}`, {
      metadata: { name, namespace, uid: `secret-${name}` },
      data: encoded,
    });
  }

  async requestServiceAccountToken(
    namespace: string,
    serviceAccount: string,
    request: object,
  ): Promise<TokenRequestResult> {
    this.record("create", `token/${namespace}/${serviceAccount}`, request);
    this.tokenCounter += 1;
    const seconds = Number(((request as Json).spec as Json).expirationSeconds ?? 3600);
    return {
      status: {
        token: `token-${serviceAccount}-${this.tokenCounter}`,
        expirationTimestamp: new Date(this.clock() + seconds * 1000).toISOString(),
      },
    };
  }

  async createEvent(_namespace: string, event: object): Promise<void> {
    this.events.push(event as Json);
  }
}
