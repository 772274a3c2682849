import { describe, expect, it } from "vitest";
import { silentLogger, type Clock } from "../../controller/index.js";
import { Heartbeat, heartbeatPatch, type NodeMetadataPatch } from "./heartbeat.js";

const T0 = Date.parse("2026-11-30T12:00:00.123Z");

/** A clock whose sleeps advance time at once, aborting the run after a number of sleeps. */
function steppingClock(stopAfterSleeps: number, controller: AbortController) {
  let now = T0;
  const sleeps: number[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
      if (sleeps.length >= stopAfterSleeps) controller.abort();
    },
  };
  return { clock, sleeps };
}

function recorder(failures = 0) {
  const patches: { node: string; patch: NodeMetadataPatch }[] = [];
  let toFail = failures;
  const patchNode = async (node: string, patch: NodeMetadataPatch) => {
    if (toFail-- > 0) throw new Error("apiserver unavailable");
    patches.push({ node, patch });
  };
  return { patches, patchNode };
}

const q35 = { "machine-type.node.kubevirt.io/q35": "true" };

describe("heartbeat patch", () => {
  it.each([
    { schedulable: true, cpu: false, label: "true" },
    { schedulable: false, cpu: true, label: "false" },
  ])("schedulable=$schedulable cpuManager=$cpu", ({ schedulable, cpu, label }) => {
    expect(heartbeatPatch({ schedulable, nowMs: T0, cpuManagerEnabled: cpu, labellerLabels: q35 })).toEqual({
      metadata: {
        labels: {
          "kubevirt.io/schedulable": label,
          cpumanager: String(cpu),
          "kubevirt.io/cpumanager": String(cpu),
          "machine-type.node.kubevirt.io/q35": "true",
        },
        annotations: { "kubevirt.io/heartbeat": "2026-11-30T12:00:00Z" },
      },
    });
  });
});

describe("Heartbeat", () => {
  it("says unschedulable while devices are not ready, schedulable once they are", async () => {
    const { patches, patchNode } = recorder();
    let ready = false;
    const controller = new AbortController();
    const { clock } = steppingClock(100, controller);
    const heartbeat = new Heartbeat({
      host: "node01",
      patchNode,
      devicesReady: () => ready,
      labellerLabels: () => q35,
      clock,
      logger: silentLogger,
    });
    await heartbeat.beat();
    ready = true;
    await heartbeat.beat();
    expect(patches.map((p) => [p.node, p.patch.metadata.labels["kubevirt.io/schedulable"]])).toEqual([
      ["node01", "false"],
      ["node01", "true"],
    ]);
  });

  it("beats at the interval with jitter and labels the node unschedulable on shutdown", async () => {
    const { patches, patchNode } = recorder();
    const controller = new AbortController();
    const { clock, sleeps } = steppingClock(3, controller);
    const heartbeat = new Heartbeat({
      host: "node01",
      patchNode,
      devicesReady: () => true,
      labellerLabels: () => q35,
      clock,
      logger: silentLogger,
      random: () => 0.5,
    });
    await heartbeat.run(60_000, controller.signal);
    // 1 first beat + 3 beats between sleeps + the final unschedulable patch.
    expect(sleeps).toEqual([96_000, 96_000, 96_000]);
    const schedulable = patches.map((p) => p.patch.metadata.labels["kubevirt.io/schedulable"]);
    expect(schedulable).toEqual(["true", "true", "true", "true", "false"]);
    expect(patches[1]?.patch.metadata.annotations["kubevirt.io/heartbeat"]).toBe("2026-11-30T12:00:00Z");
    expect(patches[2]?.patch.metadata.annotations["kubevirt.io/heartbeat"]).toBe("2026-11-30T12:01:36Z");
  });

  it("waits for the device plugins before the regular beats", async () => {
    const { patches, patchNode } = recorder();
    const controller = new AbortController();
    const { clock, sleeps } = steppingClock(4, controller);
    let polls = 0;
    const heartbeat = new Heartbeat({
      host: "node01",
      patchNode,
      devicesReady: () => ++polls > 3,
      labellerLabels: () => ({}),
      clock,
      logger: silentLogger,
      random: () => 0,
    });
    await heartbeat.run(60_000, controller.signal);
    expect(sleeps.slice(0, 2)).toEqual([1_000, 1_000]);
    expect(patches.map((p) => p.patch.metadata.labels["kubevirt.io/schedulable"])).toEqual([
      "false",
      "true",
      "true",
      "false",
    ]);
  });

  it("retries the unschedulable label when the apiserver fails", async () => {
    const { patches, patchNode } = recorder(2);
    const controller = new AbortController();
    const { clock } = steppingClock(100, controller);
    const heartbeat = new Heartbeat({
      host: "node01",
      patchNode,
      devicesReady: () => true,
      labellerLabels: () => ({}),
      clock,
      logger: silentLogger,
    });
    await heartbeat.labelNodeUnschedulable();
    expect(patches).toHaveLength(1);
    expect(patches[0]?.patch.metadata.labels["kubevirt.io/schedulable"]).toBe("false");
  });
});
