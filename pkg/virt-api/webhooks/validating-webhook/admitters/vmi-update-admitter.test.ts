// The VMI update admitter: the spec is immutable except for KubeVirt's own service accounts, reserved
// labels too, and virt-handler may only touch the VMIs of its node.
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import type { ValidationContext, ValidationRequest } from "./admission.js";
import { admitVMIUpdate, NodeNameExtraInfo } from "./vmi-update-admitter.js";
import { invalid, notSupported, validSpec } from "./testing.js";

const CONTROLLER = "system:serviceaccount:kubevirt:kubevirt-controller";
const HANDLER = "system:serviceaccount:kubevirt:kubevirt-handler";
const context: ValidationContext = {
  clusterConfig: clusterWith(),
  kubeVirtServiceAccounts: new Set([CONTROLLER, HANDLER]),
};

function vmi(change: (vmi: VirtualMachineInstance) => void = () => undefined): VirtualMachineInstance {
  const object: VirtualMachineInstance = {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: { name: "vmi", labels: { app: "web" } },
    spec: validSpec(),
    status: { nodeName: "node01" },
  };
  change(object);
  return object;
}

const update = (object: unknown, username: string, extra?: ValidationRequest["extra"]) =>
  admitVMIUpdate(
    { operation: "UPDATE", object, oldObject: vmi(), username, ...(extra ? { extra } : {}) },
    context,
  ).causes;

const newMemory = (v: VirtualMachineInstance) => {
  v.spec.domain.resources = { requests: { memory: "128Mi" } };
};

describe("VMI update admitter", () => {
  it("lets anyone update without touching the spec", () => {
    expect(
      update(
        vmi((v) => (v.metadata = { name: "vmi", labels: { app: "db" } })),
        "alice",
      ),
    ).toEqual([]);
  });

  it("refuses a spec change from a user", () => {
    expect(update(vmi(newMemory), "alice")).toEqual([
      notSupported(undefined, "update of VMI object is restricted"),
    ]);
  });

  it("accepts a spec change from KubeVirt's controller", () => {
    expect(update(vmi(newMemory), CONTROLLER)).toEqual([]);
  });

  it("treats absent and empty members alike (Go's semantic equality)", () => {
    expect(
      update(
        vmi((v) => (v.spec.tolerations = [])),
        "alice",
      ),
    ).toEqual([]);
  });

  it("refuses even KubeVirt changing maxSockets", () => {
    expect(
      update(
        vmi((v) => (v.spec.domain.cpu = { maxSockets: 8 })),
        CONTROLLER,
      ),
    ).toEqual([invalid(undefined, "CPU topology maxSockets changed")]);
  });

  it("refuses volume hotplug, which kubevirt-ts has not built yet", () => {
    const hotplugged = vmi((v) => v.spec.volumes?.push({ name: "extra", emptyDisk: { capacity: "1Gi" } }));
    expect(update(hotplugged, CONTROLLER)).toEqual([
      notSupported(
        "spec.volumes",
        "hotplugging volumes into a running VMI is not supported by kubevirt-ts yet",
      ),
    ]);
  });

  it("lets only KubeVirt change reserved labels", () => {
    const relabelled = vmi(
      (v) => (v.metadata = { name: "vmi", labels: { "kubevirt.io/nodeName": "node02" } }),
    );
    expect(update(relabelled, "alice")).toEqual([
      notSupported(
        undefined,
        "modification of the following reserved kubevirt.io/ labels on a VMI object is prohibited",
      ),
    ]);
    expect(update(relabelled, CONTROLLER)).toEqual([]);
  });

  describe("node restriction (a beta gate, on by default)", () => {
    it("lets virt-handler update the VMIs of its own node", () => {
      expect(update(vmi(), HANDLER, { [NodeNameExtraInfo]: ["node01"] })).toEqual([]);
    });

    it("refuses virt-handler on another node", () => {
      expect(update(vmi(), HANDLER, { [NodeNameExtraInfo]: ["node02"] })).toEqual([
        invalid(undefined, "Node restriction, virt-handler is only allowed to modify VMIs it owns"),
      ]);
    });

    it("refuses virt-handler without a node name", () => {
      expect(update(vmi(), HANDLER)).toEqual([
        invalid(undefined, "Node restriction failed, virt-handler service account is missing node name"),
      ]);
    });

    it("refuses virt-handler setting a migration target", () => {
      const targeted = vmi(
        (v) => (v.status = { nodeName: "node01", migrationState: { targetNode: "node02" } }),
      );
      expect(update(targeted, HANDLER, { [NodeNameExtraInfo]: ["node01"] })).toEqual([
        invalid(undefined, "Node restriction, virt-handler is not allowed to set target node"),
      ]);
    });
  });

  it("answers an undecodable stored object with paths under oldObject", () => {
    const causes = admitVMIUpdate(
      { operation: "UPDATE", object: vmi(), oldObject: { spec: 3 } },
      context,
    ).causes;
    expect(causes[0]?.field).toBe("oldObject.spec");
  });
});
