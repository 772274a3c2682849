import { FakeApiServer } from "../../../pkg/controller/testing/fake-apiserver.js";
import type { KubeObject } from "../../../pkg/controller/object.js";
import { RestKubeClient } from "./kube-client.js";
import type { Pod } from "./k8s-types.js";
import { podSchema } from "./k8s-types.js";

// The agent's real client over pkg/controller's in-memory apiserver, with the helpers the agent's tests
// use: objects put in place as the scheduler or a user would, and the writes named as kubelet's calls.

export interface RecordedCall {
  verb: string;
  target: string;
  body?: unknown;
}

type Json = Record<string, unknown>;

/** `patch pods/status apps/web` as the tests name it: verb `patch-status`, target `pod/apps/web`. */
function asCall(write: string, body: unknown): RecordedCall {
  const [verb = "", resource = "", key = ""] = write.split(" ");
  const [plural = "", subresource] = resource.split("/");
  const kind = subresource === "token" ? "token" : plural.replace(/s$/, "");
  const named = subresource === "status" ? `${verb}-status` : verb;
  return { verb: named, target: `${kind}/${key}`, ...(body !== undefined ? { body } : {}) };
}

export class FakeKubeClient extends RestKubeClient {
  readonly api: FakeApiServer;

  constructor(api = new FakeApiServer()) {
    super(api);
    this.api = api;
    // Tokens and timestamps follow the wall clock, as the agent's own expiry checks do.
    api.now = Date.now;
  }

  /** The writes so far with `verb` (and `target`), oldest first. */
  writes(verb: string, target?: string): RecordedCall[] {
    return this.api.writes
      .map((write, i) => asCall(write, this.api.writeBodies[i]))
      .filter((c) => c.verb === verb && (target === undefined || c.target === target));
  }

  /** The time TokenRequest expirations are computed from. */
  set clock(now: () => number) {
    this.api.now = now;
  }

  set version(gitVersion: string) {
    this.api.gitVersion = gitVersion;
  }

  /** Pretend deletions succeed but keep the pod (a lagging or refusing apiserver). */
  set ignoreDeletes(ignore: boolean) {
    this.api.ignoreDeletes = ignore;
  }

  get events(): Json[] {
    return this.api.list<KubeObject>("/events") as Json[];
  }

  node(name: string): Json | undefined {
    return this.api.get<KubeObject>("/nodes", "", name) as Json | undefined;
  }

  lease(namespace: string, name: string): Json | undefined {
    return this.api.get<KubeObject>("coordination.k8s.io/leases", namespace, name) as Json | undefined;
  }

  pod(namespace: string, name: string): Json | undefined {
    return this.api.get<KubeObject>("/pods", namespace, name) as Json | undefined;
  }

  /** Stores a pod as the scheduler would have written it, and tells watchers. */
  putPod(pod: Json): Pod {
    return podSchema.parse(this.api.seed("/pods", pod as KubeObject));
  }

  putNode(node: Json): void {
    this.api.seed("/nodes", node as KubeObject);
  }

  putLease(lease: Json): void {
    this.api.seed("coordination.k8s.io/leases", lease as KubeObject);
  }

  addConfigMap(namespace: string, name: string, data: Record<string, string>): void {
    this.api.seed("/configmaps", { metadata: { name, namespace, uid: `cm-${name}` }, data } as KubeObject);
  }

  /** Stores a Secret; `data` is given in clear text and kept base64-encoded as the apiserver serves it. */
  addSecret(namespace: string, name: string, data: Record<string, string>): void {
    const encoded = Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
    );
    this.api.seed("/secrets", {
      metadata: { name, namespace, uid: `secret-${name}` },
      data: encoded,
    } as KubeObject);
  }

  /** Stores a PersistentVolumeClaim as the PV controller leaves it: Bound to `volumeName` when given. */
  addPersistentVolumeClaim(namespace: string, name: string, volumeName?: string): void {
    this.api.seed("/persistentvolumeclaims", {
      metadata: { name, namespace, uid: `pvc-${name}` },
      spec: volumeName ? { volumeName } : {},
      status: { phase: volumeName ? "Bound" : "Pending" },
    } as KubeObject);
  }

  /** Stores a PersistentVolume with `spec` as given (its source, volumeMode, claimRef). */
  addPersistentVolume(name: string, spec: Json): void {
    this.api.seed("/persistentvolumes", { metadata: { name, uid: `pv-${name}` }, spec } as KubeObject);
  }
}
