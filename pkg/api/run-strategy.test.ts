import { describe, expect, it } from "vitest";
import type { VirtualMachine } from "./generated/v1.js";
import { runStrategyOf } from "./run-strategy.js";

const template = { spec: { domain: { devices: {} } } };

describe("runStrategyOf", () => {
  it.each<[Partial<VirtualMachine["spec"]>, ReturnType<typeof runStrategyOf>]>([
    [{}, { ok: true, value: "Halted" }],
    [{ running: true }, { ok: true, value: "Always" }],
    [{ running: false }, { ok: true, value: "Halted" }],
    [{ runStrategy: "Manual" }, { ok: true, value: "Manual" }],
    [
      { running: true, runStrategy: "Always" },
      { ok: false, message: "running and runstrategy are mutually exclusive" },
    ],
  ])("%j → %j", (spec, expected) => {
    expect(runStrategyOf({ spec: { template, ...spec } })).toEqual(expected);
  });
});
