import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import type { ResourceClient } from "../../pkg/controller/client.js";
import type { BurstState } from "./burst-state.js";

// The burst against the cluster: creations started on a fixed schedule, none waiting for another (an open
// loop, as upstream's sig-performance job creates its VMIs), and a list + watch of the burst's VMIs that
// keeps the state up to date. Both through one in-process client (the repository's own, over one kept-alive
// connection), as upstream's test drives client-go: a kubectl process per VMI would take a large part of
// two cores during the burst, and its discovery requests would count in the apiserver's figures.

/** Time as the burst keeps it: performance.now(), and a pause that an abort ends early. Tests give their own. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const REAL_CLOCK: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
};

/**
 * Starts `start(index)` for each index at `intervalMs` × index after the first, on that schedule whatever
 * the earlier ones do (a late timer starts the overdue ones at once); stops starting when `signal` aborts.
 * Resolves once every started one has settled, with how many were started.
 */
export async function paced(
  count: number,
  intervalMs: number,
  start: (index: number) => Promise<void>,
  signal: AbortSignal,
  clock: Clock = REAL_CLOCK,
): Promise<number> {
  const origin = clock.now();
  const started: Promise<void>[] = [];
  for (let index = 0; index < count && !signal.aborted; index++) {
    const wait = origin + index * intervalMs - clock.now();
    if (wait > 0) await clock.sleep(wait, signal);
    if (signal.aborted) break;
    started.push(start(index));
  }
  await Promise.allSettled(started);
  return started.length;
}

export interface BurstWatch {
  /** Ends when the signal given to watchBurst aborts. */
  stopped: Promise<void>;
}

/**
 * Lists the burst's VMIs into `state`, then watches them from that list's resourceVersion, listing again
 * whenever a watch ends; until `signal` aborts. Resolves once the first list is in (its failure rejects);
 * later failures are told to `warn` and retried after `retryMs`.
 */
export async function watchBurst(
  vmis: ResourceClient<VirtualMachineInstance>,
  namespace: string,
  selector: string,
  state: BurstState,
  signal: AbortSignal,
  warn: (message: string) => void,
  retryMs = 1_000,
): Promise<BurstWatch> {
  const list = async (): Promise<string | undefined> => {
    const listed = await vmis.list(namespace, { labelSelector: selector, signal });
    const at = performance.now();
    for (const vmi of listed.items) state.observe(vmi, at);
    return listed.metadata?.resourceVersion;
  };
  let resourceVersion = await list();
  const stopped = (async () => {
    while (!signal.aborted) {
      const local = new AbortController();
      try {
        await vmis.watch(
          namespace,
          {
            labelSelector: selector,
            ...(resourceVersion === undefined ? {} : { resourceVersion }),
            allowWatchBookmarks: true,
            signal: AbortSignal.any([signal, local.signal]),
          },
          (event) => {
            const at = performance.now();
            if (event.type === "ERROR") {
              warn(
                `the watch of the burst's VMIs answered ${event.error.code} ${event.error.message}; listing again`,
              );
              local.abort();
              return;
            }
            resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
            if (event.type === "ADDED" || event.type === "MODIFIED") state.observe(event.object, at);
            else if (event.type === "DELETED") state.deleted(event.object);
          },
        );
      } catch (error) {
        if (signal.aborted) return;
        warn(`the watch of the burst's VMIs failed: ${(error as Error).message}; listing again`);
        await REAL_CLOCK.sleep(retryMs, signal);
      }
      while (!signal.aborted) {
        try {
          resourceVersion = await list();
          break;
        } catch (error) {
          if (signal.aborted) return;
          warn(`listing the burst's VMIs failed: ${(error as Error).message}; trying again`);
          await REAL_CLOCK.sleep(retryMs, signal);
        }
      }
    }
  })();
  return { stopped };
}

export type BurstEnd = "done" | "timeout" | "interrupted";

/**
 * Waits until the state is done, `deadlineMs` (performance.now()) passes, or `signal` aborts; calls
 * `progress` every `progressMs`. The state is in memory: looking every 100 ms costs nothing and ends the
 * wait (the components' sampling and the apiserver's second reading) within 0.1 s of the last VMI running.
 */
export async function awaitBurst(
  state: BurstState,
  deadlineMs: number,
  signal: AbortSignal,
  progress: () => void,
  progressMs = 5_000,
  clock: Clock = REAL_CLOCK,
): Promise<BurstEnd> {
  let nextProgress = clock.now() + progressMs;
  for (;;) {
    if (state.done) return "done";
    if (signal.aborted) return "interrupted";
    const now = clock.now();
    if (now >= deadlineMs) return "timeout";
    if (now >= nextProgress) {
      progress();
      nextProgress += progressMs;
    }
    await clock.sleep(Math.min(100, deadlineMs - now), signal);
  }
}
