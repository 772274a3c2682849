import { describe, expect, it } from "vitest";
import { formatPhases, formatRuns, formatSummary, type RunResult } from "./report.js";

const run = (n: number, overrides: Partial<RunResult> = {}): RunResult => ({
  run: n,
  migration: `kubevirt-migrate-vm-${n}`,
  sourceNode: n % 2 ? "node01" : "node02",
  targetNode: n % 2 ? "node02" : "node01",
  startToEndS: 3 + n,
  wallS: 4.5 + n,
  pollS: 0.125,
  virtctlS: 0.75,
  phases: [
    { phase: "Pending", seconds: 0 },
    { phase: "Running", seconds: 2 },
    { phase: "Succeeded", seconds: 3 + n },
  ],
  downtimeS: 0.1 * n,
  consoleRttS: 0.25,
  ...overrides,
});

describe("report", () => {
  it("prints a row per run, seconds to the ms but the API's whole ones", () => {
    const text = formatRuns([run(1), run(2, { startToEndS: undefined })]).join("\n");
    expect(text).toMatch(
      /^RUN\s+MIGRATION\s+NODES\s+START->END s\s+WALL s\s+POLL s\s+VIRTCTL s\s+DOWNTIME s\s+± CONSOLE s$/m,
    );
    expect(text).toMatch(
      /^1\s+kubevirt-migrate-vm-1\s+node01 -> node02\s+4\s+5\.500\s+0\.125\s+0\.750\s+0\.100\s+0\.250$/m,
    );
    expect(text).toMatch(
      /^2\s+kubevirt-migrate-vm-2\s+node02 -> node01\s+n\/a\s+6\.500\s+0\.125\s+0\.750\s+0\.200\s+0\.250$/m,
    );
  });

  it("prints every phase any run went through, in phase order, n/a where a run skipped it", () => {
    const lines = formatPhases([
      run(1, {
        phases: [
          { phase: "Succeeded", seconds: 5 },
          { phase: "Scheduling", seconds: 1 },
        ],
      }),
      run(2),
    ]);
    expect(lines[0]).toMatch(/^RUN\s+Pending\s+Scheduling\s+Running\s+Succeeded$/);
    expect(lines[2]).toMatch(/^1\s+n\/a\s+1\s+n\/a\s+5$/);
    expect(lines[3]).toMatch(/^2\s+0\s+n\/a\s+2\s+5$/);
  });

  it("sums up min / median / max next to the targets", () => {
    const text = formatSummary([run(1), run(2), run(3, { startToEndS: undefined })]).join("\n");
    expect(text).toMatch(/^3 runs\s+MIN\s+MEDIAN\s+MAX\s+TARGET$/m);
    // The run without timestamps is left out of that row only.
    expect(text).toMatch(/^completion, start->end s\s+4\.0\s+4\.5\s+5\.0\s+<= 10$/m);
    expect(text).toMatch(/^completion, wall s\s+5\.500\s+6\.500\s+7\.500\s+<= 10$/m);
    expect(text).toMatch(/^guest downtime s\s+0\.100\s+0\.200\s+0\.300\s+<= 1$/m);
    expect(text).toMatch(/^± console round trip s\s+0\.250\s+0\.250\s+0\.250$/m);
  });

  it("says n/a rather than inventing figures without runs", () => {
    expect(formatSummary([]).join("\n")).toMatch(/^guest downtime s\s+n\/a\s+n\/a\s+n\/a\s+<= 1$/m);
  });
});
