import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, isGone } from "../../../pkg/controller/api-error.js";
import type { KubeClient, WatchEvent } from "./kube-client.js";
import { podSchema, type Pod } from "./k8s-types.js";
import type { Logger } from "./logger.js";

// The pods bound to this node (fieldSelector spec.nodeName=<node>), kept current by list + watch:
// the watch resumes from the last resourceVersion, and a full relist follows an expired version or
// any watch failure. Every added, changed or removed pod is reported by UID.

const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 30_000;

export class PodInformer {
  private readonly pods = new Map<string, Pod>();
  private resourceVersion = "";

  constructor(
    private readonly client: KubeClient,
    private readonly nodeName: string,
    private readonly onChange: (uid: string) => void,
    private readonly log: Logger,
  ) {}

  get fieldSelector(): string {
    return `spec.nodeName=${this.nodeName}`;
  }

  get(uid: string): Pod | undefined {
    return this.pods.get(uid);
  }

  findByName(namespace: string, name: string): Pod | undefined {
    for (const pod of this.pods.values()) {
      if (pod.metadata.name === name && (pod.metadata.namespace ?? "default") === namespace) return pod;
    }
    return undefined;
  }

  list(): Pod[] {
    return [...this.pods.values()];
  }

  /** Lists once (the cache is filled when this resolves) without reporting changes. */
  async prime(): Promise<void> {
    const list = await this.client.listPods(this.fieldSelector);
    this.pods.clear();
    for (const pod of list.items) this.pods.set(pod.metadata.uid, pod);
    this.resourceVersion = list.resourceVersion;
  }

  private async relist(): Promise<void> {
    const before = new Set(this.pods.keys());
    await this.prime();
    for (const uid of before) if (!this.pods.has(uid)) this.onChange(uid);
    for (const uid of this.pods.keys()) this.onChange(uid);
  }

  private handle(event: WatchEvent): void {
    if (event.type === "BOOKMARK") {
      const rv = (event.object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
      if (rv) this.resourceVersion = rv;
      return;
    }
    if (event.type === "ERROR") throw ApiError.fromWatchStatus(event.object);
    const parsed = podSchema.safeParse(event.object);
    if (!parsed.success) {
      this.log.warn({ issues: parsed.error.issues.slice(0, 3) }, "ignoring a pod the agent cannot parse");
      return;
    }
    const pod = parsed.data;
    if (pod.metadata.resourceVersion) this.resourceVersion = pod.metadata.resourceVersion;
    if (event.type === "DELETED") this.pods.delete(pod.metadata.uid);
    else this.pods.set(pod.metadata.uid, pod);
    this.onChange(pod.metadata.uid);
  }

  /** Watches until the signal aborts; call after prime(). */
  async run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    let needRelist = false;
    while (!signal.aborted) {
      try {
        if (needRelist) await this.relist();
        needRelist = false;
        let failure: unknown;
        await this.client.watchPods(
          this.fieldSelector,
          this.resourceVersion,
          (event) => {
            if (failure) return;
            try {
              this.handle(event);
            } catch (err) {
              failure = err;
            }
          },
          signal,
        );
        if (failure) throw failure;
        failures = 0;
      } catch (err) {
        if (signal.aborted) return;
        needRelist = true;
        failures++;
        if (!isGone(err)) this.log.warn({ err }, "pod watch failed; relisting");
        const delay = Math.min(RETRY_BASE_MS * 2 ** (failures - 1), RETRY_MAX_MS);
        await sleep(delay, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
