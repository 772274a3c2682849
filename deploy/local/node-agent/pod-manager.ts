import { logAttempt, LogUnavailableError } from "./container-logs.js";
import { CONTAINER_ID_SCHEME } from "./container-record.js";
import { podRef } from "./container-request.js";
import { LogLookupError, type LogFile, type LogLocator } from "./kubelet-server.js";
import type { Logger } from "./logger.js";
import { podByUID, type PodInformer } from "./pod-source.js";
import type { ContainerProcess, ExitStatus, PodRef, PodRuntime, RecoveredContainer } from "./pod-runtime.js";
import type { PodStateStore } from "./pod-state-store.js";
import { PodWorker, type PodWorkerDeps } from "./pod-worker.js";
import { ItemExponentialFailureRateLimiter } from "../../../pkg/controller/rate-limiter.js";
import { WorkQueue, type SyncResult } from "../../../pkg/controller/workqueue.js";
import type { Pod } from "./k8s-types.js";

// The node's pods: one PodWorker per pod UID, synced through pkg/controller's work queue whenever the
// informer reports a change or a worker asks to be looked at again. Keys wait in the queue until start():
// first adopt() takes over what an earlier agent run left behind (pods that still exist are adopted with
// their running processes; everything else is stopped and removed).

/** How long leftovers of pods that no longer exist get to stop. */
const ORPHAN_GRACE_MS = 2000;

export type WorkerDeps = Omit<PodWorkerDeps, "enqueue">;

export class PodManager implements LogLocator {
  private readonly workers = new Map<string, PodWorker>();
  private readonly queue: WorkQueue<string>;
  private stopped = false;

  constructor(
    private readonly informer: PodInformer,
    private readonly runtime: PodRuntime,
    private readonly store: PodStateStore,
    private readonly deps: WorkerDeps,
    private readonly log: Logger,
    private readonly workerCount = 4,
  ) {
    // A failed sync is retried after 1 s, doubling up to 30 s: a pod whose sync fails (an apiserver
    // write, a volume source not there yet) is looked at again soon, but never in a hot loop.
    this.queue = new WorkQueue<string>({
      name: "pods",
      rateLimiter: new ItemExponentialFailureRateLimiter(1000, 30_000),
      logger: log,
    });
    informer.addEventHandler({
      add: (pod) => this.enqueue(pod.metadata.uid),
      update: (old, pod) => {
        // The same name can come back as another pod (a new UID): both need a sync.
        if (old.metadata.uid !== pod.metadata.uid) this.enqueue(old.metadata.uid);
        this.enqueue(pod.metadata.uid);
      },
      delete: (pod) => this.enqueue(pod.metadata.uid),
    });
  }

  /** Starts the workers on what is queued (call after adopt()); they stop when the signal aborts. */
  start(signal: AbortSignal): void {
    void this.queue.run(this.workerCount, (uid) => this.sync(uid), signal);
  }

  /** Queues a pod for syncing (the informer calls this for every change). */
  enqueue(uid: string, afterMs?: number): void {
    if (afterMs === undefined) this.queue.add(uid);
    else this.queue.addAfter(uid, afterMs);
  }

  private async sync(uid: string): Promise<SyncResult> {
    if (this.stopped) return;
    const pod = podByUID(this.informer, uid);
    let worker = this.workers.get(uid);
    if (!worker) {
      if (!pod) return;
      worker = this.newWorker(pod);
    }
    const outcome = await worker.sync(pod);
    if (outcome.done) {
      this.workers.delete(uid);
      return;
    }
    return outcome.requeueAfterMs !== undefined ? { requeueAfter: outcome.requeueAfterMs } : undefined;
  }

  private newWorker(pod: Pod): PodWorker {
    const worker = new PodWorker(pod, {
      ...this.deps,
      enqueue: (uid, afterMs) => this.enqueue(uid, afterMs),
    });
    this.workers.set(pod.metadata.uid, worker);
    return worker;
  }

