import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../pkg/api/generated/v1.js";
import { BurstState, isPaused, notRunningWhy, serverTimes } from "./burst-state.js";

const stamp = (phase: string, second: number) => ({
  phase,
  phaseTransitionTimestamp: `2026-01-01T00:00:${String(second).padStart(2, "0")}Z`,
});

const vmi = (
  name: string,
  phase: string,
  stamps: ReturnType<typeof stamp>[] = [],
  conditions: object[] = [],
): VirtualMachineInstance =>
  ({
    metadata: { name, creationTimestamp: "2026-01-01T00:00:10Z" },
    spec: { domain: { devices: {} } },
    status: { phase, phaseTransitionTimestamps: stamps, conditions },
  }) as VirtualMachineInstance;

const PAUSED = { type: "Paused", status: "True", reason: "PausedByUser" };

describe("a VMI's own timestamps", () => {
  it("give seconds from its creation to its first Scheduled and Running", () => {
    const running = vmi("a", "Running", [
      stamp("Pending", 10),
      stamp("Scheduling", 11),
      stamp("Scheduled", 13),
      stamp("Running", 14),
      stamp("Scheduled", 30),
    ]);
    expect(serverTimes(running)).toEqual({ Scheduled: 3, Running: 4 });
    expect(serverTimes(vmi("b", "Scheduling", [stamp("Pending", 10), stamp("Scheduling", 12)]))).toEqual({});
    expect(
      serverTimes(
        vmi("c", "Running", [stamp("Running", 9), { phase: "Scheduled", phaseTransitionTimestamp: "soon" }]),
      ),
    ).toEqual({
      Running: -1,
    });
    const uncreated = vmi("d", "Running", [stamp("Running", 14)]);
    uncreated.metadata = { name: "d" };
    expect(serverTimes(uncreated)).toEqual({});
    expect(serverTimes({} as VirtualMachineInstance)).toEqual({});
  });

  it("tell a paused VMI and why one is not running", () => {
    expect(isPaused(vmi("a", "Running", [], [PAUSED]))).toBe(true);
    expect(isPaused(vmi("a", "Running", [], [{ ...PAUSED, status: "False" }]))).toBe(false);
    expect(isPaused(undefined)).toBe(false);
    const stuck = vmi(
      "b",
      "Scheduling",
      [],
      [
        { type: "Ready", status: "False", reason: "PodNotReady" },
        { type: "LiveMigratable", status: "False", reason: "DisksNotLiveMigratable" },
        {
          type: "PodScheduled",
          status: "False",
          reason: "Unschedulable",
          message: "0/2 nodes are available: 2 Insufficient memory.",
        },
      ],
    );
    expect(notRunningWhy(stuck)).toBe(
      "PodScheduled=False (Unschedulable: 0/2 nodes are available: 2 Insufficient memory.)",
    );
    expect(notRunningWhy(vmi("c", "Pending", [], [{ type: "Ready", status: "False" }]))).toBe("Ready=False");
    expect(notRunningWhy(vmi("d", "Pending"))).toBeUndefined();
    const long = vmi(
      "e",
      "Failed",
      [],
      [{ type: "Synchronized", status: "False", message: "x".repeat(500) }],
    );
    expect(notRunningWhy(long)!.length).toBeLessThanOrEqual(203);
  });
});

describe("the burst's state", () => {
  it("is done once every VMI is created and Running, or failed to be created, or ended", () => {
    const state = new BurstState(["a", "b", "c", "d"]);
    for (const [name, at] of [
      ["a", 0],
      ["b", 100],
      ["c", 200],
      ["d", 300],
    ] as const)
      state.sent(name, at);
    state.failed("d", "admission webhook denied the request");
    state.created("a", 40, vmi("a", "Pending"));
    state.created("b", 150, vmi("b", "Pending"));
    expect(state.done).toBe(false);
    state.observe(vmi("a", "Running", [stamp("Scheduled", 12), stamp("Running", 13)]), 2_500);
    state.observe(vmi("b", "Failed"), 3_000);
    expect(state.done).toBe(false);
    // The watch may show a VMI before its creation's answer comes back.
    state.observe(vmi("c", "Scheduled"), 1_200);
    state.created("c", 1_300, vmi("c", "Pending"));
    expect(state.progress()).toEqual({ sent: 4, created: 3, failed: 1, scheduled: 2, running: 1 });
    expect(state.done).toBe(false);
    state.observe(vmi("c", "Running", [], [PAUSED]), 4_200);
    expect(state.done).toBe(true);
    expect(state.observe(vmi("stranger", "Running"), 5_000)).toBe(false);
  });

  it("reports each VMI: server and watch times, the creation's time, paused or why it is not running", () => {
    const state = new BurstState(["a", "b", "c"]);
    state.sent("a", 1_000);
    state.created("a", 1_250, vmi("a", "Pending"));
    // Seen Running first: it was Scheduled by then too.
    state.observe(vmi("a", "Running", [stamp("Scheduled", 12), stamp("Running", 13)], [PAUSED]), 4_000);
    state.sent("b", 1_100);
    state.created("b", 1_200, vmi("b", "Pending"));
    state.observe(
      vmi("b", "Scheduling", [], [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }]),
      2_000,
    );
    state.sent("c", 1_200);
    state.failed("c", "the server is gone");
    expect(state.results()).toEqual([
      {
        name: "a",
        phase: "Running",
        server: { Scheduled: 2, Running: 3 },
        watch: { Scheduled: 3, Running: 3 },
        createS: 0.25,
        reachedRunning: true,
        paused: true,
      },
      {
        name: "b",
        phase: "Scheduling",
        server: {},
        watch: {},
        createS: 0.1,
        reachedRunning: false,
        paused: false,
        why: "PodScheduled=False (Unschedulable)",
      },
      {
        name: "c",
        createError: "the server is gone",
        server: {},
        watch: {},
        reachedRunning: false,
        paused: false,
      },
    ]);
  });

  it("counts a VMI whose timestamps say it ran as having reached Running, and names one deleted meanwhile", () => {
    const state = new BurstState(["a", "b"]);
    state.sent("a", 0);
    state.created("a", 10, vmi("a", "Pending"));
    state.observe(vmi("a", "Failed", [stamp("Running", 15), stamp("Failed", 20)]), 9_000);
    state.sent("b", 0);
    state.created("b", 10, vmi("b", "Pending"));
    state.deleted(vmi("b", "Scheduling"));
    expect(state.done).toBe(true);
    const [a, b] = state.results();
    expect(a).toMatchObject({ reachedRunning: true, phase: "Failed", server: { Running: 5 }, watch: {} });
    expect(b).toMatchObject({ reachedRunning: false, why: "deleted while the benchmark waited" });
  });
});
