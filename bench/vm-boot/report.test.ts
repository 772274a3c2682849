import { describe, expect, it } from "vitest";
import { formatRuns, formatSummary, formatVmTimeline, verdict, type RunResult } from "./report.js";

const run = (n: number, bareS: number, vmS: number, bareFirst = true): RunResult => ({
  run: n,
  bareFirst,
  bare: { promptS: bareS - 0.1, answerS: bareS, uptimeS: bareS - 2 },
  vm: {
    applyS: 0.3,
    connectedS: 6,
    promptS: vmS - 0.2,
    answerS: vmS,
    uptimeS: bareS - 1.5,
    phases: [
      { phase: "created", seconds: -0.2 },
      { phase: "Pending", seconds: 0.8 },
      { phase: "Running", seconds: 5.8 },
    ],
  },
});

describe("vm-boot report", () => {
  const runs = [run(1, 10, 20), run(2, 12, 17, false), run(3, 11, 18)];

  it("prints each run's boots in the order they ran", () => {
    const lines = formatRuns(runs);
    expect(lines[0]).toMatch(
      /^RUN\s+BOOT\s+APPLY s\s+CONNECTED s\s+PROMPT s\s+ANSWER s\s+GUEST UPTIME s\s+BEFORE GUEST s$/,
    );
    expect(lines[2]).toMatch(/^1\s+bare\s+9\.90\s+10\.00\s+8\.00\s+2\.00$/);
    expect(lines[3]).toMatch(/^1\s+VM\s+0\.30\s+6\.00\s+19\.80\s+20\.00\s+8\.50\s+11\.50$/);
    expect(lines[4]).toMatch(/^2\s+VM\s/);
    expect(lines[5]).toMatch(/^2\s+bare\s/);
  });

  it("prints the VM's way to its answer: the VMI's phases, the console's connection, the answer", () => {
    const lines = formatVmTimeline([
      runs[0]!,
      { ...runs[1]!, vm: { ...runs[1]!.vm, phases: [{ phase: "Failed", seconds: 3 }] } },
    ]);
    expect(lines[0]).toMatch(
      /^RUN\s+VMI CREATED\s+Pending\s+Scheduling\s+Scheduled\s+Running\s+Failed\s+CONNECTED\s+ANSWER$/,
    );
    expect(lines[2]).toMatch(/^1\s+-0\.2\s+0\.8\s+n\/a\s+n\/a\s+5\.8\s+n\/a\s+6\.0\s+20\.0$/);
    expect(lines[3]).toMatch(/^2\s+n\/a\s+n\/a\s+n\/a\s+n\/a\s+n\/a\s+3\.0\s+6\.0\s+17\.0$/);
  });

  it("compares the medians with 1.5 x bare + 2 s", () => {
    expect(verdict(runs)).toEqual({
      bareMedianS: 11,
      vmMedianS: 18,
      targetS: 18.5,
      ratio: 18 / 11,
      within: true,
    });
    expect(verdict([run(1, 10, 17.5)])).toMatchObject({ targetS: 17, within: false });
    expect(verdict([])).toBeUndefined();
  });

  it("sums up min / median / max and says by how much the target is met or missed", () => {
    const text = formatSummary(runs).join("\n");
    expect(text).toMatch(/^3 runs\s+MIN\s+MEDIAN\s+MAX$/m);
    expect(text).toMatch(/^bare QEMU, answer s\s+10\.00\s+11\.00\s+12\.00$/m);
    expect(text).toMatch(/^VM, answer s\s+17\.00\s+18\.00\s+20\.00$/m);
    expect(text).toMatch(/^VM \/ bare\s+1\.42\s+1\.64\s+2\.00$/m);
    expect(text).toMatch(
      /target: VM <= 1\.5 x bare \+ 2 s = 18\.50 s \(medians\); VM 18\.00 s, 1\.64 x bare: within, 0\.50 s to spare$/m,
    );
    expect(formatSummary([run(1, 10, 17.5)]).join("\n")).toMatch(/over by 0\.50 s$/m);
  });
});
