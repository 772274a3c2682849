// The VMI update admitter: the spec is immutable except for KubeVirt's own service accounts, reserved
// labels too, and virt-handler may only touch the VMIs of its node.
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import { toValidationResponse, type ValidationContext, type ValidationRequest } from "./admission.js";
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

const request = (
  object: unknown,
  username: string,
  extra?: ValidationRequest["extra"],
  oldObject: unknown = vmi(),
): ValidationRequest => ({ operation: "UPDATE", object, oldObject, username, ...(extra ? { extra } : {}) });

const update = (object: unknown, username: string, extra?: ValidationRequest["extra"]) =>
  admitVMIUpdate(request(object, username, extra), context).causes;

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

  describe("volume hotplug (upstream's storage hotplug rules)", () => {
    /** The VMI as it runs: its two volumes have a status, not a hotplug one. */
    const running = (change: (v: VirtualMachineInstance) => void = () => undefined) =>
      vmi((v) => {
        v.status = {
          nodeName: "node01",
          volumeStatus: [
            { name: "containerdisk", target: "vda" },
            { name: "cloudinitdisk", target: "vdb" },
          ],
        };
        change(v);
      });
    const plugged = (v: VirtualMachineInstance) => {
      v.spec.volumes?.push({
        name: "data",
        persistentVolumeClaim: { claimName: "data", hotpluggable: true },
      });
      v.spec.domain.devices.disks?.push({ name: "data", disk: { bus: "scsi" } });
    };
    const withPlugged = (v: VirtualMachineInstance) => {
      plugged(v);
      v.status?.volumeStatus?.push({
        name: "data",
        target: "sda",
        hotplugVolume: { attachPodName: "hp-pod" },
      });
    };
    const hotplug = (object: VirtualMachineInstance, old: VirtualMachineInstance, username = CONTROLLER) =>
      admitVMIUpdate(request(object, username, undefined, old), context).causes;

    it("admits a new claim with a scsi disk from KubeVirt", () => {
      expect(hotplug(running(plugged), running())).toEqual([]);
    });

    it("admits a new DataVolume with a virtio disk from KubeVirt", () => {
      const dataVolume = running((v) => {
        v.spec.volumes?.push({ name: "dv", dataVolume: { name: "dv", hotpluggable: true } });
        v.spec.domain.devices.disks?.push({ name: "dv", disk: { bus: "virtio" } });
      });
      expect(hotplug(dataVolume, running())).toEqual([]);
    });

    it("still refuses a user's hotplug", () => {
      expect(hotplug(running(plugged), running(), "alice")).toEqual([
        notSupported(undefined, "update of VMI object is restricted"),
      ]);
    });

    it("admits unplugging a hotplugged volume together with its disk", () => {
      expect(hotplug(running(), running(withPlugged))).toEqual([]);
    });

    it("refuses a new volume that is neither claim nor DataVolume", () => {
      const emptyDisk = running((v) => {
        v.spec.volumes?.push({ name: "extra", emptyDisk: { capacity: "1Gi" } });
        v.spec.domain.devices.disks?.push({ name: "extra", disk: { bus: "scsi" } });
      });
      expect(hotplug(emptyDisk, running())).toEqual([
        invalid(undefined, "volume extra is not a PVC or DataVolume"),
      ]);
    });

    it("refuses a new volume without a disk", () => {
      const diskless = running((v) =>
        v.spec.volumes?.push({ name: "data", persistentVolumeClaim: { claimName: "data" } }),
      );
      expect(hotplug(diskless, running())).toEqual([
        invalid(undefined, "mismatch between volumes declared (3) and required (2)"),
      ]);
    });

    it("refuses a new disk on sata, as a 422 naming the disk", () => {
      const sata = running((v) => {
        plugged(v);
        const disk = v.spec.domain.devices.disks?.at(-1);
        if (disk) disk.disk = { bus: "sata" };
      });
      const verdict = admitVMIUpdate(request(sata, CONTROLLER, undefined, running()), context);
      const message =
        "Hotplug configuration for disk [data] requires bus to be 'scsi' or 'virtio'. [sata] is not permitted.";
      expect(verdict.causes).toEqual([invalid(undefined, message)]);
      expect(toValidationResponse(verdict)).toEqual({
        allowed: false,
        result: { message, code: 422, reason: "Invalid", details: { causes: [invalid(undefined, message)] } },
      });
    });

    it("refuses removing a volume the VMI started with", () => {
      const removed = running((v) => {
        v.spec.volumes?.pop();
        v.spec.domain.devices.disks?.pop();
      });
      expect(hotplug(removed, running())).toEqual([
        invalid(undefined, "Number of permanent volumes has changed"),
      ]);
    });

    it("refuses changing a hotplugged disk", () => {
      const changed = running((v) => {
        withPlugged(v);
        const disk = v.spec.domain.devices.disks?.at(-1);
        if (disk) disk.disk = { bus: "virtio" };
      });
      expect(hotplug(changed, running(withPlugged))).toEqual([
        invalid(undefined, "hotplug disk data, changed"),
      ]);
    });

    it("refuses utility volumes while their gate is off", () => {
      const utility = running((v) => (v.spec.utilityVolumes = [{ name: "util", claimName: "util-claim" }]));
      expect(hotplug(utility, running())).toEqual([
        invalid("spec.utilityVolumes", "UtilityVolumes feature gate is not enabled"),
      ]);
    });
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

  it("lets virt-handler update any VMI while NodeRestriction is not listed (v1.8.4's default)", () => {
    expect(update(vmi(), HANDLER, { [NodeNameExtraInfo]: ["node02"] })).toEqual([]);
    expect(update(vmi(), HANDLER)).toEqual([]);
  });

  describe("node restriction (a Beta gate, listed)", () => {
    const restricted: ValidationContext = {
      ...context,
      clusterConfig: clusterWith({ developerConfiguration: { featureGates: ["NodeRestriction"] } }),
    };
    const update = (object: unknown, username: string, extra?: ValidationRequest["extra"]) =>
      admitVMIUpdate(request(object, username, extra), restricted).causes;

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
