import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { ApiError } from "../../pkg/controller/api-error.js";
import type { ResourceClient, WatchEvent, WatchOptions } from "../../pkg/controller/client.js";
import { BurstState } from "./burst-state.js";
import { awaitBurst, paced, watchBurst, type Clock } from "./burst.js";

const vmi = (name: string, phase: string, resourceVersion = "1"): VirtualMachineInstance =>
  ({
    metadata: { name, resourceVersion },
    spec: { domain: { devices: {} } },
    status: { phase },
  }) as VirtualMachineInstance;

/** Virtual time: a sleep moves it on at once (a stall is `advance`), and the pauses are recorded. */
class FakeClock implements Clock {
  time = 0;
  readonly sleeps: number[] = [];
  now = (): number => this.time;
  sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.time += ms;
  };
  advance(ms: number): void {
    this.time += ms;
  }
}

describe("paced creation", () => {
  it("starts each on its schedule without waiting for the ones before", async () => {
    const clock = new FakeClock();
    const starts: number[] = [];
    const finishers: (() => void)[] = [];
    const done = paced(
      5,
      30,
      (index) => {
        starts.push(clock.now());
        // None finishes before all have started: an open loop does not wait for them.
        return new Promise<void>((resolve) => {
          finishers[index] = resolve;
          if (index === 4) for (const finish of finishers) finish();
        });
      },
      new AbortController().signal,
      clock,
    );
    expect(await done).toBe(5);
    expect(starts).toEqual([0, 30, 60, 90, 120]);
  });

  it("keeps to its schedule: after a stall it starts the overdue ones at once instead of drifting", async () => {
    const clock = new FakeClock();
    const starts: number[] = [];
    await paced(
      5,
      30,
      async (index) => {
        starts.push(clock.now());
        if (index === 0) clock.advance(100);
      },
      new AbortController().signal,
      clock,
    );
    expect(starts).toEqual([0, 100, 100, 100, 120]);
    expect(clock.sleeps).toEqual([20]);
  });

  it("starts all at once with no interval, and stops starting when aborted", async () => {
    const clock = new FakeClock();
    const all: number[] = [];
    const never = new AbortController().signal;
    expect(await paced(3, 0, async (index) => void all.push(index), never, clock)).toBe(3);
    expect(all).toEqual([0, 1, 2]);
    expect(clock.sleeps).toEqual([]);
    const stop = new AbortController();
    const some: number[] = [];
    const count = await paced(
      100,
      20,
      async (index) => {
        some.push(index);
        if (index === 2) stop.abort();
      },
      stop.signal,
      clock,
    );
    expect(count).toBe(3);
    expect(some).toEqual([0, 1, 2]);
  });
});

describe("waiting for the burst", () => {
  it("ends at the deadline, telling progress meanwhile", async () => {
    const clock = new FakeClock();
    const state = new BurstState(["a"]);
    state.sent("a", 0);
    state.created("a", 1, vmi("a", "Pending"));
    const told: number[] = [];
    const never = new AbortController().signal;
    expect(await awaitBurst(state, 1_050, never, () => told.push(clock.now()), 300, clock)).toBe("timeout");
    expect(told).toEqual([300, 600, 900]);
    expect(clock.sleeps.at(-1)).toBe(50);
  });

  it("ends as soon as the state is done, or when interrupted", async () => {
    const clock = new FakeClock();
    const state = new BurstState(["a"]);
    state.sent("a", 0);
    state.created("a", 1, vmi("a", "Pending"));
    const never = new AbortController().signal;
    const sleep = clock.sleep;
    clock.sleep = async (ms) => {
      await sleep(ms);
      if (clock.now() >= 500) state.observe(vmi("a", "Running"), clock.now());
    };
    expect(await awaitBurst(state, 10_000, never, () => undefined, 5_000, clock)).toBe("done");
    expect(clock.now()).toBe(500);
    const stop = new AbortController();
    stop.abort();
    expect(await awaitBurst(new BurstState(["b"]), 10_000, stop.signal, () => undefined, 5_000, clock)).toBe(
      "interrupted",
    );
  });
});

