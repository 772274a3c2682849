import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { computeVMIStatus, type VMIStatusInput } from "./vmi-status.js";

// upstream's vmi updateStatus, phase by phase, as a pure function.

const now = Date.parse("2026-01-01T00:00:00Z");
const finalizers = [
  "kubevirt.io/virtualMachineControllerFinalize",
  "kubevirt.io/foregroundDeleteVirtualMachine",
];

function vmi(phase: string, metadata: VirtualMachineInstance["metadata"] = {}): VirtualMachineInstance {
  return {
    metadata: { name: "vmi", namespace: "default", uid: "vmi-uid", finalizers, ...metadata },
    spec: {
      domain: { devices: {} },
      networks: [{ name: "default", pod: {} }],
      volumes: [{ name: "disk", emptyDisk: { capacity: "1Gi" } }],
    },
    status: { phase },
  };
}

function pod(status: Pod["status"] = {}, nodeName?: string): Pod {
  return {
    metadata: {
      name: "virt-launcher-vmi-abcde",
      namespace: "default",
      uid: "pod-uid",
      annotations: { "kubevirt.io/migrationTransportUnix": "true" },
    },
    spec: {
      containers: [{ name: "compute", image: "virt-launcher:new" }],
      ...(nodeName ? { nodeName } : {}),
    },
    status,
  };
}

const input = (partial: Partial<VMIStatusInput>): VMIStatusInput => ({
  vmi: vmi("Pending"),
  pod: undefined,
  ownedPods: [],
  attachmentPods: [],
  syncError: undefined,
  launcherImage: "virt-launcher:new",
  reportMemoryOverhead: false,
  hasOwnerVM: true,
  pvcs: () => undefined,
  now,
  ...partial,
});

describe("computeVMIStatus phases", () => {
  it.each<[string, Partial<VMIStatusInput>, string]>([
    ["no phase yet and no Pod: Pending", { vmi: vmi("") }, "Pending"],
    ["Pending with its new Pod: Scheduling", { pod: pod() }, "Scheduling"],
    ["deleted before it had a Pod: Failed", { vmi: vmi("Pending", { deletionTimestamp: "x" }) }, "Failed"],
    ["Scheduling whose Pod is gone: Failed", { vmi: vmi("Scheduling") }, "Failed"],
    [
      "Scheduling whose Pod failed: Failed",
      { vmi: vmi("Scheduling"), pod: pod({ phase: "Failed" }) },
      "Failed",
    ],
    [
      "Scheduling whose Pod is still pending: Scheduling",
      { vmi: vmi("Scheduling"), pod: pod({ phase: "Pending" }) },
      "Scheduling",
    ],
    [
      "Scheduling whose compute container runs: Scheduled",
      {
        vmi: vmi("Scheduling"),
        pod: pod(
          { phase: "Running", containerStatuses: [{ name: "compute", state: { running: {} } }] },
          "node02",
        ),
      },
      "Scheduled",
    ],
    [
      "a not-ready helper container keeps it Scheduling",
      {
        vmi: vmi("Scheduling"),
        pod: pod({
          phase: "Running",
          containerStatuses: [
            { name: "compute", state: { running: {} } },
            { name: "volumedisk", ready: false },
          ],
        }),
      },
      "Scheduling",
    ],
    ["Scheduled without Pod: Failed", { vmi: vmi("Scheduled") }, "Failed"],
    [
      "Running with its Pod stays Running (virt-handler's call)",
      { vmi: vmi("Running"), pod: pod({ phase: "Running" }) },
      "Running",
    ],
    ["Succeeded stays Succeeded", { vmi: vmi("Succeeded") }, "Succeeded"],
  ])("%s", (_name, partial, phase) => {
    expect(computeVMIStatus(input(partial)).vmi.status?.phase).toBe(phase);
  });
});

describe("computeVMIStatus bookkeeping", () => {
  it("hands over on the Pod's node, with the launcher image and the primary interface", () => {
    const ready = pod(
      { phase: "Running", containerStatuses: [{ name: "compute", state: { running: {} } }] },
      "node02",
    );
    const { vmi: next } = computeVMIStatus(input({ vmi: vmi("Scheduling"), pod: ready, ownedPods: [ready] }));
    expect(next.metadata?.labels).toEqual({ "kubevirt.io/nodeName": "node02" });
    expect(next.status).toMatchObject({
      nodeName: "node02",
      activePods: { "pod-uid": "node02" },
      launcherContainerImageVersion: "virt-launcher:new",
      migrationTransport: "Unix",
      interfaces: [{ name: "default", podInterfaceName: "eth0" }],
      volumeStatus: [{ name: "disk", target: "" }],
    });
  });

  it.each([
    ["reports", true, { memoryOverhead: "316Mi" }],
    ["leaves out", false, undefined],
  ])(
    "%s the Pod's memory overhead in status.memory as VmiMemoryOverheadReport is listed or not",
    (_verb, reportMemoryOverhead, memory) => {
      const launcher = pod({ phase: "Pending" });
      launcher.metadata.annotations = {
        ...launcher.metadata.annotations,
        "kubevirt.io/memory-overhead-bytes": String(316 * 1024 * 1024),
      };
      const { vmi: next } = computeVMIStatus(
        input({ vmi: vmi("Scheduling"), pod: launcher, reportMemoryOverhead }),
      );
      expect(next.status?.memory).toEqual(memory);
    },
  );

  it("labels a VMI whose Pod runs an older launcher image", () => {
    const { vmi: next } = computeVMIStatus(
      input({ vmi: vmi("Scheduling"), launcherImage: "virt-launcher:newer", pod: pod({ phase: "Pending" }) }),
    );
    expect(next.metadata?.labels).toEqual({ "kubevirt.io/outdatedLauncherImage": "" });
  });

  it("releases a final VMI once its Pods are gone", () => {
    const { vmi: next } = computeVMIStatus(input({ vmi: vmi("Failed") }));
    expect(next.metadata?.finalizers).toEqual(["kubevirt.io/virtualMachineControllerFinalize"]);
  });

  it("also drops the VM controller's finalizer when the VM is gone", () => {
    const { vmi: next } = computeVMIStatus(input({ vmi: vmi("Failed"), hasOwnerVM: false }));
    expect(next.metadata?.finalizers).toEqual([]);
  });

  it("holds a final VMI while a Pod is left", () => {
    const left = pod({ phase: "Running" });
    const { vmi: next } = computeVMIStatus(input({ vmi: vmi("Failed"), pod: left, ownedPods: [left] }));
    expect(next.metadata?.finalizers).toEqual(finalizers);
  });

  it("replaces the deprecated finalizer with the qualified one", () => {
    const old = vmi("Pending", { finalizers: ["foregroundDeleteVirtualMachine"] });
    expect(computeVMIStatus(input({ vmi: old })).vmi.metadata?.finalizers).toEqual([
      "kubevirt.io/foregroundDeleteVirtualMachine",
    ]);
  });

  it("stamps the first entry into a phase only once", () => {
    const { vmi: next } = computeVMIStatus(input({ pod: pod() }));
    expect(next.status?.phaseTransitionTimestamps).toEqual([
      { phase: "Scheduling", phaseTransitionTimestamp: "2026-01-01T00:00:00Z" },
    ]);
  });
});
