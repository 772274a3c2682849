import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { SYNC_FAILED_REASON, computeStatus, statusPatch } from "./vmi-status.js";

const vmi = (status: VirtualMachineInstance["status"]): VirtualMachineInstance => ({
  metadata: { name: "testvmi", namespace: "default", resourceVersion: "42" },
  spec: { domain: { devices: {} } },
  status,
});

const runningDomain = {
  objectMeta: { name: "default_testvmi", namespace: "default" },
  spec: {
    devices: {
      interfaces: [
        {
          type: "ethernet",
          mac: { mac: "02:00:00:aa:bb:cc" },
          alias: { name: "default", userDefined: true },
        },
      ],
    },
  },
  status: {
    status: "Running",
    reason: "Unknown",
    interfaces: [{ mac: "02:00:00:AA:BB:CC", ip: "10.0.2.2", ips: ["10.0.2.2"], interfaceName: "eth0" }],
  },
} as unknown as DomainObject;

describe("VMI status from the launcher", () => {
  it("reports Running with the interface named by its alias and the address seen for its MAC", () => {
    expect(computeStatus(vmi({ phase: "Scheduled" }), runningDomain, false)).toEqual({
      phase: "Running",
      phaseTransitionTimestamps: [{ phase: "Running", phaseTransitionTimestamp: "1970-01-01T00:00:00Z" }],
      interfaces: [
        {
          name: "default",
          mac: "02:00:00:aa:bb:cc",
          ipAddress: "10.0.2.2",
          ipAddresses: ["10.0.2.2"],
          interfaceName: "eth0",
          infoSource: "domain",
        },
      ],
      conditions: [],
    });
  });

  it("reports the pod IPs the network setup cached and keeps the pod interface name", () => {
    const before = vmi({ phase: "Scheduled", interfaces: [{ name: "default", podInterfaceName: "eth0" }] });
    const podIPs = new Map([["default", { podIP: "10.244.2.7", podIPs: ["10.244.2.7"] }]]);
    expect(computeStatus(before, runningDomain, false, undefined, podIPs).interfaces).toEqual([
      {
        name: "default",
        podInterfaceName: "eth0",
        mac: "02:00:00:aa:bb:cc",
        ipAddress: "10.244.2.7",
        ipAddresses: ["10.244.2.7"],
        interfaceName: "eth0",
        infoSource: "domain",
      },
    ]);
  });

  it("patches only what changed, guarded by the resourceVersion read", () => {
    const desired = computeStatus(vmi({ phase: "Scheduled" }), runningDomain, false);
    expect(statusPatch(vmi({ phase: "Scheduled" }), desired)).toEqual({
      metadata: { resourceVersion: "42" },
      status: {
        phase: "Running",
        phaseTransitionTimestamps: desired.phaseTransitionTimestamps,
        interfaces: desired.interfaces,
      },
    });
    const written = vmi({
      phase: "Running",
      phaseTransitionTimestamps: desired.phaseTransitionTimestamps,
      interfaces: desired.interfaces,
    });
    expect(statusPatch(written, desired)).toBeUndefined();
  });

  it("fails a scheduled VMI whose launcher stopped answering before it had a domain", () => {
    const desired = computeStatus(vmi({ phase: "Scheduled" }), undefined, true);
    expect(statusPatch(vmi({ phase: "Scheduled" }), desired)).toEqual({
      metadata: { resourceVersion: "42" },
      status: {
        phase: "Failed",
        phaseTransitionTimestamps: [{ phase: "Failed", phaseTransitionTimestamp: "1970-01-01T00:00:00Z" }],
      },
    });
  });

  it("records the first entry into a phase only (upstream's SetVMIPhaseTransitionTimestamp)", () => {
    const scheduled = { phase: "Scheduled", phaseTransitionTimestamp: "2026-11-30T11:59:00Z" };
    const nowMs = Date.parse("2026-11-30T12:00:00Z");
    const running = computeStatus(
      vmi({ phase: "Scheduled", phaseTransitionTimestamps: [scheduled] }),
      runningDomain,
      false,
      undefined,
      new Map(),
      nowMs,
    );
    expect(running.phaseTransitionTimestamps).toEqual([
      scheduled,
      { phase: "Running", phaseTransitionTimestamp: "2026-11-30T12:00:00Z" },
    ]);
    const again = computeStatus(
      vmi({ phase: "Running", phaseTransitionTimestamps: running.phaseTransitionTimestamps }),
      runningDomain,
      false,
      undefined,
      new Map(),
      nowMs + 60_000,
    );
    expect(again.phaseTransitionTimestamps).toEqual(running.phaseTransitionTimestamps);
  });

  it("sets Synchronized=False with upstream's reason on a failed sync, keeping other conditions", () => {
    const ready = { type: "Ready", status: "False", reason: "GuestNotRunning" };
    const failure = {
      message: "failed to configure vmi network: boom",
      nowMs: Date.parse("2026-11-30T12:00:00Z"),
    };
    const desired = computeStatus(
      vmi({ phase: "Scheduled", conditions: [ready] }),
      undefined,
      false,
      failure,
    );
    expect(statusPatch(vmi({ phase: "Scheduled", conditions: [ready] }), desired)).toEqual({
      metadata: { resourceVersion: "42" },
      status: {
        conditions: [
          ready,
          {
            type: "Synchronized",
            status: "False",
            reason: SYNC_FAILED_REASON,
            message: "failed to configure vmi network: boom",
            lastTransitionTime: "2026-11-30T12:00:00Z",
          },
        ],
      },
    });
  });

  it("keeps the first failure's condition while the sync keeps failing, and drops it once it succeeds", () => {
    const failing = computeStatus(vmi({ phase: "Scheduled" }), undefined, false, {
      message: "one",
      nowMs: 0,
    });
    const failed = vmi({ phase: "Scheduled", conditions: failing.conditions });
    const again = computeStatus(failed, undefined, false, { message: "two", nowMs: 1_000 });
    expect(statusPatch(failed, again)).toBeUndefined();
    expect(statusPatch(failed, computeStatus(failed, undefined, false))).toEqual({
      metadata: { resourceVersion: "42" },
      status: { conditions: [] },
    });
  });
});