/** A ResourceClient's list and watch, answering from scripts. */
function fakeVmis(
  lists: VirtualMachineInstance[][],
  watches: ((emit: (e: WatchEvent<VirtualMachineInstance>) => void) => Promise<void>)[],
) {
  const calls: string[] = [];
  let listCount = 0;
  let watchCount = 0;
  const client = {
    list: async (_ns: string, opts: { labelSelector?: string }) => {
      const items = lists[Math.min(listCount, lists.length - 1)]!;
      calls.push(`list ${opts.labelSelector} -> rv ${listCount + 10}`);
      listCount++;
      return { metadata: { resourceVersion: String(listCount + 9) }, items };
    },
    watch: async (
      _ns: string,
      opts: WatchOptions,
      onEvent: (e: WatchEvent<VirtualMachineInstance>) => void,
    ) => {
      calls.push(`watch from ${opts.resourceVersion}`);
      const script = watches[watchCount++];
      if (!script) {
        // Nothing more to say: wait for the abort as a quiet watch does.
        await new Promise<void>((resolve) => opts.signal?.addEventListener("abort", () => resolve()));
        return;
      }
      await script(onEvent);
    },
  };
  return { client: client as unknown as ResourceClient<VirtualMachineInstance>, calls };
}

describe("watching the burst", () => {
  it("lists, watches from the list, and lists again when a watch ends or fails", async () => {
    const state = new BurstState(["a", "b", "c"]);
    const warnings: string[] = [];
    const { client, calls } = fakeVmis(
      [[vmi("a", "Pending")], [vmi("a", "Running", "30")]],
      [
        async (emit) => {
          emit({ type: "ADDED", object: vmi("b", "Pending", "21") });
          emit({ type: "MODIFIED", object: vmi("b", "Scheduled", "22") });
          emit({ type: "BOOKMARK", object: vmi("", "", "23") });
          emit({ type: "ERROR", error: new ApiError(410, "Expired", "too old resource version") });
        },
        async (emit) => {
          emit({ type: "DELETED", object: vmi("c", "Pending", "31") });
          throw new Error("watch connection closed early");
        },
      ],
    );
    const stop = new AbortController();
    const watch = await watchBurst(
      client,
      "ns",
      "kubevirt-ts.io/benchmark=vmi-burst",
      state,
      stop.signal,
      (w) => warnings.push(w),
      10,
    );
    // The third watch is quiet: it waits for the abort.
    for (let waited = 0; calls.length < 6 && waited < 10_000; waited += 10) await sleep(10);
    stop.abort();
    await watch.stopped;
    expect(calls).toEqual([
      "list kubevirt-ts.io/benchmark=vmi-burst -> rv 10",
      "watch from 10",
      "list kubevirt-ts.io/benchmark=vmi-burst -> rv 11",
      "watch from 11",
      "list kubevirt-ts.io/benchmark=vmi-burst -> rv 12",
      "watch from 12",
    ]);
    expect(warnings).toEqual([
      "the watch of the burst's VMIs answered 410 too old resource version; listing again",
      "the watch of the burst's VMIs failed: watch connection closed early; listing again",
    ]);
    expect(state.progress()).toMatchObject({ scheduled: 2, running: 1 });
    expect(state.results().find((r) => r.name === "c")).toMatchObject({
      why: "deleted while the benchmark waited",
    });
  });

  it("fails when the first list does", async () => {
    const client = {
      list: async () => {
        throw new ApiError(403, "Forbidden", "virtualmachineinstances is forbidden");
      },
    } as unknown as ResourceClient<VirtualMachineInstance>;
    await expect(
      watchBurst(client, "ns", "x=y", new BurstState([]), new AbortController().signal, () => undefined),
    ).rejects.toThrow(/forbidden/);
  });
});