  /**
   * Adopts or cleans up what an earlier run left (call once the informer has synced, before start()),
   * then queues every pod on the node.
   */
  async adopt(): Promise<{ adopted: string[]; removed: string[] }> {
    const states = await this.store.loadAll((file, err) =>
      this.log.warn({ file, err }, "unreadable pod state"),
    );
    const recovered = await this.runtime.recoverContainers();
    const leftPods = await this.runtime.recoverPods();
    const byPod = new Map<string, RecoveredContainer[]>();
    for (const c of recovered) byPod.set(c.pod.uid, [...(byPod.get(c.pod.uid) ?? []), c]);

    const adopted: string[] = [];
    const removed = new Set<string>();
    const handled = new Set<string>();
    for (const state of states) {
      handled.add(state.uid);
      const pod = podByUID(this.informer, state.uid);
      const containers = byPod.get(state.uid) ?? [];
      if (pod) {
        const live = new Map<string, { id: string; process?: ContainerProcess; exit?: ExitStatus }>();
        for (const c of containers) {
          live.set(c.name, {
            id: c.id,
            ...(c.process ? { process: c.process } : {}),
            ...(c.exit ? { exit: c.exit } : {}),
          });
        }
        this.newWorker(pod).restore(state, live);
        adopted.push(state.uid);
      } else {
        await this.removeLeftovers(
          { uid: state.uid, namespace: state.namespace, name: state.name },
          containers,
        );
        await this.store.remove(state.uid);
        removed.add(state.uid);
      }
    }
    // Processes and pod directories without a record: stop and remove them; a pod that still exists
    // starts over.
    for (const [uid, containers] of byPod) {
      if (handled.has(uid)) continue;
      const first = containers[0];
      if (first) await this.removeLeftovers(first.pod, containers);
      handled.add(uid);
      if (!podByUID(this.informer, uid)) removed.add(uid);
    }
    for (const ref of leftPods) {
      if (handled.has(ref.uid) || podByUID(this.informer, ref.uid)) continue;
      await this.runtime.removePod(ref);
      removed.add(ref.uid);
    }
    for (const pod of this.informer.list()) this.enqueue(pod.metadata.uid);
    return { adopted, removed: [...removed] };
  }

  private async removeLeftovers(ref: PodRef, containers: RecoveredContainer[]): Promise<void> {
    this.log.info(
      { pod: `${ref.namespace}/${ref.name}`, uid: ref.uid },
      "cleaning up a pod that no longer exists",
    );
    await Promise.all(
      containers.filter((c) => c.process).map((c) => this.runtime.stopContainer(c.id, ORPHAN_GRACE_MS)),
    );
    await this.runtime.removePod(ref);
  }

  locate(namespace: string, name: string, container: string, previous: boolean): LogFile {
    const pod = this.informer.getByName(namespace, name);
    const worker = pod && this.workers.get(pod.metadata.uid);
    if (!pod || !worker) throw new LogLookupError(404, `pod "${name}" does not exist`);
    const record = worker.record(container);
    if (!record) throw new LogLookupError(404, `container "${container}" not found in pod "${name}"`);
    let attempt: number;
    try {
      attempt = logAttempt(record, previous, name);
    } catch (err) {
      if (err instanceof LogUnavailableError) throw new LogLookupError(400, err.message);
      throw err;
    }
    return {
      path: this.runtime.logPath(podRef(pod), container, attempt),
      isRunning: () => worker.record(container)?.running?.attempt === attempt,
    };
  }

  /**
   * The runtime id of a running container of a pod on this node (the first running one when no name is
   * given), for kubelet's exec, attach and port-forward; kubelet's statuses and messages when there is none.
   */
  runningContainer(namespace: string, name: string, container?: string): { id: string; podUID: string } {
    const pod = this.informer.getByName(namespace, name);
    const worker = pod && this.workers.get(pod.metadata.uid);
    if (!pod || !worker) throw new LogLookupError(404, "pod does not exist");
    const names = container !== undefined ? [container] : pod.spec.containers.map((c) => c.name);
    for (const candidate of names) {
      const running = worker.record(candidate)?.running;
      if (running)
        return { id: running.containerID.slice(CONTAINER_ID_SCHEME.length), podUID: pod.metadata.uid };
    }
    throw new LogLookupError(500, `container not found (${JSON.stringify(container ?? "")})`);
  }

  /** Stops syncing: what is still queued is dropped (the pods keep running for the next agent to adopt). */
  stop(): void {
    this.stopped = true;
    this.queue.shutDown();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}