describe("the Paused condition follows the domain (upstream's updatePausedConditions)", () => {
  const NOW = Date.parse("2026-01-02T03:04:05Z");
  const pausedDomain = (reason: string) =>
    ({ ...runningDomain, status: { ...runningDomain.status, status: "Paused", reason } }) as DomainObject;
  const byUser = {
    type: "Paused",
    status: "True",
    lastProbeTime: "2026-01-02T03:04:05Z",
    lastTransitionTime: "2026-01-02T03:04:05Z",
    reason: "PausedByUser",
    message: "VMI was paused by user",
  };

  it("a domain paused by the user: Paused True, PausedByUser, and the phase stays Running", () => {
    const status = computeStatus(
      vmi({ phase: "Running" }),
      pausedDomain("User"),
      false,
      undefined,
      new Map(),
      NOW,
    );
    expect(status.phase).toBe("Running");
    expect(status.conditions).toEqual([byUser]);
  });

  it("an IO error pause has its own reason", () => {
    const status = computeStatus(
      vmi({ phase: "Running" }),
      pausedDomain("IOError"),
      false,
      undefined,
      new Map(),
      NOW,
    );
    expect(status.conditions).toMatchObject([
      { type: "Paused", reason: "PausedIOError", message: "VMI was paused, low-level IO error detected" },
    ]);
  });

  it("a condition already there keeps its times", () => {
    const earlier = { ...byUser, lastTransitionTime: "2025-01-01T00:00:00Z" };
    const status = computeStatus(
      vmi({ phase: "Running", conditions: [earlier] }),
      pausedDomain("User"),
      false,
      undefined,
      new Map(),
      NOW,
    );
    expect(status.conditions).toEqual([earlier]);
  });

  it("a pause for another reason (a migration, a snapshot) gets no condition", () => {
    const status = computeStatus(
      vmi({ phase: "Running" }),
      pausedDomain("Migration"),
      false,
      undefined,
      new Map(),
      NOW,
    );
    expect(status.conditions).toEqual([]);
  });

  it("once the domain runs again the condition goes, and the status patch says so", () => {
    const paused = vmi({ phase: "Running", conditions: [byUser] });
    const status = computeStatus(paused, runningDomain, false, undefined, new Map(), NOW);
    expect(status.conditions).toEqual([]);
    expect(statusPatch(paused, status)).toMatchObject({ status: { conditions: [] } });
  });
});

describe("status.fsFreezeStatus follows what the agent reports through the domain", () => {
  const reporting = (fsFreezeStatus: string) =>
    ({ ...runningDomain, status: { ...runningDomain.status, fsFreezeStatus } }) as DomainObject;

  it("a frozen guest is shown as frozen, and a thawed one clears the field with a merge patch null", () => {
    const running = vmi({ phase: "Running" });
    const frozen = computeStatus(running, reporting("frozen"), false);
    expect(frozen.fsFreezeStatus).toBe("frozen");
    expect(statusPatch(running, frozen)).toMatchObject({ status: { fsFreezeStatus: "frozen" } });
    const wasFrozen = vmi({ phase: "Running", fsFreezeStatus: "frozen" });
    const thawed = computeStatus(wasFrozen, reporting("thawed"), false);
    expect(thawed.fsFreezeStatus).toBeUndefined();
    expect(statusPatch(wasFrozen, thawed)).toMatchObject({ status: { fsFreezeStatus: null } });
  });

  it("a domain that reports nothing leaves the field alone", () => {
    const wasFrozen = vmi({ phase: "Running", fsFreezeStatus: "frozen" });
    const status = computeStatus(wasFrozen, runningDomain, false);
    expect(status.fsFreezeStatus).toBe("frozen");
    const patch = statusPatch(wasFrozen, status) as { status?: object } | undefined;
    expect(patch?.status ?? {}).not.toHaveProperty("fsFreezeStatus");
  });
});
