import { describe, expect, it } from "vitest";
import type { ProcessSample } from "../common/proc.js";
import type { ComponentPod } from "./pods.js";
import { Tracker, perPod } from "./tracker.js";

const api: ComponentPod = {
  component: "virt-api",
  name: "virt-api-1",
  uid: "u-api",
  node: "node01",
  leader: false,
};
const handler: ComponentPod = {
  component: "virt-handler",
  name: "virt-handler-a",
  uid: "u-handler",
  node: "node02",
  leader: false,
};

const sample = (
  pid: number,
  rssKiB: number,
  cpuTicks: number,
  extra: Partial<ProcessSample> = {},
): ProcessSample => ({
  pid,
  ppid: 1,
  comm: "node",
  argv: ["/usr/bin/node", "x.mjs"],
  rssKiB,
  pssKiB: rssKiB / 2,
  hwmKiB: rssKiB,
  startTicks: 100,
  cpuTicks,
  ...extra,
});

describe("tracker", () => {
  it("counts CPU from the first round, keeps the last and highest RSS and the last PSS", () => {
    const tracker = new Tracker();
    tracker.record(0, [{ pod: api, sample: sample(10, 80_000, 1000) }]);
    tracker.record(1000, [
      { pod: api, sample: sample(10, 90_000, 1030, { pssKiB: undefined, hwmKiB: 95_000 }) },
    ]);
    tracker.record(2000, [{ pod: api, sample: sample(10, 85_000, 1050, { hwmKiB: 95_000 }) }]);
    expect(tracker.elapsedMs).toBe(2000);
    expect(tracker.roundCount).toBe(3);
    expect(tracker.processes()).toEqual([
      expect.objectContaining({
        pid: 10,
        fromStart: true,
        toEnd: true,
        samples: 3,
        firstRssKiB: 80_000,
        lastRssKiB: 85_000,
        maxRssKiB: 90_000,
        lastPssKiB: 42_500,
        firstHwmKiB: 80_000,
        lastHwmKiB: 95_000,
        cpuTicks: 50,
      }),
    ]);
  });

  it("counts all the CPU of a process that started during the rounds, and tells a reused PID apart", () => {
    const tracker = new Tracker();
    tracker.record(0, [{ pod: handler, sample: sample(20, 50_000, 500) }]);
    tracker.record(1000, [
      { pod: handler, sample: sample(20, 50_000, 510) },
      { pod: handler, sample: sample(21, 3000, 7) },
    ]);
    // PID 20 ended and the kernel gave the PID to a new process.
    tracker.record(2000, [
      { pod: handler, sample: sample(21, 3000, 9) },
      { pod: handler, sample: sample(20, 1000, 2, { startTicks: 900 }) },
    ]);
    const byKey = tracker.processes().map((p) => [p.pid, p.fromStart, p.toEnd, p.cpuTicks]);
    expect(byKey).toEqual([
      [20, true, false, 10],
      [21, false, true, 9],
      [20, false, true, 2],
    ]);
    const [figures] = perPod([handler], tracker);
    expect(figures).toMatchObject({ lastRssKiB: 4000, maxRssKiB: 53_000, cpuTicks: 21 });
  });

  it("sums each pod's processes, says whether VmHWM rose, and n/a PSS when one is missing", () => {
    const tracker = new Tracker();
    tracker.record(0, [
      { pod: api, sample: sample(10, 80_000, 0) },
      { pod: handler, sample: sample(20, 40_000, 0) },
      { pod: handler, sample: sample(22, 2_000, 0, { pssKiB: undefined }) },
    ]);
    tracker.record(500, [
      { pod: api, sample: sample(10, 81_000, 25, { hwmKiB: 99_000 }) },
      { pod: handler, sample: sample(20, 40_000, 5) },
      { pod: handler, sample: sample(22, 2_000, 0, { pssKiB: undefined }) },
    ]);
    const [apiFigures, handlerFigures] = perPod([api, handler], tracker);
    expect(apiFigures).toMatchObject({
      lastRssKiB: 81_000,
      maxRssKiB: 81_000,
      lastPssKiB: 40_500,
      hwmKiB: 99_000,
      hwmRose: true,
      cpuTicks: 25,
    });
    expect(handlerFigures).toMatchObject({
      lastRssKiB: 42_000,
      lastPssKiB: undefined,
      hwmRose: false,
      cpuTicks: 5,
    });
    expect(handlerFigures!.processes.map((p) => p.pid)).toEqual([20, 22]);
  });
});
