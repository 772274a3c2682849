import { describe, expect, it } from "vitest";
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineStatus,
} from "../../../api/generated/v1.js";
import { decideRunStrategyAction, type RunStrategyAction } from "./vm-run-strategy.js";

// upstream's syncRunStrategy, one row per (strategy, VMI, request) case.

const now = Date.parse("2026-01-01T00:00:00Z");
const template = { spec: { domain: { devices: {} } } };
const vm = (status: VirtualMachineStatus = {}): VirtualMachine => ({
  metadata: { name: "vm" },
  spec: { template },
  status,
});
const vmi = (phase: string, deleting = false): VirtualMachineInstance => ({
  metadata: {
    name: "vm",
    uid: "vmi-uid",
    ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
  },
  spec: { domain: { devices: {} } },
  status: { phase },
});
const stop = { stateChangeRequests: [{ action: "Stop", uid: "vmi-uid" }] };
const stopOther = { stateChangeRequests: [{ action: "Stop", uid: "another-uid" }] };
const start = { stateChangeRequests: [{ action: "Start" }] };

describe("decideRunStrategyAction", () => {
  it.each<[string, string, VirtualMachineStatus, VirtualMachineInstance | undefined, RunStrategyAction]>([
    ["Always starts a missing VMI", "Always", {}, undefined, { kind: "start" }],
    ["Always leaves a running VMI alone", "Always", {}, vmi("Running"), { kind: "none" }],
    ["Always stops a finished VMI (to start it again)", "Always", {}, vmi("Failed"), { kind: "stop" }],
    [
      "Always stops on a stop request for this VMI (restart)",
      "Always",
      stop,
      vmi("Running"),
      { kind: "stop" },
    ],
    ["Always ignores a stop request for another VMI", "Always", stopOther, vmi("Running"), { kind: "none" }],
    [
      "Always waits out the start backoff",
      "Always",
      {
        startFailure: {
          consecutiveFailCount: 1,
          retryAfterTimestamp: "2026-01-01T00:00:30Z",
          lastFailedVMIUID: "x",
        },
      },
      undefined,
      { kind: "waitForBackoff", seconds: 30 },
    ],
    ["Halted stops any VMI", "Halted", {}, vmi("Running"), { kind: "stop" }],
    ["Halted without VMI does nothing", "Halted", {}, undefined, { kind: "none" }],
    [
      "Halted with a start request switches to Always",
      "Halted",
      start,
      undefined,
      { kind: "switchToAlways" },
    ],
    ["Manual does not start by itself", "Manual", {}, undefined, { kind: "none" }],
    ["Manual starts on a start request", "Manual", start, undefined, { kind: "start" }],
    ["Manual stops on a stop request", "Manual", stop, vmi("Running"), { kind: "stop" }],
    ["Manual leaves a finished VMI alone", "Manual", {}, vmi("Succeeded"), { kind: "none" }],
    [
      "RerunOnFailure restarts a failed VMI through a start request",
      "RerunOnFailure",
      {},
      vmi("Failed"),
      { kind: "stopAndRequestStart" },
    ],
    [
      "RerunOnFailure stops a succeeded VMI for good",
      "RerunOnFailure",
      {},
      vmi("Succeeded"),
      { kind: "stop" },
    ],
    [
      "RerunOnFailure leaves a VMI being deleted alone",
      "RerunOnFailure",
      {},
      vmi("Failed", true),
      { kind: "none" },
    ],
    [
      "RerunOnFailure starts when just switched to",
      "RerunOnFailure",
      { runStrategy: "Always" },
      undefined,
      { kind: "start" },
    ],
    [
      "RerunOnFailure does not restart after a success",
      "RerunOnFailure",
      { runStrategy: "RerunOnFailure" },
      undefined,
      { kind: "none" },
    ],
    [
      "RerunOnFailure stops on a stop request, without restarting",
      "RerunOnFailure",
      stop,
      vmi("Running"),
      { kind: "stop" },
    ],
    [
      "RerunOnFailure leaves a running VMI alone",
      "RerunOnFailure",
      { runStrategy: "RerunOnFailure" },
      vmi("Running"),
      { kind: "none" },
    ],
    [
      "RerunOnFailure waits out the start backoff before a requested start",
      "RerunOnFailure",
      {
        ...start,
        runStrategy: "RerunOnFailure",
        startFailure: { consecutiveFailCount: 2, retryAfterTimestamp: "2026-01-01T00:00:40Z" },
      },
      undefined,
      { kind: "waitForBackoff", seconds: 40 },
    ],
    [
      "Always starts once the backoff is over",
      "Always",
      { startFailure: { consecutiveFailCount: 2, retryAfterTimestamp: "2025-12-31T23:59:59Z" } },
      undefined,
      { kind: "start" },
    ],
    ["Manual ignores a stop request for another VMI", "Manual", stopOther, vmi("Running"), { kind: "none" }],
    ["Once starts once", "Once", {}, undefined, { kind: "start" }],
    ["Once leaves a succeeded VMI as it ended", "Once", {}, vmi("Succeeded"), { kind: "none" }],
    ["Once ignores a stop request", "Once", stop, vmi("Running"), { kind: "none" }],
    ["Once never restarts", "Once", {}, vmi("Failed"), { kind: "none" }],
    [
      "WaitAsReceiver is refused clearly",
      "WaitAsReceiver",
      {},
      undefined,
      { kind: "unsupported", message: "the WaitAsReceiver run strategy is not supported by kubevirt-ts yet" },
    ],
    [
      "an unknown strategy is an error",
      "Sometimes",
      {},
      undefined,
      { kind: "unsupported", message: "unknown runstrategy: Sometimes" },
    ],
  ])("%s", (_name, strategy, status, subject, expected) => {
    expect(decideRunStrategyAction(vm(status), subject, strategy, now)).toEqual(expected);
  });
});
