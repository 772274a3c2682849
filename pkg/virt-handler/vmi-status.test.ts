import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { DomainObject } from "../virt-launcher/virtwrap/domain-object.js";
import { computeStatus, statusPatch } from "./vmi-status.js";

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
          alias: { name: "ua-default", userDefined: true },
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
    });
  });

  it("patches only what changed, guarded by the resourceVersion read", () => {
    const desired = computeStatus(vmi({ phase: "Scheduled" }), runningDomain, false);
    expect(statusPatch(vmi({ phase: "Scheduled" }), desired)).toEqual({
      metadata: { resourceVersion: "42" },
      status: { phase: "Running", interfaces: desired.interfaces },
    });
    expect(statusPatch(vmi({ phase: "Running", interfaces: desired.interfaces }), desired)).toBeUndefined();
  });

  it("fails a scheduled VMI whose launcher stopped answering before it had a domain", () => {
    const desired = computeStatus(vmi({ phase: "Scheduled" }), undefined, true);
    expect(statusPatch(vmi({ phase: "Scheduled" }), desired)).toEqual({
      metadata: { resourceVersion: "42" },
      status: { phase: "Failed" },
    });
  });
});
