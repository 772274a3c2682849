import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

// An open-loop load: request i is due at start + i / rate and is sent then, whether or not the earlier
// ones were answered, so a slow answer delays no later request (a closed loop, sending the next once the
// last came back, would slow down with the server and hide its slow answers). When the sender itself
// falls behind (its event loop busy), overdue requests go at once, and how late each went is recorded.

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

export const realClock: Clock = { now: () => performance.now(), sleep: (ms) => sleep(ms) };

export interface Sent<T> {
  index: number;
  /** When it was due, in ms since the load started. */
  dueMs: number;
  /** How late it went: sent at dueMs + lagMs. */
  lagMs: number;
  result: T;
}

export interface OpenLoopOptions<T> {
  rate: number;
  durationMs: number;
  /** Starts request `index` and answers its outcome; called on schedule, never awaited before the next. */
  send: (index: number) => Promise<T>;
  clock?: Clock;
}

/** How many requests `rate` per second for `durationMs` makes: the first at 0, none at durationMs. */
export const requestCount = (rate: number, durationMs: number): number =>
  Math.ceil((rate * durationMs) / 1000);

export async function openLoop<T>(options: OpenLoopOptions<T>): Promise<Sent<T>[]> {
  const clock = options.clock ?? realClock;
  const intervalMs = 1000 / options.rate;
  const total = requestCount(options.rate, options.durationMs);
  const start = clock.now();
  const pending: Promise<Sent<T>>[] = [];
  for (let index = 0; index < total;) {
    const now = clock.now() - start;
    // Everything due by now goes now.
    for (; index < total && index * intervalMs <= now; index++) {
      const dueMs = index * intervalMs;
      const lagMs = clock.now() - start - dueMs;
      const i = index;
      pending.push(options.send(i).then((result) => ({ index: i, dueMs, lagMs, result })));
    }
    if (index < total) await clock.sleep(Math.max(0, index * intervalMs - (clock.now() - start)));
  }
  return Promise.all(pending);
}
