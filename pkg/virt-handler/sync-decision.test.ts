import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { DomainObject } from "../virt-launcher/virtwrap/api/domain-object.js";
import { decideAction } from "./sync-decision.js";

const NOW = Date.parse("2026-11-30T12:00:00Z");

function vmi(phase: string, deleting = false): VirtualMachineInstance {
  return {
    metadata: {
      name: "testvmi",
      namespace: "default",
      ...(deleting ? { deletionTimestamp: "2026-11-30T11:59:00Z" } : {}),
    },
    spec: { domain: { devices: {} } },
    status: { phase },
  };
}

function domain(status: string, shutdownStartedSecondsAgo?: number): DomainObject {
  const gracePeriod =
    shutdownStartedSecondsAgo === undefined
      ? { deletionGracePeriodSeconds: 30 }
      : {
          deletionGracePeriodSeconds: 30,
          deletionTimestamp: new Date(NOW - shutdownStartedSecondsAgo * 1000).toISOString(),
        };
  return {
    objectMeta: { name: "default_testvmi", namespace: "default" },
    spec: { metadata: { kubeVirt: { uid: "u1", gracePeriod } } },
    status: { status, reason: "" },
  } as unknown as DomainObject;
}

describe("decideAction", () => {
  it.each([
    // situation, vmi, domain, launcher reachable, expected action
    ["scheduled VMI, launcher up", vmi("Scheduled"), undefined, true, "sync"],
    ["scheduled VMI, launcher not up yet", vmi("Scheduled"), undefined, false, "wait-for-launcher"],
    ["running VMI, domain running", vmi("Running"), domain("Running"), true, "sync"],
    ["pending VMI (not on this node yet)", vmi("Pending"), undefined, true, "none"],
    ["VMI deleted, domain running", undefined, domain("Running"), true, "shutdown"],
    ["VMI being deleted, domain running", vmi("Running", true), domain("Running"), true, "shutdown"],
    [
      "VMI being deleted, shutdown within grace",
      vmi("Running", true),
      domain("ShuttingDown", 10),
      true,
      "shutdown",
    ],
    ["VMI being deleted, grace period over", vmi("Running", true), domain("Running", 31), true, "kill"],
    ["VMI deleted, domain off", undefined, domain("Shutoff"), true, "none"],
    ["VMI deleted, launcher gone", undefined, domain("Running"), false, "none"],
    ["VMI Succeeded, domain off", vmi("Succeeded"), domain("Shutoff"), true, "none"],
    ["VMI Failed, domain still running", vmi("Failed"), domain("Running"), true, "shutdown"],
  ] as const)("%s → %s", (_situation, vmiIn, domainIn, reachable, expected) => {
    expect(
      decideAction({ vmi: vmiIn, domain: domainIn, launcherReachable: reachable, nowMs: NOW }).kind,
    ).toBe(expected);
  });
});
