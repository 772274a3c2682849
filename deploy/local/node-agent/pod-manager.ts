import { logAttempt, LogUnavailableError } from "./container-logs.js";
import { CONTAINER_ID_SCHEME } from "./container-record.js";
import { podRef } from "./container-request.js";
import { LogLookupError, type LogFile, type LogLocator } from "./kubelet-server.js";
import type { Logger } from "./logger.js";
import type { PodInformer } from "./pod-informer.js";
import type { ContainerProcess, ExitStatus, PodRef, PodRuntime, RecoveredContainer } from "./pod-runtime.js";
import type { PodStateStore } from "./pod-state-store.js";
import { PodWorker, type PodWorkerDeps } from "./pod-worker.js";
import { WorkQueue } from "./work-queue.js";

// The node's pods: one PodWorker per pod UID, synced through a de-duplicating work queue whenever the
// informer reports a change or a worker asks to be looked at again. On start it takes over what an
// earlier agent run left behind: pods that still exist are adopted with their running processes;
// everything else is stopped and removed.

/** How long leftovers of pods that no longer exist get to stop. */
const ORPHAN_GRACE_MS = 2000;

export type WorkerDeps = Omit<PodWorkerDeps, "enqueue">;

export class PodManager implements LogLocator {
  private readonly workers = new Map<string, PodWorker>();
  private readonly queue: WorkQueue;

  constructor(
    private readonly informer: PodInformer,
    private readonly runtime: PodRuntime,
    private readonly store: PodStateStore,
    private readonly deps: WorkerDeps,
    private readonly log: Logger,
    workers = 4,
  ) {
    this.queue = new WorkQueue((uid) => this.sync(uid), {
      workers,
      onError: (uid, err) => log.error({ err, uid }, "pod sync failed"),
    });
  }

  /** Queues a pod for syncing (the informer calls this for every change). */
  enqueue(uid: string, afterMs?: number): void {
    if (afterMs === undefined) this.queue.add(uid);
    else this.queue.addAfter(uid, afterMs);
  }

  private async sync(uid: string): Promise<{ requeueAfterMs?: number } | void> {
    const pod = this.informer.get(uid);
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
    return outcome.requeueAfterMs !== undefined ? { requeueAfterMs: outcome.requeueAfterMs } : undefined;
  }

  private newWorker(pod: NonNullable<ReturnType<PodInformer["get"]>>): PodWorker {
    const worker = new PodWorker(pod, {
      ...this.deps,
      enqueue: (uid, afterMs) => this.enqueue(uid, afterMs),
    });
    this.workers.set(pod.metadata.uid, worker);
    return worker;
  }

  /**
   * Adopts or cleans up what an earlier run left (call after informer.prime(), before syncing), then
   * queues every pod on the node.
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
      const pod = this.informer.get(state.uid);
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
      if (!this.informer.get(uid)) removed.add(uid);
    }
    for (const ref of leftPods) {
      if (handled.has(ref.uid) || this.informer.get(ref.uid)) continue;
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
    const pod = this.informer.findByName(namespace, name);
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
    const pod = this.informer.findByName(namespace, name);
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

  stop(): void {
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }
}
