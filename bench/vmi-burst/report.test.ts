import { describe, expect, it } from "vitest";
import type { VmiResult } from "./burst-state.js";
import {
  formatLatencies,
  formatNotRunning,
  formatPausedCheck,
  formatRequests,
  formatVerdict,
  percentiles,
} from "./report.js";

const ran = (
  name: string,
  scheduledS: number,
  runningS: number,
  extra: Partial<VmiResult> = {},
): VmiResult => ({
  name,
  phase: "Running",
  server: { Scheduled: scheduledS, Running: runningS },
  watch: { Scheduled: scheduledS + 0.25, Running: runningS + 0.5 },
  createS: 0.05,
  reachedRunning: true,
  paused: true,
  ...extra,
});

/** 100 VMIs Running 1 ... 100 s after their creation, each Scheduled a second earlier. */
const hundred = Array.from({ length: 100 }, (_, index) => ran(`burst-${index + 1}`, index, index + 1));

describe("percentiles", () => {
  it("takes the nearest rank, whatever the order, and the max", () => {
    const values = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect(percentiles(values)).toEqual({ count: 100, p50: 50, p95: 95, max: 100 });
    expect(percentiles([3])).toEqual({ count: 1, p50: 3, p95: 3, max: 3 });
    expect(percentiles([2, 1])).toEqual({ count: 2, p50: 1, p95: 2, max: 2 });
    expect(percentiles([])).toBeUndefined();
  });
});

describe("vmi-burst report", () => {
  it("prints p50 / p95 / max of each latency, whole seconds for the API's timestamps", () => {
    const lines = formatLatencies(hundred);
    expect(lines[0]).toMatch(/^100 VMIs\s+COUNT\s+P50 s\s+P95 s\s+MAX s$/);
    expect(lines[2]).toMatch(/^create -> Scheduled, VMI timestamps\s+100\s+49\s+94\s+99$/);
    expect(lines[3]).toMatch(/^create -> Running, VMI timestamps\s+100\s+50\s+95\s+100$/);
    expect(lines[4]).toMatch(/^sent -> Scheduled, watch\s+100\s+49\.25\s+94\.25\s+99\.25$/);
    expect(lines[5]).toMatch(/^sent -> Running, watch\s+100\s+50\.50\s+95\.50\s+100\.50$/);
    expect(lines[6]).toMatch(/^sent -> POST answered\s+100\s+0\.050\s+0\.050\s+0\.050$/);
  });

  it("counts only the VMIs with a figure, and says n/a without any", () => {
    const lines = formatLatencies([
      ran("a", 2, 3),
      { name: "b", createError: "denied", server: {}, watch: {}, reachedRunning: false, paused: false },
    ]);
    expect(lines[0]).toMatch(/^2 VMIs/);
    expect(lines[3]).toMatch(/^create -> Running, VMI timestamps\s+1\s+3\s+3\s+3$/);
    expect(formatLatencies([])[3]).toMatch(/^create -> Running, VMI timestamps\s+0\s+n\/a\s+n\/a\s+n\/a$/);
  });

  it("compares the p95 with the target, and calls it unmet while any VMI did not run", () => {
    const fast = Array.from({ length: 100 }, (_, index) => ran(`v${index}`, 1, index < 95 ? 4 : 9));
    expect(formatVerdict(fast)[0]).toBe(
      "target (DESIGN.md): create -> Running p95 <= 5 s over a 100-VMI burst; here, 100 VMIs: " +
        "p95 4 s (VMI timestamps of 100 VMIs): within, 1 s to spare",
    );
    expect(formatVerdict(hundred)[0]).toMatch(/p95 95 s \(VMI timestamps of 100 VMIs\): over by 90 s$/);
    const stuck = [
      ...fast.slice(0, 99),
      { ...fast[99]!, reachedRunning: false, server: {}, phase: "Scheduling" },
    ];
    expect(formatVerdict(stuck)[0]).toMatch(
      /p95 4 s \(VMI timestamps of 99 VMIs\): not met: 1 of 100 VMIs did not reach Running$/,
    );
    expect(formatVerdict([])[0]).toMatch(/no p95: n\/a: no VMI has a Running timestamp$/);
    expect(formatVerdict(fast)[1]).toBe(
      "upstream (sig-performance, 100-VMI burst): create -> Running p50 ≈ 18 s, p95 ≈ 28 s",
    );
  });

  it("names every VMI that did not reach Running, with its phase and why", () => {
    const lines = formatNotRunning([
      ran("burst-0001", 1, 2),
      {
        name: "burst-0002",
        phase: "Scheduling",
        server: {},
        watch: {},
        reachedRunning: false,
        paused: false,
        why: "PodScheduled=False (Unschedulable)",
      },
      {
        name: "burst-0003",
        createError: "admission webhook denied",
        server: {},
        watch: {},
        reachedRunning: false,
        paused: false,
      },
      { name: "burst-0004", server: {}, watch: {}, reachedRunning: false, paused: false },
    ]);
    expect(lines[0]).toBe("3 of 4 VMIs did not reach Running:");
    expect(lines[1]).toMatch(/^VMI\s+PHASE\s+WHY$/);
    expect(lines[3]).toMatch(/^burst-0002\s+Scheduling\s+PodScheduled=False \(Unschedulable\)$/);
    expect(lines[4]).toMatch(/^burst-0003\s+\(not created\)\s+admission webhook denied$/);
    expect(lines[5]).toMatch(/^burst-0004\s+\(none seen\)\s+no condition says$/);
    expect(formatNotRunning(hundred)).toEqual([]);
  });

  it("checks the VMIs ran paused in the stand-in mode, and not with --boot", () => {
    expect(formatPausedCheck(hundred, false)).toBe(
      "100 of 100 VMIs that reached Running carry the Paused condition, as spec.startStrategy: Paused asks",
    );
    const mixed = [ran("a", 1, 2), ran("b", 1, 2, { paused: false })];
    expect(formatPausedCheck(mixed, false)).toMatch(/^1 of 2 .*: the others' guests booted/);
    expect(formatPausedCheck([ran("a", 1, 2, { paused: false })], true)).toBe(
      "0 of 1 VMIs that reached Running carry the Paused condition",
    );
    expect(formatPausedCheck(mixed, true)).toMatch(/with --boot none should/);
  });

  it("prints the apiserver's requests per verb and resource, per VMI, and their sum", () => {
    const lines = formatRequests(
      {
        rows: [
          { verb: "PATCH", resource: "pods/status", count: 250, notOk: 3 },
          { verb: "POST", resource: "virtualmachineinstances", count: 100, notOk: 0 },
          { verb: "GET", resource: "", count: 1, notOk: 0 },
        ],
        total: 351,
        totalNotOk: 3,
      },
      100,
    );
    expect(lines[0]).toMatch(/^VERB\s+RESOURCE\s+REQUESTS\s+PER VMI\s+NOT 2xx$/);
    expect(lines[2]).toMatch(/^PATCH\s+pods\/status\s+250\s+2\.50\s+3$/);
    expect(lines[3]).toMatch(/^POST\s+virtualmachineinstances\s+100\s+1\.00\s+0$/);
    expect(lines[4]).toMatch(/^GET\s+\(none\)\s+1\s+0\.01\s+0$/);
    expect(lines[5]).toMatch(/^-+/);
    expect(lines[6]).toMatch(/^all\s+351\s+3\.51\s+3$/);
    expect(formatRequests({ rows: [], total: 0, totalNotOk: 0 }, 0).at(-1)).toMatch(/^all\s+0\s+n\/a\s+0$/);
  });
});
